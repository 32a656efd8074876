"""U1 by exhaustion: the cheapest plan of a tiny instance that keeps every rule at the
file's own figures and holds in at least ⌈P × N⌉ of its N sampled worlds.

Independent of the program and of ``solver/rules/chance.py``: a world is read from the
inputs (``uncertainty/scenario.world``: the file at the drawn growth, each estimate's true
figure as a measurement, the memory line's headroom), and every figure in it comes from the
estimator, as in ``bench/bruteforce.py``. The search:

- per workload, every count of replicas on each of its options (GPU SKU and degree whose
  need fits at the file's figures, latency limits met), from ⌈replicas × growth⌉ up to the
  most any world can need (⌈replicas × g_s⌉, or the target over the slowest option that
  fits there: a plan with more can drop one and hold in the same worlds); a training job
  with a target on one option (T4); the counts meet the file's own target (T3);
- a world holds when, for every workload, each option it uses fits there and meets its
  latency limits (R15, T3), it runs ⌈replicas × g_s⌉ replicas or more (R19) and its
  replicas deliver the world's target at the world's tokens/s (T3);
- the choices that hold in k worlds or more are priced by ``bruteforce._cheapest`` (every
  packing into servers, with the fabric), the cheapest is the optimum.

Limits (stated, not hidden): no shareable replicas (``tiny_chance_instance`` makes none: a
world's R17 would depend on the packing), no budget, no horizon.
"""

from __future__ import annotations

import itertools
import math
import random
import time

from bench.bruteforce import (
    _cheapest,
    _timed,
    _ways,
    _without,
    judge,
    optimum,
    tiny_instance,
    tiny_timed_instance,
)
from solver.estimate.replica import estimate, replica_throughput
from solver.estimate.throughput import delivered_fraction, latency_misses, planned_target
from solver.inputs.catalog import Catalog
from solver.inputs.workload import WorkloadFile


def _worlds(wf: WorkloadFile, catalog: Catalog) -> list[WorkloadFile]:
    from solver.uncertainty.draws import draw
    from solver.uncertainty.scenario import Cells, world

    unc = wf.uncertainty
    cells = Cells.of(wf, catalog)
    return [world(wf, cells, unc, draw(unc, wf, i)) for i in range(unc.samples)]


def _there(world: WorkloadFile, name: str, option: tuple, catalog: Catalog) -> tuple[bool, float]:
    """(fits, tokens/s) of one option of workload ``name`` in ``world``."""
    w = next(x for x in world.workloads if x.name == name)
    sku, d = option[0], option[1]
    if sku is None:
        return True, 0.0
    g = catalog.gpu(sku)
    e = estimate(w, g, d, world.policy)
    if not e.fits:
        return False, 0.0
    if not _timed(w):
        return True, 0.0
    r = replica_throughput(w, g, d, world.policy, e)
    return not latency_misses(w, r), r.tokens_per_s


def optimum_held(wf: WorkloadFile, catalog: Catalog) -> float | None:
    """Objective of the cheapest plan holding in ⌈P × N⌉ worlds (None: none exists)."""
    policy, unc = wf.policy, wf.uncertainty
    k = max(1, math.ceil(unc.robust * unc.samples - 1e-9))
    whole = catalog
    catalog = _without(catalog, set(policy.exclude))
    works = list(wf.workloads)
    ways = _ways(works, catalog, policy, [])
    worlds = _worlds(wf, whole)
    per_workload = []
    for w, opts in zip(works, ways):
        n0 = max(1, math.ceil(w.replicas * policy.growth - 1e-9))
        target = planned_target(w, policy)
        eta = delivered_fraction(w, policy) if target is not None else 1.0
        there = [[_there(world, w.name, o, whole) for o in opts] for world in worlds]
        most = n0
        for world, figs in zip(worlds, there):
            most = max(most, math.ceil(w.replicas * world.policy.growth - 1e-9))
            wt = planned_target(w, world.policy)
            rates = [r for fit, r in figs if fit and r > 0]
            if wt is not None and rates:
                eta_s = delivered_fraction(w, world.policy)
                most = max(most, math.ceil(wt / (eta_s * min(rates)) - 1e-9))
        if target is not None:
            rates = [o[6] for o in opts if o[6] > 0]
            if rates:
                most = max(most, math.ceil(target / (eta * min(rates)) - 1e-9))
        choices = []
        for counts in itertools.product(range(most + 1), repeat=len(opts)):
            total = sum(counts)
            if not n0 <= total <= most:
                continue
            if w.kind != "inference" and target is not None and sum(c > 0 for c in counts) > 1:
                continue  # T4
            if target is not None and eta * sum(c * o[6] for c, o in zip(counts, opts)) < \
                    target * (1 - 1e-9):
                continue
            held = set()
            for si, (world, figs) in enumerate(zip(worlds, there)):
                if any(c and not figs[i][0] for i, c in enumerate(counts)):
                    continue
                if total < math.ceil(w.replicas * world.policy.growth - 1e-9):
                    continue
                wt = planned_target(w, world.policy)
                if wt is not None:
                    got = delivered_fraction(w, world.policy) * sum(
                        c * figs[i][1] for i, c in enumerate(counts))
                    if got < wt * (1 - 1e-9):
                        continue
                held.add(si)
            choices.append((counts, frozenset(held)))
        per_workload.append(choices)
    best = None
    pooled = sum(w.pool_tb for w in works)
    for choice in itertools.product(*per_workload):
        held = frozenset.intersection(*(h for _, h in choice)) if choice else frozenset()
        if len(held) < k:
            continue
        groups, owners = [], []
        for wi, (counts, _) in enumerate(choice):
            for o, c in zip(ways[wi], counts):
                if c:
                    groups.append(([o], c))
                    owners.append(wi)
        local = [works[wi].local_tb for wi in owners]
        cost = _cheapest([o for o, _ in groups], [c for _, c in groups], catalog, policy,
                         pooled, wf, [], whole, owners, local)
        if cost is not None and (best is None or cost < best):
            best = cost
    return best


def tiny_chance_instance(seed: int, base: Catalog) -> tuple[WorkloadFile, Catalog]:
    """A tiny instance (``bruteforce.tiny_instance``; for odd seeds ``tiny_timed_instance``,
    its first workload with a throughput target), at most two workloads of one replica,
    none shareable, degree 1 or 2, held to 12 worlds: growth uniform on [1, 2.2], peak
    memory up to 40 % under-estimated or 10 % over, tokens/s ±25 %, P in {0.5, 0.75, 0.9}."""
    wf, cat = (tiny_timed_instance if seed % 2 else tiny_instance)(seed, base)
    rng = random.Random(f"plan-buy-tiny-chance/{seed}")
    data = wf.model_dump(mode="json", exclude_none=True)
    data["workloads"] = [{**w, "replicas": 1, "shareable": False} if "shareable" in w
                         else {**w, "replicas": 1} for w in data["workloads"][:2]]
    data["policy"]["max_parallel_degree"] = 2
    data["uncertainty"] = {
        "samples": 12, "seed": seed, "robust": rng.choice((0.5, 0.75, 0.9)),
        "growth": {"dist": "uniform", "low": 1.0, "high": 2.2},
        "estimates": {"peak_memory": {"low_pct": -40, "high_pct": 10},
                      "tokens_per_s": {"low_pct": -25, "high_pct": 25}},
    }
    return WorkloadFile.model_validate(data), cat


def crosscheck(count: int, first_seed: int = 0) -> dict:
    """Rank-1 objective of ``pipeline.plan`` (U1's rows) vs ``optimum_held``."""
    from bench.generate import DEFAULT_CATALOG
    from solver.inputs.loading import load_catalog

    base = load_catalog(DEFAULT_CATALOG)
    start = time.perf_counter()
    res = {"match": 0, "total": count, "infeasible": 0, "dearer": 0, "mismatches": []}
    for seed in range(first_seed, first_seed + count):
        wf, cat = tiny_chance_instance(seed, base)
        exact = optimum_held(wf, cat)
        plain = optimum(wf.model_copy(update={"uncertainty": None}), cat)
        res["dearer"] += exact is not None and plain is not None and exact > plain + 0.01
        judge(seed, wf, cat, exact, res)
    return {**res, "seconds": time.perf_counter() - start}


if __name__ == "__main__":  # python -m bench.bruteforce_chance [COUNT]
    import sys

    res = crosscheck(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
    print(f"{res['match']} of {res['total']} match ({res['infeasible']} infeasible for both; "
          f"{res['dearer']} cost more than the plain plan), {res['seconds']:.1f} s")
    for m in res["mismatches"]:
        print("  " + m)
