"""Throughput estimator: tokens per second of one replica on one GPU SKU at one degree (T2).

Every formula, constant and source is written out in ``docs/throughput-model.md``. Units are
in the names: FLOPs, bytes, seconds, TFLOPS (10^12 FLOP/s), GB/s (10^9 bytes/s).

Training: seconds per token = FLOPs per token / (d x peak x MFU) [+ QLoRA de-quantisation]
[+ all-reduce traffic when the replica spans GPUs beyond one NVLink domain].
Inference: one decode step reads the weights and the batch's KV cache and does
2 x active params FLOPs per sequence, so it takes the slower of the two:
max(bytes / (bandwidth x MBU), FLOPs / (peak x MFU)); prefill is compute-bound.

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
from ..inputs.workload import Policy, Workload
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
DEFAULT_MFU = 0.45
"""GPU of unknown generation: the lowest class figure (conservative)."""
DEFAULT_MBU = 0.55
"""GPU of unknown generation: the low end of the published decode range (Databricks)."""

# --- Parallelism -------------------------------------------------------------------------
# Inside one NVLink domain communication costs nothing extra (``link_gbps`` is None there):
# the MFU/MBU figures above were measured on 8-GPU NVLink baseboards (FSDP, Megatron tensor
# parallel) and include it.
PCIE_GBPS = 31.5
"""PCIe 4.0 x16, one direction: 16 GT/s x 16 lanes x 128/130 / 8 (PCI-SIG). Used for the
all-reduces of a replica that spans GPUs beyond its NVLink domain (not overlapped)."""
TP_ALLREDUCES_PER_LAYER_FORWARD = 2
"""Megatron tensor parallelism: one all-reduce after attention, one after the MLP, per layer
and pass (Shoeybi et al. 2019, operators f and g); the backward has two more."""

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
    return MFU_BY_ARCH.get(gpu.arch or "", DEFAULT_MFU)


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


def link_gbps(gpu: GpuSku, degree: int) -> float | None:
    """Bandwidth of the all-reduces of a replica on ``degree`` GPUs beyond its NVLink domain,
    GB/s; None when it stays inside one domain (communication already in MFU/MBU)."""
    if degree <= 1 or degree <= gpu.nvlink_gpus:
        return None
    return PCIE_GBPS


def allreduce_bytes_per_gpu(values: float, value_bytes: float, degree: int) -> float:
    """Ring all-reduce: each GPU sends 2 (d - 1) / d of the buffer (NCCL's bus bandwidth)."""
    return 2.0 * (degree - 1) / degree * values * value_bytes


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


def training_comm_seconds_per_token(w: Workload, gpu: GpuSku, degree: int) -> float:
    """All-reduces of tensor parallelism over PCIe, per token: 2 per layer per pass (forward,
    backward, recompute) of hidden values in the compute dtype, not overlapped."""
    bw = link_gbps(gpu, degree)
    if bw is None:
        return 0.0
    a = w.arch
    passes = 3 if w.activation_checkpointing else 2
    n = TP_ALLREDUCES_PER_LAYER_FORWARD * passes * a.layers
    return n * allreduce_bytes_per_gpu(a.hidden, BYTES[w.precision], degree) / (bw * GBPS)


def training_throughput(w: Workload, gpu: GpuSku, degree: int, micro_batch: int) -> Throughput:
    """tokens/s = 1 / (FLOPs per token / (d x peak x MFU) + de-quantisation + PCIe traffic)."""
    mfu, mbu = mfu_for(w, gpu), mbu_for(w, gpu)
    flops = training_flops_per_token(w)
    compute = flops / (degree * peak_tflops(gpu, w.precision) * TFLOPS * mfu)
    seconds = (compute + dequant_seconds_per_token(w, gpu, degree, micro_batch, mbu)
               + training_comm_seconds_per_token(w, gpu, degree))
    return Throughput(w.name, gpu.sku, degree, 1.0 / seconds, flops, micro_batch, "mfu",
                      mfu, mbu)


# --- Inference -----------------------------------------------------------------------------
def request_lengths(w: Workload) -> tuple[int, int]:
    """(prompt, output) tokens of a mean request; without them, half the context each."""
    ctx = w.context or 0
    prompt = w.prompt_tokens if w.prompt_tokens is not None else max(1, ctx // 2)
    output = w.output_tokens if w.output_tokens is not None else max(1, ctx - prompt)
    return prompt, output


def kv_dtype_bytes(precision: str) -> float:
    """KV cache in the compute dtype (memory.py's convention): 4 bytes for fp32, else 2."""
    return FP32_BYTES if precision == "fp32" else BYTES["bf16"]


def decode_step(w: Workload, gpu: GpuSku, degree: int, batch: int) -> tuple[float, str]:
    """Seconds of one decode step for ``batch`` sequences, and its bound.

    bytes per GPU = weights / d + KV cache of the batch at the mean context (prompt + half
    the output: in steady state sequences are spread over their decode); FLOPs per GPU =
    batch x decode FLOPs / d; time = max(bytes / (BW x MBU), FLOPs / (peak x MFU)) [+ PCIe
    all-reduces: 2 per layer of batch x hidden values].
    """
    a = w.arch
    prompt, output = request_lengths(w)
    ctx = prompt + output / 2
    read = inference_weights_bytes(a, w.precision) / degree + kv_cache_bytes(
        a, ctx, batch, kv_dtype_bytes(w.precision), degree)
    t_mem = read / (gpu.mem_bw_gbps * GBPS * mbu_for(w, gpu))
    flops = batch * decode_flops_per_token(a, ctx) / degree
    t_compute = flops / (peak_tflops(gpu, w.precision) * TFLOPS * mfu_for(w, gpu))
    comm = 0.0
    bw = link_gbps(gpu, degree)
    if bw is not None:
        n = TP_ALLREDUCES_PER_LAYER_FORWARD * a.layers
        comm = n * allreduce_bytes_per_gpu(batch * a.hidden, kv_dtype_bytes(w.precision),
                                           degree) / (bw * GBPS)
    if t_mem >= t_compute:
        return t_mem + comm, "bandwidth"
    return t_compute + comm, "compute"


def prefill_seconds(w: Workload, gpu: GpuSku, degree: int) -> float:
    """One prompt's prefill: compute-bound, but never faster than one read of the weights."""
    a = w.arch
    prompt, _ = request_lengths(w)
    t_compute = prefill_flops(a, prompt) / degree / (
        peak_tflops(gpu, w.precision) * TFLOPS * mfu_for(w, gpu))
    t_mem = inference_weights_bytes(a, w.precision) / degree / (
        gpu.mem_bw_gbps * GBPS * mbu_for(w, gpu))
    return max(t_compute, t_mem)


def inference_throughput(w: Workload, gpu: GpuSku, degree: int, batch: int) -> Throughput:
    """Output tokens/s at steady state with continuous batching:
    batch / (step + batch x prefill / output_tokens) (each request's prefill takes the GPU
    once per output_tokens tokens); TPOT = step; TTFT = prefill of one prompt."""
    step, bound = decode_step(w, gpu, degree, batch)
    prefill = prefill_seconds(w, gpu, degree)
    _, output = request_lengths(w)
    tokens_per_s = batch / (step + batch * prefill / output)
    prompt, _ = request_lengths(w)
    flops = decode_flops_per_token(w.arch, prompt + output / 2)
    kind = "mbu" if bound == "bandwidth" else "mfu"
    return Throughput(w.name, gpu.sku, degree, tokens_per_s, flops, batch, kind,
                      mfu_for(w, gpu), mbu_for(w, gpu), tpot_ms=step * 1e3,
                      ttft_ms=prefill * 1e3, bound=bound)


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
