"""What the sweep writes: each scenario's bill of materials, the knee on the chart, one
marginal scale, why a plan is only feasible; and what a budget leaves out (plan)."""

from __future__ import annotations

import csv
import json
import re
import zipfile

import openpyxl
import pytest
from click.testing import CliRunner
from conftest import WORKLOADS
from test_sweep import TINY

from cli import main
from solver.result import PlanResult, Termination
from solver.sweep.render import render_sweep
from solver.sweep.report import marginal_column, marginal_scale, sweep_frame
from solver.sweep.rows import Solved, feasible_why


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
    def solved(status, gap, termination=None):
        return Solved(PlanResult(status, "USD", (), gap=gap, termination=termination))

    assert feasible_why(solved("optimal", 0.0)) == ""
    assert feasible_why(solved("feasible", 0.0123)) == "gap 1.23%"
    assert feasible_why(solved("feasible", None)) == "no proven bound"
    # The time limit is named from how the run ended, never guessed from its seconds.
    limited = solved("feasible", 0.05, Termination.TIME_LIMIT_WITH_PLAN)
    assert feasible_why(limited) == "time limit; gap 5.00%"
    assert feasible_why(solved("feasible", 0.05, Termination.NOT_PROVEN)) == "gap 5.00%"
    assert feasible_why(Solved(None, "boom", 4)) == ""


def test_status_note_in_the_csv_and_the_terminal(swept):
    from dataclasses import replace

    from solver.sweep.rows import SweepRun

    doc, out = swept
    rows = list(csv.DictReader((out / "tiny-sweep.csv").open()))
    assert "status_note" in rows[0]
    assert all(r["status_note"] == "" for r in rows if r["status"] == "optimal")
    assert all("status_note" in r and "gap" in r for r in doc["rows"])
    # A feasible row says why, in the CSV column and the terminal's status cell.
    from solver.sweep.rows import ScenarioRow
    from solver.sweep.scenarios import Scenario
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


# -- Every axis splits the chart and the knee by scenario group -----------------------------
def _sweep_tiny(root, *axes: str) -> tuple[dict, object]:
    path = root / "tiny.yaml"
    path.write_text(TINY)
    out = root / "out"
    res = CliRunner().invoke(main, ["sweep", str(path), *axes, "--jobs", "1", "--out", str(out),
                                    "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), out / "tiny-sweep.xlsx"


@pytest.fixture(scope="module")
def kwh_swept(tmp_path_factory):
    """tiny.yaml over two kWh prices and two budgets (one at or above the knee)."""
    return _sweep_tiny(tmp_path_factory.mktemp("kwh"), "--kwh-price", "0.1,0.3",
                       "--budget", "10000,1000000")


@pytest.fixture(scope="module")
def groups_swept(tmp_path_factory):
    """tiny.yaml over two kWh prices and both objectives, without a budget axis."""
    return _sweep_tiny(tmp_path_factory.mktemp("groups"), "--kwh-price", "0.1,0.3",
                       "--objective", "capex,tco")


def _charts(xlsx) -> list[str]:
    """The XML of each chart of the Sweep sheet, in the order written."""
    with zipfile.ZipFile(xlsx) as z:
        names = sorted((n for n in z.namelist() if re.fullmatch(r"xl/charts/chart\d+\.xml", n)),
                       key=lambda n: int(re.sub(r"\D", "", n)))
        return [xml for n in names if "<c:f>Sweep!" in (xml := z.read(n).decode())]


def _knee_rows(ws) -> list[tuple[str, float | None]]:
    """(scenario group, knee budget) of each row of the Sweep sheet's knee table."""
    title = next(c for row in ws.iter_rows() for c in row
                 if c.value == "Knee: the smallest budget that serves every workload")
    out = []
    for r in range(title.row + 2, ws.max_row + 1):
        if ws.cell(r, 1).value is None:
            break
        out.append((ws.cell(r, 1).value, ws.cell(r, 2).value))
    return out


def test_a_kwh_axis_gets_one_line_and_one_knee_per_group(kwh_swept):
    """A --kwh-price axis splits like --growth: before, both kWh prices' rows were one
    zig-zag series "all scenarios" with one knee, while the terminal and JSON had two."""
    doc, xlsx = kwh_swept
    ws = openpyxl.load_workbook(xlsx, data_only=True)["Sweep"]
    header = [c.value for c in ws[4]]
    kwh = {r: ws.cell(r, header.index("kWh price") + 1).value
           for r in range(5, 5 + len(doc["rows"]))}
    assert set(kwh.values()) == {0.1, 0.3}
    assert _knee_rows(ws) == [(f"kwh_price {k['owning']['kwh_price']:g}", k["knee_budget"])
                              for k in doc["knees"]]
    charts = _charts(xlsx)
    assert len(charts) == 2
    for xml, price in zip(charts, (0.1, 0.3)):
        assert f"kwh_price {price:g}" in xml
        # every served-priority and cost point of the chart is a row of its own kWh price
        rows: set[int] = set()
        for first, last in re.findall(r"<c:f>Sweep!\$[A-Z]+\$(\d+):\$[A-Z]+\$(\d+)</c:f>", xml):
            rows |= set(range(int(first), int(last) + 1))
        assert rows and {kwh[r] for r in rows} == {price}
        assert xml.count("knee: smallest budget serving everything") == 1


def test_without_a_budget_axis_the_groups_are_compared_side_by_side(groups_swept):
    """One scenario a group: a budget chart would hold one point each (the budget is
    blank); one chart of every group's cost and TCO, its knee marked, instead."""
    doc, xlsx = groups_swept
    ws = openpyxl.load_workbook(xlsx, data_only=True)["Sweep"]
    knees = _knee_rows(ws)
    assert [label for label, _ in knees] == [
        f"kwh_price {k['owning']['kwh_price']:g}, objective {k['owning']['objective']}"
        for k in doc["knees"]]
    assert [k for _, k in knees] == pytest.approx([k["knee_budget"] for k in doc["knees"]])
    [xml] = _charts(xlsx)
    assert "<c:barChart>" in xml and "Cost to buy and TCO by scenario group" in xml
    title = next(c.row for row in ws.iter_rows() for c in row
                 if c.value == "Knee: the smallest budget that serves every workload")
    first, last = title + 2, title + 1 + len(knees)
    assert f"<c:f>Sweep!$A${first}:$A${last}</c:f>" in xml  # the groups' names
    assert f"<c:f>Sweep!$B${first}:$B${last}</c:f>" in xml  # their knees
    assert xml.count("knee: smallest budget serving everything") == 1
    # no budget, no "priority gained per 1 more" column blank in every row
    assert not any(str(c.value).startswith("Priority gained") for c in ws[4])


def test_money_and_power_have_one_format_each_in_the_sweep_sheets(kwh_swept):
    """TCO read 1081592.5 and power 19.75 beside 25.2: every amount is money, the kWh
    price money to four decimals, power one decimal as in the Summary."""
    _doc, xlsx = kwh_swept
    wb = openpyxl.load_workbook(xlsx)
    money, rate = '"$"#,##0.00;-"$"#,##0.00', '"$"#,##0.00##;-"$"#,##0.00##'
    want = {"Budget": money, "Total cost": money, "Knee budget": money, "TCO": money,
            "kWh price": rate, "Power (kW)": "#,##0.0", "Unit price": money,
            "Extended": money}
    seen = set()
    for name in ("Sweep", "Sweep BOM"):
        ws = wb[name]
        header = [c.value for c in ws[4]]
        for label, fmt in want.items():
            if label not in header:
                continue
            col = header.index(label) + 1
            cells = [ws.cell(r, col) for r in range(5, ws.max_row + 1)
                     if isinstance(ws.cell(r, col).value, (int, float, str))
                     and not isinstance(ws.cell(r, col).value, bool)]
            numbers = [c for c in cells if not isinstance(c.value, str)
                       or c.value.startswith("=")]
            assert numbers, (name, label)
            assert {c.number_format for c in numbers} == {fmt}, (name, label)
            seen.add(label)
    assert seen == set(want)
    # every cell of a scenario's row at its top: a TRUE/FALSE sat at the foot of the rows
    # a wrapped list of workloads makes tall
    ws = wb["Sweep"]
    col = [c.value for c in ws[4]].index("Reused knee") + 1
    assert {ws.cell(r, col).alignment.vertical for r in range(5, 9)} == {"top"}
    knee = next(c for row in wb["Sweep"].iter_rows() for c in row
                if c.value == "Knee: the smallest budget that serves every workload")
    assert wb["Sweep"].cell(knee.row + 2, 2).number_format == money


def test_two_group_charts_and_the_repeated_header_fit_one_printed_page(kwh_swept):
    """Two charts a page: at 100% the second one's legend printed alone on the next page
    (expand-pool's kWh x budget sweep, rendered by LibreOffice)."""
    _doc, xlsx = kwh_swept
    ws = openpyxl.load_workbook(xlsx)["Sweep"]
    spans = [(c.anchor._from.row, c.anchor.to.row + 1) for c in ws._charts]  # 0-based
    assert len(spans) == 2
    breaks = {b.id for b in ws.row_breaks.brk}  # 0-based first row of each page
    assert spans[0][0] in breaks and spans[1][0] not in breaks
    assert spans[0][1] <= spans[1][0]  # the second starts below the first
    # a few pixels below its row: LibreOffice drew a chart that starts a page a little
    # higher, its top border alone at the foot of the page before
    assert all(c.anchor._from.rowOff > 0 for c in ws._charts)
    default_pt = ws.sheet_format.defaultRowHeight or 15
    header_pt = ws.row_dimensions[4].height or default_pt
    rows_pt = sum(ws.row_dimensions[r + 1].height or default_pt
                  for r in range(spans[0][0], spans[1][1]))
    a4_landscape_pt = 210 / 25.4 * 72 - 2 * 0.75 * 72  # between 0.75-inch margins
    # at 100%, the largest scale a sheet prints at (this one's columns may allow it)
    assert rows_pt + header_pt <= a4_landscape_pt


def test_a_scenario_group_is_every_parameter_but_the_budget():
    """kWh price, years and objective split groups as growth does; a text value (the
    objective) is named as written, a blank price multiplier does not split a group."""
    import pandas as pd

    from solver.report.workbook.sweep import budget_runs

    df = pd.DataFrame({
        "scenario": [1, 2, 3, 4, 5, 6],
        "budget": [1e5, 2e5, 1e5, 2e5, 1e5, 2e5],
        "growth": [1.0] * 6,
        "headroom": [0.2] * 6,
        "price_gpu": [None] * 6,
        "kwh_price": [0.1, 0.1, 0.3, 0.3, 0.3, 0.3],
        "objective": ["capex", "capex", "capex", "capex", "tco", "tco"],
        "status": ["optimal"] * 6,
        "total_cost": [1.0] * 6,  # after status: not a parameter
    })
    assert budget_runs(df) == [(" (kwh_price 0.1, objective capex)", 0, 2),
                                (" (kwh_price 0.3, objective capex)", 2, 4),
                                (" (kwh_price 0.3, objective tco)", 4, 6)]
