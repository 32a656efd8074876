"""A team's own measurements in place of the estimate, for the cells they measured (E2).

A workload's ``measurements`` (``inputs/measurements.py``) give, per GPU SKU and degree, a
measured peak memory and/or tokens/s. ``replica.estimate`` and
``replica.replica_throughput`` pass their figures through :func:`with_measured_memory` and
:func:`with_measured_speed`, so the program, the checker, the brute force and the reports
all read the measured figures for that cell, and nothing else changes.

Memory. What must fit a GPU is the whole process: the tensors plus what
``torch.cuda.max_memory_allocated`` does not see (CUDA context, NCCL buffers, the caching
allocator's reserve):

    need = peak_gb                                   meter nvidia_smi (NVML "used": all of it)
    need = peak_gb + (estimate need - estimate allocated)   meter torch_max_allocated

The second adds the estimator's own figure of what the meter leaves out (its overhead less
the de-quantisation scratch, which max_allocated does count). ``fits`` is then need <=
usable VRAM, as for an estimate (R15). Host RAM, batch and breakdown stay the estimator's.

Throughput. A measured ``tokens_per_s`` replaces one replica's tokens/s; the efficiency
shown (MFU or MBU) scales with it, so it is the efficiency the measurement implies. A
measured ``tpot_ms`` or ``ttft_ms`` replaces that latency (at the batch the estimator chose
for the replica), and the latency limits (T3) are held against it.

Each replaced figure keeps the estimate beside it, with the estimate's error
(estimate - measured) / measured, so every output can show both.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..inputs.measurements import Measurement, find
from ..inputs.workload import Workload
from .memory import FIT_EPS_GB, Estimate
from .throughput import Throughput


@dataclass(frozen=True)
class MeasuredMemory:
    """A measured peak beside the estimate of the same quantity, GB per GPU."""

    peak_gb: float
    meter: str
    """torch_max_allocated or nvidia_smi."""
    estimated_gb: float
    """The estimator's figure of what ``meter`` reads (allocated, or the whole need)."""
    estimated_need_gb: float
    """The estimator's whole need (``vram_gb_per_gpu`` before the measurement)."""

    @property
    def error(self) -> float:
        """The estimate's error against the measurement: (estimate - measured) / measured."""
        return (self.estimated_gb - self.peak_gb) / self.peak_gb


@dataclass(frozen=True)
class MeasuredSpeed:
    """Measured tokens/s of one replica beside the estimate."""

    tokens_per_s: float
    estimated_tokens_per_s: float

    @property
    def error(self) -> float:
        """(estimate - measured) / measured."""
        return (self.estimated_tokens_per_s - self.tokens_per_s) / self.tokens_per_s


@dataclass(frozen=True)
class MeasuredLatency:
    """Measured latencies of one replica beside the estimates (None: not measured)."""

    tpot_ms: float | None
    estimated_tpot_ms: float | None
    ttft_ms: float | None
    estimated_ttft_ms: float | None


@dataclass(frozen=True)
class MeasuredEstimate(Estimate):
    """An estimate whose per-GPU need (and fit) is a measurement's (``measured``)."""

    measured: MeasuredMemory | None = None

    def to_json(self) -> dict:
        """The estimate row with ``measured`` (docs/json.md)."""
        return {**super().to_json(), **measured_json(self, None)}


@dataclass(frozen=True)
class MeasuredThroughput(Throughput):
    """A replica's throughput whose tokens/s is a measurement's (``measured``)."""

    measured: MeasuredSpeed | None = None
    latency: MeasuredLatency | None = None


def measurement(w: Workload, gpu: str | None, degree: int) -> Measurement | None:
    """The workload's measurement of cell (``gpu``, ``degree``), if it has one."""
    return find(getattr(w, "measurements", None), gpu, degree)


def with_measured_memory(w: Workload, est: Estimate) -> Estimate:
    """``est`` with the measured peak of its cell in place of its need and fit (module
    docstring); ``est`` itself when the cell has no measured peak."""
    m = measurement(w, est.gpu, est.degree)
    if m is None or m.peak_gb is None or m.meter is None:
        return est
    unseen = est.vram_gb_per_gpu - est.allocated_gb  # context, NCCL buffers, allocator cache
    if m.meter == "nvidia_smi":
        need, estimated = m.peak_gb, est.vram_gb_per_gpu
    else:
        need, estimated = m.peak_gb + unseen, est.allocated_gb
    base = {name: getattr(est, name) for name in Estimate.__dataclass_fields__}
    base.update(vram_gb_per_gpu=need, fits=need <= est.usable_vram_gb + FIT_EPS_GB)
    return MeasuredEstimate(**base, measured=MeasuredMemory(
        peak_gb=m.peak_gb, meter=m.meter, estimated_gb=estimated,
        estimated_need_gb=est.vram_gb_per_gpu))


def with_measured_speed(w: Workload, t: Throughput) -> Throughput:
    """``t`` with the measured tokens/s of its cell, its efficiency scaled alike, and its
    measured TPOT and TTFT; ``t`` itself when the cell measured none of them."""
    m = measurement(w, t.gpu, t.degree)
    if m is None or (m.tokens_per_s, m.tpot_ms, m.ttft_ms) == (None, None, None):
        return t
    base = {name: getattr(t, name) for name in Throughput.__dataclass_fields__}
    speed = latency = None
    if m.tokens_per_s is not None:
        scale = m.tokens_per_s / t.tokens_per_s if t.tokens_per_s > 0 else 1.0
        if t.efficiency_kind == "mfu":
            base["mfu"] = t.mfu * scale
        else:
            base["mbu"] = t.mbu * scale
        base["tokens_per_s"] = m.tokens_per_s
        speed = MeasuredSpeed(m.tokens_per_s, t.tokens_per_s)
    if m.tpot_ms is not None or m.ttft_ms is not None:
        base["tpot_ms"] = m.tpot_ms if m.tpot_ms is not None else t.tpot_ms
        base["ttft_ms"] = m.ttft_ms if m.ttft_ms is not None else t.ttft_ms
        latency = MeasuredLatency(m.tpot_ms, t.tpot_ms, m.ttft_ms, t.ttft_ms)
    return MeasuredThroughput(**base, measured=speed, latency=latency)


def memory_of(est: Estimate | None) -> MeasuredMemory | None:
    """The measured peak behind an estimate, None for a plain estimate."""
    return getattr(est, "measured", None)


def speed_of(t: Throughput | None) -> MeasuredSpeed | None:
    """The measured tokens/s behind a throughput, None for a plain estimate."""
    return getattr(t, "measured", None)


def latency_of(t: Throughput | None) -> MeasuredLatency | None:
    """The measured latencies behind a throughput, None for a plain estimate."""
    return getattr(t, "latency", None)


def measured_keys(est: Estimate | None, t: Throughput | None) -> tuple[str, ...]:
    """Which figures of a replica are measured: ``peak_gb``, ``tokens_per_s``, ``tpot_ms``,
    ``ttft_ms`` (in order)."""
    lat = latency_of(t)
    return ((("peak_gb",) if memory_of(est) else ()) + (("tokens_per_s",) if speed_of(t) else ())
            + (("tpot_ms",) if lat and lat.tpot_ms is not None else ())
            + (("ttft_ms",) if lat and lat.ttft_ms is not None else ()))


def measured_json(est: Estimate | None, t: Throughput | None) -> dict:
    """``{"measured": {...}}`` for a row with a measured figure, ``{}`` without: each
    measured figure, the estimator's own figure of it and the estimate's error."""
    mem, speed, lat = memory_of(est), speed_of(t), latency_of(t)
    if mem is None and speed is None and lat is None:
        return {}
    out: dict = {}
    if mem is not None:
        out.update(peak_gb=round(mem.peak_gb, 3), meter=mem.meter,
                   estimated_peak_gb=round(mem.estimated_gb, 3),
                   peak_error=round(mem.error, 4))
    if speed is not None:
        out.update(tokens_per_s=round(speed.tokens_per_s, 1),
                   estimated_tokens_per_s=round(speed.estimated_tokens_per_s, 1),
                   tokens_per_s_error=round(speed.error, 4))
    for name, got, est_ms in (() if lat is None else (
            ("tpot_ms", lat.tpot_ms, lat.estimated_tpot_ms),
            ("ttft_ms", lat.ttft_ms, lat.estimated_ttft_ms))):
        if got is not None:
            out[name] = round(got, 3)
            out[f"estimated_{name}"] = None if est_ms is None else round(est_ms, 3)
    return {"measured": out}
