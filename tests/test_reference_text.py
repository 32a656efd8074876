"""The rule-of-thumb pool (R20) in plain words, and only where it tells something: it can
run the mix and costs differently from option 1. No rule numbers in the terminal or in the
workbook Summary."""

from __future__ import annotations

from dataclasses import replace

import openpyxl
import pytest
from test_report import CATALOG, ROOT, WORKLOADS, sample_plan

from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize.pipeline import plan
from solver.report.summary import render_plan_summary
from solver.report.wording import reference_name
from solver.report.workbook import write_workbook

JARGON = ("R8", "R14", "R18", "R20", "P1", "P2", "none applies", "Rule-of-thumb reference")


@pytest.fixture(scope="module")
def sample():
    return sample_plan()


def _plan(name: str):
    wf = load_workloads(ROOT / "workloads" / name)
    cat = load_catalog(CATALOG)
    return plan(wf, cat, top=1), wf, cat


def test_a_reference_that_cannot_run_the_mix_is_not_printed():
    """q3's reference servers cannot run its 13B and 70B jobs under its degree caps: the
    8 to 10 lines saying so (in rule numbers) are gone; --json's notes keep why."""
    result, wf, cat = _plan("q3.yaml")
    assert result.baseline is None and any("R20" in n for n in result.notes)
    text = render_plan_summary(result, cat, wf.name, wf=wf, width=80)
    assert not any(word in text for word in JARGON)
    assert "cannot run this mix" not in text and "rule of thumb" not in text


def test_a_reference_that_runs_the_mix_is_one_plain_sentence():
    result, wf, cat = _plan("deadlines.yaml")
    b = result.baseline
    assert b is not None and b.saving
    text = " ".join(render_plan_summary(result, cat, wf.name, wf=wf, width=80).split())
    assert (f"Bought by rule of thumb, {reference_name(b)}, the mix would cost "
            f"USD {b.total_cost:,.0f}: option 1 costs USD {b.saving:,.0f} "
            f"({b.saving_pct:.0%}) less.") in text
    assert reference_name(b).startswith(f"{b.servers} servers of ")
    assert not any(word in text for word in JARGON)


def test_a_reference_that_costs_the_same_tells_nothing(sample):
    result, wf, catalog = sample
    same = replace(result, baseline=replace(result.baseline, saving=0.0, saving_pct=0.0))
    assert "rule of thumb" not in render_plan_summary(same, catalog, "q3", wf=wf)
    assert "rule of thumb" in render_plan_summary(result, catalog, "q3", wf=wf)


def test_workbook_summary_reads_without_rule_numbers(sample, tmp_path):
    result, wf, catalog = sample
    book = write_workbook(tmp_path / "q3.xlsx", result, wf, catalog,
                          {"workloads": WORKLOADS, "catalog": CATALOG})
    ws = openpyxl.load_workbook(book)["Summary"]
    cells = [str(c.value) for row in ws.iter_rows(max_col=2) for c in row if c.value]
    for word in JARGON:
        assert not any(word in c.split() or c.startswith(word) for c in cells), word
    assert any(c.startswith("Rule-of-thumb pool: 2 servers of ") for c in cells)
    assert "Saving vs the rule-of-thumb pool" in cells


def test_only_the_reference_notes_are_left_out_of_the_workbook(sample, tmp_path):
    """Why no reference was priced is left out; a warning that names the reference (two of
    plan-buy's figures disagree) is still shown, as in the terminal."""
    result, wf, catalog = sample
    why = "R20 medium (4x A100 80GB): cannot run this mix"
    warning = "the proven-optimal plan costs more than the reference configuration (R20 ...)"
    result = replace(result, notes=(*result.notes, why), reference_notes=(why,),
                     warnings=(warning,))
    book = tmp_path / "q3.xlsx"
    write_workbook(book, result, wf, catalog, {"workloads": WORKLOADS, "catalog": CATALOG})
    texts = [str(c.value) for row in openpyxl.load_workbook(book)["Summary"].iter_rows()
             for c in row if c.value is not None]
    assert not any(why in t for t in texts)
    assert any(warning in t for t in texts)
    assert warning in " ".join(render_plan_summary(result, catalog, "q3", wf=wf).split())
