"""GPU-hours of one run of a finite training job per GPU type, and its rent
(solver/estimate/gpu_hours.py; ``plan-buy estimate``'s "GPU-hours per run" and ``gpu_hours``)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from test_docs import sections

from cli import main
from solver.estimate.gpu_hours import fewest_gpu_hours, gpu_hours_rows, run_gpu_hours
from solver.inputs.loading import load_catalog, load_workloads
from solver.report.output_schema import output_schema

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "catalogs" / "default.yaml"
DEADLINES = ROOT / "workloads" / "deadlines.yaml"
Q3 = ROOT / "workloads" / "q3.yaml"

# A GPT-2-small shape trained from scratch: train, bf16, no checkpointing, efficiency 0.4
# (so MFU is 0.4 on every GPU), 1e9 tokens, growth 1.5, data-parallel efficiency 0.8. The
# service and the job given as replicas end never: they get no GPU-hours.
TINY = """\
name: tiny
policy: {growth: 1.5, data_parallel_efficiency: 0.8}
workloads:
  - name: gpt-small
    kind: train
    model: {name: gpt-small, params_b: 0.125, hidden: 768, layers: 12, heads: 12,
            kv_heads: 12, vocab: 50257, intermediate: 3072, mlp: gelu}
    precision: bf16
    seq_len: 1024
    global_batch: 64
    efficiency: 0.4
    tokens: 1.0e+9
    deadline_days: 2
  - name: always-on
    kind: train
    model: {name: gpt-small, params_b: 0.125, hidden: 768, layers: 12, heads: 12,
            kv_heads: 12, vocab: 50257, intermediate: 3072, mlp: gelu}
    seq_len: 1024
    global_batch: 64
    replicas: 1
  - name: chat
    kind: inference
    model: llama-3.1-8b
    batch: 8
    context: 2048
"""
PRICED, UNPRICED = "a100-80g-sxm", "h100-sxm"
PRICE = 1.79


def _hand_hours(tflops: float) -> float:
    """GPU-hours of one gpt-small run on one GPU of ``tflops`` dense BF16, by hand.

    FLOPs per token (train, no recomputation) = 6 N + (1 + 2) x 4 x layers x seq x hidden
    (attention forward and its 2x backward); one GPU: tokens/s = tflops x 1e12 x MFU / FLOPs;
    GPU-hours = 1 x tokens x growth / (tokens/s x data-parallel efficiency) / 3600.
    """
    flops = 6 * 0.125e9 + 3 * 4 * 12 * 1024 * 768
    tokens_per_s = tflops * 1e12 * 0.4 / flops
    return 1 * 1.0e9 * 1.5 / (tokens_per_s * 0.8) / 3600


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """The tiny workload file, and the default catalog with one cloud price only
    (a100-80g-sxm at 1.79 per GPU-hour; h100-sxm has none)."""
    work = tmp_path / "tiny.yaml"
    work.write_text(TINY, encoding="utf-8")
    cat = yaml.safe_load(CATALOG.read_text(encoding="utf-8"))
    cat["cloud"] = [{"gpu": PRICED, "per_gpu_hour": PRICE, "source": "test"}]
    catalog = tmp_path / "one-price.yaml"
    catalog.write_text(yaml.safe_dump(cat), encoding="utf-8")
    return work, catalog


def _estimate(*args: object, width: int | None = None) -> str:
    env = {"COLUMNS": str(width)} if width else {}
    res = CliRunner().invoke(main, ["estimate", *map(str, args)], env=env)
    assert res.exit_code == 0, res.output
    return res.stdout


def test_hand_computed_run_and_a_gpu_without_a_cloud_price(files):
    work, catalog = files
    doc = json.loads(_estimate(work, "--catalog", catalog, "--gpu", PRICED, "--gpu", UNPRICED,
                               "--json"))
    rows = {r["gpu"]: r for r in doc["gpu_hours"]}
    assert {r["workload"] for r in doc["gpu_hours"]} == {"gpt-small"}
    a100 = _hand_hours(312)  # a100-80g-sxm: 312 TFLOPS dense BF16 (the catalog)
    assert rows[PRICED] == {"workload": "gpt-small", "gpu": PRICED, "degree": 1,
                            "gpu_hours": pytest.approx(a100, rel=1e-5),
                            "rent_cost": pytest.approx(PRICE * a100, rel=1e-5),
                            "currency": "USD"}
    h100 = _hand_hours(989)  # h100-sxm: 989 TFLOPS
    assert rows[UNPRICED]["gpu_hours"] == pytest.approx(h100, rel=1e-5)
    assert rows[UNPRICED]["degree"] == 1 and rows[UNPRICED]["rent_cost"] is None
    # the priced GPU first, although the other needs fewer GPU-hours
    assert [r["gpu"] for r in doc["gpu_hours"]] == [PRICED, UNPRICED]
    # the same tokens/s as the estimate's own row for one GPU
    speed = next(r["tokens_per_s"] for r in doc["rows"]
                 if r["workload"] == "gpt-small" and r["gpu"] == PRICED and r["degree"] == 1)
    assert rows[PRICED]["gpu_hours"] == pytest.approx(1.0e9 * 1.5 / (speed * 0.8) / 3600,
                                                      rel=1e-4)


def test_the_fewest_gpu_hours_over_every_degree_that_fits():
    """Against the estimate's rows: each figure is the minimum of d x tokens x growth /
    (tokens/s_d x efficiency) / 3600 over the rows that fit (qlora on h100-sxm wins at 4).
    The rows print tokens/s to 0.1, hence a relative tolerance of 1e-4."""
    doc = json.loads(_estimate(DEADLINES, "--json"))
    wf = load_workloads(DEADLINES)
    tokens = {w.name: w.tokens for w in wf.workloads}
    assert len(doc["gpu_hours"]) == 23  # 3 jobs x 8 GPUs, less pretrain-3b on rtx-4090
    for h in doc["gpu_hours"]:
        fit = [r for r in doc["rows"]
               if r["workload"] == h["workload"] and r["gpu"] == h["gpu"] and r["fits"]]
        by_degree = {r["degree"]: r["degree"] * tokens[h["workload"]] / (r["tokens_per_s"] * 0.9)
                     / 3600 for r in fit}
        assert h["gpu_hours"] == pytest.approx(min(by_degree.values()), rel=1e-4)
        assert by_degree[h["degree"]] == pytest.approx(h["gpu_hours"], rel=1e-4)
    best = {(h["workload"], h["gpu"]): h["degree"] for h in doc["gpu_hours"]}
    assert best[("qlora-legal-14b", "h100-sxm")] == 4
    assert ("pretrain-3b", "rtx-4090") not in best  # fits no degree there


def test_cheapest_rent_first_and_policy_exclude():
    wf, cat = load_workloads(DEADLINES), load_catalog(CATALOG)
    rows = gpu_hours_rows(wf, cat)
    assert [r.workload for r in rows] == sorted(
        (r.workload for r in rows), key=[w.name for w in wf.workloads].index)
    for job in {r.workload for r in rows}:
        rents = [r.rent_cost for r in rows if r.workload == job]
        assert None not in rents and rents == sorted(rents)
    excluded = wf.model_copy(update={"policy": wf.policy.model_copy(
        update={"exclude": ("h100-sxm",)})})
    assert {r.gpu for r in gpu_hours_rows(excluded, cat)} == {r.gpu for r in rows} - {"h100-sxm"}


def test_growth_scales_the_figure_and_a_service_has_none():
    wf, cat = load_workloads(DEADLINES), load_catalog(CATALOG)
    gpu = next(g for g in cat.gpus if g.sku == "a100-80g-sxm")
    job = wf.workloads[0]
    d, hours = fewest_gpu_hours(job, gpu, wf.policy)
    grown = wf.policy.model_copy(update={"growth": 2.0})
    assert fewest_gpu_hours(job, gpu, grown) == (d, pytest.approx(2 * hours))
    chat = next(w for w in wf.workloads if w.kind == "inference")
    assert fewest_gpu_hours(chat, gpu, wf.policy) is None


def test_a_replica_without_speed_is_refused():
    assert run_gpu_hours(3.6e6, 1.0, 2, 1000.0, 1.0) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="positive speed"):
        run_gpu_hours(1e9, 1.0, 1, 0.0, 0.9)


def test_terminal_section_reads_at_80_columns(files):
    work, catalog = files
    text = _estimate(work, "--catalog", catalog, "--gpu", PRICED, "--gpu", UNPRICED, width=80)
    assert all(len(line) <= 80 for line in text.splitlines())
    section = text[text.index("GPU-hours per run"):].splitlines()
    lines = [line for line in section if line.startswith("gpt-small")]
    a100 = _hand_hours(312)
    assert len(lines) == 2 and lines[0].split()[:3] == ["gpt-small", PRICED, "1"]
    assert lines[0].split()[3] == f"{a100:.3g}"  # under 100 GPU-hours: 3 digits
    assert lines[0].endswith(f"USD {PRICE * a100:.2f}")  # under 100: cents
    assert lines[1].split()[1] == UNPRICED and lines[1].endswith("no cloud price")
    assert "data-parallel efficiency 80%" in " ".join(section)
    assert "always-on" not in "\n".join(section) and "chat" not in "\n".join(section)


def test_large_figures_read_as_the_rest_of_the_tool():
    text = _estimate(DEADLINES, width=80)
    wf, cat = load_workloads(DEADLINES), load_catalog(CATALOG)
    first = gpu_hours_rows(wf, cat)[0]
    assert first.rent_cost is not None and first.rent_cost > 100
    line = next(x for x in text[text.index("GPU-hours per run"):].splitlines()
                if x.startswith(first.workload))
    assert line.split()[1] == first.gpu
    assert f"{first.gpu_hours:,.0f}" in line and line.endswith(f"USD {first.rent_cost:,.0f}")


def test_a_job_that_fits_nowhere_says_so(files):
    work, catalog = files
    text = work.read_text(encoding="utf-8").replace(  # gpt-small made 70B: no 24 GB card fits
        "params_b: 0.125, hidden: 768, layers: 12, heads: 12,\n            kv_heads: 12",
        "params_b: 70, hidden: 8192, layers: 80, heads: 64,\n            kv_heads: 8", 1)
    work.write_text(text, encoding="utf-8")
    doc = json.loads(_estimate(work, "--catalog", catalog, "--gpu", "rtx-4090", "--json"))
    assert doc["gpu_hours"] == []
    out = _estimate(work, "--catalog", catalog, "--gpu", "rtx-4090", width=80)
    section = " ".join(out[out.index("GPU-hours per run"):].split())
    assert "-> gpt-small: a replica fits on no GPU shown here" in section


def test_no_finite_job_no_section():
    assert "GPU-hours per run" not in _estimate(Q3)
    assert json.loads(_estimate(Q3, "--json"))["gpu_hours"] == []


def test_schema_and_docs_describe_the_key(files):
    work, catalog = files
    doc = json.loads(_estimate(work, "--catalog", catalog, "--json"))
    schema = output_schema("estimate")
    jsonschema.validate(doc, schema)  # with a null rent_cost
    assert any(r["rent_cost"] is None for r in doc["gpu_hours"])
    keys = {k for r in doc["gpu_hours"] for k in r}
    doc["gpu_hours"][0]["gpu_hours"] = "12"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    del doc["gpu_hours"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    documented = sections("json.md")
    assert "gpu_hours" in documented["The estimate document"]
    assert set(documented["`gpu_hours[]` (estimate)"]) == keys


def test_with_a_horizon_each_finite_job_says_what_renting_all_its_runs_costs():
    """startup.yaml: 156 weekly LoRA runs in 36 months, at the cheapest GPU's rent each."""
    from click.testing import CliRunner

    from cli import main
    out = CliRunner().invoke(main, ["estimate", str(ROOT / "workloads" / "startup.yaml")])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "finetune-70b-lora: 156 runs in the horizon (36 months):" in text
    assert "pretrain-7b: 1 run in the horizon (36 months):" in text
