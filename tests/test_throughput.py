"""Throughput estimator: each formula against a hand computation (docs/throughput-model.md)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli import main
from solver.estimate import replica as R
from solver.estimate import throughput as T
from solver.inputs.catalog import GpuSku
from solver.inputs.model import ModelArch
from solver.inputs.policy import Policy
from solver.inputs.workload import Workload

POLICY = Policy()
# A tiny dense model that is easy to compute by hand: N = 1e8, L = 4, h = 1024, 8 heads of 128.
ARCH = ModelArch(name="tiny", params_b=0.1, hidden=1024, layers=4, heads=8, vocab=1000,
                 mlp="gelu")
L, H, S, N = 4, 1024, 512, 1e8


def gpu(**kw) -> GpuSku:
    base = {"sku": "g", "vram_gb": 80, "mem_bw_gbps": 1000, "bf16_tflops": 100, "power_w": 300,
                "form_factor": "sxm", "nvlink_gbps": 600, "price": 0, "mfu": 0.5, "mbu": 0.5}
    return GpuSku(**{**base, **kw})


def train(kind="train", ckpt=False, model=ARCH, **kw) -> Workload:
    extra = {"lora_rank": 8} if kind != "train" else {}
    return Workload(name="t", kind=kind, model=model, seq_len=S, global_batch=8, micro_batch=4,
                    activation_checkpointing=ckpt, **extra, **kw)


def serve(batch=1, model=ARCH, **kw) -> Workload:
    # No framework overhead, so the hand formulas below are the GPU's alone (test_comms.py).
    kw.setdefault("step_overhead_ms", 0)
    return Workload(name="s", kind="inference", model=model, batch=batch, prompt_tokens=100,
                    output_tokens=100, **kw)


# --- FLOPs per token -------------------------------------------------------------------------
def test_full_training_is_6n_plus_attention():
    # 6N + 3 x 4·L·s·h = 6e8 + 12 x 4 x 512 x 1024
    assert T.training_flops_per_token(train()) == pytest.approx(6 * N + 12 * L * S * H)


def test_checkpointing_adds_exactly_one_forward():
    diff = T.training_flops_per_token(train(ckpt=True)) - T.training_flops_per_token(train())
    assert diff == pytest.approx(2 * N + 4 * L * S * H)  # 8N instead of 6N, attention 4x not 3x


def test_lora_skips_weight_gradients_of_the_frozen_base():
    # 4N + 6 x adapters (q, v at rank 8: 8 x (1024 + 1024) x 2 x 4 layers) + attention
    adapters = 8 * (1024 + 1024) * 2 * L
    want = 4 * N + 6 * adapters + 12 * L * S * H
    assert T.training_flops_per_token(train("lora")) == pytest.approx(want)
    assert T.training_flops_per_token(train("lora")) < T.training_flops_per_token(train())
    # with recomputation LoRA is 6N on the base
    ck = T.training_flops_per_token(train("lora", ckpt=True))
    assert ck == pytest.approx(6 * N + 6 * adapters + 16 * L * S * H)


def test_moe_counts_active_parameters_only():
    moe = ModelArch(name="moe", params_b=0.5, hidden=1024, layers=4, heads=8, vocab=1000,
                    intermediate=2048, mlp="swiglu", experts=8, active_experts=2)
    per_expert = L * 3 * 1024 * 2048
    assert T.active_params(moe) == pytest.approx(5e8 - 6 * per_expert)
    w = train(model=moe)
    assert T.training_flops_per_token(w) == pytest.approx(
        6 * (5e8 - 6 * per_expert) + 12 * L * S * H)


def test_mixtral_active_parameters_match_the_published_12_9b():
    from solver.inputs.presets import PRESETS
    assert T.active_params(PRESETS["mixtral-8x7b"]) / 1e9 == pytest.approx(12.9, abs=0.05)


# --- Training tokens/s -----------------------------------------------------------------------
def test_training_tokens_per_s_is_peak_times_mfu_over_flops():
    t = R.throughput(train(), gpu(), 1, POLICY)
    assert t.tokens_per_s == pytest.approx(100e12 * 0.5 / (6 * N + 12 * L * S * H))
    assert (t.efficiency_kind, t.mfu, t.batch) == ("mfu", 0.5, 4)


def test_degree_scales_linearly_inside_nvlink_and_pays_pcie_outside():
    one = R.throughput(train(), gpu(), 1, POLICY).tokens_per_s
    assert R.throughput(train(), gpu(), 2, POLICY).tokens_per_s == pytest.approx(2 * one)
    pcie = gpu(nvlink_gbps=0, form_factor="pcie")
    two = R.throughput(train(), pcie, 2, POLICY)
    # 2 all-reduces x 2 passes x 4 layers, each of micro-batch 4 x 512 tokens x 1024 bf16
    # values (ring factor 2 x 1/2) at 31.5 GB/s x 0.8, plus 2 hops of PCIe latency; per token
    tokens = 4 * S
    each = 2 * 42.56e-6 / 14 + tokens * 1024 * 2 / (31.5e9 * 0.8)
    assert 1 / two.tokens_per_s == pytest.approx(1 / (2 * one) + 16 * each / tokens)


def test_qlora_pays_dequantisation_over_lora():
    # Same adapters on both (qlora's default is every linear layer), so only de-quant differs.
    lora = R.throughput(train("lora", lora_targets="all-linear"), gpu(), 1, POLICY).tokens_per_s
    qlora = R.throughput(train("qlora"), gpu(), 1, POLICY).tokens_per_s
    linear = N - 1000 * 1024 * 2  # embeddings and LM head stay 16-bit
    dequant = 2 * linear * (4.127 / 8 + 2) / (1000e9 * 0.5) / (4 * S)
    assert 1 / qlora == pytest.approx(1 / lora + dequant)


def test_fp32_runs_at_the_tf32_rate():
    bf16 = R.throughput(train(), gpu(), 1, POLICY).tokens_per_s
    fp32 = R.throughput(train(precision="fp32"), gpu(), 1, POLICY).tokens_per_s
    assert fp32 == pytest.approx(bf16 / 2)


# --- Efficiencies -------------------------------------------------------------------------
def test_efficiency_precedence_workload_then_catalog_then_class():
    g = gpu(mfu=None, mbu=None, arch="hopper")
    assert T.mfu_for(train(), g) == T.MFU_BY_ARCH["hopper"]
    assert T.mfu_for(train(), gpu(mfu=0.3)) == 0.3
    assert T.mfu_for(train(efficiency=0.2), gpu(mfu=0.3)) == 0.2
    assert T.mbu_for(serve(efficiency=0.2), gpu()) == 0.2
    assert T.mfu_for(train(), gpu(mfu=None, arch=None)) == T.DEFAULT_MFU


# --- Decode, prefill ----------------------------------------------------------------------
def test_decode_at_batch_1_reads_weights_and_kv_at_bandwidth():
    step, bound = T.decode_step(serve(), gpu(), 1, 1)
    kv = 2 * L * 8 * 128 * 150 * 2  # mean context = prompt + output / 2 = 150 tokens
    assert bound == "bandwidth"
    assert step == pytest.approx((2 * N + kv) / (1000e9 * 0.5))


def test_decode_bound_switches_from_bandwidth_to_compute_as_batch_grows():
    gqa = ModelArch(name="gqa", params_b=0.1, hidden=1024, layers=4, heads=8, kv_heads=1,
                    vocab=1000, mlp="gelu")
    g = gpu()
    # The linear layers read 2e8 bytes at 5e11 B/s or do b x 2e8 FLOPs at 5e13 FLOP/s: compute
    # past b = 100. Attention, a kernel of its own, adds its KV read (307,200 B per sequence;
    # its 2,457,600 FLOPs per sequence are faster) after them.
    assert T.decode_step(serve(model=gqa), g, 1, 100)[1] == "bandwidth"
    step, bound = T.decode_step(serve(model=gqa), g, 1, 117)
    assert bound == "compute"
    assert step == pytest.approx(117 * 2e8 / 5e13 + 117 * 307_200 / 5e11)


def test_inference_tokens_per_s_tpot_and_ttft():
    t = R.throughput(serve(), gpu(), 1, POLICY)
    step, _ = T.decode_step(serve(), gpu(), 1, 1)
    prefill = max((2 * N * 100 + 4 * L * 100 * H * 100 / 2) / 5e13, 2 * N / 5e11)
    assert t.tpot_ms == pytest.approx(step * 1e3)
    assert t.ttft_ms == pytest.approx(prefill * 1e3)
    assert t.tokens_per_s == pytest.approx(1 / (step + prefill / 100))
    assert t.efficiency_kind == "mbu"


def test_tensor_parallel_splits_weights_for_decode():
    one = T.decode_step(serve(), gpu(), 1, 1)[0]
    two = T.decode_step(serve(), gpu(), 2, 1)[0]
    # plus 2 all-reduces x 4 layers over NVLink (300 GB/s one way x 0.8): 2 hops of latency
    # and 1024 bf16 values (ring factor 1)
    each = 2 * 33.7e-6 / 14 + 1024 * 2 / (300e9 * 0.8)
    assert two == pytest.approx(one / 2 + 8 * each)


def test_serving_batch_fits_vram_and_meets_tpot():
    g = gpu(vram_gb=24)
    w = serve()
    free = R.serving_batch(w, g, 1, POLICY)
    assert 1 < free <= R.MAX_AUTO_BATCH
    limit = T.decode_step(w, g, 1, 2)[0] * 1e3
    capped = R.serving_batch(w.model_copy(update={"max_tpot_ms": limit}), g, 1, POLICY)
    assert capped == 2


def test_targets():
    w = train(tokens=8.64e9, deadline_days=1)
    assert T.target_tokens_per_s(w) == pytest.approx(1e5)
    assert T.target_tokens_per_s(serve(tokens_per_s=500)) == 500
    assert T.target_tokens_per_s(train()) is None


def test_preprocess_has_no_throughput():
    w = Workload(name="p", kind="preprocess")
    with pytest.raises(ValueError, match="preprocess"):
        R.throughput(w, gpu(), 1, POLICY)


def test_context_defaults_to_prompt_plus_output():
    assert serve().context == 200


def test_rtx_4090_rate_is_bf16_with_fp32_accumulate(default_catalog):
    g = default_catalog.gpu("rtx-4090")
    assert g.bf16_tflops == pytest.approx(165, abs=0.5) and g.fp8_tflops == pytest.approx(330)


# --- The estimate command -------------------------------------------------------------------
def test_estimate_json_rows_carry_throughput_by_kind(root):
    res = CliRunner().invoke(main, ["estimate", str(root / "workloads" / "q3.yaml"), "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    kinds = {w: k for w, k in (("chat-sft-13b", "train"), ("support-bot-serving", "inference"),
                               ("tokenize-and-dedup", "preprocess"))}
    for row in rows:
        kind = kinds.get(row["workload"])
        if kind == "preprocess":
            assert not {"tokens_per_s", "mfu", "mbu", "tpot_ms", "ttft_ms"} & set(row)
        elif kind == "train":
            assert {"tokens_per_s", "mfu"} <= set(row) and "tpot_ms" not in row
        elif kind == "inference":
            assert {"tokens_per_s", "tpot_ms", "ttft_ms"} <= set(row)
            assert ("mbu" in row) != ("mfu" in row)
        if kind and kind != "preprocess":
            assert (row["tokens_per_s"] is None) == (not row["fits"])


def test_estimate_table_shows_tokens_per_s(root):
    res = CliRunner().invoke(main, ["estimate", str(root / "workloads" / "q3.yaml")],
                             env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "tokens/s" in res.output
    assert "ms per output token" in res.output and "ms to first token" in res.output
