"""Activation memory of training: what each layer saves for the backward pass (R5, R6).

Korthikanti et al. (2022) tensor-by-tensor accounting re-derived per architecture, the
published Table 2 and the seed's coefficient form for comparison; sources and derivations in
``docs/memory-model.md``. Units: bytes. Pure functions.
"""

from __future__ import annotations

from ..inputs.model import ModelArch
from ..inputs.workload import Workload
from .weights import BYTES, MIXED_PRECISIONS, given, lora_targets

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

    Without recomputation: L x layer bytes + logits. With full recomputation (activation
    checkpointing): L x s x b x h x e (layer inputs, Korthikanti's 2sbh) + the larger of
    one layer's full set while it is recomputed and the logits at the loss (the logits are
    released before the first recomputation). Logits: s x b x vocab x ``logit_bytes`` (the compute
    dtype once where the loss upcasts chunk by chunk; 12 bytes for qlora's un-chunked
    transformers loss). All divided by the tensor(+sequence)-parallel degree
    (Korthikanti Table 2).
    """
    a = w.arch
    seq = given(w, "seq_len")
    e = BYTES[w.precision]
    layer = layer_activation_bytes(w, mb, seq)
    logits = seq * mb * a.vocab * logit_bytes(w)
    if w.activation_checkpointing:
        # The logits are freed once the loss's backward has run, before the first layer is
        # recomputed: the peak is the larger of the two phases over the checkpoints.
        return (a.layers * seq * mb * a.hidden * e + max(layer, logits)) / degree
    return (a.layers * layer + logits) / degree


def logit_bytes(w: Workload) -> float:
    """Bytes per logit held at the loss (E1 ``loss``): the compute dtype once for a chunked
    loss, ``HF_LOSS_BYTES_PER_LOGIT`` for a full one (transformers' un-chunked FP32 loss);
    the default is full for qlora, chunked for train and lora (``Workload.loss_kind``)."""
    return HF_LOSS_BYTES_PER_LOGIT if w.loss_kind == "full" else BYTES[w.precision]


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
