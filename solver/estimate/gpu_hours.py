"""GPU-hours of one run of a finite training job, per GPU type, and what renting them costs.

A finite job is a training kind (train, lora, qlora) with ``tokens``: it ends once it has
processed them. On ``d`` GPUs of one SKU a replica processes τ_d tokens/s (T2); data-parallel
replicas keep ``policy.data_parallel_efficiency`` (η) of their summed throughput (T3) and the
run needs ``tokens`` × ``policy.growth`` (g) tokens (R19). However many replicas run, one run
takes

    GPU-hours = min over fitting degrees d of  d × tokens × g ÷ (τ_d × η) ÷ 3600

on that SKU (the degree that achieves the minimum is kept), and renting them costs
``catalog.cloud_price(sku)`` × GPU-hours (P5, H5), or nothing is said without a price.
The degrees tried are those the policy allows on the GPU (R8, R10); a rented GPU needs no
server, so the catalog's platforms do not cap them. Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..inputs.catalog import Catalog, GpuSku
from ..inputs.kinds import TRAINING_KINDS
from ..inputs.policy import Policy
from ..inputs.workload import Workload, WorkloadFile
from ..optimize.replicas import policy_degrees
from .replica import estimate, replica_throughput

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class GpuHoursRow:
    """One run of a finite job on one GPU type: the fewest GPU-hours and their rent."""

    workload: str
    gpu: str
    degree: int
    """GPUs per replica at which the run takes the fewest GPU-hours."""
    gpu_hours: float
    """GPU-hours one run needs on this GPU (module docstring)."""
    rent_cost: float | None
    """cloud price × ``gpu_hours``, in ``currency``; None without a cloud price."""
    currency: str

    def to_json(self) -> dict:
        """The row of the estimate document's ``gpu_hours`` list (docs/json.md)."""
        return {"workload": self.workload, "gpu": self.gpu, "degree": self.degree,
                "gpu_hours": _significant(self.gpu_hours),
                "rent_cost": None if self.rent_cost is None else _significant(self.rent_cost),
                "currency": self.currency}


def _significant(v: float) -> float:
    """Six significant digits: a short job's 0.000412 GPU-hours stays non-zero."""
    return float(f"{v:.6g}")


def is_finite(w: Workload) -> bool:
    """A training job that ends: a training kind with ``tokens``."""
    return w.kind in TRAINING_KINDS and w.tokens is not None


def run_gpu_hours(tokens: float, growth: float, degree: int, tokens_per_s: float,
                  efficiency: float) -> float:
    """GPU-hours of one run at one degree: degree × tokens × growth ÷ (τ × η) ÷ 3600.

    Args:
        tokens: tokens one run processes (the workload's ``tokens``).
        growth: ``policy.growth`` (R19).
        degree: GPUs per replica.
        tokens_per_s: τ, one replica's training tokens per second at that degree (T2).
        efficiency: η, ``policy.data_parallel_efficiency`` (T3).
    """
    if tokens_per_s <= 0 or degree < 1:
        raise ValueError(f"a replica needs a positive speed and degree, got "
                         f"{tokens_per_s} tokens/s on {degree} GPUs")
    return degree * tokens * growth / (tokens_per_s * efficiency) / SECONDS_PER_HOUR


def fewest_gpu_hours(w: Workload, gpu: GpuSku, policy: Policy) -> tuple[int, float] | None:
    """(degree, GPU-hours) of the degree that needs the fewest GPU-hours for one run of
    ``w`` on ``gpu``, over the degrees where a replica fits; None where none fits (or ``w``
    is not finite). Ties keep the smaller degree."""
    if not is_finite(w) or w.tokens is None:
        return None
    best: tuple[int, float] | None = None
    for d in policy_degrees(gpu, policy):
        e = estimate(w, gpu, d, policy)
        if not e.fits:
            continue
        speed = replica_throughput(w, gpu, d, policy, e).tokens_per_s
        if speed <= 0:
            continue
        hours = run_gpu_hours(w.tokens, policy.growth, d, speed,
                              policy.data_parallel_efficiency)
        if best is None or hours < best[1] - 1e-9 * hours:
            best = (d, hours)
    return best


def gpu_hours_rows(wf: WorkloadFile, catalog: Catalog,
                   gpus: Iterable[GpuSku] | None = None) -> list[GpuHoursRow]:
    """One row per finite workload × GPU (``gpus``, default the catalog's) not excluded by
    ``policy.exclude`` on which a replica fits. Workloads in file order; within one, the
    cheapest rent first, then the GPUs without a cloud price by GPU-hours."""
    chosen = [g for g in (catalog.gpus if gpus is None else gpus)
              if g.sku not in wf.policy.exclude]
    rows: list[GpuHoursRow] = []
    for w in wf.workloads:
        mine = []
        for g in chosen:
            best = fewest_gpu_hours(w, g, wf.policy)
            if best is None:
                continue
            price = catalog.cloud_price(g.sku)
            mine.append(GpuHoursRow(w.name, g.sku, best[0], best[1],
                                    None if price is None else price * best[1],
                                    catalog.currency))
        rows += sorted(mine, key=_cheapest_first)
    return rows


def _cheapest_first(r: GpuHoursRow) -> tuple[bool, float, float]:
    """Sort key: priced rows by rent, then unpriced ones by GPU-hours."""
    return (r.rent_cost is None, r.rent_cost or 0.0, r.gpu_hours)
