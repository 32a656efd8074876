"""Columns of the workbook's Memory sheet for E2 and E3: a cell's measurements beside the
estimate, and the error band of its regime. Pure: dicts of column -> value."""

from __future__ import annotations

from ..estimate.bands import band_text, row_bands
from ..estimate.measured import memory_of, speed_of
from ..estimate.memory import Estimate
from ..estimate.replica import replica_throughput
from ..inputs.catalog import GpuSku
from ..inputs.workload import Workload, WorkloadFile
from ..result import PlanResult
from .text import bullets, wrap


def measured_columns(w: Workload, gpu: GpuSku | None, est: Estimate,
                     wf: WorkloadFile) -> dict[str, object]:
    """What the workload measured on this GPU and degree, the estimator's own figure of
    the same quantity and its error (estimate - measured) / measured; empty cells where the
    cell was not measured. ``total_gb_per_gpu`` is then the measured need."""
    mem = memory_of(est)
    speed = None
    if gpu is not None and w.kind != "preprocess" and est.fits:
        speed = speed_of(replica_throughput(w, gpu, est.degree, wf.policy, est))
    said = [name for name, m in (("peak memory", mem), ("tokens/s", speed)) if m is not None]
    return {
        "measured": ", ".join(said),
        "measured_peak_gb": mem.peak_gb if mem else None,
        "meter": mem.meter if mem else None,
        "estimated_peak_gb": mem.estimated_gb if mem else None,
        "peak_error_pct": mem.error if mem else None,
        "measured_tokens_per_s": speed.tokens_per_s if speed else None,
        "estimated_tokens_per_s": speed.estimated_tokens_per_s if speed else None,
        "tokens_per_s_error_pct": speed.error if speed else None,
    }


def band_columns(kind: str, degree: int) -> dict[str, str]:
    """``memory_band`` and ``throughput_band``: the error band of the regime in words
    (throughput: tokens/s); empty for preprocess."""
    bands = row_bands(kind, degree)
    return {column: band_text(bands[q], q, kind, degree) if q in bands else ""
            for q, column in (("peak_memory", "memory_band"), ("tokens_per_s", "throughput_band"))}


def measured_lines(result: PlanResult, width: int) -> list[str]:
    """The plan report's note on placements sized by the file's own measurements (E2): one
    item per workload, GPU and degree placed in any option, with what was measured."""
    seen: dict[tuple[str, str | None, int], tuple[str, ...]] = {}
    for opt in result.options:
        for p in opt.placements:
            if p.measured:
                seen.setdefault((p.workload, p.gpu, p.gpus), p.measured)
    if not seen:
        return []
    words = {"peak_gb": "peak memory", "tokens_per_s": "tokens/s"}
    items = [f"{w} on {d} x {g}: {' and '.join(words.get(k, k) for k in keys)}"
             for (w, g, d), keys in seen.items()]
    return [*wrap("Measured, not estimated (the workload file's measurements):", width),
            *bullets(items, width), ""]
