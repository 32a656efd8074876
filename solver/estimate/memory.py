"""Memory of one replica: per-GPU VRAM by component and host RAM, at a given batch (R1-R15).

Every formula, constant and source is written out in ``docs/memory-model.md``; the
docstrings below name the formula and the R-rule. Units: GB = 10^9 bytes (SPEC). What the
parameters hold is in ``weights.py``, activations in ``activations.py``, host RAM in
``host_ram.py``; this module adds them up per GPU with the runtime overhead and says whether
a replica fits. It needs a concrete serving batch: ``batch: auto`` is chosen in
``replica.py``, which weighs memory against decode speed.

Parallel degree ``d`` is one replica spread over ``d`` GPUs as **tensor parallelism with
sequence parallelism** (Megatron-LM; Korthikanti et al. 2022, Table 2): every model state
(weights, gradients, optimizer state, master copy) is split ``d`` ways, and so are the
activations, the logits (vocabulary-parallel loss) and the KV cache (by heads). Only the
per-process overhead (CUDA context) is not split. All ``d`` GPUs work on the same
micro-batch, so one replica is one data-parallel copy and reaches ``global_batch`` by
gradient accumulation alone: ``accum = ceil(global_batch / micro_batch)`` (R9); when the
global batch is not a multiple, the last micro-batch of a step is the remainder.

Pure functions, no I/O; results are frozen dataclasses.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from .. import rules
from ..inputs.catalog import GpuSku
from ..inputs.model import ModelArch
from ..inputs.policy import Policy
from ..inputs.workload import Workload
from .activations import activations_bytes
from .host_ram import data_ram_gb, ram_ratio
from .states import data_parallel_ranks, training_states
from .weights import (
    BYTES,
    FP32_BYTES,
    GB,
    dequant_scratch_bytes,
    given,
    inference_weights_bytes,
)

# --- Inference runtime ---------------------------------------------------------------------
PREFILL_CHUNK_TOKENS = 8192
"""Tokens processed in one prefill forward pass at most (vLLM chunked prefill default
``max_num_batched_tokens`` 8192 on recent releases); sizes the transient buffers."""
INFER_ACT_VALUES_PER_TOKEN_H = 4.0
"""Transient values per token in one layer's forward at inference, in units of hidden
(residual, norm output, attention output, MLP input) plus 2 x intermediate for the MLP."""

# --- Runtime overhead ----------------------------------------------------------------------
CUDA_CONTEXT_GB = 1.408
"""CUDA context + PyTorch kernels per process: 1,343 MiB measured by NVML on a V100 in the
Hugging Face 'Model training anatomy' docs (ranges 0.3-1.3+ GB by GPU and library)."""
COMM_BUFFERS_GB = 1.79 * 2**30 / 1e9
"""Per GPU when one replica spans d >= 2 GPUs: NCCL communicator buffers (and, in vLLM, its
custom all-reduce buffers), allocated outside PyTorch's allocator. vLLM's memory profiler
(vllm-project/vllm PR #10511) reads non-torch memory 1.79 GiB at TP 1 and 3.58 GiB per GPU at
TP 2 (Llama-3-8B, H100): +1.79 GiB = 1.92 GB per GPU. Order-of-magnitude check from NCCL's
defaults: each channel keeps per peer and direction a Simple buffer of NCCL_BUFFSIZE 4 MiB
plus LL128 (~4.5 MiB) and LL (256 KiB) buffers, so 16-32 channels x 2 ring peers x 2
directions x ~9 MiB = 0.6-1.2 GB, plus tree/NVLS and graph-capture buffers. Not split by d
(a ring keeps two peers at any size; NVIDIA/nccl#986)."""
ALLOCATOR_CACHE_FRACTION = 0.25
"""PyTorch's caching allocator keeps freed activation blocks reserved: reserved exceeds
max_allocated by ~10-30% of the transient (activation) memory; 0.25 fits the HF BERT
NVML measurements (docs/memory-model.md, accuracy table)."""
FIT_EPS_GB = 1e-9
"""Float tolerance for the fit test."""


@dataclass(frozen=True)
class MemoryBreakdown:
    """Per-GPU VRAM by component, GB (10^9 bytes)."""

    weights_gb: float = 0.0
    gradients_gb: float = 0.0
    optimizer_gb: float = 0.0
    master_weights_gb: float = 0.0
    activations_gb: float = 0.0
    kv_cache_gb: float = 0.0
    overhead_gb: float = 0.0

    @property
    def total_gb(self) -> float:
        """Sum of every component, GB."""
        return sum(asdict(self).values())

    def to_json(self) -> dict:
        return {k: round(v, 3) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Estimate:
    """What one replica of a workload needs on one GPU SKU at one parallel degree.

    ``vram_gb_per_gpu`` is what a planner must reserve on each GPU: every tensor plus the
    CUDA context and the allocator's cache (comparable to nvidia-smi "used").
    ``allocated_gb`` is the same minus the CUDA context and the allocator cache, neither of
    which ``torch.cuda.max_memory_allocated`` counts (comparable to it).
    """

    workload: str
    gpu: str | None
    degree: int
    fits: bool
    vram_gb_per_gpu: float
    usable_vram_gb: float
    host_ram_gb: float
    micro_batch: int | None
    grad_accum_steps: int | None
    breakdown: MemoryBreakdown
    note: str = ""
    batch: int | None = None
    """Inference: sequences served at once (``batch: auto`` resolved for this GPU)."""
    comm_buffers_gb: float = 0.0
    """Part of ``breakdown.overhead_gb`` that is NCCL communication buffers (degree >= 2);
    outside PyTorch's allocator, so neither allocated nor reserved counts it."""
    cuda_context_gb: float = 0.0
    """Part of ``breakdown.overhead_gb`` that is the CUDA context (not in max_allocated)."""
    allocator_cache_gb: float = 0.0
    """Part of ``breakdown.overhead_gb`` the caching allocator keeps reserved (not in
    max_allocated); the rest of the overhead past the context is de-quantisation scratch."""
    data_ram_gb: float = 0.0
    """R11 part of the host-RAM need, GB."""
    ratio_ram_gb: float = 0.0
    """R12 part of the host-RAM need, GB."""
    gpu_vram_gb: float = 0.0
    """VRAM of one card of this SKU, GB (0 without a GPU)."""
    offload_ram_gb: float = 0.0
    """E1 ``optimizer_offload: cpu``: optimizer state and master copy held in host RAM,
    GB per replica (included in ``host_ram_gb``)."""

    @property
    def reserved_gb(self) -> float:
        """Per-GPU peak of PyTorch's caching allocator, GB: ``allocated_gb`` + the allocator
        cache (``torch.cuda.max_memory_reserved``); the CUDA context and the communication
        buffers are outside it."""
        return self.vram_gb_per_gpu - self.cuda_context_gb - self.comm_buffers_gb

    @property
    def allocated_gb(self) -> float:
        """Per-GPU peak of live tensors, GB: what ``torch.cuda.max_memory_allocated`` sees
        (including de-quant scratch) = need - context - comm buffers - allocator cache."""
        return self.reserved_gb - self.allocator_cache_gb

    @property
    def vram_utilisation(self) -> float:
        """Fraction of each card this replica uses (0 without a GPU); R7/R18 waste check."""
        return self.vram_gb_per_gpu / self.gpu_vram_gb if self.gpu_vram_gb else 0.0

    def to_json(self) -> dict:
        """The estimate row: the SPEC's keys plus the allocated/reserved split and the
        communication buffers (finer figures of the same need)."""
        return {
            "workload": self.workload,
            "gpu": self.gpu,
            "degree": self.degree,
            "fits": self.fits,
            "vram_gb_per_gpu": round(self.vram_gb_per_gpu, 3),
            "allocated_gb": round(self.allocated_gb, 3),
            "reserved_gb": round(self.reserved_gb, 3),
            "comm_buffers_gb": round(self.comm_buffers_gb, 3),
            "host_ram_gb": round(self.host_ram_gb, 3),
            "micro_batch": self.micro_batch,
            "grad_accum_steps": self.grad_accum_steps,
            "batch": self.batch,
            "breakdown": self.breakdown.to_json(),
        }


def dequant_scratch_gb(w: Workload, degree: int) -> float:
    """De-quantisation scratch per GPU, GB: qlora training (bitsandbytes NF4, compute dtype)
    and int4 serving (bitsandbytes de-quantises for multi-token prefill matmuls, 16-bit)."""
    if w.kind == "qlora":
        dtype_bytes = BYTES[w.precision]
    elif w.kind == "inference" and w.precision == "int4":
        dtype_bytes = BYTES["bf16"]
    else:
        return 0.0
    return dequant_scratch_bytes(w.arch, dtype_bytes) / GB / degree


def scratch_gb(w: Workload, degree: int) -> float:
    """Transient copies counted in overhead and in max_allocated, GB per GPU: the
    de-quantisation scratch (split d ways only with tensor parallelism) and, under
    ZeRO-2/3, the sharding buffers (``states.States.buffers``)."""
    if w.kind not in ("train", "lora", "qlora"):
        return dequant_scratch_gb(w, degree)
    tp = degree if w.sharding_mode == "none" else 1
    return dequant_scratch_gb(w, tp) + training_states(w, degree).buffers / GB


# --- Component breakdowns ------------------------------------------------------------------
def allocator_cache_gb(transient_gb: float) -> float:
    """Caching-allocator reserve past max_allocated: a fraction of the transient memory."""
    return ALLOCATOR_CACHE_FRACTION * transient_gb


def comm_buffers_gb(degree: int) -> float:
    """NCCL communication buffers per GPU: ``COMM_BUFFERS_GB`` once a replica spans >= 2 GPUs."""
    return COMM_BUFFERS_GB if degree >= 2 else 0.0


def _with_overhead(bd: MemoryBreakdown, transient_gb: float, degree: int,
                   scratch_gb: float = 0.0) -> MemoryBreakdown:
    """Overhead = CUDA context + communication buffers (d >= 2) + allocator cache +
    de-quantisation scratch (SPEC: everything that is not a model tensor). The scratch is
    allocated, so max_allocated counts it; the context and comm buffers are outside torch."""
    cache = allocator_cache_gb(transient_gb + scratch_gb)
    return replace(bd, overhead_gb=CUDA_CONTEXT_GB + comm_buffers_gb(degree) + cache
                   + scratch_gb)


def training_breakdown(w: Workload, degree: int, mb: int) -> MemoryBreakdown:
    """R1-R6 per GPU for train/lora/qlora at micro-batch ``mb``, GB.

    train: weights P*e, gradients P*e (R2), optimizer P*k (R3), master P*4 if mixed (R4).
    lora:  frozen base P*e; adapters on ``lora_targets`` (default q, v) P_A*4 with FP32
           gradients and optimizer state.
    qlora: frozen base NF4 (4.127 bits) + non-quantised tensors after PEFT's k-bit
           preparation (``qlora_base_bytes``); adapters as lora (default every linear layer);
           overhead adds one de-quantised layer (``dequant_scratch_bytes``).
    How the states split over ``degree`` and the E1 modes is ``states.training_states``;
    activations are / d with tensor parallelism, whole under ZeRO/FSDP (each rank its own
    micro-batch of ``mb``).
    """
    st = training_states(w, degree)
    tp = degree if w.sharding_mode == "none" else 1
    act = activations_bytes(w, mb, tp) / GB
    bd = MemoryBreakdown(
        weights_gb=st.weights / GB,
        gradients_gb=st.gradients / GB,
        optimizer_gb=st.optimizer / GB,
        master_weights_gb=st.master / GB,
        activations_gb=act,
    )
    return _with_overhead(bd, act, degree, scratch_gb(w, degree))


def kv_cache_bytes(a: ModelArch, tokens: float, batch: int, dtype_bytes: float,
                   degree: int = 1) -> float:
    """KV cache per GPU, bytes = 2 x L x kv_heads x head_dim x tokens x batch x bytes.

    Tensor parallelism splits KV heads over ``degree`` GPUs; with fewer KV heads than GPUs
    each GPU keeps one head (vLLM replicates them), so per GPU ceil(kv_heads / d) heads.
    """
    heads_per_gpu = math.ceil(a.n_kv_heads / degree)
    return 2 * a.layers * heads_per_gpu * a.d_head * tokens * batch * dtype_bytes


def kv_value_bytes(w: Workload) -> float:
    """Bytes of one KV-cache value: ``kv_cache_precision`` (fp8: 1, vLLM
    ``kv_cache_dtype=fp8``), else the compute dtype (4 for fp32, else 2; vLLM ``auto``)."""
    if w.kv_cache_precision is not None:
        return BYTES[w.kv_cache_precision]
    return FP32_BYTES if w.precision == "fp32" else BYTES["bf16"]


def inference_breakdown(w: Workload, degree: int) -> MemoryBreakdown:
    """Inference per GPU: weights + KV cache + transient prefill buffers + overhead, GB."""
    a = w.arch
    act_b = FP32_BYTES if w.precision == "fp32" else BYTES["bf16"]  # compute dtype
    weights = inference_weights_bytes(a, w.precision)
    context, batch = given(w, "context"), given(w, "batch")
    kv = kv_cache_bytes(a, context, batch, kv_value_bytes(w), degree)
    chunk = min(context * batch, PREFILL_CHUNK_TOKENS)
    per_tok = (INFER_ACT_VALUES_PER_TOKEN_H * a.hidden + 2 * a.d_ff * a.n_active_experts) * act_b
    act = (chunk * per_tok + batch * a.vocab * FP32_BYTES) / degree
    bd = MemoryBreakdown(weights_gb=weights / GB / degree, kv_cache_gb=kv / GB,
                         activations_gb=act / GB)
    return _with_overhead(bd, act / GB, degree, scratch_gb(w, degree))


# --- Micro-batch (R9) ----------------------------------------------------------------------
def auto_micro_batch(w: Workload, degree: int, usable_gb: float) -> int:
    """R9: largest micro-batch in [1, global_batch] whose need fits under ``usable_gb``.

    The need is affine in the micro-batch (every activation term is linear in b), so the
    answer is closed form; one check each side guards float rounding. Returns 1 when even
    a micro-batch of 1 does not fit (the caller reports fits=False).
    """
    top = math.ceil(given(w, "global_batch") / data_parallel_ranks(w, degree))
    n1 = training_breakdown(w, degree, 1).total_gb
    if n1 > usable_gb + FIT_EPS_GB:
        return 1
    slope = training_breakdown(w, degree, 2).total_gb - n1
    mb = top if slope <= 0 else min(top, 1 + int((usable_gb - n1) / slope))
    while mb > 1 and training_breakdown(w, degree, mb).total_gb > usable_gb + FIT_EPS_GB:
        mb -= 1
    while mb < top and training_breakdown(w, degree, mb + 1).total_gb <= usable_gb + FIT_EPS_GB:
        mb += 1
    return mb


# --- The memory estimate -------------------------------------------------------------------
def memory_estimate(w: Workload, gpu: GpuSku | None, degree: int, policy: Policy) -> Estimate:
    """One replica of ``w`` on ``degree`` GPUs of ``gpu`` at its own batch: per-GPU VRAM,
    host RAM, fit. An inference workload's ``batch`` must be a number (``batch: auto`` is
    resolved by ``replica.estimate``); a training ``micro_batch: auto`` is resolved here (R9).

    fits = vram_gb_per_gpu <= (1 - headroom) x gpu.vram_gb (R15). Host RAM = max(R11 data
    RAM, R12 ratio x VRAM basis); the basis is the cards the replica occupies
    (degree x vram_gb), or for shareable jobs their own need x degree (R17).
    ``preprocess`` (or no GPU) needs host RAM only: degree 0, VRAM 0, fits.
    """
    data = data_ram_gb(w)
    if w.kind == "preprocess" or gpu is None:
        return Estimate(w.name, None, 0, True, 0.0, 0.0, data, None, None, MemoryBreakdown(),
                        note="host RAM only (R11)", data_ram_gb=data)
    if degree < 1:
        raise ValueError(f"parallel degree must be >= 1 for a GPU workload, got {degree}")
    usable = rules.usable(gpu.vram_gb, policy)
    mb = accum = None
    note = ""
    if w.kind == "inference":
        if not isinstance(w.batch, int):
            raise ValueError(f"workload {w.name!r}: batch {w.batch!r} must be resolved to a "
                             "number first (replica.estimate chooses batch: auto)")
        bd = inference_breakdown(w, degree)
    else:
        if w.micro_batch == "auto":
            mb = auto_micro_batch(w, degree, usable)
        else:
            mb = w.micro_batch
        bd = training_breakdown(w, degree, mb)
        accum, note = _accumulation(w, degree, mb)
    need = bd.total_gb
    fits = need <= usable + FIT_EPS_GB
    if not fits:
        note = (note + "; " if note else "") + "does not fit even at this micro-batch"
    basis = need * degree if w.shareable else gpu.vram_gb * degree
    ratio_ram = ram_ratio(w, degree, policy) * basis
    offload = training_states(w, degree).offloaded / GB if w.kind != "inference" else 0.0
    return Estimate(
        workload=w.name, gpu=gpu.sku, degree=degree, fits=fits, vram_gb_per_gpu=need,
        usable_vram_gb=usable, host_ram_gb=max(data, ratio_ram) + offload, micro_batch=mb,
        grad_accum_steps=accum, breakdown=bd, note=note, comm_buffers_gb=comm_buffers_gb(degree),
        batch=w.batch if isinstance(w.batch, int) else None,
        cuda_context_gb=CUDA_CONTEXT_GB,
        allocator_cache_gb=(bd.overhead_gb - CUDA_CONTEXT_GB - comm_buffers_gb(degree)
                            - scratch_gb(w, degree)),
        data_ram_gb=data, ratio_ram_gb=ratio_ram, gpu_vram_gb=gpu.vram_gb,
        offload_ram_gb=offload,
    )


def _accumulation(w: Workload, degree: int, mb: int) -> tuple[int, str]:
    """R9: accumulation steps = ceil(global_batch / (mb x ranks)), ranks = d under ZeRO/FSDP
    (each rank its own micro-batch), else 1; and the note when it does not divide."""
    global_batch = given(w, "global_batch")
    ranks = data_parallel_ranks(w, degree)
    per_step = mb * ranks
    accum = math.ceil(global_batch / per_step)
    if per_step * accum == global_batch:
        return accum, ""
    if ranks > 1:
        return accum, (f"{ranks} ranks x micro-batch {mb} x {accum} steps = "
                       f"{per_step * accum} sequences per step (global_batch {global_batch})")
    # Not divisible: the last micro-batch of each step carries the remainder, so the global
    # batch stays exact; memory is sized by the full micro-batch.
    last = global_batch - mb * (accum - 1)
    return accum, f"{global_batch} = {accum - 1} x {mb} + last micro-batch {last}"
