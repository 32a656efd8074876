"""The servers to buy grouped by configuration: terminal, workbook quote section, CSV files.

``sample_plan`` (tests/test_report.py) is a hand-made plan on the default catalog; its
option 1 buys three servers of three configurations.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from click.testing import CliRunner
from recalc import recalculate, soffice, stored_vs_recalculated
from test_report import CATALOG, ROOT, WORKLOADS, sample_plan

from cli import main
from solver.errors import InputError
from solver.plan_types import Server
from solver.report.plan_files import quote_paths, write_plan_files
from solver.report.quote import quote_frame, quote_lines, quote_text
from solver.report.summary import render_plan_summary

SOURCES = {"workloads": WORKLOADS, "catalog": CATALOG}


@pytest.fixture(scope="module")
def plan():
    return sample_plan()


def _doubled(option):
    """The option with a second server configured like its first (s1 -> s1 and s9)."""
    s1 = option.servers[0]
    return replace(option, servers=(*option.servers, replace(s1, id="s9")))


def test_servers_are_grouped_by_whole_configuration_and_add_up(plan):
    result, _, catalog = plan
    option = result.options[0]
    lines = quote_lines(option, catalog)
    assert [ln.qty for ln in lines] == [1, 1, 1]
    assert sum(ln.extended for ln in lines) == pytest.approx(option.total_cost)
    hgx = next(ln for ln in lines if ln.platform == "hgx-h100-8gpu-ddr5")
    assert hgx.description == ("hgx-h100-8gpu-ddr5 with 8 x h100-sxm, 32 x 64 GB DDR5-4800, "
                               "2 x 7.68 TB NVMe U.2")
    assert hgx.unit_price == pytest.approx(
        sum(q * catalog.price_of(sku) for sku, q in option.servers[0].parts()))
    two = quote_lines(_doubled(option), catalog)
    assert two[0].qty == 2 and two[0].platform == "hgx-h100-8gpu-ddr5"
    assert quote_text(two[0], "USD") == (f"2 x {two[0].description}: USD "
                                         f"{two[0].unit_price:,.0f} each, USD "
                                         f"{2 * two[0].unit_price:,.0f}")


def test_owned_servers_are_not_quoted(plan):
    result, _, catalog = plan
    option = result.options[0]
    owned = Server("o1", "srv-4gpu-ddr4", "l40s", 4, "ddr4-3200-64g", 16, None, 0, owned=True)
    lines = quote_lines(replace(option, servers=(*option.servers, owned)), catalog)
    assert sum(ln.qty for ln in lines) == 3


def test_terminal_shows_option_1_by_configuration(plan):
    result, wf, catalog = plan
    result = replace(result, options=(_doubled(result.options[0]), *result.options[1:]))
    text = render_plan_summary(result, catalog, "q3", wf=wf, width=80)
    assert "Servers option 1 buys, by configuration" in text
    block = text.split("Servers option 1 buys")[1].split("\n\n")[0]
    assert "  - 2 x hgx-h100-8gpu-ddr5 with 8 x h100-sxm" in block
    assert " each, USD " in block
    lines = quote_lines(result.options[0], catalog)
    assert f"In all 4 servers, USD {sum(ln.extended for ln in lines):,.0f}." in block
    assert all(len(line) <= 80 for line in text.splitlines())


def test_quote_frame_is_the_csv_a_vendor_reads(plan):
    result, _, catalog = plan
    df = quote_frame(result.options[0], catalog)
    assert list(df.columns) == ["quantity", "platform", "gpu", "gpus_per_server", "dimm",
                                "dimms_per_server", "drive", "drives_per_server",
                                "nics_per_server", "network", "description", "unit_price",
                                "extended_price", "currency"]
    cpu = df[df["platform"] == "cpu-node-ddr5"].iloc[0]
    assert cpu["gpu"] == "" and cpu["gpus_per_server"] == 0 and cpu["dimms_per_server"] == 24
    assert df["extended_price"].sum() == pytest.approx(result.options[0].total_cost)


def test_plan_writes_one_csv_per_option_beside_the_workbook(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    stale = out / "q3-option-7.csv"
    stale.write_text("old")
    mine = out / "q3-option-notes.csv"  # not a rank: never touched
    mine.write_text("keep")
    res = CliRunner().invoke(main, ["plan", str(ROOT / "workloads" / "q3.yaml"), "--out",
                                    str(out), "--top", "2"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.iterdir()) == [
        "q3-option-1.csv", "q3-option-2.csv", "q3-option-notes.csv", "q3.xlsx"]
    df = pd.read_csv(out / "q3-option-1.csv")
    total = openpyxl.load_workbook(out / "q3.xlsx", data_only=True)
    assert df["extended_price"].sum() == pytest.approx(_grand_total(total["Option 1"]))
    assert "Servers to quote, one CSV per option:" in res.output


def _grand_total(ws) -> float:
    for row in ws.iter_rows(values_only=True):
        if row[0] == "Grand total":
            return float(row[5])
    raise AssertionError("no Grand total")


def test_csvs_and_workbook_are_written_together(plan, tmp_path, monkeypatch):
    """A CSV that cannot be written leaves the previous workbook and CSVs as they were:
    never a new workbook beside old quotes."""
    result, wf, catalog = plan
    book = tmp_path / "q3.xlsx"
    book.write_bytes(b"previous workbook")
    for p in quote_paths(book, [1, 2]):
        p.write_text("previous csv")

    def full_disk(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("solver.report.plan_files.quote_frame", full_disk)
    with pytest.raises(InputError, match="To fix"):
        write_plan_files(book, result, wf, catalog, SOURCES)
    assert book.read_bytes() == b"previous workbook"
    assert all(p.read_text() == "previous csv" for p in quote_paths(book, [1, 2]))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "q3-option-1.csv", "q3-option-2.csv", "q3.xlsx"]


def test_workbook_quote_section_stores_what_its_formulas_compute(plan, tmp_path):
    result, wf, catalog = plan
    result = replace(result, options=(_doubled(result.options[0]), *result.options[1:]))
    book, _ = write_plan_files(tmp_path / "q3.xlsx", result, wf, catalog, SOURCES)
    ws = openpyxl.load_workbook(book)["Option 1"]
    all_rows = list(ws.iter_rows())
    start = next(i for i, r in enumerate(all_rows) if str(r[0].value).startswith("Quote:"))
    end = next(i for i, r in enumerate(all_rows) if r[0].value == "Quote total")
    rows = all_rows[start + 2:end + 1]
    assert [r[3].value for r in rows[:-1]] == [2, 1, 1]
    assert rows[0][5].value == f"=D{rows[0][0].row}*E{rows[0][0].row}"
    assert str(rows[0][4].value).startswith("=1*Assumptions!")  # a live price per server
    assert str(rows[-1][5].value).startswith("=SUM(")
    if soffice() is None:
        pytest.skip("LibreOffice (soffice) is not installed: stored values not recalculated")
    copy = recalculate([book], tmp_path / "recalc")[book]
    _, wrong = stored_vs_recalculated(book, copy)
    assert [w for w in wrong if w.sheet.startswith("Option")] == []


def test_no_quote_without_servers_to_buy(plan):
    result, _, catalog = plan
    empty = replace(result.options[0], servers=(), lines=(), placements=())
    assert quote_lines(empty, catalog) == []
    assert list(quote_frame(empty, catalog).index) == []


def test_paths_follow_the_workbook_stem():
    assert quote_paths(Path("out/report.xlsx"), [1, 3]) == [
        Path("out/report-option-1.csv"), Path("out/report-option-3.csv")]


def test_option_sheet_marks_owned_servers_and_starts_the_quote_on_a_page(plan, tmp_path):
    """An owned server is listed with the option's servers but said not to be bought, and the
    quote's title starts a printed page, so it is never left at the foot of the one before."""
    result, wf, catalog = plan
    owned = Server("o1", "srv-4gpu-ddr4", "l40s", 4, "ddr4-3200-64g", 16, None, 0, owned=True)
    option = replace(result.options[0], servers=(*result.options[0].servers, owned))
    result = replace(result, options=(option, *result.options[1:]))
    book, _ = write_plan_files(tmp_path / "q3.xlsx", result, wf, catalog, SOURCES)
    ws = openpyxl.load_workbook(book)["Option 1"]
    listed = {r[0].value: r[1].value for r in ws.iter_rows() if r[0].value in ("s1", "o1")}
    assert listed["o1"].endswith("(already owned: not bought)")
    assert "owned" not in listed["s1"]
    title = next(c.row for c in ws["A"] if str(c.value).startswith("Quote:"))
    assert title - 1 in {b.id for b in ws.row_breaks.brk}  # 0-based first row of a page


def test_counts_read_as_words(plan):
    from solver.report.wording import counted

    assert [counted(1, "server"), counted(3, "server"), counted(2, "box", "boxes")] == [
        "1 server", "3 servers", "2 boxes"]
    result, wf, catalog = plan
    text = render_plan_summary(result, catalog, "q3", wf=wf, width=100)
    assert "(s)" not in text
