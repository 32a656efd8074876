"""Under ``objective: tco`` the figures a person reads say they are TCO, not cost: the
progress line's best figure and stage, and the options table's "total cost" (capex)."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

import cli
from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize.pipeline import plan
from solver.report.summary import render_plan_summary
from solver.report.workbook import write_workbook

ROOT = Path(__file__).resolve().parent.parent


def test_progress_names_the_figure_it_shows(capsys):
    tco = cli._Progress(time.perf_counter() - 5.0, None, "lowest TCO so far")
    tco("the plan of lowest TCO", 826_525.0)
    tco.done()
    assert "plan-buy: the plan of lowest TCO (lowest TCO so far 826,525)" in capsys.readouterr().err
    capex = cli._Progress(time.perf_counter() - 5.0)
    capex("the cheapest plan", 562_190.0)
    capex.done()
    assert "(cheapest so far 562,190)" in capsys.readouterr().err


def test_tco_plans_stage_and_table_say_what_is_ranked(tmp_path):
    """expand-pool ranks by TCO: rank 1's search reports TCOs under its own stage name, and
    the table heads its capital cost 'capex' (it was 'total cost'), beside the TCO the
    options are ranked by."""
    wf = load_workloads(ROOT / "workloads" / "expand-pool.yaml")
    cat = load_catalog(ROOT / "catalogs" / "default.yaml")
    calls: list[tuple[str, float | None]] = []
    result = plan(wf, cat, top=1, with_baseline=False,
                  progress=lambda stage, best: calls.append((stage, best)))
    stages = {stage for stage, _ in calls}
    assert "the plan of lowest TCO" in stages and "the cheapest plan" not in stages
    text = render_plan_summary(result, cat, wf.name, wf=wf, width=200)
    header = text.split("\n---")[0].splitlines()[-1]
    assert "capex" in header.split() and "TCO" in header.split()
    assert "total cost" not in header
    assert "Options are ranked by total cost of ownership (TCO" in text
    assert "capex is what buying them costs" in text
    book = write_workbook(tmp_path / "e.xlsx", result, wf, cat,
                          {"workloads": ROOT / "workloads" / "expand-pool.yaml"})
    summary = pd.read_excel(book, sheet_name="Summary", header=3, index_col=0)
    assert summary.loc["Total cost", "Target / reference"] == (
        "capex (purchase); ranked by TCO, below")
