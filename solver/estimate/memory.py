"""Memory estimator: per-GPU VRAM and per-replica host RAM of one workload (R1-R15).

Every formula, constant and source is written out in ``docs/memory-model.md``; the
docstrings below name the formula and the R-rule. Units: GB = 10^9 bytes (SPEC).

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
from ..inputs.workload import DEFAULT_LORA_TARGETS, LORA_MODULES, ModelArch, Policy, Workload

GB = 1e9
"""Bytes per GB: the SPEC's (and the seed's) decimal convention, 13B x 2 bytes = 26 GB."""

# --- Bytes per value (R1) ------------------------------------------------------------------
BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
"""R1: bytes of one parameter in each dtype (SPEC R1)."""
MIXED_PRECISIONS = ("fp16", "bf16")
"""Training in these dtypes is mixed precision: 16-bit compute, FP32 update (R4)."""
FP32_BYTES = 4.0
"""R4: an FP32 master copy is 4 bytes per trained parameter."""

# --- Optimizer state (R3) ------------------------------------------------------------------
OPTIMIZER_BYTES = {"adam": 8.0, "adamw": 8.0, "sgd": 4.0, "adamw8bit": 2.0}
"""R3: state bytes per trained parameter: Adam/AdamW momentum + variance in FP32 (8);
SGD momentum (4); bitsandbytes 8-bit Adam, two 1-byte states (2). Matches ZeRO's K = 12 for
mixed-precision Adam once the 4-byte master copy is counted apart (Rajbhandari et al. 2020)."""

# --- Quantised weights ---------------------------------------------------------------------
NF4_BLOCKSIZE = 64
"""bitsandbytes 4-bit (NF4/FP4) block size: one absmax constant per 64 weights (QLoRA paper
Sec. 3; bitsandbytes ``quantize_4bit`` default ``blocksize=64``)."""
NF4_DQ_BLOCKSIZE = 256
"""Double quantisation groups 256 first-level constants under one FP32 second-level absmax."""
NF4_BITS_NO_DQ = 4.0 + 32 / NF4_BLOCKSIZE
"""4-bit weights without double quantisation: 4 bits + an FP32 absmax per 64 = 4.5 bits
(QLoRA paper: "32/64 = 0.5 bits per parameter"). The transformers ``BitsAndBytesConfig``
default (``bnb_4bit_use_double_quant=False``) and LitGPT ``bnb.nf4``."""
NF4_BITS = 4.0 + 8 / NF4_BLOCKSIZE + 32 / (NF4_BLOCKSIZE * NF4_DQ_BLOCKSIZE)
"""NF4 with double quantisation, the QLoRA recipe: 4 bits + an 8-bit absmax per 64 values +
an FP32 second-level absmax per 256 blocks = 4.127 bits (Dettmers et al. 2023, Sec. 3:
8/64 + 32/(64*256) = 0.127 bits). Used for ``kind: qlora``."""
INT4_BITS_GPTQ = 4.0 + (16 + 4) / 128
"""GPTQ/AWQ-style int4: 4 bits + an FP16 scale and a packed 4-bit zero point per group of 128
weights (AutoGPTQ/AutoAWQ default group size 128) = 4.16 bits."""
INT4_BITS = NF4_BITS_NO_DQ
"""Serving ``precision: int4``: planned as bitsandbytes 4-bit without double quantisation
(``load_in_4bit=True`` defaults), 4.5 bits; it is the largest of the common 4-bit formats
(GPTQ/AWQ group 128: 4.16 bits), so the plan holds whichever one is deployed."""
INT8_ROW_SCALE_BYTES = 4.0
"""bitsandbytes LLM.int8(): one FP32 absmax scale per output row of each int8 matrix
(Dettmers et al. 2022); outlier columns are computed in FP16 on the fly."""
QUANT_BITS = {"int4": INT4_BITS, "int8": 8.0, "fp8": 8.0}
"""Bits per quantised linear-layer weight when serving in these precisions."""
EMBEDDING_BYTES_QUANTISED = 2.0
"""Embeddings, LM head and norms stay 16-bit in quantised models: bitsandbytes/transformers
replace only ``nn.Linear`` layers and skip ``lm_head`` (``llm_int8_skip_modules``); vLLM FP8
leaves them in BF16."""
KBIT_UPCAST_BYTES = 4.0
"""PEFT ``prepare_model_for_kbit_training`` casts every parameter that is not quantised
(embeddings, LM head, norms) to FP32. bf16 recipes cast embeddings and LM head back to bf16
afterwards (QLoRA's ``qlora.py`` with ``--bf16``; TRL ``peft_module_casting_to_bf16``), fp16
and fp32 runs keep them in FP32; norms stay FP32 either way."""
DEQUANT_BUFFERS = 1
"""bitsandbytes' 4-bit matmul (``MatMul4Bit``) de-quantises the whole weight to the compute
dtype, in the forward pass and again for the input gradient, one layer at a time: one
transient copy of the largest linear layer (torchao's NF4 tensor does the same per op)."""
# --- LoRA (Hu et al. 2021) -----------------------------------------------------------------
LORA_TARGETS = DEFAULT_LORA_TARGETS["lora"]
"""Default adapted matrices of ``kind: lora`` (no ``lora_targets``): query and value
projections, the original LoRA paper's choice and the default of PEFT (``target_modules`` for
LLaMA) and LitGPT."""
LORA_ALL_LINEAR = LORA_MODULES
"""Every linear layer of a transformer block (``lora_targets: all-linear``), the default of
``kind: qlora``. QLoRA (Dettmers et al. 2023, Sec. 4) finds LoRA on all linear layers is
required to match 16-bit finetuning, and its ``qlora.py`` adapts every ``Linear4bit`` layer."""
LORA_PARAM_BYTES = 4.0
"""Adapters are trained in FP32 (PEFT ``autocast_adapter_dtype=True`` default), so they need
no separate master copy; their gradients are FP32 too."""

# --- Activations (Korthikanti et al. 2022, re-derived; docs/memory-model.md) ---------------
MASK_BYTES = 1.0
"""A dropout mask stores one byte per element (Korthikanti et al. 2022, Sec. 4.1)."""
NORM_INPUT_BYTES_MIXED = 4.0
"""LayerNorm under torch.autocast and RMSNorm in HF/LitGPT run in FP32 and save an FP32
input (PyTorch autocast op list: layer_norm -> float32; LlamaRMSNorm upcasts)."""
SOFTMAX_BYTES_MIXED = 4.0
"""Eager attention under torch.autocast computes softmax in FP32 (autocast op list) and
saves its FP32 output; Megatron's fused kernel would keep 2 bytes (Korthikanti's 5as/h)."""
LORA_DROPOUT_SAVES = True
"""PEFT and LitGPT apply dropout (p = 0.05-0.1; QLoRA paper 0.1/0.05) to each adapter's
input: autograd keeps its 16-bit output and a 1-byte mask per adapted matrix."""
HF_LOSS_BYTES_PER_LOGIT = 12.0
"""``kind: qlora`` is planned on the transformers + PEFT stack, whose causal-LM loss is not
chunked: it upcasts the logits to FP32 (``logits.float()``), makes a shifted contiguous FP32
copy and ``cross_entropy`` keeps its FP32 log-softmax output: 3 x 4 bytes per logit at the
loss. Trainers with a chunked loss (LitGPT, torchtune) hold less."""
SEED_ACTIVATION_COEFFICIENT = 17.0
"""R6 (the seed): activations = b x s x h x L x dtype bytes x coefficient, coefficient 12-20
by architecture; 17 is the midpoint, close to Korthikanti's 34 bytes / 2 bytes."""

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


# --- Host RAM (R11, R12) -------------------------------------------------------------------
LOADER_PREFETCH_SHARE = 1 / 16
"""Extra share of the expanded in-memory data each DataLoader worker holds: a forked worker
shares the parent's pages copy-on-write, but its prefetch queue (PyTorch ``prefetch_factor``
2 batches) and the pages its Python objects' refcounts dirty are private; 1/16 per worker is
our planning figure (documented in docs/memory-model.md)."""
MAX_LOADER_FACTOR = 2.0
"""Cap on the concurrent-loading factor: at worst the workers together duplicate the data
set once (every copy-on-write page dirtied); more workers stream, they do not copy again."""
SYSTEM_RESERVE = 0.20
"""R11: keep at least 20% of host RAM for the OS and system services."""


def loader_factor(workers: int) -> float:
    """R11 concurrent-loading factor: 1 + workers / 16, capped at 2 (dimensionless)."""
    return min(MAX_LOADER_FACTOR, 1.0 + LOADER_PREFETCH_SHARE * workers)


def data_ram_gb(w: Workload) -> float:
    """R11 data RAM, GB = in_memory_gb x expansion x loader_factor(workers) x (1 + 20%)."""
    d = w.data
    return d.in_memory_gb * d.expansion * loader_factor(d.workers) * (1.0 + SYSTEM_RESERVE)


def ram_ratio(w: Workload, degree: int, policy: Policy) -> float:
    """R12 RAM-to-VRAM ratio for this workload kind and degree."""
    if w.kind == "inference":
        return policy.ram_ratio_inference
    if degree > 1:
        return policy.ram_ratio_multi_gpu_train
    return policy.ram_ratio_single_gpu_train


def given(w: Workload, field: str) -> int:
    """A figure ``w``'s kind requires (seq_len, global_batch for training; context, batch for
    inference). Validation guarantees it; this narrows ``int | None`` for the type checker.

    A discriminated union of workload kinds would make this unnecessary.
    """
    value = getattr(w, field)
    if value is None:
        raise ValueError(f"workload {w.name}: {field} is required for kind {w.kind}")
    return int(value)


# --- Parameters ----------------------------------------------------------------------------
def embedding_params(a: ModelArch) -> float:
    """Token embedding + LM head parameters: vocab x hidden x (1 if tied else 2)."""
    return a.vocab * a.hidden * (1 if a.tied_embeddings else 2)


def lora_params(a: ModelArch, rank: int, targets: tuple[str, ...] = LORA_TARGETS) -> float:
    """Adapter parameters: rank x (d_in + d_out) per adapted matrix per layer (Hu et al.).

    MLP adapters count once per expert of a mixture-of-experts model.
    """
    h, f = a.hidden, a.d_ff
    q_out, kv_out = a.heads * a.d_head, a.n_kv_heads * a.d_head
    shape = {
        "q": (h, q_out), "k": (h, kv_out), "v": (h, kv_out), "o": (q_out, h),
        "gate": (h, f), "up": (h, f), "down": (f, h),
    }
    per_layer = 0.0
    for t in targets:
        if t == "gate" and a.mlp_kind != "swiglu":
            continue
        d_in, d_out = shape[t]
        per_layer += rank * (d_in + d_out) * (a.experts if t in ("gate", "up", "down") else 1)
    return per_layer * a.layers


def norm_params(a: ModelArch) -> float:
    """Norm weights: two per layer plus the final norm, hidden each: (2L + 1) x h."""
    return (2 * a.layers + 1) * a.hidden


def quantised_weights_bytes(a: ModelArch, bits: float, extra_per_row: float = 0.0,
                            embedding_bytes: float = EMBEDDING_BYTES_QUANTISED,
                            norm_bytes: float = EMBEDDING_BYTES_QUANTISED) -> float:
    """Quantised linear layers at ``bits`` per weight; embeddings, LM head and norms are
    not quantised and keep ``embedding_bytes`` / ``norm_bytes`` per parameter (16-bit by
    default; FP32 after PEFT's k-bit preparation)."""
    p = a.params_b * 1e9
    emb = min(embedding_params(a), p)
    norms = min(norm_params(a), p - emb)
    linear = p - emb - norms
    rows = linear / a.hidden  # output rows of the linear layers (most have d_in = hidden)
    return linear * bits / 8 + rows * extra_per_row + emb * embedding_bytes + norms * norm_bytes


def qlora_base_bytes(w: Workload) -> float:
    """``kind: qlora`` frozen base: NF4 with double quantisation; non-quantised parameters
    after PEFT's k-bit preparation: norms FP32, embeddings and LM head FP32 unless the run is
    bf16 (then cast back to bf16), see ``KBIT_UPCAST_BYTES``."""
    emb_b = BYTES["bf16"] if w.precision == "bf16" else KBIT_UPCAST_BYTES
    return quantised_weights_bytes(w.arch, NF4_BITS, embedding_bytes=emb_b,
                                   norm_bytes=KBIT_UPCAST_BYTES)


def largest_linear_params(a: ModelArch) -> int:
    """Weights of the largest single linear layer of a block (an MoE expert's MLP matrix)."""
    q_out, kv_out = a.heads * a.d_head, a.n_kv_heads * a.d_head
    return max(a.hidden * q_out, a.hidden * kv_out, a.hidden * a.d_ff)


def dequant_scratch_bytes(a: ModelArch, dtype_bytes: float) -> float:
    """bitsandbytes 4-bit: the largest linear layer de-quantised to the compute dtype
    (``DEQUANT_BUFFERS`` transient copies), bytes."""
    return DEQUANT_BUFFERS * largest_linear_params(a) * dtype_bytes


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


def lora_targets(w: Workload) -> tuple[str, ...]:
    """Adapted matrices: the workload's ``lora_targets``, else ``LORA_TARGETS`` (q, v) for
    lora and every linear layer (``LORA_ALL_LINEAR``) for qlora."""
    return w.adapter_targets


# --- Activations ---------------------------------------------------------------------------
def uses_flash_attention(a: ModelArch) -> bool:
    """Modern decoder (SwiGLU or grouped-query attention): memory-efficient attention, no
    dropout; GPT-2/BERT-era models (GELU, full multi-head): eager attention with dropout."""
    return a.mlp_kind == "swiglu" or a.n_kv_heads < a.heads


def layer_activation_bytes(w: Workload, mb: int, seq: int) -> float:
    """Bytes one transformer layer saves for backward, for ``mb`` sequences of ``seq`` tokens.

    Korthikanti et al. (2022) tensor-by-tensor accounting, re-derived for the architecture:
    saved values per token (units of values, times dtype bytes) =
      norms        2h at the norm's saved dtype (FP32 under autocast / RMSNorm upcast)
      attention    Q h + K,V 2h*kv/a + attention output h            (always saved)
      linear in    qkv-input h + mlp-input h + down/fc2-input f       (trainable or bnb-4bit)
                   + out-proj input h with flash attention (a copy apart from the kernel's
                   saved output; in eager attention the output h above is that input)
      MLP inner    SwiGLU: gate, up, silu out = 3f; GELU: GELU input f (always saved)
      LoRA dropout per adapted matrix its 16-bit output + 1-byte mask (PEFT: one dropout
                   per adapter): h for q, k, v, o, gate, up; f for down
      dropout      2h masks of 1 byte (GPT/BERT-era models only)
      eager attn   a*s*(softmax bytes + 1 mask + e) per token (no flash attention)
    With MoE, MLP terms count ``active_experts`` times.
    """
    a = w.arch
    e = BYTES[w.precision]
    h, f, heads = a.hidden, a.d_ff, a.heads
    kv_frac = a.n_kv_heads / heads
    mixed = w.precision in MIXED_PRECISIONS
    flash = uses_flash_attention(a)
    norm_b = NORM_INPUT_BYTES_MIXED if mixed else e
    k_exp = a.n_active_experts
    # Frozen nn.Linear layers (LoRA) do not save their input; bitsandbytes' 4-bit matmul
    # (QLoRA) and every trainable layer (train) do.
    saves_linear_inputs = w.kind in ("train", "qlora")
    targets = lora_targets(w)
    per_tok = 2 * h * norm_b
    per_tok += (h + 2 * h * kv_frac + h) * e
    if saves_linear_inputs:
        per_tok += (2 * h + f * k_exp + (h if flash else 0)) * e
    elif w.kind == "lora":
        # Adapters save their own inputs: attention input, MLP input, down-projection input.
        if set(targets) & {"q", "k", "v"}:
            per_tok += h * e
        if set(targets) & {"gate", "up"}:
            per_tok += h * e
        if "down" in targets:
            per_tok += f * k_exp * e
    if w.kind in ("lora", "qlora") and LORA_DROPOUT_SAVES:
        mlp = {"gate": h * k_exp, "up": h * k_exp, "down": f * k_exp}
        per_tok += sum(mlp.get(t, h) for t in targets) * (e + MASK_BYTES)
    per_tok += (3 * f if a.mlp_kind == "swiglu" else f) * k_exp * e
    if not flash:
        per_tok += 2 * h * MASK_BYTES
        soft_b = SOFTMAX_BYTES_MIXED if mixed else e
        per_tok += heads * seq * (soft_b + MASK_BYTES + e)
    return per_tok * seq * mb


def activations_bytes(w: Workload, mb: int, degree: int) -> float:
    """Activation memory per GPU, bytes: all layers (or checkpoints + one layer) + logits.

    Without recomputation: L x layer bytes. With full recomputation (activation
    checkpointing): L x s x b x h x e (layer inputs, Korthikanti's 2sbh) + one layer's
    full set while it is recomputed. Logits: s x b x vocab x ``logit_bytes`` (the compute
    dtype once where the loss upcasts chunk by chunk; 12 bytes for qlora's un-chunked
    transformers loss). All divided by the tensor(+sequence)-parallel degree
    (Korthikanti Table 2).
    """
    a = w.arch
    seq = given(w, "seq_len")
    e = BYTES[w.precision]
    layer = layer_activation_bytes(w, mb, seq)
    if w.activation_checkpointing:
        body = a.layers * seq * mb * a.hidden * e + layer
    else:
        body = a.layers * layer
    logits = seq * mb * a.vocab * logit_bytes(w)
    return (body + logits) / degree


def logit_bytes(w: Workload) -> float:
    """Bytes per logit held at the loss: the compute dtype once (chunked loss), or
    ``HF_LOSS_BYTES_PER_LOGIT`` for qlora (transformers' un-chunked FP32 loss)."""
    return HF_LOSS_BYTES_PER_LOGIT if w.kind == "qlora" else BYTES[w.precision]


def activations_korthikanti(s: int, b: int, h: int, a: int, layers: int, t: int = 1,
                            recompute: str = "none") -> float:
    """Korthikanti et al. (2022) Table 2 as published, bytes (16-bit, GPT GELU MLP).

    recompute: "none" s*b*h*(34 + 5*a*s/h) per layer (t = 1) or with tensor + sequence
    parallel s*b*h*(34/t + 5*a*s/(h*t)); "selective" 34*s*b*h/t; "full" 2*s*b*h.
    """
    sbh = s * b * h
    per: float
    if recompute == "full":
        per = 2 * sbh
    elif recompute == "selective":
        per = 34 * sbh / t
    else:
        per = sbh * (34 / t + 5 * a * s / (h * t))
    return per * layers


def activations_seed(b: int, s: int, h: int, layers: int, dtype_bytes: float,
                     coefficient: float = SEED_ACTIVATION_COEFFICIENT) -> float:
    """R6 (the seed's form), bytes: b x s x h x L x dtype bytes x coefficient (12-20)."""
    return b * s * h * layers * dtype_bytes * coefficient


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
    Every model state is divided by ``degree``.
    """
    a = w.arch
    p = a.params_b * 1e9
    e = BYTES[w.precision]
    k = OPTIMIZER_BYTES[w.optimizer]
    if w.kind == "train":
        weights, grads, opt = p * e, p * e, p * k
        master = p * FP32_BYTES if (w.uses_master_weights and e < FP32_BYTES) else 0.0
    else:
        pa = lora_params(a, w.lora_rank or 0, lora_targets(w))
        base = qlora_base_bytes(w) if w.kind == "qlora" else p * e
        weights = base + pa * LORA_PARAM_BYTES
        grads, opt, master = pa * LORA_PARAM_BYTES, pa * k, 0.0
    act = activations_bytes(w, mb, degree) / GB
    bd = MemoryBreakdown(
        weights_gb=weights / GB / degree,
        gradients_gb=grads / GB / degree,
        optimizer_gb=opt / GB / degree,
        master_weights_gb=master / GB / degree,
        activations_gb=act,
    )
    return _with_overhead(bd, act, degree, dequant_scratch_gb(w, degree))


def kv_cache_bytes(a: ModelArch, tokens: float, batch: int, dtype_bytes: float,
                   degree: int = 1) -> float:
    """KV cache per GPU, bytes = 2 x L x kv_heads x head_dim x tokens x batch x bytes.

    Tensor parallelism splits KV heads over ``degree`` GPUs; with fewer KV heads than GPUs
    each GPU keeps one head (vLLM replicates them), so per GPU ceil(kv_heads / d) heads.
    """
    heads_per_gpu = math.ceil(a.n_kv_heads / degree)
    return 2 * a.layers * heads_per_gpu * a.d_head * tokens * batch * dtype_bytes


def inference_weights_bytes(a: ModelArch, precision: str) -> float:
    """Serving weights, bytes: P x dtype bytes; quantised precisions keep embeddings 16-bit."""
    p = a.params_b * 1e9
    if precision in ("fp32", "fp16", "bf16"):
        return p * BYTES[precision]
    extra = INT8_ROW_SCALE_BYTES if precision == "int8" else 0.0
    return quantised_weights_bytes(a, QUANT_BITS[precision], extra)


def inference_breakdown(w: Workload, degree: int) -> MemoryBreakdown:
    """Inference per GPU: weights + KV cache + transient prefill buffers + overhead, GB."""
    a = w.arch
    act_b = FP32_BYTES if w.precision == "fp32" else BYTES["bf16"]  # compute dtype
    weights = inference_weights_bytes(a, w.precision)
    context, batch = given(w, "context"), given(w, "batch")
    kv = kv_cache_bytes(a, context, batch, act_b, degree)
    chunk = min(context * batch, PREFILL_CHUNK_TOKENS)
    per_tok = (INFER_ACT_VALUES_PER_TOKEN_H * a.hidden + 2 * a.d_ff * a.n_active_experts) * act_b
    act = (chunk * per_tok + batch * a.vocab * FP32_BYTES) / degree
    bd = MemoryBreakdown(weights_gb=weights / GB / degree, kv_cache_gb=kv / GB,
                         activations_gb=act / GB)
    return _with_overhead(bd, act / GB, degree, dequant_scratch_gb(w, degree))


# --- Micro-batch (R9) ----------------------------------------------------------------------
def auto_micro_batch(w: Workload, degree: int, usable_gb: float) -> int:
    """R9: largest micro-batch in [1, global_batch] whose need fits under ``usable_gb``.

    The need is affine in the micro-batch (every activation term is linear in b), so the
    answer is closed form; one check each side guards float rounding. Returns 1 when even
    a micro-batch of 1 does not fit (the caller reports fits=False).
    """
    top = given(w, "global_batch")
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


def auto_serving_batch(w: Workload, gpu: GpuSku, degree: int, policy: Policy) -> int:
    """``batch: auto``: the serving batch on this GPU and degree (see ``serving_batch`` in
    throughput.py, which also applies ``max_tpot_ms``)."""
    from .throughput import serving_batch  # throughput builds on this module

    return serving_batch(w, gpu, degree, policy)


# --- The estimate --------------------------------------------------------------------------
def estimate(w: Workload, gpu: GpuSku | None, degree: int, policy: Policy) -> Estimate:
    """One replica of ``w`` on ``degree`` GPUs of ``gpu``: per-GPU VRAM, host RAM, fit.

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
        if w.batch == "auto":
            w = w.model_copy(update={"batch": auto_serving_batch(w, gpu, degree, policy)})
            note = f"batch auto: {w.batch}"
        bd = inference_breakdown(w, degree)
    else:
        if w.micro_batch == "auto":
            mb = auto_micro_batch(w, degree, usable)
        else:
            mb = w.micro_batch
        bd = training_breakdown(w, degree, mb)
        global_batch = given(w, "global_batch")
        accum = math.ceil(global_batch / mb)
        if mb * accum != global_batch:
            # Not divisible: the last micro-batch of each step carries the remainder, so the
            # global batch stays exact; memory is sized by the full micro-batch.
            last = global_batch - mb * (accum - 1)
            note = f"{global_batch} = {accum - 1} x {mb} + last micro-batch {last}"
    need = bd.total_gb
    fits = need <= usable + FIT_EPS_GB
    if not fits:
        note = (note + "; " if note else "") + "does not fit even at this micro-batch"
    basis = need * degree if w.shareable else gpu.vram_gb * degree
    ratio_ram = ram_ratio(w, degree, policy) * basis
    return Estimate(
        workload=w.name, gpu=gpu.sku, degree=degree, fits=fits, vram_gb_per_gpu=need,
        usable_vram_gb=usable, host_ram_gb=max(data, ratio_ram), micro_batch=mb,
        grad_accum_steps=accum, breakdown=bd, note=note, comm_buffers_gb=comm_buffers_gb(degree),
        batch=w.batch if isinstance(w.batch, int) else None,
        cuda_context_gb=CUDA_CONTEXT_GB,
        allocator_cache_gb=(bd.overhead_gb - CUDA_CONTEXT_GB - comm_buffers_gb(degree)
                            - dequant_scratch_gb(w, degree)),
        data_ram_gb=data, ratio_ram_gb=ratio_ram, gpu_vram_gb=gpu.vram_gb,
    )
