"""Model states of a training replica per GPU under the E1 modes (R2-R4, E1).

Weights, gradients, optimizer state and master copy of one replica, in bytes per GPU, for
its parallel degree ``d`` and its ``sharding``, ``optimizer_in_backward`` and
``optimizer_offload``; what is offloaded to host RAM. Sources and formulas in
``docs/memory-model.md`` (sections 1, 2 and 11). Units: bytes. Pure functions.

* ``sharding: none`` (default): the d GPUs are one tensor(+sequence)-parallel replica, every
  state / d (section 2).
* ``zero1`` / ``zero2`` / ``zero3``: the d GPUs are d data-parallel ranks (ZeRO,
  Rajbhandari et al. 2020; FSDP is zero3); the optimizer state and master copy are split d
  ways, from zero2 the gradients too (plus one unit's gradients before they are
  reduce-scattered), at zero3 the weights too (plus two units gathered at a time, the one
  computing and the one prefetched).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..inputs.workload import Workload
from .weights import (
    BYTES,
    FP32_BYTES,
    LORA_PARAM_BYTES,
    largest_tensor_params,
    lora_params,
    lora_targets,
    optimizer_bytes_per_param,
    qlora_base_bytes,
    shard_unit_params,
)

GATHERED_UNITS = 2
"""ZeRO-3/FSDP: units whose weights are gathered at once, the one computing and the next,
prefetched (FSDP ``backward_prefetch=BACKWARD_PRE`` and forward prefetch; DeepSpeed's
stage-3 prefetch bucket)."""
SHARDED = {"none": (False, False, False), "zero1": (True, False, False),
           "zero2": (True, True, False), "zero3": (True, True, True)}
"""What each ``sharding`` splits across the d ranks: (optimizer state and master copy,
gradients, weights) (ZeRO stages 1-3, Rajbhandari et al. 2020, Fig. 1)."""


@dataclass(frozen=True)
class States:
    """Model states per GPU, bytes, and what the replica keeps in host RAM instead."""

    weights: float
    gradients: float
    optimizer: float
    master: float
    offloaded: float = 0.0
    """Optimizer state + master copy of the whole replica moved to host RAM, bytes."""
    buffers: float = 0.0
    """Transient full-size copies of sharded states (ZeRO-2/3: one unit's gradients before
    reduce-scatter; ZeRO-3: the gathered units' weights), bytes per GPU. Filed under
    overhead like the de-quantisation scratch: copies, not the model's states."""


def data_parallel_ranks(w: Workload, degree: int) -> int:
    """Ranks that each run their own micro-batch: d under ZeRO/FSDP, else 1 (tensor
    parallel: the d GPUs share one micro-batch)."""
    return degree if w.sharding_mode != "none" else 1


def _full_states(w: Workload) -> tuple[float, float, float, float, float]:
    """(weights, gradients, optimizer, master, one gathered unit's gradients) of the whole
    replica, bytes, before any split; gradients already reduced to one tensor's with
    ``optimizer_in_backward``."""
    a = w.arch
    p = a.params_b * 1e9
    e = BYTES[w.precision]
    k = optimizer_bytes_per_param(w)
    if w.kind == "train":
        weights, grads, opt = p * e, p * e, p * k
        master = p * FP32_BYTES if (w.uses_master_weights and e < FP32_BYTES) else 0.0
        unit_grads = shard_unit_params(a) * e
        if w.optimizer_in_backward:
            # Each parameter is stepped (and its gradient freed) by a post-accumulate-grad
            # hook as soon as it is made: at most the largest tensor's gradient is alive.
            grads = min(grads, largest_tensor_params(a) * e)
    else:
        pa = lora_params(a, w.lora_rank or 0, lora_targets(w))
        base = qlora_base_bytes(w) if w.kind == "qlora" else p * e
        weights = base + pa * LORA_PARAM_BYTES
        grads, opt, master = pa * LORA_PARAM_BYTES, pa * k, 0.0
        unit_grads = 0.0  # a unit's adapter gradients: negligible
    return weights, grads, opt, master, unit_grads


def training_states(w: Workload, degree: int) -> States:
    """Model states per GPU of a training replica of degree ``degree``, bytes (E1).

    none:  weights, gradients, optimizer, master each / d (tensor parallel).
    zero1: optimizer and master / d.  zero2: + gradients / d, and one unit's gradients as a
    buffer. zero3: + weights / d, and ``GATHERED_UNITS`` units' weights as a buffer (unit:
    ``shard_unit_params``).
    ``optimizer_offload: cpu``: optimizer and master leave VRAM (``offloaded``, whole
    replica). ``optimizer_in_backward``: gradients of one tensor at a time.
    """
    weights, grads, opt, master, unit_grads = _full_states(w)
    mode = w.sharding_mode
    buffers = 0.0
    if mode == "none":
        weights, grads, opt, master = (x / degree for x in (weights, grads, opt, master))
    else:
        split_opt, split_grads, split_weights = SHARDED[mode]
        p = w.arch.params_b * 1e9
        if split_opt:
            opt, master = opt / degree, master / degree
        if split_grads and not w.optimizer_in_backward:
            grads /= degree
            buffers += unit_grads if degree > 1 else 0.0
        if split_weights and degree > 1:
            buffers += GATHERED_UNITS * shard_unit_params(w.arch) * weights / p
            weights /= degree
    offloaded = 0.0
    if w.optimizer_offload == "cpu":
        offloaded = (opt + master) * degree  # every GPU's share (zero1+: / d each) = whole
        opt = master = 0.0
    return States(weights, grads, opt, master, offloaded, buffers)
