"""One estimate of a replica: the batch it runs at, its memory and its throughput (R9, R15, T2, T3).

``memory.py`` sizes a replica at a given batch, ``throughput.py`` times it at a given batch;
this module chooses the batch, which needs both (``batch: auto`` is the largest serving batch
that fits the usable VRAM *and* meets ``max_tpot_ms``), and is the entry point the program,
the checker, the brute force and the reports call: :func:`estimate` (memory, batch
resolved), :func:`throughput` and :func:`replica_throughput` (what a replica delivers in a
plan). It imports both; neither imports it. Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import replace

from ..inputs.catalog import GpuSku
from ..inputs.policy import Policy
from ..inputs.workload import Workload
from .measured import with_measured_memory, with_measured_speed
from .memory import Estimate, memory_estimate
from .throughput import Throughput, decode_step, inference_throughput, training_throughput

MAX_AUTO_BATCH = 256
"""Largest batch ``serving_batch`` considers: vLLM's default ``max_num_seqs`` (256)."""


# --- The batch ---------------------------------------------------------------------------
def serving_batch(w: Workload, gpu: GpuSku, degree: int, policy: Policy,
                  cap: int = MAX_AUTO_BATCH) -> int:
    """``batch: auto``: the largest batch in [1, cap] that fits VRAM (memory estimate, R15)
    and keeps the decode step within ``max_tpot_ms``; 1 when even 1 does not (the memory
    estimate then says fits=False). Both tests are monotone in the batch: bisection."""

    def ok(b: int) -> bool:
        wb = w.model_copy(update={"batch": b})
        if not memory_estimate(wb, gpu, degree, policy).fits:
            return False
        return w.max_tpot_ms is None or decode_step(wb, gpu, degree, b)[0] * 1e3 <= w.max_tpot_ms

    lo, hi = 1, cap
    if not ok(lo):
        return 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


# --- Memory -------------------------------------------------------------------------------
def estimated(w: Workload, gpu: GpuSku | None, degree: int, policy: Policy) -> Estimate:
    """One replica of ``w`` on ``degree`` GPUs of ``gpu``: per-GPU VRAM, host RAM, fit (R15).

    ``batch: auto`` (inference) is first resolved with :func:`serving_batch` on this GPU and
    degree, and the note says so; the rest is :func:`memory.memory_estimate` (which also
    resolves ``micro_batch: auto``, R9).
    """
    if w.kind != "inference" or gpu is None or w.batch != "auto":
        return memory_estimate(w, gpu, degree, policy)
    if degree < 1:
        raise ValueError(f"parallel degree must be >= 1 for a GPU workload, got {degree}")
    batch = serving_batch(w, gpu, degree, policy)
    est = memory_estimate(w.model_copy(update={"batch": batch}), gpu, degree, policy)
    note = f"batch auto: {batch}" + (f"; {est.note}" if est.note else "")
    return replace(est, note=note)


# --- Throughput ---------------------------------------------------------------------------
def throughput(w: Workload, gpu: GpuSku, degree: int, policy: Policy,
               est: Estimate | None = None) -> Throughput:
    """One replica of ``w`` on ``degree`` GPUs of ``gpu`` (T2).

    Training uses the memory estimate's micro-batch (computed here when ``est`` is None);
    inference uses ``w.batch`` (``batch: auto`` resolved with :func:`serving_batch`).
    Raises ValueError for preprocess (no GPU) or a degree below 1.
    """
    if w.kind == "preprocess":
        raise ValueError(f"workload {w.name!r} is preprocess: it has no GPU throughput")
    if degree < 1:
        raise ValueError(f"parallel degree must be >= 1, got {degree}")
    if w.kind == "inference":
        batch = w.batch
        if batch == "auto":
            batch = serving_batch(w, gpu, degree, policy)
        if not isinstance(batch, int):
            raise ValueError(f"workload {w.name!r} has no batch")
        return inference_throughput(w, gpu, degree, batch)
    est = est or memory_estimate(w, gpu, degree, policy)
    return training_throughput(w, gpu, degree, est.micro_batch or 1)


def estimated_throughput(w: Workload, gpu: GpuSku, degree: int, policy: Policy,
                         est: Estimate | None = None) -> Throughput:
    """One replica of ``w`` as a plan runs it (the program, the checker and the brute force
    all call this, through :func:`replica_throughput`). Training: :func:`throughput` at the estimate's micro-batch. Inference:
    at ``batch``, or, with ``max_tpot_ms``, at the serving batch capped at ``batch`` (the
    largest batch up to ``batch`` whose decode step meets it: memory is sized for ``batch``,
    so any smaller batch fits too)."""
    if w.kind == "inference" and w.max_tpot_ms is not None and isinstance(w.batch, int):
        b = serving_batch(w, gpu, degree, policy, cap=w.batch)
        if b != w.batch:
            w = w.model_copy(update={"batch": b})
    return throughput(w, gpu, degree, policy, est)


# --- What a plan reads: the estimate, or the team's measurement of the cell (E2) ---------
def estimate(w: Workload, gpu: GpuSku | None, degree: int, policy: Policy) -> Estimate:
    """One replica of ``w`` on ``degree`` GPUs of ``gpu``: :func:`estimated`, with the
    workload's measured peak memory of this cell in place of its need and fit where it
    gives one (``measured.with_measured_memory``)."""
    return with_measured_memory(w, estimated(w, gpu, degree, policy))


def replica_throughput(w: Workload, gpu: GpuSku, degree: int, policy: Policy,
                       est: Estimate | None = None) -> Throughput:
    """One replica of ``w`` as a plan runs it: :func:`estimated_throughput`, with the
    workload's measured tokens/s of this cell where it gives one
    (``measured.with_measured_speed``)."""
    return with_measured_speed(w, estimated_throughput(w, gpu, degree, policy, est))
