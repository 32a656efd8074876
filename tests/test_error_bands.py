"""E3: each estimate carries the error band of its regime from the published cases.

The shipped table (solver/data/error_bands.yaml) is bench/error_bands.py's output from the
validation sets; these tests fail when it is stale, and check that `estimate` (table and
JSON) and the workbook's Memory sheet show the band of each row's regime.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench import error_bands
from cli import main
from solver.estimate.bands import BANDS_PATH, Band, band_for, band_text, bands_json, load_bands

REPO = Path(__file__).parents[1]
Q3 = REPO / "workloads" / "q3.yaml"


def test_shipped_table_is_the_case_files_output():
    assert BANDS_PATH.read_text(encoding="utf-8") == error_bands.build(), (
        "solver/data/error_bands.yaml is stale: run python bench/error_bands.py --write")


def test_a_band_is_the_largest_error_of_its_cases_rounded_up():
    errors = [("peak_memory", "qlora", 1, -0.058, "a"), ("peak_memory", "qlora", 1, 0.094, "b"),
              ("peak_memory", "qlora", 2, 0.20, "c"), ("tokens_per_s", "train", 8, 0.10, "d")]
    got = {(b["quantity"], b["kind"], b["gpus"]): b for b in error_bands.bands(errors)}
    one = got[("peak_memory", "qlora", "one")]
    assert (one["cases"], one["within_pct"], one["median_pct"]) == (2, 10, 7.6)
    assert (one["low_pct"], one["high_pct"]) == (-5.8, 9.4)
    assert got[("peak_memory", "qlora", "several")]["within_pct"] == 20
    assert got[("peak_memory", "qlora", "any")]["cases"] == 3
    assert got[("tokens_per_s", "train", "several")]["within_pct"] == 10  # not 11 (float noise)
    assert ("tokens_per_s", "train", "one") not in got  # no case: no band


def test_formula_and_informational_cases_are_not_counted():
    ids = {case_id for *_, case_id in error_bands.case_errors()}
    assert "seed-13b-fp16-adam" not in ids  # a formula check, not a run's measurement
    assert "bert-large-fp16-bs4" in ids and "foundry-h100-mpt7b" in ids
    assert not error_bands._counted({"informational": True})


def test_lookup_prefers_the_degree_class_then_any(tmp_path):
    path = tmp_path / "bands.yaml"
    path.write_text(error_bands.render(error_bands.bands([
        ("peak_memory", "lora", 1, 0.05, "a"), ("tokens_per_s", "lora", 4, -0.2, "b")])))
    one = band_for("peak_memory", "lora", 1, path)
    assert one is not None and one.gpus == "one"
    anyb = band_for("peak_memory", "lora", 4, path)
    assert anyb is not None and anyb.gpus == "any"
    assert "none measured at 2+ GPUs" in anyb.text(4)
    assert band_for("peak_memory", "train", 1, path) is None
    assert "no published case" in band_text(None, "tpot_ms", "inference", 1)


def test_band_words():
    b = Band("peak_memory", "qlora", "one", 9, 15, 4.2, -12.0, 14.1)
    assert b.text() == "QLoRA peak memory, 1 GPU: within ±15% on 9 published cases (median 4.2%)"
    assert b.to_json()["within_pct"] == 15


def test_every_shipped_regime_reads_back():
    table = load_bands()
    assert table and all(b.cases >= 1 and b.within_pct >= 1 for b in table.values())
    assert bands_json("preprocess", 0) == {}


def test_estimate_json_and_table_carry_the_band():
    res = CliRunner().invoke(main, ["estimate", str(Q3), "--gpu", "h100-sxm", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["rows"]
    for r in rows:
        if r["gpu"] is None:
            assert "band" not in r
            continue
        band = r["band"]
        assert "peak_memory" in band and "tokens_per_s" in band
        for entry in band.values():
            assert entry is None or {"regime", "cases", "within_pct", "text"} <= set(entry)
    res = CliRunner().invoke(main, ["estimate", str(Q3), "--gpu", "h100-sxm"])
    assert "error band of these estimates on published measurements" in res.output
    assert "peak memory ±" in res.output


@pytest.mark.parametrize("kind, degree", [("train", 1), ("inference", 8)])
def test_memory_sheet_band_columns(kind, degree):
    from solver.report.measured_cells import band_columns

    cols = band_columns(kind, degree)
    assert set(cols) == {"memory_band", "throughput_band"}
    assert cols["memory_band"].startswith(("Training", "Inference"))
    assert band_columns("preprocess", 0) == {"memory_band": "", "throughput_band": ""}
