"""Exhaustive enumeration of tiny instances: an optimum found without the integer program.

Independent of ``solver/optimize/candidates.py``, ``build.py`` and ``expand/``: it reads only the
plan rules, the catalog and the estimator (the one source of every per-GPU VRAM and
host-RAM need), and searches every plan:

- every way to split the planned replicas into groups, one group per server (replicas of
  one workload are interchangeable, so a group is a vector of counts per workload);
- for every group, every option of every replica: GPU SKU and parallel degree (every power
  of two within the caps whose need fits, not only the smallest), or no GPU for preprocess;
- for every group, every platform that takes the group's one GPU SKU (any platform for a
  CPU-only group), every DIMM SKU of its memory type and every DIMM count that populates
  all channels (R14); GPUs = Σ exclusive degrees + the fewest shared GPUs that hold the
  shareable degree-1 replicas under the headroom line (exact bin packing, R15, R17);
  host RAM of the group ≤ (1 − headroom) × installed RAM (R11, R12, R15);
- O4 storage: a group's local need is the sum of the distinct datasets of its workloads
  that read locally (``data.storage: local``); its server carries ⌈need / ((1 − headroom)
  × size)⌉ drives of the catalog's one drive SKU, within its platform's bays (else the
  group cannot sit on that platform; an owned server must hold the need under the line of
  its own drives). The pool then holds the checkpoints and shared datasets of every
  workload once: first in what those drives leave under the line, then in more drives in
  spare bays, with extra servers that carry only drives when the bays run out;
- O1: a server is bought with one of its platform's GPU counts (any 0..slots unless the
  catalog lists ``gpu_counts``): the group's GPUs rounded up to the next count sold, idle
  GPUs paid; a group without GPUs on a platform not sold without them carries the fewest
  idle GPUs of the cheapest SKU it takes;
- allowed SKUs: every SKU of ``policy.exclude`` is removed from the catalog first;
- O3: the CPU cores of a server's replicas (data.cpu_cores, else training d × (workers + 1),
  inference 2d, preprocess max(1, workers)) stay within its platform's cpu_cores, when given.
- P1/P2: a server draws platform power_w + GPUs × GPU power_w; under ``objective: tco`` a
  server costs price × (1 + support% × years) + kW × 8,760 × years × utilisation × PUE ×
  kWh price, and the plan adds rack_cost_per_year × years × max(⌈Σ kW ÷ rack_kw⌉,
  ⌈Σ U ÷ rack_units⌉);
- P3: no server above rack_kw or taller than a rack; Σ kW ≤ racks × rack_kw and
  Σ U ≤ racks × rack_units;
- P4: a group may instead sit on an owned server of the inventory (its exact GPUs, DIMMs
  and platform, whatever ``exclude`` says), at no price; at most the count owned of each.
- N3: the bought servers (drive-only ones too, owned ones never) are one pod; a partial
  plan keeps its ports per kind, and the pool adds the fabric of least cost among every
  choice of leaf and spine SKUs per kind (``bench/bruteforce_fabric.py``), its switches'
  power and rack units counting in P2 and P3. No NIC is added to a server.

The cheapest such plan is the exact optimum. ``crosscheck`` draws seeded tiny instances and
compares that optimum with ``pipeline.plan(...).options[0].total_cost``.

Throughput targets (T3, T4): a workload with a target runs any replica counts that meet it.
Every *minimal* mix of its options is enumerated (a count per option, at least
⌈replicas × growth⌉ replicas and Σ η τ_o ≥ target × growth, with no replica to spare:
dropping one never costs more); a training job uses one option only (T4). Each mix then
enters the search above as fixed replicas. Options that miss a latency limit are left out,
and such replicas never share a GPU. Throughput comes from the estimator, as memory does.

Limits (stated, not hidden): shareable replicas share GPUs only at degree 1 (two shareable
replicas of degree ≥ 2 on the same GPUs would each need more than half a card in any
instance drawn here); one drive SKU per catalog (an owned server's own drives may be
another).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from functools import cache

from bench.bruteforce_fabric import (
    NO_PORTS,
    join_ports,
    platform_ports,
    pool_with_fabric,
    tiny_network,
)
from solver.estimate.replica import estimate, replica_throughput
from solver.estimate.throughput import (
    delivered_fraction,
    latency_misses,
    planned_target,
    target_tokens_per_s,
)
from solver.inputs.catalog import Catalog
from solver.inputs.workload import WorkloadFile

EPS = 1e-9


def _degrees_for(gpu, policy) -> list[int]:
    """Powers of two within the caps (R8, R10); the server's slots are checked later."""
    out, d = [], 1
    while d <= policy.max_parallel_degree:
        if d <= gpu.nvlink_gpus or d <= policy.max_pcie_parallel_degree:
            out.append(d)
        d *= 2
    return out


def _min_bins(sizes: tuple[float, ...], cap: float) -> int:
    """Fewest bins of capacity ``cap`` for ``sizes`` (exact; a handful of items)."""
    if not sizes:
        return 0
    items = sorted(sizes, reverse=True)
    best = len(items)

    def place(i: int, loads: list[float]) -> None:
        nonlocal best
        if len(loads) >= best:
            return
        if i == len(items):
            best = len(loads)
            return
        seen = set()
        for j in range(len(loads)):
            if loads[j] + items[i] <= cap + 1e-6 and loads[j] not in seen:
                seen.add(loads[j])
                loads[j] += items[i]
                place(i + 1, loads)
                loads[j] -= items[i]
        loads.append(items[i])
        place(i + 1, loads)
        loads.pop()

    place(0, [])
    return best


def _timed(w) -> bool:
    return (target_tokens_per_s(w) is not None or w.max_tpot_ms is not None
            or w.max_ttft_ms is not None)


def _mixes(ways: list[tuple], least: int, target: float, frac: float,
           one_type: bool) -> list[tuple[int, ...]]:
    """Minimal replica counts per way that meet ``least`` replicas and ``target`` tokens/s."""
    rates = [o[6] * frac for o in ways]
    tops = [max(least, math.ceil(target / r - 1e-9)) if r > 0 else 0 for r in rates]

    def ok(c: tuple[int, ...]) -> bool:
        return sum(c) >= least and sum(n * r for n, r in zip(c, rates)) >= target * (1 - 1e-9)

    out = []
    if one_type:
        for j, top in enumerate(tops):
            c = tuple(top if i == j else 0 for i in range(len(ways)))
            if top and ok(c):
                out.append(c)
        return out
    for c in itertools.product(*(range(t + 1) for t in tops)):
        if ok(c) and not any(
                n and ok(tuple(m - (i == j) for i, m in enumerate(c))) for j, n in enumerate(c)):
            out.append(c)
    return out


def _without(catalog: Catalog, exclude) -> Catalog:
    """The catalog less the excluded SKUs (allowed SKUs); may leave a kind empty."""
    if not exclude:
        return catalog
    return catalog.model_copy(update={
        kind: [i for i in getattr(catalog, kind) if i.sku not in exclude]
        for kind in ("gpus", "platforms", "memory", "storage")
    })


def _bought_gpus(p, k: int) -> int | None:
    """O1: the fewest GPUs ``p`` is sold with that hold ``k`` in use (None: none does)."""
    sold = sorted(p.gpu_counts) if p.gpu_counts is not None else range(p.gpu_slots + 1)
    return min((c for c in sold if c >= k), default=None)


def _cores(w, d: int) -> int:
    """O3: CPU cores one replica of ``w`` on ``d`` GPUs needs."""
    if w.data.cpu_cores is not None:
        return w.data.cpu_cores
    if w.kind in ("train", "lora", "qlora"):
        return d * (w.data.workers + 1)
    return 2 * d if w.kind == "inference" else max(1, w.data.workers)


def optimum(wf: WorkloadFile, catalog: Catalog) -> float | None:
    """Objective of the cheapest valid plan (capital cost, or TCO under ``objective: tco``),
    or None when no plan exists (no budget)."""
    policy = wf.policy
    whole = catalog
    catalog = _without(catalog, set(policy.exclude))
    owned = [(whole.platform(i.platform), whole.gpu(i.gpu) if i.gpu else None, i) for i in
             wf.inventory]
    works = list(wf.workloads)
    need = [max(1, math.ceil(w.replicas * policy.growth - 1e-9)) for w in works]

    ways = _ways(works, catalog, policy, owned)

    # Workloads with a target: every minimal mix of options becomes fixed replicas.
    per_workload: list[list[list[tuple[list[tuple], int]]]] = []
    for w, opts, n in zip(works, ways, need):
        target = planned_target(w, policy)
        if target is None:
            per_workload.append([[(opts, n)]])
            continue
        mixes = _mixes(opts, n, target, delivered_fraction(w, policy), w.kind != "inference")
        per_workload.append([[([o], c) for o, c in zip(opts, mix) if c] for mix in mixes])
    best = None
    pooled = sum(w.pool_tb for w in works)
    for choice in itertools.product(*per_workload):
        groups = [g for part in choice for g in part]
        owners = [wi for wi, part in enumerate(choice) for _ in part]
        local = [works[wi].local_tb for wi in owners]
        cost = _cheapest([o for o, _ in groups], [c for _, c in groups], catalog, policy,
                         pooled, wf, owned, whole, owners, local)
        if cost is not None and (best is None or cost < best):
            best = cost
    return best


def _ways(works: list, catalog: Catalog, policy, owned: list) -> list[list[tuple]]:
    """Every way one replica of each workload can run: (gpu sku | None, degree, vram, ram,
    shared?, CPU cores, tokens/s), its need fitting under the headroom line."""
    ways: list[list[tuple]] = []
    for w in works:
        opts = []
        if w.kind == "preprocess":
            e = estimate(w, None, 0, policy)
            opts.append((None, 0, 0.0, e.host_ram_gb, False, _cores(w, 0), 0.0))
        else:
            gpus = list(catalog.gpus) + [g for _, g, _ in owned
                                         if g is not None and g not in catalog.gpus]
            for g in gpus:
                if not any(p.takes(g) for p in catalog.platforms) and not any(
                        og == g for _, og, _ in owned):
                    continue
                for d in _degrees_for(g, policy):
                    e = estimate(w, g, d, policy)
                    if not e.fits:
                        continue
                    rate = 0.0
                    if _timed(w):
                        r = replica_throughput(w, g, d, policy, e)
                        if latency_misses(w, r):
                            continue
                        rate = r.tokens_per_s
                    shared = w.shareable and d == 1 and not _timed(w)
                    opts.append((g.sku, d, e.vram_gb_per_gpu, e.host_ram_gb, shared,
                                 _cores(w, d), rate))
        ways.append(opts)

    return ways


def _cheapest(ways: list[list[tuple]], need: list[int], catalog: Catalog, policy,
              pooled: float, wf: WorkloadFile | None = None, owned: list | None = None,
              whole: Catalog | None = None, owners: list[int] | None = None,
              local: list[float] | None = None) -> float | None:
    """Cheapest plan for groups of replicas: ``need[i]`` replicas, each any of ``ways[i]``,
    of workload ``owners[i]`` whose local dataset is ``local[i]`` TB (O4); ``pooled`` TB of
    checkpoints and shared datasets held once in the pool.

    A partial plan is keyed by (spare bays, owned servers used per inventory entry, W, U,
    TB its drives leave free under the line): W and U only where a site or rack cost needs
    them, so plans without either stay small; bays and free TB capped at what the pool
    can use.
    """
    line = 1 - policy.headroom
    works = need
    owned = owned or []
    owners = owners if owners is not None else list(range(len(need)))
    local = local if local is not None else [0.0] * len(need)
    drive = min(catalog.storage, key=lambda s: s.price) if catalog.storage else None
    usable_drive = line * drive.size_tb if drive is not None else 0.0
    # Drives the pool can ever want beyond the local copies, and the free TB it can use.
    most_extra = math.ceil(pooled / usable_drive - 1e-9) if pooled > 0 and drive else 0
    site = wf.site if wf is not None else None
    tco = policy.tco if policy.objective == "tco" else None
    track = site is not None
    watts_cap = site.rack_kw * 1000 if site is not None else math.inf
    zero_owned = tuple(0 for _ in owned)

    def price(capex: float, watts: float) -> float:
        """What one server adds to the objective (P2 under ``objective: tco``)."""
        if tco is None:
            return capex
        return capex * (1 + tco.support_rate()) + watts / 1000 * tco.energy_per_kw()

    def key(bays: int, used: tuple[int, ...], watts: float, units: int,
            free: float = 0.0, ports=NO_PORTS) -> tuple:
        return (min(bays, most_extra), used, watts if track else 0.0, units if track else 0,
                round(min(free, pooled), 9), ports)

    def local_need(counts: tuple[int, ...]) -> float:
        """O4: the distinct local datasets of the workloads a server's groups belong to."""
        return sum({owners[i]: local[i] for i, c in enumerate(counts) if c}.values())

    # Cheapest way to give one server of platform p at least ``ram`` GB usable RAM (R14).
    def dimm_cost(p, ram: float) -> float | None:
        best = None
        for m in catalog.memory:
            if m.type != p.memory_type:
                continue
            for n in range(p.memory_channels, p.dimm_slots + 1, p.memory_channels):
                if n * m.size_gb * line + 1e-6 >= ram:
                    c = n * m.price
                    best = c if best is None or c < best else best
                    break
        return best

    @cache
    def one_server(counts: tuple[int, ...]) -> dict[tuple, float]:
        """Cheapest single server holding exactly ``counts`` replicas: key -> cost."""
        per_workload = []
        for wi, c in enumerate(counts):
            per_workload.append(list(itertools.combinations_with_replacement(ways[wi], c)))
        best: dict[tuple, float] = {}
        disk = local_need(counts)
        # O4: the fewest drives holding the local data under the line (None: no drive SKU).
        least = (0 if disk <= 0 else None if drive is None
                 else math.ceil(disk / usable_drive - 1e-9))

        def offer(k: tuple, cost: float) -> None:
            if cost < best.get(k, math.inf):
                best[k] = cost

        for choice in itertools.product(*per_workload):
            picked = [o for group in choice for o in group]
            gpus = {o[0] for o in picked if o[0] is not None}
            if len(gpus) > 1:
                continue  # one GPU SKU per server
            gsku = next(iter(gpus), None)
            exclusive = sum(o[1] for o in picked if o[0] is not None and not o[4])
            ram = sum(o[3] for o in picked)
            cores = sum(o[5] for o in picked)
            if gsku is None:
                k = 0
                platforms = catalog.platforms
                price_g = None
            else:
                g = (whole or catalog).gpu(gsku)
                shared = tuple(o[2] for o in picked if o[4])
                k = exclusive + _min_bins(shared, g.vram_gb * line)
                platforms = [p for p in catalog.platforms if p.takes(g)
                             and g.sku in {c.sku for c in catalog.gpus}]
                price_g = g.price
            # P4: the group on an owned server, as it is, at no price.
            for j, (op, og, inv) in enumerate(owned):
                if (og.sku if og else None) != gsku or k > inv.gpu_count:
                    continue
                if any(o[1] > inv.gpu_count for o in picked):
                    continue
                if op.cpu_cores is not None and cores > op.cpu_cores:
                    continue
                mem = (whole or catalog).dimm(inv.memory)
                if inv.dimm_count * mem.size_gb * line + 1e-6 < ram:
                    continue
                watts = op.power_w + (inv.gpu_count * og.power_w if og else 0.0)
                if watts > watts_cap + 1e-9 or (site and (op.rack_units or 0) > site.rack_units):
                    continue
                own_tb = (inv.drive_count * (whole or catalog).drive(inv.storage).size_tb
                          if inv.storage else 0.0)
                if disk > line * own_tb + 1e-9:
                    continue  # O4: its own drives cannot hold the local data
                used = tuple(int(i == j) for i in range(len(owned)))
                offer(key(0, used, watts, op.rack_units or 0, line * own_tb - disk),
                      price(0.0, watts))
            for p in platforms:
                if k > p.gpu_slots:
                    continue
                if any(o[1] > p.gpu_slots for o in picked):
                    continue
                if p.cpu_cores is not None and cores > p.cpu_cores:
                    continue
                dc = dimm_cost(p, ram)
                if dc is None:
                    continue
                bought = _bought_gpus(p, k)
                if bought is None:
                    continue
                unit = price_g
                if bought and unit is None:  # no GPU work, but the platform is sold with GPUs
                    unit = min((g.price for g in catalog.gpus if p.takes(g)), default=None)
                    if unit is None:
                        continue
                cost = p.price + dc + (bought * unit if bought else 0)
                gw = 0.0
                if bought:
                    gw = (g.power_w if gsku is not None else min(
                        x.power_w for x in catalog.gpus if p.takes(x) and x.price == unit))
                watts = p.power_w + bought * gw
                if watts > watts_cap + 1e-9 or (site and (p.rack_units or 0) > site.rack_units):
                    continue
                if least is None or least > p.drive_bays:
                    continue  # O4: the local data fits no drives this platform holds
                if least:
                    assert drive is not None
                    cost += least * drive.price
                offer(key(p.drive_bays - least, zero_owned, watts, p.rack_units or 0,
                          least * usable_drive - disk, platform_ports(p, catalog)),
                      price(cost, watts))
        return best

    full = tuple(need)

    def join(k1: tuple, k2: tuple) -> tuple | None:
        """Two partial plans together (None when they use more owned servers than owned)."""
        used = tuple(a + b for a, b in zip(k1[1], k2[1]))
        if any(u > inv.count for u, (_, _, inv) in zip(used, owned)):
            return None
        return (min(most_extra, k1[0] + k2[0]), used, k1[2] + k2[2], k1[3] + k2[3],
                round(min(pooled, k1[4] + k2[4]), 9), join_ports(k1[5], k2[5]))

    @cache
    def partition(counts: tuple[int, ...]) -> dict[tuple, float]:
        """Cheapest set of servers holding exactly ``counts``: key -> cost."""
        if not any(counts):
            return {(0, zero_owned, 0.0, 0, 0.0, NO_PORTS): 0.0}
        out: dict[tuple, float] = {}
        # The group holding the first non-zero workload's first replica (each split once).
        first = next(i for i, c in enumerate(counts) if c)
        ranges = [range(c + 1) if i != first else range(1, c + 1) for i, c in enumerate(counts)]
        for sub in itertools.product(*ranges):
            rest = tuple(c - s for c, s in zip(counts, sub))
            head = one_server(sub)
            if not head:
                continue
            tail = partition(rest)
            for b1, c1 in head.items():
                for b2, c2 in tail.items():
                    b = join(b1, b2)
                    if b is not None and c1 + c2 < out.get(b, math.inf):
                        out[b] = c1 + c2
        return out

    plans = partition(full)
    if not plans:
        return None
    # Servers that carry only drives (no replicas) when the plan's bays are too few.
    empty = {k: c for k, c in one_server(tuple(0 for _ in works)).items() if not any(k[1])}
    best_by_bays = dict(plans)
    for _ in range(most_extra):
        grown = dict(best_by_bays)
        for b1, c1 in best_by_bays.items():
            for b2, c2 in empty.items():
                b = join(b1, b2)
                if b is not None and c1 + c2 < grown.get(b, math.inf):
                    grown[b] = c1 + c2
        best_by_bays = grown
    feasible = []
    for (bays, _, watts, units, free, ports), c in best_by_bays.items():
        # The pool: checkpoints and shared data in the free TB, the rest on more drives.
        short = pooled - free
        extra = 0 if short <= 1e-9 else (math.ceil(short / usable_drive - 1e-9)
                                         if drive is not None else bays + 1)
        if extra > bays:
            continue
        drive_cost = price(extra * drive.price, 0.0) if extra and drive is not None else 0.0
        # N3: the pool's fabric (bruteforce_fabric), and the racks with its switches (P3).
        got = pool_with_fabric(c + drive_cost, watts, units, ports, catalog, site, tco)
        if got is not None:
            feasible.append(got)
    if not feasible:
        return None
    return min(feasible)


# --- seeded tiny instances ----------------------------------------------------------------

TINY_MODELS = {
    "inference": ["gpt2-xl", "llama-2-7b", "mistral-7b", "llama-3.1-8b", "llama-2-13b"],
    "lora": ["llama-2-7b", "llama-3.1-8b", "llama-2-13b"],
    "qlora": ["llama-3.1-8b", "llama-2-13b", "qwen2.5-32b"],
    "train": ["gpt2", "gpt2-xl", "llama-2-7b"],
}


def tiny_catalog(rng: random.Random, base: Catalog) -> Catalog:
    """1-2 platforms, 2 GPU SKUs they take, 1-2 DIMM SKUs (every platform usable), 1 drive,
    the network of the platforms' NICs (``tiny_network``)."""
    gpu_platforms = [p for p in base.platforms if p.gpu_slots > 0]
    while True:
        plats = rng.sample(gpu_platforms, 1)
        if rng.random() < 0.5:
            plats.append(rng.choice([p for p in base.platforms if p not in plats]))
        taken = [g for g in base.gpus if any(p.takes(g) for p in plats)]
        if len(taken) >= 2:
            break
    gpus = rng.sample(taken, 2)
    types = sorted({p.memory_type for p in plats})
    mems = [rng.choice([m for m in base.memory if m.type == t]) for t in types]
    if len(mems) == 1 and rng.random() < 0.5:
        others = [m for m in base.memory if m.type == types[0] and m not in mems]
        mems += others[:1]
    data = base.model_dump(mode="json")
    data.update(
        gpus=[g.model_dump(mode="json") for g in gpus],
        cloud=[c for c in data.get("cloud", []) if c["gpu"] in {g.sku for g in gpus}],
        platforms=[p.model_dump(mode="json") for p in plats],
        memory=[m.model_dump(mode="json") for m in mems],
        storage=[rng.choice(base.storage).model_dump(mode="json")],
        network=tiny_network(base, plats),
    )
    return Catalog.model_validate(data)


def tiny_workloads(rng: random.Random, seed: int) -> WorkloadFile:
    """1-3 workloads with 1-2 replicas each, of every kind."""
    works = []
    for i in range(rng.randint(1, 3)):
        kind = rng.choice(("inference", "inference", "lora", "qlora", "train", "preprocess"))
        w = {
            "name": f"w{i}-{kind}",
            "kind": kind,
            "replicas": rng.randint(1, 2),
            "priority": rng.randint(1, 10),
        }
        if kind == "preprocess":
            w["data"] = {
                "in_memory_gb": rng.choice((50, 100, 200)),
                "dataset_tb": rng.choice((0.0, 1.0, 4.0)),
            }
        else:
            w["model"] = rng.choice(TINY_MODELS[kind])
            if kind == "inference":
                w.update(
                    precision=rng.choice(("fp16", "fp8", "int4")),
                    context=rng.choice((1024, 4096, 8192)),
                    batch=rng.choice((1, 8, 32)),
                    shareable=rng.random() < 0.5,
                )
            else:
                w.update(
                    seq_len=rng.choice((1024, 2048, 4096)),
                    global_batch=rng.choice((8, 32)),
                    activation_checkpointing=rng.random() < 0.5,
                )
                if kind != "train":
                    w["lora_rank"] = 16
                w["data"] = {
                    "in_memory_gb": rng.choice((0, 20, 80)),
                    "dataset_tb": rng.choice((0.0, 0.5, 2.0)),
                    "checkpoints_tb": rng.choice((0.0, 0.5)),
                }
        works.append(w)
    data = {"name": f"tiny-{seed}", "policy": {"headroom": 0.2}, "workloads": works}
    return WorkloadFile.model_validate(data)


def tiny_instance(seed: int, base: Catalog) -> tuple[WorkloadFile, Catalog]:
    rng = random.Random(f"plan-buy-tiny/{seed}")
    cat = tiny_catalog(rng, base)
    return tiny_workloads(rng, seed), cat


def tiny_timed_instance(seed: int, base: Catalog) -> tuple[WorkloadFile, Catalog]:
    """A tiny instance whose first workload has a throughput target (T3, T4): the target is
    0.7-2.4 x the slowest fitting replica's tokens/s, so few replicas meet it anywhere; an
    inference target may add a TPOT limit between the options' figures."""
    rng = random.Random(f"plan-buy-tiny-timed/{seed}")
    cat = tiny_catalog(rng, base)
    wf = tiny_workloads(rng, seed)
    data = wf.model_dump(mode="json", exclude_none=True)
    data["workloads"] = data["workloads"][:2]
    timed = next((w for w in wf.workloads[:2] if w.kind != "preprocess"), None)
    if timed is None:
        return WorkloadFile.model_validate(data), cat
    rates = []
    for g in cat.gpus:
        for d in _degrees_for(g, wf.policy):
            e = estimate(timed, g, d, wf.policy)
            if e.fits:
                rates.append(replica_throughput(timed, g, d, wf.policy, e))
    item = next(w for w in data["workloads"] if w["name"] == timed.name)
    item.pop("shareable", None)
    item["replicas"] = 1
    if rates:
        factor = rng.choice((0.7, 1.6, 2.4))
        slow = min(r.tokens_per_s for r in rates) * factor
        if timed.kind == "inference":
            item["tokens_per_s"] = round(slow, 3)
            tpots = sorted(r.tpot_ms or 0.0 for r in rates)
            if len(tpots) > 1 and rng.random() < 0.5:
                item["max_tpot_ms"] = round(tpots[len(tpots) // 2], 3) + 1e-3
        else:
            days = rng.choice((1.0, 7.0))
            item["tokens"] = slow * 0.9 * days * 86_400
            item["deadline_days"] = days
    return WorkloadFile.model_validate(data), cat


def tiny_storage_instance(seed: int, base: Catalog) -> tuple[WorkloadFile, Catalog]:
    """A tiny instance whose disks decide (O4): every workload gets a dataset of 0-6 TB read
    locally or shared and 0-2 TB of checkpoints, under a headroom of 0.1-0.3."""
    rng = random.Random(f"plan-buy-tiny-storage/{seed}")
    cat = tiny_catalog(rng, base)
    wf = tiny_workloads(rng, seed)
    data = wf.model_dump(mode="json", exclude_none=True)
    data["policy"]["headroom"] = rng.choice((0.1, 0.2, 0.3))
    for item in data["workloads"]:
        item["data"] = {**item.get("data", {}),
                        "dataset_tb": rng.choice((0.0, 0.5, 1.5, 3.0, 6.0)),
                        "checkpoints_tb": rng.choice((0.0, 0.5, 2.0)),
                        "storage": rng.choice(("local", "shared"))}
    return WorkloadFile.model_validate(data), cat


def crosscheck(count: int, first_seed: int = 0, timed: bool = False,
               storage: bool = False) -> dict:
    """Rank-1 cost of ``pipeline.plan`` vs ``optimum`` on ``count`` seeded tiny instances
    (``timed``: instances with a throughput target, ``tiny_timed_instance``; ``storage``:
    instances whose datasets and checkpoints decide, ``tiny_storage_instance``)."""
    from bench.generate import DEFAULT_CATALOG
    from solver.inputs.loading import load_catalog

    base = load_catalog(DEFAULT_CATALOG)
    start = time.perf_counter()
    res = {"match": 0, "total": count, "infeasible": 0, "mismatches": []}
    for seed in range(first_seed, first_seed + count):
        make = (tiny_timed_instance if timed else tiny_storage_instance if storage
                else tiny_instance)
        wf, cat = make(seed, base)
        judge(seed, wf, cat, optimum(wf, cat), res)
    return {**res, "seconds": time.perf_counter() - start}


def judge(seed: int, wf: WorkloadFile, catalog: Catalog, exact: float | None, res: dict) -> None:
    """Plan ``wf`` (rank 1, gap 1e-9) and count it against the exhaustive ``exact`` in
    ``res``: ``match`` (both the same cost, or both no plan: ``infeasible`` too) or a line
    in ``mismatches``."""
    from solver.errors import InfeasibleError
    from solver.optimize.pipeline import plan

    try:
        got = plan(wf, catalog, top=1, gap=1e-9, with_baseline=False).options[0].total_cost
    except InfeasibleError:
        got = None
    if exact is None and got is None:
        res["match"] += 1
        res["infeasible"] += 1
    elif exact is not None and got is not None and abs(exact - got) <= 0.01:
        res["match"] += 1
    else:
        res["mismatches"].append(f"seed {seed}: plan {got}, exhaustive {exact}")


if __name__ == "__main__":
    import sys
    from pathlib import Path

    # Run as a script: the repository root holds the bench package crosscheck imports.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    res = crosscheck(int(sys.argv[1]) if len(sys.argv) > 1 else 50,
                     timed="--timed" in sys.argv, storage="--storage" in sys.argv)
    print(
        f"{res['match']} of {res['total']} match ({res['infeasible']} infeasible for both), "
        f"{res['seconds']:.1f} s"
    )
    for m in res["mismatches"]:
        print("  " + m)
