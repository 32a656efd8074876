"""Replica options: the ways one workload's replica can run (GPU SKU, parallel degree,
shared or not) with the estimator's needs, and what a policy and catalog allow.

Per workload and GPU only the smallest degree that fits is kept (a larger degree uses more
GPUs and, by R12, at least as much host RAM), unless it needs strictly less RAM; a
workload with a throughput target or latency limits (T3) keeps every degree that meets
them and no smaller degree beats (``timed_options``). Parallel degrees follow R8 and R10.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..estimate.memory import Estimate
from ..estimate.replica import estimate, replica_throughput
from ..estimate.throughput import (
    Throughput,
    delivered_fraction,
    latency_misses,
    planned_target,
    target_tokens_per_s,
)
from ..inputs.catalog import Catalog, GpuSku
from ..inputs.policy import PARALLEL_DEGREES, Policy
from ..inputs.workload import MAX_PLANNED_REPLICAS, Workload
from ..rules.cores import replica_cores


@dataclass(frozen=True)
class ReplicaOption:
    """One way to run a replica of a workload: on ``degree`` GPUs of one SKU (or none)."""

    workload: str
    gpu: str | None
    degree: int
    shared: bool
    vram_gb: float
    """Per-GPU VRAM need, GB."""
    ram_gb: float
    """Host RAM need of one replica, GB."""
    estimate: Estimate
    cores: float = 0.0
    """CPU cores one replica needs (O3)."""
    rate: Throughput | None = None
    """What one replica delivers (T2/T3); None for preprocess or where not estimated."""
    local_tb: float = 0.0
    """O4: TB every server running a replica of it holds (its workload's dataset when read
    locally, ``Workload.local_tb``)."""

    @property
    def tokens_per_s(self) -> float | None:
        """Tokens/s of one replica (training tokens, or output tokens for inference)."""
        return self.rate.tokens_per_s if self.rate is not None else None


def policy_degrees(gpu: GpuSku, policy: Policy,
                   degrees: tuple[int, ...] = PARALLEL_DEGREES) -> tuple[int, ...]:
    """Parallel degrees the policy allows on this GPU (R8, R10).

    Powers of two up to max_parallel_degree; beyond the GPU's NVLink domain a job talks
    over PCIe, so max_pcie_parallel_degree applies there.
    """
    return tuple(
        d for d in degrees
        if d <= policy.max_parallel_degree
        and (d <= gpu.nvlink_gpus or d <= policy.max_pcie_parallel_degree)
    )


def allowed_degrees(gpu: GpuSku, policy: Policy, max_slots: int) -> list[int]:
    """Degrees a replica may use on this GPU: the policy's, within the largest server."""
    return [d for d in policy_degrees(gpu, policy) if d <= max_slots]


def max_slots(catalog: Catalog, gpu: GpuSku, exclude: tuple[str, ...] = ()) -> int:
    """Most GPUs of this SKU one allowed server can be bought with (O1 counts)."""
    return max((max(p.allowed_gpu_counts()) for p in catalog.platforms
                if p.takes(gpu) and p.sku not in exclude), default=0)


def degrees_on(gpu: GpuSku, catalog: Catalog, policy: Policy) -> list[int]:
    """Degrees a replica may use on this GPU: the policy's, within the catalog's largest
    allowed server for it."""
    return allowed_degrees(gpu, policy, max_slots(catalog, gpu, policy.exclude))


def replica_options(
    w: Workload, catalog: Catalog, policy: Policy, every_degree: bool = False
) -> tuple[list[ReplicaOption], list[Estimate]]:
    """The useful options for one workload, and every estimate tried (for error messages).

    ``every_degree`` keeps every degree that fits, dominated or not: a plan held to sampled
    worlds (U1) may need a degree whose true need fits where a smaller one's does not."""
    if w.kind == "preprocess":
        e = estimate(w, None, 0, policy)
        return [ReplicaOption(w.name, None, 0, False, 0.0, e.host_ram_gb, e,
                              replica_cores(w, 0), local_tb=w.local_tb)], [e]
    if is_timed(w):
        return timed_options(w, catalog, policy, every_degree)
    options: list[ReplicaOption] = []
    tried: list[Estimate] = []
    for g in catalog.gpus:
        if g.sku in policy.exclude:
            continue
        least_ram = float("inf")
        for d in degrees_on(g, catalog, policy):
            e = estimate(w, g, d, policy)
            tried.append(e)
            # A larger degree uses more GPUs; it is only worth offering if it needs
            # strictly less host RAM (possible only with custom R12 ratios).
            if e.fits and (every_degree or e.host_ram_gb < least_ram - 1e-9):
                shared = w.shareable and d == 1
                options.append(ReplicaOption(w.name, g.sku, d, shared, e.vram_gb_per_gpu,
                                             e.host_ram_gb, e, replica_cores(w, d),
                                             _rate(w, g, d, policy, e), w.local_tb))
                least_ram = e.host_ram_gb
    return options, tried


def _rate(w: Workload, g: GpuSku, d: int, policy: Policy, e: Estimate) -> Throughput | None:
    """One replica's throughput, or None where the estimator has none for this workload."""
    try:
        return replica_throughput(w, g, d, policy, e)
    except ValueError:
        return None


def is_timed(w: Workload) -> bool:
    """A workload with a throughput target or a latency limit (T3)."""
    return (target_tokens_per_s(w) is not None or w.max_tpot_ms is not None
            or w.max_ttft_ms is not None)


def timed_options(w: Workload, catalog: Catalog, policy: Policy,
                  every_degree: bool = False) -> tuple[list[ReplicaOption], list[Estimate]]:
    """Options of a workload with a target or latency limits (T3).

    Every degree that fits *and* meets the latency limits is a candidate (a larger degree
    may be faster per GPU: a larger serving batch fits, or a TPOT limit is met only when
    the weights are split). A degree d' is dropped when k = d'/d replicas of a smaller
    degree d of the same GPU do at least as well in the same GPUs: with a target,
    k·r_d ≤ r_d', k·c_d ≤ c_d' and k·τ_d ≥ τ_d' (host RAM r, CPU cores c, tokens/s τ);
    without one (the replica count is fixed), r_d ≤ r_d' and c_d ≤ c_d'. Such replicas
    never share a GPU: their throughput assumes the GPU's full bandwidth and compute.
    ``every_degree`` (U1) drops none.
    """
    targeted = planned_target(w, policy) is not None
    options: list[ReplicaOption] = []
    tried: list[Estimate] = []
    for g in catalog.gpus:
        if g.sku in policy.exclude:
            continue
        kept: list[ReplicaOption] = []
        for d in degrees_on(g, catalog, policy):
            e = estimate(w, g, d, policy)
            tried.append(e)
            if not e.fits:
                continue
            rate = _rate(w, g, d, policy, e)
            if rate is None or latency_misses(w, rate):
                continue
            cores = replica_cores(w, d)
            if not every_degree and any(
                    _dominated(o, d, e.host_ram_gb, cores, rate.tokens_per_s, targeted)
                    for o in kept):
                continue
            kept.append(ReplicaOption(w.name, g.sku, d, False, e.vram_gb_per_gpu,
                                      e.host_ram_gb, e, cores, rate, w.local_tb))
        options += kept
    if targeted:
        need = planned_target(w, policy) or 0.0
        frac = delivered_fraction(w, policy)
        options = [o for o in options
                   if replicas_for(need, (o.tokens_per_s or 0.0) * frac) <= MAX_PLANNED_REPLICAS]
    return options, tried


def timed_reason(w: Workload, catalog: Catalog, policy: Policy,
                 tried: tuple[Estimate, ...]) -> str | None:
    """Why a workload with a target or latency limits has no option although some fit:
    its best achievable figure and on which GPU (None when nothing fits at all)."""
    gpus = {g.sku: g for g in catalog.gpus}
    rates = [(r, e) for e in tried if e.fits and e.gpu in gpus
             for r in [_rate(w, gpus[e.gpu], e.degree, policy, e)] if r is not None]
    if not rates:
        return None
    parts = []
    if w.max_tpot_ms is not None:
        r, e = min(rates, key=lambda re: re[0].tpot_ms or math.inf)
        parts.append(f"the shortest time per output token is {r.tpot_ms:.1f} ms (batch "
                     f"{r.batch}) on {e.gpu} x{e.degree}{_floor(r)}, over max_tpot_ms "
                     f"{w.max_tpot_ms:g}")
    if w.max_ttft_ms is not None:
        r, e = min(rates, key=lambda re: re[0].ttft_ms or math.inf)
        if (r.ttft_ms or 0.0) > w.max_ttft_ms:
            parts.append(f"the shortest time to first token is {r.ttft_ms:.1f} ms on "
                         f"{e.gpu} x{e.degree}{_floor(r)}, over max_ttft_ms {w.max_ttft_ms:g}")
    ok = [(r, e) for r, e in rates if not latency_misses(w, r)]
    need = planned_target(w, policy)
    if ok and need is not None:
        r, e = max(ok, key=lambda re: re[0].tokens_per_s)
        per = r.tokens_per_s * delivered_fraction(w, policy)
        parts = [(f"it needs {need:,.0f} tokens/s; the fastest replica delivers {per:,.1f} "
                 f"tokens/s on {e.gpu} x{e.degree}, so it would take "
                 f"{replicas_for(need, per):,.0f} replicas; plan-buy plans at most "
                 f"{MAX_PLANNED_REPLICAS:,}")]
    if not parts:
        return None
    return (f"{w.name}: no GPU option meets its targets: {'; '.join(parts)}. To fix: relax the "
            "limit or target, lower the batch, prompt or precision, or add a faster GPU")


def _floor(r: Throughput) -> str:
    """N4: the latency floor of a replica (all-reduce latency and framework step overhead)."""
    if not r.floor_ms:
        return ""
    return (f" (its floor, all-reduce latency and the framework's step overhead, is "
            f"{r.floor_ms:.2f} ms)")


def _dominated(o: ReplicaOption, d: int, ram: float, cores: float, rate: float,
               targeted: bool) -> bool:
    """Whether ``o`` (a smaller degree of the same GPU) makes degree ``d`` useless."""
    if d % o.degree or o.degree >= d:
        return False
    k = d // o.degree if targeted else 1
    return k * o.ram_gb <= ram + 1e-9 and k * o.cores <= cores + 1e-9 and (
        not targeted or k * (o.tokens_per_s or 0.0) >= rate - 1e-9)


def replicas_for(need: float, per_replica: float) -> float:
    """Replicas of ``per_replica`` tokens/s that reach ``need`` (infinite at zero)."""
    if per_replica <= 0:
        return math.inf
    return math.ceil(need / per_replica - 1e-9)
