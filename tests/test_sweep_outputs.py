"""What the sweep writes: each scenario's bill of materials, the knee on the chart, one
marginal scale, why a plan is only feasible; and what a budget leaves out (plan)."""

from __future__ import annotations

import csv
import json
import zipfile

import openpyxl
import pytest
from click.testing import CliRunner
from conftest import WORKLOADS
from test_sweep import TINY

from cli import main
from solver.optimize.plan import PlanResult
from solver.sweep.report import marginal_column, marginal_scale, render_sweep, sweep_frame
from solver.sweep.run import Solved, feasible_why


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """tiny.yaml swept over three budgets (one at or above the knee) and two growths."""
    root = tmp_path_factory.mktemp("swept")
    path = root / "tiny.yaml"
    path.write_text(TINY)
    out = root / "out"
    res = CliRunner().invoke(main, ["sweep", str(path), "--budget", "10000,50000,1000000",
                                    "--growth", "1,1.5", "--jobs", "1", "--out", str(out),
                                    "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), out


def test_every_scenarios_bom_is_in_the_workbook_with_live_formulas(swept):
    doc, out = swept
    ws = openpyxl.load_workbook(out / "tiny-sweep.xlsx")["Sweep BOM"]
    values = openpyxl.load_workbook(out / "tiny-sweep.xlsx", data_only=True)["Sweep BOM"]
    header = [c.value for c in ws[4]]
    for label in ("Scenario", "Budget", "Growth", "SKU", "Kind", "Quantity", "Unit price",
                  "Extended"):
        assert label in header
    col = {name: header.index(name) for name in header}
    subtotals: dict[int, float] = {}
    skus: dict[int, set[str]] = {}
    for row, vrow in zip(ws.iter_rows(min_row=5), values.iter_rows(min_row=5)):
        ext, vext = row[col["Extended"]], vrow[col["Extended"]]
        sid = vrow[col["Scenario"]].value
        if vrow[col["Kind"]].value == "subtotal":
            assert str(ext.value).startswith("=SUBTOTAL(9,")
            subtotals[sid] = vext.value
            continue
        q, p = row[col["Quantity"]].coordinate, row[col["Unit price"]].coordinate
        assert ext.value == f"={q}*{p}"
        assert vext.value == pytest.approx(vrow[col["Quantity"]].value
                                           * vrow[col["Unit price"]].value)
        skus.setdefault(sid, set()).add(vrow[col["SKU"]].value)
    with_plan = {r["scenario"]: r for r in doc["rows"] if r["total_cost"] is not None}
    assert set(subtotals) == set(with_plan)
    for sid, r in with_plan.items():
        assert subtotals[sid] == pytest.approx(r["total_cost"])
        assert set(r["gpus"]) <= skus[sid]


def test_the_knee_is_marked_on_the_sweep_chart(swept):
    doc, out = swept
    ws = openpyxl.load_workbook(out / "tiny-sweep.xlsx", data_only=True)["Sweep"]
    cells = {c.value: c for row in ws.iter_rows() for c in row if isinstance(c.value, str)}
    title = cells["Knee: the smallest budget that serves every workload"]
    knees = [ws.cell(title.row + 2 + i, 2).value for i in range(len(doc["knees"]))]
    assert sorted(knees) == pytest.approx(sorted(k["knee_budget"] for k in doc["knees"]))
    assert ws._charts
    with zipfile.ZipFile(out / "tiny-sweep.xlsx") as z:  # the series' name is in the chart
        xml = "".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/"))
    assert "knee: smallest budget serving everything" in xml


def test_one_marginal_scale_in_the_terminal_the_csv_and_the_sheet(swept):
    doc, out = swept
    rows = list(csv.DictReader((out / "tiny-sweep.csv").open()))
    # budgets 10,000 / 50,000 / 1,000,000: the smallest step is 10,000 → per 10,000
    assert "priority_gained_per_10000" in rows[0]
    assert "marginal_priority_per_dollar" not in rows[0]
    for r, j in zip(rows, doc["rows"]):
        m = j["marginal_priority_per_dollar"]
        if m is None:
            assert r["priority_gained_per_10000"] == ""
        else:
            assert float(r["priority_gained_per_10000"]) == pytest.approx(m * 10000, abs=1e-3)
    header = [c.value for c in openpyxl.load_workbook(out / "tiny-sweep.xlsx")["Sweep"][4]]
    assert "Priority gained per 10,000 more" in header
    assert marginal_column(100000.0) == "priority_gained_per_100000"


def test_why_a_plan_is_only_feasible():
    def solved(status, gap, seconds=1.0):
        return Solved(PlanResult(status, "USD", (), gap=gap), seconds=seconds)

    assert feasible_why(solved("optimal", 0.0), None) == ""
    assert feasible_why(solved("feasible", 0.0123), None) == "gap 1.23%"
    assert feasible_why(solved("feasible", None), None) == "no proven bound"
    assert feasible_why(solved("feasible", 0.05, 9.5), 10.0) == "time limit; gap 5.00%"
    assert feasible_why(Solved(None, "boom", 4), 10.0) == ""


def test_status_note_in_the_csv_and_the_terminal(swept):
    from dataclasses import replace

    from solver.sweep.run import SweepRun

    doc, out = swept
    rows = list(csv.DictReader((out / "tiny-sweep.csv").open()))
    assert "status_note" in rows[0]
    assert all(r["status_note"] == "" for r in rows if r["status"] == "optimal")
    assert all("status_note" in r and "gap" in r for r in doc["rows"])
    # A feasible row says why, in the CSV column and the terminal's status cell.
    from solver.sweep.run import Scenario, ScenarioRow
    row = ScenarioRow(Scenario(1, 5000.0, 1.0, 0.2), "feasible", 4000.0, 1.0, 2.0, ("a",),
                      ("b",), {"rtx-4090": 1}, 9000.0, 0.0002, gap=0.02,
                      status_note="time limit; gap 2.00%")
    run = SweepRun([row], None, False, 0, 1.0, 1, 1)
    assert sweep_frame(run)["status_note"].tolist() == ["time limit; gap 2.00%"]
    text = render_sweep(run, "t", "USD", width=140)
    assert "best found (time limit; gap 2.00%)" in text
    assert "time limit" in text.split("best found:")[1]
    assert marginal_scale(replace(run)) == 1000.0


def test_plan_json_and_summary_say_what_the_budget_leaves_out(tmp_path):
    res = CliRunner().invoke(main, ["plan", str(WORKLOADS / "q3.yaml"), "--budget", "100000",
                                    "--top", "1", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["options"][0]["unserved"]
    full = doc["full_plan_cost"]
    assert full is not None and full > 100000
    ws = openpyxl.load_workbook(tmp_path / "q3.xlsx", data_only=True)["Summary"]
    text = " ".join(str(c.value) for row in ws.iter_rows() for c in row if c.value)
    assert "The budget of 100,000 USD leaves out:" in text
    assert f"Serving every workload costs {full:,.0f} USD" in text


def test_plan_json_without_a_budget_has_no_full_plan_cost():
    res = CliRunner().invoke(main, ["plan", str(WORKLOADS / "small.yaml"), "--no-workbook",
                                    "--top", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert "full_plan_cost" not in json.loads(res.stdout)


def test_each_scenario_group_gets_its_own_chart(swept):
    """Two growths: one small chart per group instead of four crossing lines on one."""
    _doc, out = swept
    ws = openpyxl.load_workbook(out / "tiny-sweep.xlsx")["Sweep"]
    assert len(ws._charts) == 2
    with zipfile.ZipFile(out / "tiny-sweep.xlsx") as z:
        titles = "".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/"))
    assert "growth 1.5" in titles and "growth 1<" in titles
