"""The finance workbook: sheets, live formulas, independent recalculation, safe writing.

Cells and formulas are read back with openpyxl; computed values with pandas (which sees
only the values stored with each formula); recalculation is done by pycel, a formula
engine independent of the writer, on a copy stripped of every stored value, and (when
installed) by LibreOffice headless.
"""

from __future__ import annotations

import itertools
import math
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from test_report import CATALOG, EVIL_NAME, EVIL_TEAM, WORKLOADS, sample_plan

from solver.errors import InputError
from solver.report.tables import KINDS
from solver.report.workbook import write_workbook
from solver.report.workbook.styles import currency_format

SOURCES = {"workloads": WORKLOADS, "catalog": CATALOG}


@pytest.fixture(scope="module")
def plan():
    return sample_plan()


@pytest.fixture(scope="module")
def book(plan, tmp_path_factory) -> Path:
    result, wf, catalog = plan
    sweep = pd.DataFrame(
        {
            "scenario": ["lean", "mid", "full"],
            "budget": [1e5, 2e5, 4e5],
            "served_priority": [10.0, 30.0, 46.0],
            "total_cost": [95_000.0, 190_000.0, 348_180.0],
        }
    )
    out = tmp_path_factory.mktemp("out") / "q3.xlsx"
    return write_workbook(out, result, wf, catalog, SOURCES, sweep)


def _row_of(ws, label: str, col: int = 1) -> int:
    for row in ws.iter_rows(min_col=col, max_col=col):
        if row[0].value == label:
            return row[0].row
    raise AssertionError(f"{label!r} not found on {ws.title}")


def _price_cell(ws_assumptions, sku: str) -> str:
    """Address of the unit price of ``sku`` in the Assumptions catalog table."""
    header = _row_of(ws_assumptions, "Kind")
    cols = [c.value for c in ws_assumptions[header]]
    r = next(c.row for c in ws_assumptions["B"] if c.value == sku and c.row > header)
    return ws_assumptions.cell(r, cols.index("Unit price") + 1).coordinate


def test_sheets_and_properties(book, plan):
    wb = openpyxl.load_workbook(book)
    assert wb.sheetnames == [
        "Summary",
        "Option 1",
        "Option 2",
        "Demand",
        "Placement",
        "Memory",
        "Teams",
        "Assumptions",
        "Sweep",
    ]
    assert wb.properties.creator == "plan-buy"
    assert "q3" in wb.properties.title
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape"
        assert ws.freeze_panes is not None
    assert wb["Option 1"].freeze_panes == "A5"
    assert wb["Option 1"].auto_filter.ref.startswith("A4:F")
    assert wb["Placement"].auto_filter.ref and wb["Teams"].auto_filter.ref
    assert not list(book.parent.glob(".*tmp"))


def test_option_sheet_formulas(book, plan):
    _result, _, _catalog = plan
    wb = openpyxl.load_workbook(book)
    ws, a = wb["Option 1"], wb["Assumptions"]
    h100 = next(c.row for c in ws["A"] if c.value == "h100-sxm")
    assert (
        ws[f"E{h100}"].value
        == f"=Assumptions!${_price_cell(a, 'h100-sxm')[0]}$" + (_price_cell(a, "h100-sxm")[1:])
    )
    assert ws[f"F{h100}"].value == f"=D{h100}*E{h100}"
    gpu = _row_of(ws, "Subtotal: GPUs")
    assert ws[f"F{gpu}"].value.startswith("=SUMIF(")
    total = _row_of(ws, "Grand total")
    assert ws[f"F{total}"].value.startswith("=SUM(")
    assert ws[f"F{total}"].font.b
    assert "#,##0.00" in ws[f"F{total}"].number_format
    assert ws[f"A{h100}"].value == "h100-sxm" and ws[f"D{h100}"].value == 8


def test_values_readable_without_recalculation(book, plan):
    """pandas sees the stored value of every formula: totals, subtotals, unit prices."""
    result, _, catalog = plan
    for opt in result.options:
        df = pd.read_excel(book, sheet_name=f"Option {opt.rank}", header=3)
        total = df.loc[df["SKU"] == "Grand total", f"Extended price ({catalog.currency})"]
        assert total.item() == pytest.approx(opt.total_cost, abs=0.005)
        lines = df.dropna(subset=["Kind", "Quantity"])
        assert not lines["Unit price (USD)"].isna().any()
    summary = pd.read_excel(book, sheet_name="Summary", header=3, index_col=0)
    assert summary.loc["Total cost", "Option 2"] == pytest.approx(result.options[1].total_cost)
    teams = pd.read_excel(book, sheet_name="Teams", header=3)
    teams = teams.iloc[: teams["Option"].isna().idxmax()]  # the table, not the check below
    assert len(teams) and not teams["Total cost"].isna().any()
    for opt in result.options:
        part = teams[teams["Option"] == f"Option {opt.rank}"]
        assert part["Total cost"].sum() == pytest.approx(opt.total_cost, abs=0.01)


def _strip_values(src: Path, dst: Path, edit: dict[str, float] | None = None) -> None:
    """Copy a workbook keeping only formulas and constants (openpyxl drops stored values)."""
    wb = openpyxl.load_workbook(src)
    for addr, value in (edit or {}).items():
        sheet, cell = addr.split("!")
        wb[sheet][cell] = value
    wb.save(dst)


def _grand_totals(evaluate, wb) -> dict[int, float]:
    out = {}
    for name in wb.sheetnames:
        if name.startswith("Option "):
            r = _row_of(wb[name], "Grand total")
            out[int(name.split()[1])] = evaluate(f"'{name}'!F{r}")
    return out


def test_independent_recalculation_matches_solver_and_follows_prices(book, plan, tmp_path):
    """pycel recomputes every formula: totals equal the solver's to the cent, and one edited
    unit price on the Assumptions sheet moves every option that buys that SKU."""
    pycel = pytest.importorskip("pycel")
    result, _, catalog = plan
    bare = tmp_path / "bare.xlsx"
    _strip_values(book, bare)
    wb = openpyxl.load_workbook(bare)
    assert openpyxl.load_workbook(bare, data_only=True)["Option 1"]["F5"].value is None
    xl = pycel.ExcelCompiler(filename=str(bare))
    totals = _grand_totals(xl.evaluate, wb)
    for opt in result.options:
        assert round(totals[opt.rank], 2) == round(opt.total_cost, 2)
        assert round(xl.evaluate(f"Summary!{'CD'[opt.rank - 1]}5"), 2) == round(opt.total_cost, 2)
    # The drive is bought by both options; the H100 by option 1 only.
    drive = _price_cell(wb["Assumptions"], "nvme-u2-7.68t")
    h100 = _price_cell(wb["Assumptions"], "h100-sxm")
    qty = {
        o.rank: sum(ln.qty for ln in o.lines if ln.sku == "nvme-u2-7.68t") for o in result.options
    }
    assert all(qty.values())
    xl.set_value(f"Assumptions!{drive}", catalog.price_of("nvme-u2-7.68t") + 100)
    moved = _grand_totals(xl.evaluate, wb)
    for rank, before in totals.items():
        assert moved[rank] == pytest.approx(before + 100 * qty[rank])
    xl.set_value(f"Assumptions!{h100}", catalog.price_of("h100-sxm") + 1000)
    again = _grand_totals(xl.evaluate, wb)
    assert again[1] == pytest.approx(moved[1] + 8000)
    assert again[2] == pytest.approx(moved[2])
    assert xl.evaluate("Summary!C5") == pytest.approx(again[1])


def test_team_totals_recalculate_to_option_totals(book, plan, tmp_path):
    pycel = pytest.importorskip("pycel")
    result, _, _ = plan
    bare = tmp_path / "bare.xlsx"
    _strip_values(book, bare)
    ws = openpyxl.load_workbook(bare)["Teams"]
    xl = pycel.ExcelCompiler(filename=str(bare))
    head = _row_of(ws, "Option", 1)
    header = [c.value for c in ws[head]]
    start = (
        next(r for r in range(head + 1, ws.max_row + 1) if ws.cell(r, 1).value is None) + 2
    )  # the "Totals by option" header
    for i, opt in enumerate(result.options, start=start + 1):
        assert ws.cell(i, 1).value == f"Option {opt.rank}"
        col = openpyxl.utils.get_column_letter(len(KINDS) + 2)  # Option, kinds, total
        assert round(xl.evaluate(f"Teams!{col}{i}"), 2) == round(opt.total_cost, 2)
        diff = openpyxl.utils.get_column_letter(len(KINDS) + 4)
        assert abs(xl.evaluate(f"Teams!{diff}{i}")) < 0.005
    assert "Team" in header


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_recalculates_an_edited_price(book, plan, tmp_path):
    """LibreOffice headless recomputes a copy whose drive price was raised by 100."""
    result, _, catalog = plan
    a = openpyxl.load_workbook(book)["Assumptions"]
    drive = _price_cell(a, "nvme-u2-7.68t")
    edited = tmp_path / "edited.xlsx"
    _strip_values(book, edited, {f"Assumptions!{drive}": catalog.price_of("nvme-u2-7.68t") + 100})
    out = tmp_path / "lo"
    subprocess.run(
        [
            "soffice",
            "--headless",
            f"-env:UserInstallation=file://{tmp_path}/profile",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            str(edited),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    wb = openpyxl.load_workbook(out / "edited.xlsx", data_only=True)
    for opt in result.options:
        ws = wb[f"Option {opt.rank}"]
        total = ws[f"F{_row_of(ws, 'Grand total')}"].value
        qty = sum(ln.qty for ln in opt.lines if ln.sku == "nvme-u2-7.68t")
        assert round(total, 2) == round(opt.total_cost + 100 * qty, 2)


def test_input_text_is_never_a_formula(book):
    """Spreadsheet formula injection: names from the input are stored as literal text."""
    wb = openpyxl.load_workbook(book)
    found = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value in (EVIL_NAME, EVIL_TEAM):
                    assert c.data_type == "s", (ws.title, c.coordinate)
                    assert c.quotePrefix
                    found += 1
                if c.data_type == "f":
                    assert "HYPERLINK" not in str(c.value) and "cmd" not in str(c.value)
    assert found >= 6
    with zipfile.ZipFile(book) as z:
        for name in z.namelist():
            if name.startswith("xl/worksheets/"):
                assert "HYPERLINK" not in z.read(name).decode()
    placement = pd.read_excel(book, sheet_name="Placement", header=3)
    assert EVIL_NAME in set(placement["Workload"])
    assert EVIL_TEAM in set(placement["Team"])


def test_assumptions_sheet_lists_inputs_and_prices(book, plan):
    _result, _wf, catalog = plan
    ws = openpyxl.load_workbook(book)["Assumptions"]
    values = [c.value for row in ws.iter_rows() for c in row if c.value is not None]
    import hashlib

    assert hashlib.sha256(WORKLOADS.read_bytes()).hexdigest() in values
    assert hashlib.sha256(CATALOG.read_bytes()).hexdigest() in values
    assert "2026-10-01" in values and "USD" in values
    assert "headroom" in values and "R18" in values
    assert any(str(v).startswith("plan-buy ") for v in values)
    assert ws[_price_cell(ws, "h100-sxm")].value == catalog.price_of("h100-sxm")


def test_summary_shows_baseline_status_and_chart(book, plan, tmp_path):
    result, wf, catalog = plan
    df = pd.read_excel(book, sheet_name="Summary", header=3, index_col=0)
    assert df.loc["Saving vs the rule-of-thumb pool", "Option 1"] == pytest.approx(20000.0)
    assert df.loc["  VRAM vs target", "Option 1"] in ("below", "within")
    assert df.loc["Unserved workloads", "Option 2"] == "code-lora-8b"
    with zipfile.ZipFile(book) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == 2  # cost by kind, sweep
    bare = result.__class__(
        status="feasible", currency="USD", options=result.options, solver="cbc", gap=0.02
    )
    out = write_workbook(tmp_path / "nob.xlsx", bare, wf, catalog, SOURCES)
    df = pd.read_excel(out, sheet_name="Summary", header=3, index_col=0)
    assert not any("Saving" in str(i) for i in df.index)
    # no rule-of-thumb pool ran the mix: no row says so in jargon (JSON keeps why)
    assert not any("R20" in str(i) or "rule-of-thumb" in str(i) for i in df.index)
    assert "Sweep" not in openpyxl.load_workbook(out).sheetnames
    note = pd.read_excel(out, sheet_name="Summary", header=None).iloc[2, 0]
    assert "feasible" in note and "2.00%" in note


def test_sweep_without_chart_columns_has_no_chart(plan, tmp_path):
    result, wf, catalog = plan
    sweep = pd.DataFrame({"growth": [1.0, 1.5], "total_cost": [1.0, float("nan")]})
    out = write_workbook(tmp_path / "s.xlsx", result, wf, catalog, SOURCES, sweep)
    with zipfile.ZipFile(out) as z:
        assert len([n for n in z.namelist() if n.startswith("xl/charts/chart")]) == 1
    df = pd.read_excel(out, sheet_name="Sweep", header=3)
    assert list(df.columns) == ["Growth", "Total cost"] and math.isnan(df.iloc[1, 1])


def test_write_is_atomic_on_failure(plan, tmp_path, monkeypatch):
    result, wf, catalog = plan
    out = tmp_path / "q3.xlsx"
    out.write_bytes(b"previous workbook")
    import solver.report.workbook.book as wbmod

    def boom(self):
        raise RuntimeError("interrupted")

    monkeypatch.setattr(wbmod.Book, "write", boom)
    with pytest.raises(RuntimeError):
        write_workbook(out, result, wf, catalog, SOURCES)
    assert out.read_bytes() == b"previous workbook"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q3.xlsx"]


def test_failed_rename_keeps_previous_and_is_an_input_error(plan, tmp_path, monkeypatch):
    result, wf, catalog = plan
    out = tmp_path / "q3.xlsx"
    out.write_bytes(b"previous workbook")

    def no_rename(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("solver.report.files.os.replace", no_rename)
    with pytest.raises(InputError):
        write_workbook(out, result, wf, catalog, SOURCES)
    assert out.read_bytes() == b"previous workbook"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q3.xlsx"]


def test_unwritable_folder_is_a_clear_input_error(plan, tmp_path):
    result, wf, catalog = plan
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(InputError) as err:
        write_workbook(blocker / "q3.xlsx", result, wf, catalog, SOURCES)
    msg = str(err.value)
    assert msg.startswith(f"cannot write {blocker / 'q3.xlsx'}") and "To fix:" in msg
    assert err.value.exit_code == 2


def test_creates_missing_out_folder_and_overwrites(plan, tmp_path):
    result, wf, catalog = plan
    out = tmp_path / "out" / "q3.xlsx"
    write_workbook(out, result, wf, catalog, SOURCES)
    first = out.stat().st_size
    write_workbook(out, result, wf, catalog, SOURCES)
    assert out.stat().st_size == pytest.approx(first, rel=0.05)
    assert sorted(p.name for p in out.parent.iterdir()) == ["q3.xlsx"]


@pytest.mark.parametrize(
    "currency, expected",
    [("USD", '"$"#,##0.00'), ("EUR", '"€"#,##0.00'), ('CH"F', '#,##0.00 "CHF"')],
)
def test_currency_format(currency, expected):
    assert currency_format(currency).startswith(expected)


def test_end_to_end_plan_workbook_recalculates_to_the_solver_total(tmp_path):
    """The real pipeline on the Q3 mix: the written workbook recalculates (pycel, no stored
    values) to each option's solver total to the cent."""
    pycel = pytest.importorskip("pycel")
    from solver.inputs.loading import load_catalog, load_workloads
    from solver.optimize.pipeline import plan

    wf, catalog = load_workloads(WORKLOADS), load_catalog(CATALOG)
    result = plan(wf, catalog, top=2)
    out = write_workbook(tmp_path / "out" / f"{wf.name}.xlsx", result, wf, catalog, SOURCES)
    bare = tmp_path / "bare.xlsx"
    _strip_values(out, bare)
    wb = openpyxl.load_workbook(bare)
    assert wb.sheetnames[: 1 + len(result.options)] == ["Summary"] + [
        f"Option {o.rank}" for o in result.options
    ]
    totals = _grand_totals(pycel.ExcelCompiler(filename=str(bare)).evaluate, wb)
    for opt in result.options:
        assert round(totals[opt.rank], 2) == round(opt.total_cost, 2)
    placed = pd.read_excel(out, sheet_name="Placement", header=3)
    assert len(placed) == sum(len(o.placements) for o in result.options)
    memory = pd.read_excel(out, sheet_name="Memory", header=3)
    assert set(memory["Fits"]) == {"yes"}  # every placement fits its GPU
    summary = pd.read_excel(out, sheet_name="Summary", header=3, index_col=0)
    # q3's fewest servers since issue 37's estimates: its capped search ends on 9, its bound
    # proves at least 4 (5 servers, proven, before)
    assert summary.loc["  In that direction", "Option 2"] == (
        "9 servers against 10 servers for option 1 (best possible: at least 4 servers)")
    # 77 characters in a column of 26, four lines: the row is sized for them (no
    # application grows a row for wrapped text in a written file; 61, three lines, 45)
    ws = openpyxl.load_workbook(out)["Summary"]
    row = next(c.row for c in ws["A"] if c.value == "  In that direction")
    assert ws.row_dimensions[row].height == 60
    assert pd.isna(summary.loc["  In that direction", "Option 1"])  # the cheapest: none


def test_sweep_chart_draws_one_line_per_scenario_group():
    """A line never jumps from one growth group's largest budget to the next one's smallest."""
    from solver.report.workbook.sweep import budget_runs

    df = pd.DataFrame({
        "budget": [1, 2, 1, 2, 1, 2],
        "growth": [1.0, 1.0, 1.5, 1.5, 1.5, 1.5],
        "headroom": [0.2] * 6,
        "price_memory": [1.0, 1.0, 1.0, 1.0, 2.0, 2.0],
    })
    runs = budget_runs(df)
    assert [(a, b) for _, a, b in runs] == [(0, 2), (2, 4), (4, 6)]
    assert runs[2][0] == " (growth 1.5, price_memory 2)"
    assert budget_runs(df.iloc[:2]) == [("", 0, 2)]


def printed_pages_across(ws) -> tuple[int, list[int]]:
    """(print scale %, pixel width of each page across) of a sheet as written: the columns
    between manual column breaks, plus the repeated columns on every page after the first
    (Excel's 7 pixels per character of width + 5 per column; 64 for a column left at the
    default width)."""
    from openpyxl.utils import column_index_from_string, get_column_letter

    widths = {}
    for dim in ws.column_dimensions.values():
        if dim.width:
            for c in range(dim.min, dim.max + 1):
                widths[c] = dim.width
    last = max([ws.max_column, *widths])
    px = [int(widths[c] * 7 + 0.5) if c in widths else 64
          for c in range(1, last + 1)]  # the stored width already holds the 5-pixel padding
    starts = sorted(b.id for b in ws.col_breaks.brk)  # 0-based first column of each page
    repeat = 0
    if ws.print_title_cols:
        first, _, end = ws.print_title_cols.partition(":")
        assert column_index_from_string(first.lstrip("$")) == 1, ws.title
        repeat = column_index_from_string(end.lstrip("$"))
    assert all(s >= repeat for s in starts), (ws.title, get_column_letter(repeat))
    bounds = [0, *starts, last]
    pages = [sum(px[a:b]) + (sum(px[:repeat]) if i else 0)
             for i, (a, b) in enumerate(itertools.pairwise(bounds))]
    fit = ws.sheet_properties.pageSetUpPr and ws.sheet_properties.pageSetUpPr.fitToPage
    if fit:
        # Fit to one page across (any number down): the scale its columns need in Arial.
        assert (ws.page_setup.fitToWidth, ws.page_setup.fitToHeight) in ((1, 0), (None, 0)), (
            ws.title, "fits one page across, any number of pages down")
        assert not starts, (ws.title, "fit-to-width with column breaks")
        return min(100, LETTER_PX * 100 // sum(px)), pages
    return int(ws.page_setup.scale or 100), pages


LETTER_PX = 900
"""Column pixels a landscape page holds at 100% on Letter (A4 holds more), 0.5" margins, as
LibreOffice lays the columns out (checked against PDFs it printed)."""


def assert_prints_legibly(path: Path) -> dict[str, tuple[int, int]]:
    """Every sheet: a print scale of 75% or more and each page across no wider than a page
    holds at that scale; returns sheet -> (scale, pages across)."""
    wb = openpyxl.load_workbook(path)
    out = {}
    for ws in wb:
        assert ws.page_setup.orientation == "landscape", ws.title
        assert ws.page_setup.paperSize in (9, "9"), ws.title
        assert ws.print_title_rows, ws.title
        scale, pages = printed_pages_across(ws)
        assert 75 <= scale <= 100, (ws.title, scale)
        for n, width in enumerate(pages, start=1):
            assert width * scale <= LETTER_PX * 100, (
                f"{ws.title} page {n} across: {width} px does not fit at {scale}%")
        out[ws.title] = (scale, len(pages))
    return out


def test_every_sheet_prints_landscape_legibly_with_header_rows(book):
    got = assert_prints_legibly(book)
    # The wide tables print on two pages across at full size, identifying columns repeated,
    # rather than on one page at half size.
    assert got["Placement"][1] >= 2 and got["Placement"][0] >= 75
    wb = openpyxl.load_workbook(book)
    assert wb["Placement"].print_title_cols == "$A:$B"
    for ws in wb:
        # The sheet's note is merged across the used columns and wraps: it never widens
        # what prints.
        assert any(str(r).startswith("A2:") for r in ws.merged_cells.ranges), ws.title


def test_demand_sheet_lists_every_workload_as_asked_and_planned(book, plan):
    result, wf, _catalog = plan
    df = pd.read_excel(book, sheet_name="Demand", header=3)
    assert list(df["Workload"]) == [w.name for w in wf.workloads]
    for w, (_, row) in zip(wf.workloads, df.iterrows(), strict=True):
        assert row["Replicas asked"] == w.replicas
        assert row["Priority"] == w.priority and row["Team"] == w.team
    assert (df["Replicas planned (after growth)"] >= df["Replicas asked"]).all()
    placed = {p.workload for p in result.options[0].placements}
    served = df[df["Workload"].isin(placed)]
    assert (served["Replicas placed (option 1)"] >= 1).all()
    assert (served["VRAM per replica (GB)"].notna()).all()
    # Cost charged per workload adds up to option 1's total, less idle capacity.
    assert served["Cost charged (option 1)"].sum() <= result.options[0].total_cost + 0.01


def test_print_layout_splits_wide_columns_over_pages_across():
    from solver.report.workbook.sheet import print_layout

    assert print_layout([100] * 9) == (100, [])  # 900 px: one page at full size
    assert print_layout([100] * 12) == (75, [])  # 1,200 px: one page at the least scale
    scale, starts = print_layout([100] * 20, keep=2)
    assert scale >= 75 and starts  # too wide for one page: several across
    bounds = [0, *starts, 20]
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        width = 100 * (b - a) + (200 if i else 0)  # the kept columns on every page
        assert width * scale <= 900 * 100


def test_cli_workbooks_print_legibly(tmp_path):
    """The plan and a several-axis sweep of q3 as the CLI writes them: every sheet at 75% or
    more (before: Placement 49%, Sweep 32% of full size on one page)."""
    from click.testing import CliRunner

    from cli import main

    q3 = str(Path(__file__).resolve().parents[1] / "workloads" / "q3.yaml")
    runner = CliRunner()
    res = runner.invoke(main, ["plan", q3, "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    plan_book = assert_prints_legibly(tmp_path / "q3.xlsx")
    res = runner.invoke(main, ["sweep", q3, "--budget", "200k,400k", "--growth", "1,1.5",
                               "--price", "h100-sxm=0.8,1", "--kwh-price", "0.1",
                               "--jobs", "1", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    sweep_book = assert_prints_legibly(tmp_path / "q3-sweep.xlsx")
    assert plan_book["Placement"][1] >= 2 and sweep_book["Sweep"][1] >= 2
    wb = openpyxl.load_workbook(tmp_path / "q3-sweep.xlsx")
    assert wb["Sweep"].print_title_cols == "$A:$A"
    # The charts start a printed page of their own.
    assert wb["Sweep"].row_breaks.brk and wb["Summary"].row_breaks.brk


def owned_plan():
    """(PlanResult, WorkloadFile, Catalog): one option on an owned server, where team search
    runs alone, and a bought one, where devtools runs (it has a replica on both)."""
    from test_report import bom

    from solver.inputs.loading import load_catalog, load_workloads
    from solver.plan_types import Placement, PlanOption, Server
    from solver.result import PlanResult

    catalog, wf = load_catalog(CATALOG), load_workloads(WORKLOADS)
    owned = Server("s1", "srv-4gpu-ddr4", "a100-80g-pcie", 4, "ddr4-3200-64g", 16,
                   "nvme-u2-3.84t", 2, owned=True)
    bought = Server("s2", "srv-4gpu-ddr4", "l40s", 4, "ddr4-3200-64g", 16, "nvme-u2-3.84t", 2)
    places = (
        Placement("embeddings-serving", 1, "s1", "a100-80g-pcie", 1, 6.0, 3.0, (0,)),
        Placement("code-lora-8b", 1, "s1", "a100-80g-pcie", 1, 30.0, 45.0, (1,)),
        Placement("code-lora-8b", 2, "s2", "l40s", 1, 30.0, 45.0, (0,)),
    )
    lines = bom([bought], catalog)
    opt = PlanOption(rank=1, total_cost=round(sum(ln.extended for ln in lines), 2),
                     servers=(owned, bought), lines=lines, placements=places)
    return PlanResult(status="optimal", currency="USD", options=(opt,)), wf, catalog


def test_teams_charge_what_is_bought_and_show_owned_servers_apart(tmp_path):
    """A team running only on owned servers is charged nothing; the teams add up to the
    purchase (before: shares over owned + bought servers, stored values over both, charged
    search for the owned A100 and devtools for more than the option cost)."""
    from solver.report.chargeback import team_costs

    result, wf, catalog = owned_plan()
    opt = result.options[0]
    df = team_costs(opt, wf, catalog).set_index("team")
    assert df.loc["search", "total_cost"] == 0
    assert df.loc["search", "owned_gpu_equivalents"] == 1
    assert df.loc["devtools", "total_cost"] == pytest.approx(opt.total_cost)
    assert (df.loc["devtools", "gpu_equivalents"], df.loc["devtools", "owned_gpu_equivalents"]
            ) == (1, 1)
    book = write_workbook(tmp_path / "owned.xlsx", result, wf, catalog, SOURCES)
    ws = openpyxl.load_workbook(book, data_only=True)["Teams"]
    rows = list(ws.iter_rows(values_only=True))
    header = rows.index(next(r for r in rows if r[0] == "Option" and "Adds up" in r))
    check = dict(zip(rows[header], rows[header + 1], strict=False))
    assert check["Total cost"] == pytest.approx(opt.total_cost)
    assert (check["Difference"], check["Adds up"]) == (0, True)
    labels = rows[3]
    assert "GPUs used on owned servers (not charged)" in labels
    search = next(r for r in rows if r[1] == "search")
    assert search[labels.index("Total cost")] == 0


def test_it_prints_alike_where_calibri_is_missing(book):
    """Arial 10 (Liberation Sans where Office is missing) in every cell, and a sheet that fits
    one page across is set to fit it there: LibreOffice without Calibri or Carlito printed a
    bill of materials' prices three pages after its SKUs (expand-pool: 51 pages; now 32)."""
    with zipfile.ZipFile(book) as z:
        styles = z.read("xl/styles.xml").decode()
    fonts = set(re.findall(r'<name val="([^"]+)"', styles))
    assert fonts == {"Arial"}, fonts
    wb = openpyxl.load_workbook(book)
    for name in ("Option 1", "Option 2", "Summary"):
        ws = wb[name]
        assert ws.sheet_properties.pageSetUpPr.fitToPage, name
        assert (ws.page_setup.fitToWidth or 1, ws.page_setup.fitToHeight) == (1, 0), name
