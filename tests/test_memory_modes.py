"""E1 memory modes: pure bf16, optimizer in backward, optimizer offload, chunked loss,
ZeRO/FSDP sharding, fp8 KV cache; and the preprocess host RAM without a loader factor.

Hand-computed figures; formulas in docs/memory-model.md sections 1, 5, 6, 8 and 11.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from cli import main
from solver.estimate import host_ram as H
from solver.estimate import replica as R
from solver.estimate import states as S
from solver.estimate import weights as W
from solver.inputs.catalog import GpuSku
from solver.inputs.data_spec import DataSpec
from solver.inputs.model import ModelArch
from solver.inputs.policy import Policy
from solver.inputs.presets import preset
from solver.inputs.workload import Workload

H100 = GpuSku(sku="h100-sxm", name="H100", vram_gb=80, mem_bw_gbps=3350, bf16_tflops=989,
              power_w=700, form_factor="sxm", nvlink_gbps=900, price=25000)
RTX4090 = GpuSku(sku="rtx-4090", name="RTX 4090", vram_gb=24, mem_bw_gbps=1008,
                 bf16_tflops=165, power_w=450, form_factor="pcie", nvlink_gbps=0, price=1800)
POLICY = Policy()
ZERO_7_5B = ModelArch(params_b=7.5, hidden=4096, layers=36, heads=32, vocab=50257)
L8B = preset("llama-3.1-8b")


def train(model: ModelArch, **kw) -> Workload:
    base = {"name": "t", "kind": "train", "model": model, "precision": "bf16",
            "seq_len": 2048, "global_batch": 64, "micro_batch": 1}
    return Workload(**{**base, **kw})


def states_gb(w: Workload, d: int) -> float:
    bd = R.estimate(w, H100, d, POLICY).breakdown
    return bd.weights_gb + bd.gradients_gb + bd.optimizer_gb + bd.master_weights_gb


# --- Pure bf16 (R3, R4) --------------------------------------------------------------------
def test_pure_bf16_keeps_adamw_states_in_bf16():
    bd = R.estimate(train(L8B, master_weights=False), H100, 1, POLICY).breakdown
    p = L8B.params_b
    assert bd.master_weights_gb == 0
    assert bd.optimizer_gb == pytest.approx(p * 4)  # two bf16 states
    assert bd.weights_gb == bd.gradients_gb == pytest.approx(p * 2)


@pytest.mark.parametrize(("optimizer", "k"), [("sgd", 2), ("adamw8bit", 2), ("adam", 4)])
def test_pure_bf16_state_bytes_per_optimizer(optimizer, k):
    w = train(L8B, master_weights=False, optimizer=optimizer)
    assert W.optimizer_bytes_per_param(w) == k


def test_mixed_precision_and_fp16_without_master_keep_fp32_states():
    assert W.optimizer_bytes_per_param(train(L8B)) == 8  # master copy on: FP32 update
    # R5 (SPEC): 13B fp16 Adam without a master copy is 26 + 26 + 104 = 156 GB.
    assert W.optimizer_bytes_per_param(train(L8B, precision="fp16", master_weights=False)) == 8


# --- Optimizer in backward, offload ----------------------------------------------------------
def test_optimizer_in_backward_keeps_the_largest_tensor_gradient():
    bd = R.estimate(train(L8B, optimizer_in_backward=True), H100, 1, POLICY).breakdown
    assert bd.gradients_gb == pytest.approx(128256 * 4096 * 2 / 1e9)  # the LM head, bf16


def test_optimizer_offload_moves_state_and_master_to_host_ram():
    on = R.estimate(train(L8B, optimizer_offload="cpu"), H100, 1, POLICY)
    off = R.estimate(train(L8B), H100, 1, POLICY)
    assert on.breakdown.optimizer_gb == on.breakdown.master_weights_gb == 0
    moved = off.breakdown.optimizer_gb + off.breakdown.master_weights_gb
    assert on.offload_ram_gb == pytest.approx(moved)  # 8 + 4 bytes x 8.03B = 96.4 GB
    assert on.host_ram_gb == pytest.approx(off.host_ram_gb + moved)


def test_offload_under_zero3_counts_the_whole_replica_once():
    w = train(L8B, optimizer_offload="cpu", sharding="zero3")
    e = R.estimate(w, H100, 8, POLICY)
    assert e.offload_ram_gb == pytest.approx(L8B.params_b * 12)


def test_8b_full_finetune_runs_on_a_24gb_card():
    # torchtune llama3_1/8B_full_single_device: pure bf16, paged 8-bit AdamW fused into the
    # backward pass, checkpointing, chunked loss. The old model said 85 GB.
    w = train(L8B, master_weights=False, optimizer="adamw8bit", optimizer_in_backward=True,
              optimizer_offload="cpu", activation_checkpointing=True, loss="chunked",
              global_batch=8, micro_batch="auto")
    e = R.estimate(w, RTX4090, 1, Policy(headroom=0.1))
    assert e.fits and e.micro_batch >= 1 and e.vram_gb_per_gpu <= 0.9 * 24
    one = R.estimate(w.model_copy(update={"micro_batch": 1}), RTX4090, 1, POLICY)
    assert one.vram_gb_per_gpu < 20.0  # every byte counted; over 0.8 x 24 by 0.65 GB
    assert e.breakdown.optimizer_gb == 0 and e.breakdown.master_weights_gb == 0


# --- Loss -----------------------------------------------------------------------------------
def test_chunked_loss_keeps_logits_once_in_the_compute_dtype():
    kw = {"kind": "qlora", "lora_rank": 8, "seq_len": 512, "global_batch": 2, "micro_batch": 2}
    full = R.estimate(train(L8B, **kw), H100, 1, POLICY).breakdown
    chunked = R.estimate(train(L8B, loss="chunked", **kw), H100, 1, POLICY).breakdown
    assert full.activations_gb - chunked.activations_gb == pytest.approx(
        1024 * 128256 * (12 - 2) / 1e9)


def test_loss_defaults_keep_todays_answers():
    assert train(L8B).loss_kind == "chunked"
    assert train(L8B, kind="lora", lora_rank=8).loss_kind == "chunked"
    assert train(L8B, kind="qlora", lora_rank=8).loss_kind == "full"


# --- Sharding (ZeRO, Rajbhandari et al. 2020, Fig. 1) ---------------------------------------
@pytest.mark.parametrize(("mode", "gb"), [("none", 120 / 64), ("zero1", 15 + 15 + 90 / 64),
                                          ("zero2", 15 + 105 / 64), ("zero3", 120 / 64)])
def test_zero_stages_per_gpu_states(mode, gb):
    w = train(ZERO_7_5B, precision="fp16", optimizer="adam", sharding=mode)
    assert states_gb(w, 64) == pytest.approx(gb)


def test_zero_ranks_run_their_own_micro_batch():
    tp = R.estimate(train(L8B, micro_batch=2), H100, 8, POLICY)
    fsdp = R.estimate(train(L8B, micro_batch=2, sharding="zero3"), H100, 8, POLICY)
    one = R.estimate(train(L8B, micro_batch=2), H100, 1, POLICY)
    assert fsdp.breakdown.activations_gb == pytest.approx(one.breakdown.activations_gb)
    assert tp.breakdown.activations_gb == pytest.approx(one.breakdown.activations_gb / 8)
    assert (tp.grad_accum_steps, fsdp.grad_accum_steps) == (32, 4)  # 64 / 2, 64 / (2 x 8)


def test_zero3_buffers_are_overhead_and_counted_as_allocated():
    w = train(L8B, sharding="zero3")
    st8 = S.training_states(w, 8)
    unit = W.shard_unit_params(L8B) * L8B.params_b * 1e9 * 2 / (L8B.params_b * 1e9)
    assert st8.buffers == pytest.approx(2 * unit + W.shard_unit_params(L8B) * 2)
    assert S.training_states(w, 1).buffers == 0


def test_zero_auto_micro_batch_stops_at_the_per_rank_share():
    e = R.estimate(train(preset("gpt2"), sharding="zero2", global_batch=16, micro_batch="auto"),
                   H100, 8, POLICY)
    assert e.micro_batch <= 2 and e.grad_accum_steps == 16 // (8 * e.micro_batch)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["zero1", "zero2", "zero3"]), st.sampled_from([2, 4, 8, 16]))
def test_more_ranks_never_hold_more_states(mode, d):
    w = train(L8B, sharding=mode)
    assert states_gb(w, 2 * d) <= states_gb(w, d) + 1e-9


# --- KV cache --------------------------------------------------------------------------------
def test_fp8_kv_cache_halves_the_cache():
    kw = {"name": "s", "kind": "inference", "model": L8B, "context": 16000, "batch": 4}
    bf16 = R.estimate(Workload(**kw), H100, 1, POLICY).breakdown.kv_cache_gb
    fp8 = R.estimate(Workload(**kw, kv_cache_precision="fp8"), H100, 1, POLICY)
    assert fp8.breakdown.kv_cache_gb == pytest.approx(bf16 / 2)
    assert bf16 == pytest.approx(2 * 32 * 8 * 128 * 16000 * 4 * 2 / 1e9)


# --- Host RAM --------------------------------------------------------------------------------
def test_preprocess_host_ram_has_no_loader_factor():
    # The cleaning job: 240 GB x 2.5 expansion x 1.2 reserve = 720 GB, not 1,440 GB.
    w = Workload(name="p", kind="preprocess",
                 data=DataSpec(in_memory_gb=240, expansion=2.5, workers=16))
    assert R.estimate(w, None, 0, POLICY).host_ram_gb == pytest.approx(720.0)
    assert H.data_ram_gb(train(L8B, data=w.data)) == pytest.approx(1440.0)  # a DataLoader


# --- Input checks ----------------------------------------------------------------------------
BAD = """name: bad
workloads:
  - {name: t, kind: train, model: llama-3.1-8b, seq_len: 2048, global_batch: 8, sharding: zero4}
  - {name: s, kind: inference, model: llama-3.1-8b, context: 4096, batch: 8,
     kv_cache_precision: int4, optimizer_offload: cpu}
  - {name: q, kind: lora, model: llama-3.1-8b, lora_rank: 8, seq_len: 512, global_batch: 8,
     kv_cache_precision: fp8, loss: chunky}
"""


def test_bad_mode_values_exit_2_with_a_fix(tmp_path: Path):
    f = tmp_path / "bad.yaml"
    f.write_text(BAD, encoding="utf-8")
    r = CliRunner().invoke(main, ["plan", str(f), "--no-workbook"])
    assert r.exit_code == 2, r.output
    for needle in ("workloads[0].sharding", "write sharding: zero3",
                   "workloads[1].kv_cache_precision",
                   "optimizer_offload is not for an 'inference' workload",
                   "workloads[2].loss", "kv_cache_precision is not for a 'lora' workload"):
        assert needle in r.output, needle
    assert r.output.count("To fix") >= 5
