"""Memory modes of a workload (E1): the fields that say where a job's tensors live.

A base class of :class:`~solver.inputs.workload.Workload`, kept apart so the workload model
stays one screen of fields per idea. Which kinds take each field is ``kinds.py``'s
(``TRAINING_MODES``, ``INFERENCE_MODES``); what each does to memory is
``docs/memory-model.md`` section 11. Every field defaults to None, meaning the tools'
common default, so a file that gives none of them plans as before.
"""

from __future__ import annotations

from typing import Literal

from .base import StrictModel


class MemoryModes(StrictModel):
    """E1 fields; training kinds unless said."""

    optimizer_in_backward: bool | None = None
    """Training kinds: the optimizer steps each parameter as soon as its gradient is made
    (fused into the backward pass), so full gradients never coexist; default false."""
    optimizer_offload: Literal["none", "cpu"] | None = None
    """Training kinds: 'cpu' keeps the optimizer state (and any FP32 master copy) in host
    RAM (DeepSpeed ZeRO-Offload, paged 8-bit optimizers); default none (in VRAM)."""
    loss: Literal["full", "chunked"] | None = None
    """Training kinds: 'full' materialises FP32 logits for the whole vocabulary (the
    transformers loss); 'chunked' keeps them once in the compute dtype and upcasts chunk by
    chunk (torchtune, LitGPT). Default chunked for train and lora, full for qlora."""
    sharding: Literal["none", "zero1", "zero2", "zero3"] | None = None
    """Training kinds: how a replica of degree d splits its work. none: tensor parallel
    (every state and the activations / d, one micro-batch); zero1/zero2/zero3 (FSDP =
    zero3): d data-parallel ranks, each its own micro-batch, with the optimizer state /
    + gradients / + weights split across the d GPUs. Default none."""
    kv_cache_precision: Literal["fp8", "fp16", "bf16", "fp32"] | None = None
    """Inference: dtype of the KV cache; fp8 keeps 1 byte per value (vLLM
    kv_cache_dtype=fp8). Default: the compute dtype (2 bytes, 4 for fp32)."""

    @property
    def loss_kind(self) -> str:
        """E1: 'full' or 'chunked' cross-entropy: ``loss``, else full for qlora (the
        transformers + PEFT stack) and chunked for train and lora."""
        if self.loss is not None:
            return self.loss
        return "full" if getattr(self, "kind", None) == "qlora" else "chunked"

    @property
    def sharding_mode(self) -> str:
        """E1: ``sharding`` or 'none' (a replica's degree is tensor parallel)."""
        return self.sharding or "none"
