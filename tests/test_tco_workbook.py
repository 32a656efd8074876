"""The TCO sheet: live formulas on the Assumptions inputs, one column per year (P2, P5).

pycel recomputes a copy of the workbook stripped of its stored values: the cumulative cost
of the last year equals the option's TCO, and editing the kWh price on the Assumptions
sheet moves every option's TCO by Δprice × kW × 8,760 × years × utilisation × PUE.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
import yaml

from solver.inputs.loading import DEFAULT_CATALOG, load_catalog, load_workloads
from solver.optimize.pipeline import plan
from solver.report.workbook import write_workbook

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tco_book(tmp_path_factory):
    data = yaml.safe_load((ROOT / "workloads" / "small.yaml").read_text())
    data.setdefault("policy", {})["tco"] = {"kwh_price": 0.15, "years": 4,
                                             "support_pct_per_year": 0.05}
    path = tmp_path_factory.mktemp("tco") / "w.yaml"
    path.write_text(yaml.safe_dump(data))
    wf = load_workloads(path)
    catalog = load_catalog(DEFAULT_CATALOG)
    result = plan(wf, catalog, top=2, with_baseline=False)
    out = path.parent / "book.xlsx"
    write_workbook(out, result, wf, catalog, {})
    return out, result, wf


def _find(ws, label: str, after: int = 1) -> int:
    for row in ws.iter_rows(min_row=after, min_col=1, max_col=1):
        if row[0].value == label:
            return row[0].row
    raise AssertionError(label)


def test_tco_sheet_has_a_column_per_year_and_a_chart(tco_book):
    book, _result, _ = tco_book
    wb = openpyxl.load_workbook(book)
    ws = wb["TCO"]
    assert [c.value for c in ws[4]][1:6] == [f"Year {y}" for y in range(5)]
    assert ws._charts, "the cumulative cost chart is missing"
    energy = ws.cell(_find(ws, "Energy"), 3).value
    assert energy.startswith("=IF(") and "Assumptions!" in energy


def test_tco_recalculates_and_follows_the_kwh_price(tco_book, tmp_path):
    pycel = pytest.importorskip("pycel")
    book, result, wf = tco_book
    bare = tmp_path / "bare.xlsx"
    openpyxl.load_workbook(book).save(bare)
    wb = openpyxl.load_workbook(bare)
    ws, a = wb["TCO"], wb["Assumptions"]
    kwh = f"B{_find(a, 'Electricity price')}"
    xl = pycel.ExcelCompiler(filename=str(bare))
    rows = []
    start = 1
    for opt in result.options:
        r = _find(ws, "Cumulative", start)
        rows.append(r)
        start = r + 1
        assert xl.evaluate(f"TCO!F{r}") == pytest.approx(opt.own.tco, abs=0.05)
    xl.set_value(f"Assumptions!{kwh}", 0.25)
    tco = wf.policy.tco
    for opt, r in zip(result.options, rows):
        delta = 0.10 * opt.own.power_kw * 8760 * tco.years * tco.utilisation * tco.pue
        assert xl.evaluate(f"TCO!F{r}") == pytest.approx(opt.own.tco + delta, abs=0.05)
    summary = wb["Summary"]
    row = _find(openpyxl.load_workbook(book, data_only=True)["Summary"], "TCO over 4 years")
    assert summary.cell(row, 3).value.startswith("=TCO!")


def test_summary_says_how_the_options_are_ranked(tco_book, tmp_path):
    """Ranked by TCO, a later option may cost less to buy: the Summary sheet's subtitle must
    not say "cheapest first" (a TCO-ranked mix put a USD 72,390 option below one of 87,110)."""
    book, _result, wf = tco_book
    assert openpyxl.load_workbook(book)["Summary"]["A2"].value.startswith(
        "Ranked cheapest first.")
    by_tco = wf.model_copy(update={"policy": wf.policy.model_copy(update={"objective": "tco"})})
    catalog = load_catalog(DEFAULT_CATALOG)
    out = tmp_path / "by_tco.xlsx"
    write_workbook(out, plan(by_tco, catalog, top=1, with_baseline=False), by_tco, catalog, {})
    assert openpyxl.load_workbook(out)["Summary"]["A2"].value.startswith(
        "Ranked by total cost of ownership, lowest first.")


def test_summary_figures_follow_the_yellow_years_and_kwh_cells(tco_book, tmp_path):
    """Years 4 -> 2 and kWh price 0.15 -> 0.30 edited on the Assumptions sheet, recalculated
    in LibreOffice: every Summary figure that depends on them moves, row labels included
    (before: energy, renting and break-even were fixed values under "Energy over 4 years").
    The lower bound is the solver's and says so."""
    import recalc

    if recalc.soffice() is None:
        pytest.skip("LibreOffice (soffice) is not installed: the edit is not recalculated")
    book, result, wf = tco_book
    wb = openpyxl.load_workbook(book)
    a = wb["Assumptions"]
    a[f"B{_find(a, 'Years')}"] = 2
    a[f"B{_find(a, 'Electricity price')}"] = 0.30
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    s = openpyxl.load_workbook(recalc.recalculate([edited], tmp_path / "lo")[edited],
                               data_only=True)["Summary"]
    tco = wf.policy.tco
    per_kw = 8760 * 2 * tco.utilisation * tco.pue * 0.30
    assert result.options[0].own.cloud is not None
    for c, opt in enumerate(result.options, start=3):
        own, capex = opt.own, opt.total_cost
        energy = own.power_kw * per_kw
        assert s.cell(_find(s, "Energy over 2 years"), c).value == pytest.approx(energy, abs=0.01)
        assert s.cell(_find(s, "TCO over 2 years"), c).value == pytest.approx(
            capex * (1 + 2 * tco.support_pct_per_year) + energy, abs=0.01)
        if own.cloud is None:
            continue
        rent = own.cloud / 4 * 2
        assert s.cell(_find(s, "Renting the GPUs bought for 2 years"), c).value == (
            pytest.approx(rent, abs=0.01))
        running = own.bought_power_kw * per_kw / 2 + tco.support_pct_per_year * capex
        month = s.cell(_find(s, "Buying breaks even after (months)"), c).value
        if rent / 2 > running:
            assert month == pytest.approx(capex / ((rent / 2 - running) / 12), abs=0.05)
        else:
            assert month == "renting stays cheaper"


def test_no_cell_holds_python_or_markup(tco_book):
    """Settings as a person writes them (before: "exclude: ()", "tco: {'kwh_price': 0.15,
    ...}" and doubled backticks in the meanings): a nested setting one row per field."""
    import re

    book, _result, _wf = tco_book
    wb = openpyxl.load_workbook(book, data_only=True)
    python = re.compile(r"^\(\)$|^\[\]$|\{'|\['|`|\bNone\b|\bTrue\b|\bFalse\b")
    found = [(ws.title, c.coordinate, c.value) for ws in wb for row in ws.iter_rows()
             for c in row if isinstance(c.value, str) and python.search(c.value)]
    assert not found
    a = wb["Assumptions"]
    values = {a.cell(r, 1).value: a.cell(r, 2).value for r in range(1, a.max_row + 1)}
    assert values["exclude"] == "(none)"
    assert values["tco.kwh_price"] == 0.15 and values["tco.years"] == 4


def test_years_cannot_outgrow_the_tco_sheet(tco_book):
    """The TCO sheet has a column per planned year: the Years cell accepts 1 to that many
    (a longer horizon typed there would leave its extra years out of every total)."""
    book, _result, wf = tco_book
    a = openpyxl.load_workbook(book)["Assumptions"]
    cell = f"B{_find(a, 'Years')}"
    rules = [dv for dv in a.data_validations.dataValidation if cell in str(dv.sqref)]
    assert len(rules) == 1 and rules[0].type == "whole"
    assert (rules[0].formula1, rules[0].formula2) == ("1", str(wf.policy.tco.years))
