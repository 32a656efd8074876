"""What a model's parameters hold: counts and bytes per value (R1-R4).

Bytes of one value by dtype (R1), optimizer state (R3) and master copy (R4); quantised
formats (NF4, int8, int4) and the parameters they leave unquantised; the parameter counts of
embeddings, norms, LoRA adapters and the largest linear layer; and the serving weights.
Sources are in ``docs/memory-model.md``. Units: GB = 10^9 bytes (SPEC). Pure functions.
"""

from __future__ import annotations

from ..inputs.kinds import DEFAULT_LORA_TARGETS, LORA_MODULES
from ..inputs.model import ModelArch
from ..inputs.workload import Workload

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


def lora_targets(w: Workload) -> tuple[str, ...]:
    """Adapted matrices: the workload's ``lora_targets``, else ``LORA_TARGETS`` (q, v) for
    lora and every linear layer (``LORA_ALL_LINEAR``) for qlora."""
    return w.adapter_targets


def inference_weights_bytes(a: ModelArch, precision: str) -> float:
    """Serving weights, bytes: P x dtype bytes; quantised precisions keep embeddings 16-bit."""
    p = a.params_b * 1e9
    if precision in ("fp32", "fp16", "bf16"):
        return p * BYTES[precision]
    extra = INT8_ROW_SCALE_BYTES if precision == "int8" else 0.0
    return quantised_weights_bytes(a, QUANT_BITS[precision], extra)


# --- Memory modes (E1) ---------------------------------------------------------------------
OPTIMIZER_STATES = {"adam": 2, "adamw": 2, "sgd": 1}
"""Optimizer state tensors per parameter: Adam/AdamW momentum and variance, SGD momentum.
PyTorch creates them with ``torch.zeros_like(param)``, so in the parameter's dtype."""


def optimizer_bytes_per_param(w: Workload) -> float:
    """R3 state bytes per trained parameter. Full training in bf16 without a master copy
    (pure bf16, ``master_weights: false``) steps the bf16 weights themselves, and PyTorch's
    Adam/AdamW/SGD keep their states in the weights' dtype (``zeros_like``): 2 bytes per
    state. Otherwise ``OPTIMIZER_BYTES`` (FP32 states; bitsandbytes 8-bit states are
    1 byte whatever the weights). fp16 without a master copy keeps R3's FP32 states: pure
    fp16 training is not run in practice (fp16 needs loss scaling on FP32 weights), and the
    SPEC's R5 example pins 8 bytes for it."""
    if (w.kind == "train" and w.precision == "bf16" and not w.uses_master_weights
            and w.optimizer in OPTIMIZER_STATES):
        return OPTIMIZER_STATES[w.optimizer] * BYTES["bf16"]
    return OPTIMIZER_BYTES[w.optimizer]


def largest_tensor_params(a: ModelArch) -> float:
    """Parameters of the largest single weight tensor: the embedding or LM head (vocab x
    hidden) or the largest linear matrix of a block (an expert's, for MoE)."""
    return max(a.vocab * a.hidden, largest_linear_params(a))


def block_params(a: ModelArch) -> float:
    """Parameters of one transformer block (every expert counted): (P - embeddings -
    final norm) / L."""
    p = a.params_b * 1e9
    return max(0.0, p - embedding_params(a) - a.hidden) / a.layers


def shard_unit_params(a: ModelArch) -> float:
    """Parameters of the largest unit a fully-sharded (ZeRO-3/FSDP) replica gathers at once:
    a transformer block, or the embedding / LM head (each its own unit, as torchtune's
    ``custom_sharded_layers`` and FSDP auto-wrapping by module do)."""
    return max(block_params(a), a.vocab * a.hidden)
