"""``plan-buy estimate``: exit codes, the readable table, and the --json contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from solver.inputs.loading import load_catalog, load_workloads
from solver.report.estimate_table import degrees_for, estimate_rows, is_waste

REPO = Path(__file__).parents[1]
Q3 = Path(__file__).parent / "data" / "customer-q3.yaml"
CATALOG = REPO / "catalogs" / "default.yaml"
ROW_KEYS = {"workload", "gpu", "degree", "fits", "vram_gb_per_gpu", "allocated_gb",
            "reserved_gb", "comm_buffers_gb", "host_ram_gb", "micro_batch", "grad_accum_steps",
            "batch", "breakdown", "cpu_cores"}
SPEED_KEYS = {"tokens_per_s", "mfu", "mbu", "tpot_ms", "ttft_ms"}
"""Throughput keys (T2); tests/test_throughput.py checks which rows carry which."""
BREAKDOWN_KEYS = {"weights_gb", "gradients_gb", "optimizer_gb", "master_weights_gb",
                  "activations_gb", "kv_cache_gb", "overhead_gb"}


def run(*args):
    return CliRunner().invoke(main, ["estimate", *map(str, args)])


def test_table_for_customer_q3():
    res = run(Q3)
    assert res.exit_code == 0, res.output
    wf = load_workloads(Q3)
    for w in wf.workloads:
        assert w.name in res.output
    assert "allocated" in res.output and "needed" in res.output and "host RAM" in res.output
    assert "torch.cuda.max_memory_allocated" in res.output  # says which quantity is which
    assert "mostly idle" in res.output  # e.g. the embeddings job on an 80 GB card
    assert "R7" not in res.output  # rule numbers live in the docs, not in the table


def test_json_is_exactly_the_rows_document():
    res = CliRunner().invoke(main, ["estimate", str(Q3), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert set(doc) == {"rows", "gpu_hours"} and doc["gpu_hours"] == []  # no job with tokens
    assert doc["rows"]
    for row in doc["rows"]:
        assert set(row) - ROW_KEYS <= SPEED_KEYS | {"band"} and ROW_KEYS <= set(row)  # E3
        assert set(row["breakdown"]) == BREAKDOWN_KEYS
    pre = [r for r in doc["rows"] if r["workload"] == "tokenize-and-dedup"]
    assert len(pre) == 1 and pre[0]["degree"] == 0 and pre[0]["gpu"] is None


def test_gpu_filter():
    res = CliRunner().invoke(main, ["estimate", str(Q3), "--gpu", "h100-sxm", "--json"])
    assert res.exit_code == 0, res.output
    gpus = {r["gpu"] for r in json.loads(res.stdout)["rows"]}
    assert gpus == {"h100-sxm", None}


def test_unknown_gpu_is_exit_2_with_suggestion():
    res = run(Q3, "--gpu", "h100-sxn")
    assert res.exit_code == 2
    assert "did you mean 'h100-sxm'" in res.output
    assert "Traceback" not in res.output


def test_rows_cover_every_workload_gpu_and_allowed_degree():
    wf, cat = load_workloads(Q3), load_catalog(CATALOG)
    rows = estimate_rows(wf, cat, ())
    gpu_work = [w for w in wf.workloads if w.kind != "preprocess"]
    want = sum(len(degrees_for(g, wf.policy)) for g in cat.gpus) * len(gpu_work)
    assert len(rows) == want + 1
    by_gpu = {(r.gpu, r.degree) for r in rows if r.gpu}
    assert ("rtx-4090", 2) in by_gpu and ("rtx-4090", 4) not in by_gpu  # PCIe cap 2 (R10)
    assert ("h100-pcie", 4) not in by_gpu and ("h100-sxm", 8) in by_gpu


@pytest.mark.parametrize(("cap", "want"), [(1, (1,)), (4, (1, 2, 4)), (8, (1, 2, 4, 8))])
def test_degrees_respect_policy_cap(cap, want):
    wf, cat = load_workloads(Q3), load_catalog(CATALOG)
    policy = wf.policy.model_copy(update={"max_parallel_degree": cap})
    assert degrees_for(cat.gpu("h100-sxm"), policy) == want


def test_waste_flag_only_on_fitting_rows_under_30_percent():
    wf, cat = load_workloads(Q3), load_catalog(CATALOG)
    for r in estimate_rows(wf, cat, ("h200-sxm",)):
        assert is_waste(r) == (r.fits and r.gpu is not None
                               and r.vram_gb_per_gpu < 0.3 * 141)


def test_allocated_reserved_and_need_are_ordered_in_every_row():
    res = CliRunner().invoke(main, ["estimate", str(Q3), "--json"])
    for row in json.loads(res.stdout)["rows"]:
        if row["gpu"] is None:
            continue
        assert row["allocated_gb"] <= row["reserved_gb"] <= row["vram_gb_per_gpu"]
        assert row["comm_buffers_gb"] == (0 if row["degree"] == 1 else pytest.approx(1.922))
        parts = sum(row["breakdown"].values())
        assert parts == pytest.approx(row["vram_gb_per_gpu"], abs=0.01)  # overhead stays total


LORA_JOB = """name: lt
workloads:
  - name: a
    kind: {kind}
    model: {model}
    lora_rank: 8
    seq_len: 512
    global_batch: 8
    lora_targets: {targets}
"""


@pytest.mark.parametrize(("kind", "model", "targets", "message"), [
    ("lora", "llama-2-7b", "[q, q_proj, mlp]",
     "unknown modules 'q_proj' (did you mean 'q'?), 'mlp'"),
    ("lora", "llama-2-7b", "all", "non-empty list of modules or 'all-linear', got 'all'"),
    ("lora", "llama-2-7b", "[]", "non-empty list"),
    ("lora", "llama-2-7b", "[q, q]", "lists q more than once"),
    ("qlora", "gpt2", "[q, gate]", "GELU MLP without a gate projection"),
    ("train", "llama-2-7b", "[q, v]", "lora_targets is not for a 'train' workload"),
])
def test_bad_lora_targets_are_exit_2_with_the_allowed_names(tmp_path, kind, model, targets,
                                                            message):
    f = tmp_path / "w.yaml"
    f.write_text(LORA_JOB.format(kind=kind, model=model, targets=targets), encoding="utf-8")
    res = run(f)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output
    if "unknown" in message or "non-empty" in message:
        assert "q, k, v, o, gate, up, down" in res.output and "'all-linear'" in res.output


@pytest.mark.parametrize("targets", ["all-linear", "[q, k, v, o]", "[down]"])
def test_good_lora_targets_estimate(tmp_path, targets):
    f = tmp_path / "w.yaml"
    f.write_text(LORA_JOB.format(kind="lora", model="llama-2-7b", targets=targets),
                 encoding="utf-8")
    res = run(f, "--gpu", "h100-sxm", "--json")
    assert res.exit_code == 0, res.output


def test_every_estimate_row_carries_its_cpu_cores(tmp_path):
    """O3 in the JSON contract: a row carries what one replica needs on its server,
    data.cpu_cores when given, else (workers + 1) per GPU for training, 2 per GPU for
    inference."""
    import json

    from click.testing import CliRunner

    from cli import main

    f = tmp_path / "w.yaml"
    f.write_text(
        "name: t\nworkloads:\n"
        "  - {name: tr, kind: train, model: gpt2, seq_len: 512, global_batch: 8,\n"
        "     data: {workers: 3}}\n"
        "  - {name: inf, kind: inference, model: gpt2, context: 512, batch: 1}\n"
        "  - {name: pre, kind: preprocess, data: {in_memory_gb: 10, cpu_cores: 48}}\n")
    res = CliRunner().invoke(main, ["estimate", str(f), "--gpu", "l40s", "--json"])
    assert res.exit_code == 0, res.output
    cores = {(r["workload"], r["degree"]): r["cpu_cores"] for r in json.loads(res.output)["rows"]}
    assert cores[("tr", 1)] == 4 and cores[("tr", 2)] == 8
    assert cores[("inf", 1)] == 2 and cores[("inf", 2)] == 4
    assert cores[("pre", 0)] == 48
