"""Throughput targets and latency limits (T3, T4), recomputed from the estimator replica
by replica on the physical plan."""

from __future__ import annotations

import math

from ..estimate.replica import replica_throughput
from ..estimate.throughput import delivered_fraction, latency_misses, planned_target
from ..inputs.policy import Policy
from ..inputs.workload import Workload
from ..plan_types import Placement
from .memory import served
from .subject import TOL, Subject, estimate_once


def _timed(w: Workload) -> bool:
    return (w.kind != "preprocess" and (planned_target(w, Policy()) is not None
            or w.max_tpot_ms is not None or w.max_ttft_ms is not None))


def check_t3_t4(sub: Subject) -> list[str]:
    """Per served workload with a target or latency limits, throughput recomputed from the
    estimator replica by replica: each replica meets the latency limits and reports the
    tokens/s it delivers; η Σ tokens/s ≥ target × growth (T3); a training job's replicas
    share one GPU SKU and degree (T4); such a replica has its GPUs to itself."""
    errs: list[str] = []
    on_gpu: dict[tuple[str, int], int] = {}
    for pl in sub.option.placements:
        for i in pl.gpu_indices:
            on_gpu[(pl.server, i)] = on_gpu.get((pl.server, i), 0) + 1
    done = served(sub)
    for w in sub.wf.workloads:
        if w.name not in done or not _timed(w):
            continue
        mine = [pl for pl in sub.option.placements if pl.workload == w.name]
        total = _replicas_rate(sub, w, mine, on_gpu, errs)
        need = planned_target(w, sub.wf.policy)
        if need is None:
            continue
        got = delivered_fraction(w, sub.wf.policy) * total
        if got < need * (1 - 1e-9) - TOL:
            errs.append(f"{w.name}: delivers {got:,.1f} tokens/s < target {need:,.1f} (T3)")
        if w.kind != "inference":
            shapes = {(pl.gpu, pl.gpus) for pl in mine}
            if len(shapes) > 1:
                errs.append(f"{w.name}: training replicas on "
                            f"{', '.join(f'{g} x{d}' for g, d in sorted(shapes, key=str))}; "
                            "data-parallel ranks need one GPU SKU and degree (T4)")
    return errs


def _replicas_rate(sub: Subject, w: Workload, mine: list[Placement],
                   on_gpu: dict[tuple[str, int], int], errs: list[str]) -> float:
    """Σ tokens/s of ``w``'s replicas; what is wrong with each one is appended to ``errs``
    (a shared GPU, a latency limit missed, a rate misreported)."""
    servers = {s.id: s for s in sub.option.servers}
    policy = sub.wf.policy
    total = 0.0
    for pl in mine:
        where = f"{w.name}#{pl.replica}"
        g = sub.skus.gpu(pl.gpu)
        s = servers.get(pl.server)
        if g is None or s is None or pl.gpus < 1:
            continue  # reported with its placement
        if any(on_gpu.get((pl.server, i), 0) > 1 for i in pl.gpu_indices):
            errs.append(f"{where}: shares a GPU, but its throughput and latency need the "
                        "GPU to itself (T3)")
        rate = replica_throughput(w, g, pl.gpus, policy, estimate_once(w, g, pl.gpus, policy))
        total += rate.tokens_per_s
        errs += [f"{where} on {g.sku} x{pl.gpus}: {miss}" for miss in latency_misses(w, rate)]
        if pl.tokens_per_s is not None and not math.isclose(
                pl.tokens_per_s, rate.tokens_per_s, rel_tol=1e-6):
            errs.append(f"{where}: reports {pl.tokens_per_s:.1f} tokens/s, the estimator "
                        f"gives {rate.tokens_per_s:.1f}")
    return total
