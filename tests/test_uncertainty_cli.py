"""``plan-buy sweep FILE --samples N`` as a user runs it: bad input exits 2 with the place
and a fix, the JSON document matches docs/json.md, the terminal fits 80 columns, and the
workbook's Uncertainty sheet holds the document's numbers and its two charts."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import openpyxl
import pytest
import yaml
from click.testing import CliRunner

from cli import main
from solver.uncertainty.spec import Dist, ErrorRange, EstimateErrors, Uncertainty
from tests.test_docs import sections
from tests.test_uncertainty import MEMORY_ONLY, tiny_catalog, tiny_file

pytestmark = pytest.mark.usefixtures("sweeps_in_process")


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    """A tiny workload file (with ``uncertainty``) and its one-GPU catalog, on disk."""
    wf = tiny_file(MEMORY_ONLY)
    cat = tiny_catalog(wf)
    wpath, cpath = tmp_path / "tiny.yaml", tmp_path / "cat.yaml"
    wpath.write_text(yaml.safe_dump(wf.model_dump(mode="json", exclude_none=True,
                                                  exclude_defaults=True)))
    cpath.write_text(yaml.safe_dump(cat.model_dump(mode="json", exclude_none=True)))
    return wpath, cpath


def sweep(files: tuple[Path, Path], out: Path, *args: str):
    return CliRunner().invoke(main, ["sweep", str(files[0]), "--catalog", str(files[1]),
                                     "--out", str(out), *args])


@pytest.mark.parametrize(("args", "said"), [
    (["--samples", "0"], "--samples 0"),
    (["--samples", "2", "--vary", "rent=lognormal:-0.1"], "sd"),
    (["--samples", "2", "--vary", "price.crad=fixed:1"], "did you mean card"),
    (["--samples", "2", "--vary", "speed=fixed:1"], "not something a sweep varies"),
    (["--samples", "2", "--growth", "1,2"], "--growth"),
])
def test_bad_command_lines_exit_2_with_a_fix(files, tmp_path, args, said):
    got = sweep(files, tmp_path / "out", *args)
    assert got.exit_code == 2, got.output
    assert said in got.output and "To fix" in got.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("section", "place"), [
    ({"growth": {"dist": "normal", "sd": -0.2}}, "uncertainty.growth.sd"),
    ({"prices": {"cardd": {"sd": 0.1}}}, "uncertainty.prices.cardd"),
    ({"estimates": {"peak_memory": {"low_pct": 5, "high_pct": -5}}},
     "uncertainty.estimates.peak_memory"),
    ({"rent": {"dist": "uniform", "low": 1.2}}, "uncertainty.rent"),
])
def test_a_bad_section_exits_2_naming_file_and_place(files, tmp_path, section, place):
    data = yaml.safe_load(files[0].read_text())
    data["uncertainty"] = section
    files[0].write_text(yaml.safe_dump(data))
    got = sweep(files, tmp_path / "out", "--samples", "2")
    assert got.exit_code == 2, got.output
    assert str(files[0]) in got.output and place in got.output and "To fix" in got.output


def test_json_document_matches_the_docs(files, tmp_path):
    got = sweep(files, tmp_path / "out", "--samples", "6", "--seed", "3", "--json")
    assert got.exit_code == 0, got.output
    doc = json.loads(got.output)
    docs = sections("json.md")
    assert set(docs["The uncertainty document"]) == set(doc)
    assert set(docs["`options[]` (uncertainty)"]) == set(doc["options"][0])
    assert set(docs["`resolved` (uncertainty)"]) == set(doc["resolved"])
    assert doc["samples"] == 6 and doc["seed"] == 3 and doc["scenarios"] == 6
    holds = doc["options"][0]["holds"]
    assert holds["low"] <= holds["probability"] <= holds["high"]
    assert [Path(f).name for f in doc["files"]] == ["tiny-uncertainty.jsonl",
                                                    "tiny-uncertainty.xlsx"]


def test_workload_docs_list_every_uncertainty_field():
    docs = sections("workloads.md")
    for heading, model in (("`uncertainty`", Uncertainty), ("A distribution", Dist),
                           ("`uncertainty.estimates`", EstimateErrors),
                           ("An error range", ErrorRange)):
        assert set(docs[heading]) == set(model.model_fields), heading
    assert "uncertainty" in docs["Top level"]


def test_terminal_fits_80_columns_and_names_the_chance(files, tmp_path):
    got = sweep(files, tmp_path / "out", "--samples", "4", "--no-workbook")
    assert got.exit_code == 0, got.output
    assert max(len(line) for line in got.output.splitlines()) <= 80
    assert "Holds in" in got.output and "Worst 10%" in got.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["tiny-uncertainty.jsonl"]


def test_workbook_sheet_holds_the_documents_numbers_and_two_charts(files, tmp_path):
    got = sweep(files, tmp_path / "out", "--samples", "8", "--json")
    doc = json.loads(got.output)
    book = tmp_path / "out" / "tiny-uncertainty.xlsx"
    ws = openpyxl.load_workbook(book)["Uncertainty"]
    cells = {(c.row, c.column): c.value for row in ws.iter_rows() for c in row}
    head = next(r for (r, c), v in cells.items() if v == "Holds" and c == 3)
    assert cells[(head + 1, 1)] == 1
    assert cells[(head + 1, 3)] == doc["options"][0]["holds"]["probability"]
    assert cells[(head + 1, 4)] == doc["options"][0]["holds"]["low"]
    p50 = next(r for (r, c), v in cells.items() if v == "Capex" and c == 2)
    assert cells[(p50, 4)] == doc["options"][0]["costs"]["capex"]["p50"]
    hist = next(r for (r, c), v in cells.items() if c == 3 and v == "Scenarios"
                and cells.get((r, 2)) == "to")
    counts = [cells[(r, 3)] for r in range(hist + 1, hist + 21) if cells.get((r, 3)) is not None]
    assert sum(counts) == doc["resolved"]["planned"]
    charts = [n for n in zipfile.ZipFile(book).namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == 2
