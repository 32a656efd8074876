"""E2: a workload's own measurements replace the estimate of their cell everywhere.

tests/data/measured.yaml measures a QLoRA job on 1 and 2 RTX 4090 and 1 L40S, and a chat
service's tokens/s on 1 H100 SXM. The planner, the checker and every report read the
measured figures through ``replica.estimate`` / ``replica.replica_throughput``; the
estimator's own figures stay beside them (``replica.estimated`` /
``replica.estimated_throughput``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from solver.estimate.measured import memory_of, speed_of
from solver.estimate.replica import (
    estimate,
    estimated,
    estimated_throughput,
    replica_throughput,
)
from solver.inputs.loading import load_catalog, load_workloads
from solver.report import placement_tables
from solver.report.estimate_table import estimate_rows

DATA = Path(__file__).parent / "data"
MEASURED = DATA / "measured.yaml"
CATALOG = Path(__file__).parents[1] / "catalogs" / "default.yaml"


@pytest.fixture(scope="module")
def inputs():
    wf = load_workloads(MEASURED)
    cat = load_catalog(CATALOG)
    return wf, cat, {w.name: w for w in wf.workloads}


def test_torch_meter_adds_what_max_allocated_does_not_see(inputs):
    wf, cat, w = inputs
    g = cat.gpu("rtx-4090")
    raw, got = estimated(w["qlora-8b"], g, 1, wf.policy), estimate(w["qlora-8b"], g, 1, wf.policy)
    unseen = raw.vram_gb_per_gpu - raw.allocated_gb  # context + allocator cache (1 GPU)
    assert got.vram_gb_per_gpu == pytest.approx(17.5 + unseen)
    assert got.allocated_gb == pytest.approx(17.5)
    # the estimate alone fits the 19.2 GB usable; the measurement does not
    assert raw.fits and not got.fits
    m = memory_of(got)
    assert m is not None and m.meter == "torch_max_allocated"
    assert m.estimated_gb == pytest.approx(raw.allocated_gb)
    assert m.error == pytest.approx((raw.allocated_gb - 17.5) / 17.5)


def test_nvidia_smi_meter_is_the_whole_need(inputs):
    wf, cat, w = inputs
    got = estimate(w["qlora-8b"], cat.gpu("l40s"), 1, wf.policy)
    raw = estimated(w["qlora-8b"], cat.gpu("l40s"), 1, wf.policy)
    assert got.vram_gb_per_gpu == pytest.approx(21.0) and got.fits
    assert memory_of(got).estimated_gb == pytest.approx(raw.vram_gb_per_gpu)
    # host RAM, batch and breakdown stay the estimator's
    assert got.host_ram_gb == raw.host_ram_gb and got.breakdown == raw.breakdown


def test_cells_without_a_measurement_are_the_estimate(inputs):
    wf, cat, w = inputs
    for name, sku, d in [("qlora-8b", "h100-sxm", 1), ("chat-8b", "h100-sxm", 2),
                         ("chat-8b", "rtx-4090", 1)]:
        g = cat.gpu(sku)
        assert estimate(w[name], g, d, wf.policy) == estimated(w[name], g, d, wf.policy)
        assert memory_of(estimate(w[name], g, d, wf.policy)) is None
    # tokens/s measured on h100 x 1 only: memory there is the estimate's
    assert memory_of(estimate(w["chat-8b"], cat.gpu("h100-sxm"), 1, wf.policy)) is None


def test_measured_tokens_per_s_replace_the_throughput(inputs):
    wf, cat, w = inputs
    g = cat.gpu("h100-sxm")
    raw = estimated_throughput(w["chat-8b"], g, 1, wf.policy)
    got = replica_throughput(w["chat-8b"], g, 1, wf.policy)
    assert got.tokens_per_s == 1800
    assert got.efficiency == pytest.approx(raw.efficiency * 1800 / raw.tokens_per_s)
    s = speed_of(got)
    assert s is not None and s.estimated_tokens_per_s == pytest.approx(raw.tokens_per_s)
    assert speed_of(replica_throughput(w["chat-8b"], g, 2, wf.policy)) is None


def test_estimate_json_marks_measured_rows_only(inputs):
    res = CliRunner().invoke(main, ["estimate", str(MEASURED), "--gpu", "rtx-4090", "--json"])
    assert res.exit_code == 0, res.output
    rows = {(r["workload"], r["gpu"], r["degree"]): r for r in json.loads(res.output)["rows"]}
    one = rows[("qlora-8b", "rtx-4090", 1)]
    assert one["fits"] is False and one["measured"]["peak_gb"] == 17.5
    assert one["measured"]["meter"] == "torch_max_allocated"
    assert {"estimated_peak_gb", "peak_error", "tokens_per_s", "estimated_tokens_per_s",
            "tokens_per_s_error"} <= set(one["measured"])
    two = rows[("qlora-8b", "rtx-4090", 2)]
    assert two["vram_gb_per_gpu"] == 12.5 and two["tokens_per_s"] == 2900
    assert "measured" not in rows[("chat-8b", "rtx-4090", 2)]


def test_estimate_table_stars_the_measured_figures():
    res = CliRunner().invoke(main, ["estimate", str(MEASURED), "--gpu", "rtx-4090"])
    assert res.exit_code == 0, res.output
    assert "12.5*" in res.output and "2900*" in res.output
    assert "* measured on rtx-4090 x 1: peak 17.5 GB by torch_max_allocated" in res.output


def test_the_plan_uses_and_marks_the_measured_cells(tmp_path):
    # On one 4090 the measurement does not fit: the QLoRA job takes two (measured there).
    res = CliRunner().invoke(main, ["plan", str(MEASURED), "--top", "1", "--json",
                                    "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output  # the checker read the same measured figures
    opt = json.loads(res.output)["options"][0]
    qlora = [p for p in opt["placements"] if p["workload"] == "qlora-8b"]
    assert [(p["gpu"], p["gpus"]) for p in qlora] == [("rtx-4090", 2)]
    assert qlora[0]["measured"] == ["peak_gb", "tokens_per_s"]
    assert qlora[0]["vram_gb_per_gpu"] == 12.5 and qlora[0]["tokens_per_s"] == 2900
    assert all("measured" not in p for p in opt["placements"] if p["workload"] != "qlora-8b")


def test_memory_sheet_shows_the_measurement_beside_the_estimate(inputs):
    wf, cat, _ = inputs
    from solver.optimize.pipeline import plan

    result = plan(wf, cat, top=1, with_baseline=False)
    df = placement_tables.memory_table(result, wf, cat)
    row = df[df["workload"] == "qlora-8b"].iloc[0]
    assert row["measured"] == "peak memory, tokens/s" and row["meter"] == "nvidia_smi"
    assert row["total_gb_per_gpu"] == pytest.approx(12.5)
    assert row["measured_tokens_per_s"] == 2900
    assert row["memory_band"].startswith("QLoRA peak memory")


BAD = [
    ("{gpu: rtx-4900, degree: 1, tokens_per_s: 10}", "did you mean rtx-4090"),
    ("{gpu: rtx-4090, degree: 3, tokens_per_s: 10}", "power of two"),
    ("{gpu: rtx-4090, peak_gb: 12}", "needs the meter"),
    ("{gpu: rtx-4090, meter: nvidia_smi, tokens_per_s: 10}", "there is no peak_gb"),
    ("{gpu: rtx-4090}", "needs peak_gb"),
    ("{gpu: rtx-4090, peak_gb: 12, meter: nvml}", "nvidia_smi"),
]


@pytest.mark.parametrize("entry, words", BAD)
@pytest.mark.parametrize("command", ["plan", "estimate"])
def test_bad_measurements_exit_2_with_a_fix(write_yaml, entry, words, command):
    path = write_yaml(f"""name: bad
workloads:
  - {{name: chat, kind: inference, model: llama-3.1-8b, context: 4096, batch: 8,
     measurements: [{entry}]}}
""")
    res = CliRunner().invoke(main, [command, str(path), "--no-workbook"] if command == "plan"
                             else [command, str(path)])
    assert res.exit_code == 2, res.output
    assert words in res.output and "To fix" in res.output


def test_one_measurement_per_cell_and_none_for_preprocess(write_yaml):
    path = write_yaml("""name: bad
workloads:
  - {name: chat, kind: inference, model: llama-3.1-8b, context: 4096, batch: 8,
     measurements: [{gpu: l40s, tokens_per_s: 10}, {gpu: l40s, degree: 1, tokens_per_s: 9}]}
""")
    res = CliRunner().invoke(main, ["estimate", str(path)])
    assert res.exit_code == 2 and "l40s x 1 more than once" in res.output
    path = write_yaml("""name: bad
workloads:
  - {name: clean, kind: preprocess, data: {in_memory_gb: 10},
     measurements: [{gpu: l40s, tokens_per_s: 10}]}
""", "pre.yaml")
    res = CliRunner().invoke(main, ["estimate", str(path)])
    assert res.exit_code == 2 and "runs on no GPU" in res.output


def test_estimate_rows_refuse_an_unknown_measured_gpu(write_yaml):
    from solver.errors import InputError

    path = write_yaml("""name: bad
workloads:
  - {name: chat, kind: inference, model: llama-3.1-8b, context: 4096, batch: 8,
     measurements: [{gpu: h100, tokens_per_s: 10}]}
""")
    with pytest.raises(InputError) as err:
        estimate_rows(load_workloads(path), load_catalog(CATALOG))
    assert "h100-sxm" in "\n".join(err.value.problems)


def test_measured_documents_validate_against_the_printed_schemas(tmp_path):
    import jsonschema

    def doc(*args: str) -> dict:
        res = CliRunner().invoke(main, [*args, "--json"])
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    def schema(kind: str) -> dict:
        return json.loads(CliRunner().invoke(main, ["schema", kind]).stdout)

    jsonschema.validate(doc("estimate", str(MEASURED), "--gpu", "rtx-4090"), schema("estimate"))
    jsonschema.validate(doc("plan", str(MEASURED), "--top", "1", "--no-workbook"), schema("plan"))
    # the workload file itself validates against the printed input schema
    import yaml

    jsonschema.validate(yaml.safe_load(MEASURED.read_text()), schema("workloads"))


def test_plan_report_names_the_measured_placements(tmp_path):
    res = CliRunner().invoke(main, ["plan", str(MEASURED), "--top", "1", "--no-workbook"])
    assert res.exit_code == 0, res.output
    assert "Measured, not estimated" in res.output
    assert "qlora-8b on 2 x rtx-4090: peak memory and tokens/s" in res.output


def _latency_file(tmp_path: Path, limit: float, tpot: float) -> Path:
    import yaml

    path = tmp_path / "latency.yaml"
    path.write_text(yaml.safe_dump({"name": "latency", "workloads": [{
        "name": "chat-8b", "kind": "inference", "model": "llama-3.1-8b", "context": 4096,
        "batch": 16, "max_tpot_ms": round(limit, 3),
        "measurements": [{"gpu": "h100-sxm", "degree": 1, "tpot_ms": round(tpot, 3)}]}]}))
    return path


def test_a_measured_tpot_is_held_against_the_latency_limit(tmp_path):
    from solver.estimate.measured import latency_of, measured_keys
    from solver.estimate.throughput import latency_misses
    from solver.optimize.replicas import replica_options

    cat = load_catalog(CATALOG)
    g = cat.gpu("h100-sxm")
    probe = load_workloads(_latency_file(tmp_path, 1000, 1))
    est = estimated_throughput(probe.workloads[0], g, 1, probe.policy).tpot_ms
    # The limit lets the estimate pass and not the measurement, twice the estimate.
    wf = load_workloads(_latency_file(tmp_path, 1.5 * est, 2 * est))
    w = wf.workloads[0]
    got = replica_throughput(w, g, 1, wf.policy)
    assert got.tpot_ms == pytest.approx(2 * est, rel=1e-3) and latency_misses(w, got)
    assert got.tokens_per_s == estimated_throughput(w, g, 1, wf.policy).tokens_per_s
    assert speed_of(got) is None and latency_of(got).estimated_tpot_ms == pytest.approx(est)
    assert measured_keys(None, got) == ("tpot_ms",)
    cells = {(o.gpu, o.degree) for o in replica_options(w, cat, wf.policy)[0]}
    assert ("h100-sxm", 1) not in cells and ("h100-sxm", 2) in cells
    path = _latency_file(tmp_path, 1.5 * est, 2 * est)
    res = CliRunner().invoke(main, ["estimate", str(path), "--gpu", "h100-sxm", "--json"])
    row = next(r for r in json.loads(res.output)["rows"] if r["degree"] == 1)
    assert row["measured"]["tpot_ms"] == pytest.approx(2 * est, rel=1e-3)
    assert row["measured"]["estimated_tpot_ms"] == pytest.approx(est, rel=1e-3)
    table = CliRunner().invoke(main, ["estimate", str(path), "--gpu", "h100-sxm"]).output
    assert f"{2 * est:.1f}*" in table and "TPOT" in table
    import jsonschema

    schema = json.loads(CliRunner().invoke(main, ["schema", "estimate"]).stdout)
    jsonschema.validate(json.loads(res.output), schema)
