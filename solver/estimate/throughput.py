"""Throughput estimator: tokens per second of one replica on one GPU SKU at one degree (T2).

Every formula, constant and source is written out in ``docs/throughput-model.md``. Units are
in the names: FLOPs, bytes, seconds, TFLOPS (10^12 FLOP/s), GB/s (10^9 bytes/s).

Training: seconds per token = FLOPs per token / (d x peak x MFU) [+ QLoRA de-quantisation]
[+ tensor-parallel all-reduces when the replica spans GPUs beyond one NVLink domain].
Inference: one decode step runs the linear layers (weights read, 2 x active params FLOPs per
sequence) and attention (the batch's KV cache) as separate kernels, each the slower of its
bytes / (bandwidth x MBU) and its FLOPs / (peak x MFU), then the tensor-parallel all-reduces
and the serving framework's step overhead (comms.py); prefill is compute-bound, plus the same
all-reduces and overhead. The class MFU is scaled by the board's power-limited clock.

This module is speed at a given batch (:func:`training_throughput` at a micro-batch,
:func:`inference_throughput` at a serving batch) and a workload's target
(:func:`target_tokens_per_s`); the batch a plan runs at (``batch: auto``, ``max_tpot_ms``,
the estimate's micro-batch) is chosen in ``replica.py``, which calls this module and
``memory.py``. Pure functions, no I/O; results are frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..inputs.catalog import GpuSku
from ..inputs.model import ModelArch
from ..inputs.policy import Policy
from ..inputs.workload import Workload
from . import comms
from .memory import kv_cache_bytes
from .weights import (
    BYTES,
    FP32_BYTES,
    NF4_BITS,
    embedding_params,
    given,
    inference_weights_bytes,
    lora_params,
    lora_targets,
)

SECONDS_PER_DAY = 86_400.0
TFLOPS = 1e12
"""FLOP/s per TFLOPS."""
GBPS = 1e9
"""Bytes/s per GB/s."""

# --- FLOPs per token (Kaplan et al. 2020; PaLM, Chowdhery et al. 2022, App. B) -------------
FORWARD_FLOPS_PER_PARAM = 2.0
"""One multiply-add per parameter per token in the forward pass (Kaplan et al. 2020)."""
BACKWARD_ACTIVATION_FLOPS_PER_PARAM = 2.0
"""Backward, gradient with respect to the layer input: one more matmul of the same size."""
BACKWARD_WEIGHT_FLOPS_PER_PARAM = 2.0
"""Backward, gradient with respect to the weight: skipped for frozen weights (LoRA base)."""
ATTENTION_FORWARD_FLOPS = 4.0
"""Attention scores QK^T and their product with V: 2 x 2 x layers x ctx x (heads x head_dim)
FLOPs per token forward (PaLM App. B's 12·L·H·Q·T for training is 3 x this; llm-foundry
counts it the same way, and its published MFU figures use it)."""
ATTENTION_BACKWARD_RATIO = 2.0
"""Attention's backward is twice its forward (gradients of Q, K and V; no weights)."""
TF32_FRACTION_OF_BF16 = 0.5
"""fp32 training runs its matmuls in TF32 at half the dense BF16 rate (A100 156 vs 312,
H100 SXM 494.7 vs 989, L40S 181 vs 362, RTX 4090 82.6 vs 165.2: NVIDIA datasheets)."""

# --- Efficiencies by GPU generation (docs/throughput-model.md, section 4) -----------------
MFU_BY_ARCH = {"ampere": 0.60, "ada": 0.60, "hopper": 0.45}
"""Fraction of dense peak a tuned stack reaches on the FLOPs it executes.
ampere: 0.60 = median MFU of llm-foundry's A100-80GB rows run without recomputation (1B-13B,
<= 8k tokens: 56.7-64.2%, median 60.3%); ada: no published MFU, taken equal to ampere;
hopper: 0.45 = midpoint of Megatron-LM's published 41-48% on H100 (llm-foundry's H100 BF16
rows without recomputation: 37.7-46.4%, median 41.6%)."""
MBU_BY_ARCH = {"ampere": 0.65, "ada": 0.65, "hopper": 0.65}
"""Fraction of memory bandwidth a tuned decode loop reaches: gpt-fast batch 1 on one A100
reads 1,397 GB/s of 2,039 (68.5%); Databricks measured 55-60% on 2-4 GPUs with tensor
parallelism (TensorRT-LLM). 0.65 sits between the single-GPU and the sharded figures."""
POWER_REFERENCE = {"ampere": (400.0, 312.0), "hopper": (700.0, 989.0)}
"""(board power W, dense BF16 TFLOPS) of the board each class MFU was measured on: A100 SXM4
(llm-foundry, fms-fsdp), H100 SXM5 (Megatron-LM, llm-foundry). Ada has no measured MFU."""
CLOCK_POWER_EXPONENT = 1.0 / 3.0
"""Dynamic power is C V^2 f and, in the DVFS range, voltage rises with frequency, so power
grows as f^3: a board given r times the reference's watts per TFLOPS sustains r^(1/3) of its
tensor clock (an A100 PCIe at 300 W: 0.909 of the 400 W SXM board's)."""
DEFAULT_MFU = 0.45
"""GPU of unknown generation: the lowest class figure (conservative)."""
DEFAULT_MBU = 0.55
"""GPU of unknown generation: the low end of the published decode range (Databricks)."""

# --- Parallelism: communication and the framework's floor live in comms.py -------------
# --- QLoRA de-quantisation ------------------------------------------------------------
DEQUANT_WRITE_BYTES = 2.0
"""QLoRA: each NF4 weight is read (4.127 bits) and written back as a 16-bit copy in every
forward and backward pass (bitsandbytes MatMul4Bit de-quantises, then runs a 16-bit matmul)."""


@dataclass(frozen=True)
class Throughput:
    """What one replica of a workload does on ``degree`` GPUs of one SKU.

    ``tokens_per_s`` counts training tokens (train/lora/qlora) or output tokens (inference).
    ``efficiency_kind`` names the efficiency that bounds it: "mfu" (compute) or "mbu"
    (bandwidth-bound decode); ``mfu`` and ``mbu`` are the figures used.
    """

    workload: str
    gpu: str
    degree: int
    tokens_per_s: float
    flops_per_token: float
    batch: int
    """Training: micro-batch (sequences); inference: concurrent sequences."""
    efficiency_kind: str
    mfu: float
    mbu: float
    tpot_ms: float | None = None
    """Inference: one decode step, ms (time per output token a request sees)."""
    ttft_ms: float | None = None
    """Inference: prefill of one prompt, ms (no queueing)."""
    bound: str = "compute"
    """"compute" or "bandwidth": which side limits a decode step (training: compute)."""
    floor_ms: float | None = None
    """Inference: what each step (decode or prefill) pays whatever the GPU's speed, ms: the
    latency of its tensor-parallel all-reduces and the framework's step overhead (N4)."""

    @property
    def efficiency(self) -> float:
        """The efficiency that bounds this estimate (mfu or mbu)."""
        return self.mfu if self.efficiency_kind == "mfu" else self.mbu

    def to_json(self) -> dict:
        """The estimate row's throughput keys (training: no tpot/ttft)."""
        out: dict = {"tokens_per_s": round(self.tokens_per_s, 1),
                     self.efficiency_kind: round(self.efficiency, 3)}
        if self.tpot_ms is not None:
            out["tpot_ms"] = round(self.tpot_ms, 2)
            out["ttft_ms"] = round(self.ttft_ms or 0.0, 1)
        return out


# --- Rates and efficiencies ----------------------------------------------------------------
def mfu_for(w: Workload, gpu: GpuSku) -> float:
    """MFU used: the workload's ``efficiency``, else the catalog's ``mfu``, else the class."""
    if w.efficiency is not None:
        return w.efficiency
    if gpu.mfu is not None:
        return gpu.mfu
    return MFU_BY_ARCH.get(gpu.arch or "", DEFAULT_MFU) * clock_factor(gpu)


def clock_factor(gpu: GpuSku) -> float:
    """Share of the reference board's sustained tensor clock this board holds under its power
    limit: (its W per dense TFLOPS / the reference's) ^ (1/3), at most 1; 1 where its arch
    has no reference. The class MFU was measured on the reference board (POWER_REFERENCE)."""
    ref = POWER_REFERENCE.get(gpu.arch or "")
    if ref is None:
        return 1.0
    ratio = (gpu.power_w / gpu.bf16_tflops) / (ref[0] / ref[1])
    return min(1.0, ratio ** CLOCK_POWER_EXPONENT)


def mbu_for(w: Workload, gpu: GpuSku) -> float:
    """MBU used: the workload's ``efficiency``, else the catalog's ``mbu``, else the class."""
    if w.efficiency is not None:
        return w.efficiency
    if gpu.mbu is not None:
        return gpu.mbu
    return MBU_BY_ARCH.get(gpu.arch or "", DEFAULT_MBU)


def peak_tflops(gpu: GpuSku, precision: str) -> float:
    """Dense tensor rate for the compute dtype, TFLOPS: BF16/FP16 the datasheet BF16 figure;
    fp32 TF32 (half of it); fp8 the FP8 figure where the card has FP8 tensor cores; int8/int4
    serving is weight-only quantisation, so its matmuls run at the 16-bit rate."""
    if precision == "fp32":
        return gpu.bf16_tflops * TF32_FRACTION_OF_BF16
    if precision == "fp8" and gpu.fp8_tflops:
        return gpu.fp8_tflops
    return gpu.bf16_tflops


# --- FLOPs -------------------------------------------------------------------------------
def active_params(a: ModelArch) -> float:
    """Parameters one token goes through: all, less the MLPs of the experts it skips (MoE)."""
    p = a.params_b * 1e9
    if a.experts <= 1:
        return p
    mats = 3 if a.mlp_kind == "swiglu" else 2
    per_expert = a.layers * mats * a.hidden * a.d_ff
    return p - (a.experts - a.n_active_experts) * per_expert


def attention_forward_flops(a: ModelArch, ctx: float) -> float:
    """Attention FLOPs of one token attending to ``ctx`` tokens, forward:
    4 x layers x ctx x heads x head_dim."""
    return ATTENTION_FORWARD_FLOPS * a.layers * ctx * a.heads * a.d_head


def training_flops_per_token(w: Workload) -> float:
    """FLOPs executed per training token, recomputation included.

    train: (2 + 2 + 2) N = 6N; lora/qlora: the frozen base skips weight gradients, (2 + 2) N
    = 4N, plus 6 x adapter params; checkpointing adds one forward (2N, i.e. 8N and 6N).
    Attention: forward 4·L·s·(heads·head_dim), backward 2x, recompute 1x more.
    N = active parameters (MoE).
    """
    a = w.arch
    n = active_params(a)
    fwd = FORWARD_FLOPS_PER_PARAM
    per_param = fwd + BACKWARD_ACTIVATION_FLOPS_PER_PARAM
    adapters = 0.0
    if w.kind == "train":
        per_param += BACKWARD_WEIGHT_FLOPS_PER_PARAM
    else:
        full = fwd + BACKWARD_ACTIVATION_FLOPS_PER_PARAM + BACKWARD_WEIGHT_FLOPS_PER_PARAM
        adapters = full * lora_params(a, w.lora_rank or 0, lora_targets(w))
    attn_passes = 1.0 + ATTENTION_BACKWARD_RATIO
    if w.activation_checkpointing:
        per_param += fwd
        attn_passes += 1.0
    return per_param * n + adapters + attn_passes * attention_forward_flops(a, given(w, "seq_len"))


def prefill_flops(a: ModelArch, prompt: int) -> float:
    """Prefill of one prompt: 2 N p + causal attention 2·L·p²·(heads·head_dim) (each token
    attends to the ones before it: half of 4·L·p per token on average)."""
    return FORWARD_FLOPS_PER_PARAM * active_params(a) * prompt + attention_forward_flops(
        a, prompt) * prompt / 2


def decode_flops_per_token(a: ModelArch, ctx: float) -> float:
    """One output token: 2 N + attention over the ``ctx`` tokens already in its KV cache."""
    return FORWARD_FLOPS_PER_PARAM * active_params(a) + attention_forward_flops(a, ctx)


# --- Training ------------------------------------------------------------------------------
def dequant_seconds_per_token(w: Workload, gpu: GpuSku, degree: int, micro_batch: int,
                              mbu: float) -> float:
    """QLoRA: de-quantising the NF4 base costs, per pass and micro-batch, reading the 4-bit
    weights and writing 16-bit copies: linear params x (4.127/8 + 2) bytes at bandwidth x MBU;
    2 passes (forward, backward), 3 with recomputation; shared by micro_batch x seq tokens."""
    if w.kind != "qlora":
        return 0.0
    a = w.arch
    linear = max(0.0, a.params_b * 1e9 - embedding_params(a))
    passes = 3 if w.activation_checkpointing else 2
    bytes_ = passes * linear * (NF4_BITS / 8 + DEQUANT_WRITE_BYTES) / degree
    return bytes_ / (gpu.mem_bw_gbps * GBPS * mbu) / (micro_batch * given(w, "seq_len"))


def training_comm_seconds_per_token(w: Workload, gpu: GpuSku, degree: int,
                                    micro_batch: int) -> float:
    """Tensor-parallel all-reduces of a replica beyond its NVLink domain, per token: 2 per
    layer per pass (forward, backward, recompute) of micro_batch x seq x hidden values in the
    compute dtype, not overlapped (comms.tp_seconds), shared by the micro-batch's tokens.
    Inside one NVLink domain none is added: the class MFU was measured with the run's own
    communication there (Megatron-LM's tensor parallelism inside NVLink; FSDP's all-gathers)."""
    if not comms.beyond_nvlink(gpu, degree):
        return 0.0
    tokens = micro_batch * given(w, "seq_len")
    passes = 3 if w.activation_checkpointing else 2
    return comms.tp_seconds(w.arch, gpu, degree, tokens, passes, BYTES[w.precision]) / tokens


def training_throughput(w: Workload, gpu: GpuSku, degree: int, micro_batch: int) -> Throughput:
    """tokens/s = 1 / (FLOPs per token / (d x peak x MFU) + de-quantisation + PCIe traffic)."""
    mfu, mbu = mfu_for(w, gpu), mbu_for(w, gpu)
    flops = training_flops_per_token(w)
    compute = flops / (degree * peak_tflops(gpu, w.precision) * TFLOPS * mfu)
    seconds = (compute + dequant_seconds_per_token(w, gpu, degree, micro_batch, mbu)
               + training_comm_seconds_per_token(w, gpu, degree, micro_batch))
    return Throughput(w.name, gpu.sku, degree, 1.0 / seconds, flops, micro_batch, "mfu",
                      mfu, mbu)


# --- Inference -----------------------------------------------------------------------------
def request_lengths(w: Workload) -> tuple[int, int]:
    """(prompt, output) tokens of a mean request; without them, half the context each."""
    ctx = w.context or 0
    prompt = w.prompt_tokens if w.prompt_tokens is not None else max(1, ctx // 2)
    output = w.output_tokens if w.output_tokens is not None else max(1, ctx - prompt)
    return prompt, output


def kv_dtype_bytes(w: Workload) -> float:
    """Bytes per KV-cache value: 1 with ``kv_cache_precision: fp8``; else the compute dtype's
    (memory.py's convention): 4 for fp32, 2 otherwise."""
    if getattr(w, "kv_cache_precision", None) == "fp8":
        return 1.0
    return FP32_BYTES if w.precision == "fp32" else BYTES["bf16"]


def _rates(w: Workload, gpu: GpuSku) -> tuple[float, float]:
    """(bytes/s, FLOP/s) a serving step reaches: bandwidth x MBU, peak x MFU."""
    return (gpu.mem_bw_gbps * GBPS * mbu_for(w, gpu),
            peak_tflops(gpu, w.precision) * TFLOPS * mfu_for(w, gpu))


def decode_step(w: Workload, gpu: GpuSku, degree: int, batch: int) -> tuple[float, str]:
    """Seconds of one decode step for ``batch`` sequences, and the bound of its matmuls.

    The linear layers and attention are separate kernels, each bound by the slower of its
    bytes and its FLOPs (roofline), and run one after the other:
    linear = max(weights / d / (BW x MBU), b x 2N / d / (peak x MFU));
    attention = max(KV cache of the batch at the mean context (prompt + half the output) / d
    / (BW x MBU), b x attention FLOPs / d / (peak x MFU));
    step = linear + attention + tensor-parallel all-reduces of b x hidden values (2 per
    layer) + the framework's step overhead (comms.py).
    """
    a = w.arch
    prompt, output = request_lengths(w)
    ctx = prompt + output / 2
    bw, peak = _rates(w, gpu)
    t_weights = inference_weights_bytes(a, w.precision) / degree / bw
    t_matmul = batch * FORWARD_FLOPS_PER_PARAM * active_params(a) / degree / peak
    kv = kv_cache_bytes(a, ctx, batch, kv_dtype_bytes(w), degree)
    t_attn = max(kv / bw, batch * attention_forward_flops(a, ctx) / degree / peak)
    floor = comms.tp_seconds(a, gpu, degree, batch, 1) + comms.step_overhead_s(w)
    bound = "bandwidth" if t_weights >= t_matmul else "compute"
    return max(t_weights, t_matmul) + t_attn + floor, bound


def prefill_seconds(w: Workload, gpu: GpuSku, degree: int) -> float:
    """One prompt's prefill: compute-bound, but never faster than one read of the weights;
    plus the all-reduces of the prompt's activations and the framework's step overhead."""
    a = w.arch
    prompt, _ = request_lengths(w)
    bw, peak = _rates(w, gpu)
    t_gpu = max(prefill_flops(a, prompt) / degree / peak,
                inference_weights_bytes(a, w.precision) / degree / bw)
    return t_gpu + comms.tp_seconds(a, gpu, degree, prompt, 1) + comms.step_overhead_s(w)


def latency_floor_s(w: Workload, gpu: GpuSku, degree: int) -> float:
    """What every step of a replica pays whatever its speed: the latency of its all-reduces
    (no payload) and the framework's step overhead, seconds (the floor of TPOT and TTFT)."""
    return comms.tp_latency_seconds(w.arch, gpu, degree) + comms.step_overhead_s(w)


def inference_throughput(w: Workload, gpu: GpuSku, degree: int, batch: int) -> Throughput:
    """Output tokens/s at steady state with continuous batching:
    batch / (step + batch x prefill / output_tokens) (each request's prefill takes the GPU
    once per output_tokens tokens); TPOT = step; TTFT = prefill of one prompt."""
    step, bound = decode_step(w, gpu, degree, batch)
    prefill = prefill_seconds(w, gpu, degree)
    prompt, output = request_lengths(w)
    tokens_per_s = batch / (step + batch * prefill / output)
    flops = decode_flops_per_token(w.arch, prompt + output / 2)
    kind = "mbu" if bound == "bandwidth" else "mfu"
    return Throughput(w.name, gpu.sku, degree, tokens_per_s, flops, batch, kind,
                      mfu_for(w, gpu), mbu_for(w, gpu), tpot_ms=step * 1e3,
                      ttft_ms=prefill * 1e3, bound=bound,
                      floor_ms=latency_floor_s(w, gpu, degree) * 1e3)


# --- Targets (T1, T3) ---------------------------------------------------------------------
def target_tokens_per_s(w: Workload) -> float | None:
    """T1: tokens/s the workload needs: tokens / (deadline_days x 86,400) for training,
    ``tokens_per_s`` (or ``requests_per_s`` x ``output_tokens``) for inference; None without a
    target (before growth, R19)."""
    if w.kind == "inference":
        return w.output_tokens_per_s
    if w.tokens is not None and w.deadline_days is not None:
        return w.tokens / (w.deadline_days * SECONDS_PER_DAY)
    return None


def latency_misses(w: Workload, t: Throughput) -> list[str]:
    """The latency limits (``max_tpot_ms``, ``max_ttft_ms``) one replica misses (empty: meets
    them all, or has none)."""
    out = []
    if w.max_tpot_ms is not None and (t.tpot_ms or 0.0) > w.max_tpot_ms + 1e-9:
        out.append(f"TPOT {t.tpot_ms:.1f} ms > max_tpot_ms {w.max_tpot_ms:g}")
    if w.max_ttft_ms is not None and (t.ttft_ms or 0.0) > w.max_ttft_ms + 1e-9:
        out.append(f"TTFT {t.ttft_ms:.0f} ms > max_ttft_ms {w.max_ttft_ms:g}")
    return out


def delivered_fraction(w: Workload, policy: Policy) -> float:
    """T3: share of the summed replica throughput that counts towards the target:
    ``policy.data_parallel_efficiency`` for training kinds, 1 for inference (load-balanced
    replicas add up)."""
    return 1.0 if w.kind == "inference" else policy.data_parallel_efficiency


def planned_target(w: Workload, policy: Policy) -> float | None:
    """T3: tokens/s the plan must deliver: the target x growth (R19); None without one."""
    need = target_tokens_per_s(w)
    return None if need is None else need * policy.growth
