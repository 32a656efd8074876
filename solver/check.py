"""The plan checker: verifies one plan against the plan rules alone (docs/solver.md).

It knows the catalog, the workload file and the estimator, never the integer program, so a
modelling bug cannot hide behind itself. ``check_plan`` returns every violation found;
the pipeline refuses to report a plan with any. A plan it exists to catch (an unknown SKU,
a placement on a server that is not in the plan, a negative count) is a violation line,
never an exception: every catalog lookup here goes through ``_Skus``, which answers None.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

from .estimate.memory import Estimate
from .estimate.replica import estimate, replica_throughput
from .estimate.throughput import delivered_fraction, latency_misses, planned_target
from .inputs.catalog import Catalog, GpuSku, MemorySku, Platform, StorageSku
from .inputs.workload import Policy, Workload, WorkloadFile
from .plan_types import Placement, PlanOption, Server
from .rules import usable

TOL = 1e-6


@functools.lru_cache(maxsize=4096)
def _estimate(w: Workload, g: GpuSku | None, d: int, policy: Policy) -> Estimate:
    """The estimator's figures, once per (workload, GPU, degree, policy) within one check:
    replicas of one option share them (51,000 replicas were 8 s of re-estimating)."""
    return estimate(w, g, d, policy)


@dataclass(frozen=True)
class _Skus:
    """The catalog by SKU, looked up without raising (None for an unknown SKU)."""

    platforms: dict[str, Platform]
    gpus: dict[str, GpuSku]
    memory: dict[str, MemorySku]
    storage: dict[str, StorageSku]

    @classmethod
    def of(cls, catalog: Catalog) -> _Skus:
        return cls(
            platforms={p.sku: p for p in catalog.platforms},
            gpus={g.sku: g for g in catalog.gpus},
            memory={m.sku: m for m in catalog.memory},
            storage={s.sku: s for s in catalog.storage},
        )

    def price(self, sku: str) -> float | None:
        for kind in (self.gpus, self.platforms, self.memory, self.storage):
            item = kind.get(sku)
            if item is not None:
                return item.price
        return None


def check_plan(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """Every way ``option`` breaks the SPEC's plan rules (empty when it is valid)."""
    skus = _Skus.of(catalog)
    usage = _Usage()
    _estimate.cache_clear()  # figures of this check only (the estimator may have changed)
    errs = _check_servers(option, skus)
    errs += _check_placements(option, wf, skus, usage)
    errs += _check_gpu_sharing(usage, option, skus, wf.policy)
    errs += _check_host_ram(usage, option, skus, wf.policy)
    served, demand_errs = _check_demand(usage, option, wf)
    errs += demand_errs
    errs += _check_storage(option, wf, served, skus)
    errs += _check_targets(option, wf, served, skus)
    errs += _check_cost(option, wf, skus)
    errs += _check_allowed_skus(option, wf)
    errs += _check_gpu_counts(option, skus)
    errs += _check_cpu_cores(option, wf, skus)
    errs += _check_owned(option, wf)
    errs += _check_site(option, wf, skus)
    errs += _check_own_cost(option, wf, skus)
    return errs


# -- Servers ------------------------------------------------------------------------------
def _check_servers(option: PlanOption, skus: _Skus) -> list[str]:
    ids = [s.id for s in option.servers]
    errs = ["server ids repeat"] if len(set(ids)) != len(ids) else []
    for s in option.servers:
        p = skus.platforms.get(s.platform)
        if p is None:
            errs.append(f"{s.id}: unknown platform {s.platform}")
            continue
        if s.gpu_count < 0 or s.dimm_count < 0 or s.drive_count < 0:
            errs.append(f"{s.id}: negative count")
        errs += _check_server_gpus(s, p, skus)
        errs += _check_server_memory(s, p, skus)
        if s.drive_count:
            if s.storage is None or s.storage not in skus.storage:
                errs.append(f"{s.id}: unknown storage {s.storage}")
            if s.drive_count > p.drive_bays:
                errs.append(f"{s.id}: {s.drive_count} drives > {p.drive_bays} bays")
    return errs


def _check_server_gpus(s: Server, p: Platform, skus: _Skus) -> list[str]:
    if not s.gpu_count:
        return []
    errs = []
    g = skus.gpus.get(s.gpu) if s.gpu is not None else None
    if g is None:
        errs.append(f"{s.id}: unknown GPU {s.gpu}")
    elif not p.takes(g):
        errs.append(f"{s.id}: {s.gpu} form factor not taken by {p.sku}")
    if s.gpu_count > p.gpu_slots:
        errs.append(f"{s.id}: {s.gpu_count} GPUs > {p.gpu_slots} slots")
    return errs


def _check_server_memory(s: Server, p: Platform, skus: _Skus) -> list[str]:
    errs = []
    dimm = skus.memory.get(s.memory)
    if dimm is None:
        errs.append(f"{s.id}: unknown memory {s.memory}")
    elif dimm.type != p.memory_type:
        errs.append(f"{s.id}: {s.memory} is not {p.memory_type}")
    if s.dimm_count <= 0 or s.dimm_count % p.memory_channels or s.dimm_count > p.dimm_slots:
        errs.append(
            f"{s.id}: {s.dimm_count} DIMMs must be a positive multiple of "
            f"{p.memory_channels} channels within {p.dimm_slots} slots (R14)"
        )
    return errs


# -- Placements ---------------------------------------------------------------------------
@dataclass
class _Usage:
    """What the placements take, gathered for the per-GPU and per-server checks."""

    replicas: dict[str, int] = field(default_factory=dict)
    """Replicas placed per workload."""
    gpu_load: dict[tuple[str, int], list[tuple[Workload, float]]] = field(default_factory=dict)
    """(server, GPU index) -> (workload, VRAM GB reserved) of each replica on that GPU."""
    ram_used: dict[str, float] = field(default_factory=dict)
    """Host RAM GB reserved per server."""


def _check_placements(option: PlanOption, wf: WorkloadFile, skus: _Skus,
                      usage: _Usage) -> list[str]:
    """Each placement on its own: a known workload on a server of the plan, a valid degree
    (R8, R10), distinct GPUs of the server, and VRAM and host RAM at least the estimate."""
    errs: list[str] = []
    servers = {s.id: s for s in option.servers}
    by_name = {w.name: w for w in wf.workloads}
    for pl in option.placements:
        w = by_name.get(pl.workload)
        s = servers.get(pl.server)
        where = f"{pl.workload}#{pl.replica}"
        if w is None or s is None:
            errs.append(f"{where}: unknown workload or server {pl.server}")
            continue
        usage.replicas[w.name] = usage.replicas.get(w.name, 0) + 1
        if w.kind == "preprocess":
            if pl.gpus != 0 or pl.gpu_indices:
                errs.append(f"{where}: preprocess uses no GPU")
            e = estimate(w, None, 0, wf.policy)
        else:
            gpu_e = _check_gpu_placement(pl, w, s, skus, wf.policy, where, errs)
            if gpu_e is None:
                continue
            e = gpu_e
            for i in pl.gpu_indices:
                usage.gpu_load.setdefault((s.id, i), []).append((w, pl.vram_gb_per_gpu))
        ram_need = e.host_ram_gb
        if pl.host_ram_gb + TOL < ram_need:
            errs.append(f"{where}: reserves {pl.host_ram_gb} GB RAM < need {ram_need}")
        usage.ram_used[s.id] = usage.ram_used.get(s.id, 0.0) + max(pl.host_ram_gb, ram_need)
    return errs


def _check_gpu_placement(pl: Placement, w: Workload, s: Server, skus: _Skus, policy: Policy,
                         where: str, errs: list[str]) -> Estimate | None:
    """Append what is wrong with one GPU replica to ``errs``; its estimate, or None when the
    placement is too broken to estimate (bad degree, GPU not the server's or unknown)."""
    d = pl.gpus
    if d < 1 or d & (d - 1) or d > policy.max_parallel_degree:
        errs.append(f"{where}: degree {d} not a power of two <= {policy.max_parallel_degree}")
        return None
    if pl.gpu != s.gpu:
        errs.append(f"{where}: placed on {pl.gpu} but {s.id} holds {s.gpu}")
        return None
    g = skus.gpus.get(pl.gpu) if pl.gpu is not None else None
    if g is None:
        errs.append(f"{where}: placed on unknown GPU {pl.gpu}")
        return None
    if d > g.nvlink_gpus and d > policy.max_pcie_parallel_degree:
        errs.append(f"{where}: degree {d} beyond NVLink needs <= "
                    f"{policy.max_pcie_parallel_degree} (R10)")
    if len(pl.gpu_indices) != d or len(set(pl.gpu_indices)) != d or any(
        i < 0 or i >= s.gpu_count for i in pl.gpu_indices
    ):
        errs.append(f"{where}: needs {d} distinct GPUs of {s.id} ({s.gpu_count} GPUs)")
    e = _estimate(w, g, d, policy)
    if not e.fits:
        errs.append(f"{where}: {e.vram_gb_per_gpu:.1f} GB/GPU does not fit {g.sku}")
    if pl.vram_gb_per_gpu + TOL < e.vram_gb_per_gpu:
        errs.append(f"{where}: reserves {pl.vram_gb_per_gpu} GB < need {e.vram_gb_per_gpu}")
    return e


def _check_gpu_sharing(usage: _Usage, option: PlanOption, skus: _Skus,
                       policy: Policy) -> list[str]:
    """Only shareable replicas share a GPU (R17), within its headroom line (R15)."""
    errs = []
    servers = {s.id: s for s in option.servers}
    for (sid, i), loads in usage.gpu_load.items():
        if len(loads) > 1 and not all(w.shareable for w, _ in loads):
            errs.append(f"{sid} GPU {i}: shared by {len(loads)} replicas, not all shareable (R17)")
        gpu = servers[sid].gpu
        g = skus.gpus.get(gpu) if gpu is not None else None
        if g is None:
            continue  # an unknown GPU is reported with its placements
        line = usable(g.vram_gb, policy)
        if sum(v for _, v in loads) > line + TOL:
            errs.append(f"{sid} GPU {i}: {sum(v for _, v in loads):.1f} GB over the "
                        f"headroom line {line:.1f} GB (R15)")
    return errs


def _check_host_ram(usage: _Usage, option: PlanOption, skus: _Skus,
                    policy: Policy) -> list[str]:
    """Each server's reserved host RAM stays under its headroom line (R11, R12, R15)."""
    errs = []
    servers = {s.id: s for s in option.servers}
    for sid, used in usage.ram_used.items():
        s = servers[sid]
        dimm = skus.memory.get(s.memory)
        if dimm is None:
            continue  # an unknown DIMM is reported with its server
        installed = s.dimm_count * dimm.size_gb
        if used > usable(installed, policy) + TOL:
            errs.append(f"{sid}: host RAM {used:.1f} GB over the headroom line of "
                        f"{installed:.0f} GB (R11, R12, R15)")
    return errs


def _check_demand(usage: _Usage, option: PlanOption,
                  wf: WorkloadFile) -> tuple[set[str], list[str]]:
    """Every workload served with ⌈replicas × growth⌉ replicas or listed unserved (R19).

    Returns the workloads served and the violations.
    """
    errs = []
    served = set()
    names = {w.name for w in wf.workloads}
    errs += [f"{name}: listed unserved but not a workload of the file"
             for name in option.unserved if name not in names]
    for w in wf.workloads:
        want = max(1, math.ceil(w.replicas * wf.policy.growth - 1e-9))
        got = usage.replicas.get(w.name, 0)
        if w.name in option.unserved:
            if got:
                errs.append(f"{w.name}: listed unserved but has {got} replicas placed")
        elif got < want or (got > want and planned_target(w, wf.policy) is None):
            errs.append(f"{w.name}: {got} replicas placed, {want} needed (R19)")
        else:
            served.add(w.name)
    return served, errs


def _check_storage(option: PlanOption, wf: WorkloadFile, served: set[str],
                   skus: _Skus) -> list[str]:
    """O4: every server holds the datasets of the workloads it runs that read locally (each
    once), under the headroom line of its installed TB; the pool holds those copies, the
    shared datasets and the checkpoints of every served workload under the line of all its
    TB. The disk figures a server reports are these."""
    by_name = {w.name: w for w in wf.workloads}
    local: dict[str, dict[str, float]] = {}
    for pl in option.placements:
        w = by_name.get(pl.workload)
        if w is not None and w.local_tb > 0:
            local.setdefault(pl.server, {})[w.name] = w.local_tb
    errs = []
    have_tb = 0.0
    used_tb = sum(w.pool_tb for w in wf.workloads if w.name in served)
    for s in option.servers:
        drive = skus.storage.get(s.storage) if s.storage is not None else None
        # An unknown drive is reported with its server.
        tb = s.drive_count * drive.size_tb if s.drive_count and drive is not None else 0.0
        used = sum(local.get(s.id, {}).values())
        have_tb += tb
        used_tb += used
        if used > usable(tb, wf.policy) + TOL:
            errs.append(f"{s.id}: local datasets {used:.2f} TB over the headroom line of its "
                        f"{tb:.2f} TB of drives (O4, R15)")
        if abs(s.disk_tb - tb) > TOL or abs(s.disk_used_tb - used) > TOL:
            errs.append(f"{s.id}: reports {s.disk_used_tb:g} of {s.disk_tb:g} TB used, its drives "
                        f"and replicas give {used:g} of {tb:g} TB")
    if used_tb > usable(have_tb, wf.policy) + TOL:
        errs.append(f"storage {used_tb:.2f} TB over the headroom line of the pool's "
                    f"{have_tb:.2f} TB (O4, R15)")
    return errs


# -- Throughput targets and latency limits (T3, T4) -----------------------------------------
def _timed(w: Workload) -> bool:
    return (w.kind != "preprocess" and (planned_target(w, Policy()) is not None
            or w.max_tpot_ms is not None or w.max_ttft_ms is not None))


def _check_targets(option: PlanOption, wf: WorkloadFile, served: set[str],
                   skus: _Skus) -> list[str]:
    """Per served workload with a target or latency limits, throughput recomputed from the
    estimator replica by replica: each replica meets the latency limits and reports the
    tokens/s it delivers; η Σ tokens/s ≥ target × growth (T3); a training job's replicas
    share one GPU SKU and degree (T4); such a replica has its GPUs to itself."""
    errs: list[str] = []
    servers = {s.id: s for s in option.servers}
    on_gpu: dict[tuple[str, int], int] = {}
    for pl in option.placements:
        for i in pl.gpu_indices:
            on_gpu[(pl.server, i)] = on_gpu.get((pl.server, i), 0) + 1
    for w in wf.workloads:
        if w.name not in served or not _timed(w):
            continue
        mine = [pl for pl in option.placements if pl.workload == w.name]
        total = 0.0
        for pl in mine:
            where = f"{w.name}#{pl.replica}"
            g = skus.gpus.get(pl.gpu) if pl.gpu is not None else None
            s = servers.get(pl.server)
            if g is None or s is None or pl.gpus < 1:
                continue  # reported with its placement
            if any(on_gpu.get((pl.server, i), 0) > 1 for i in pl.gpu_indices):
                errs.append(f"{where}: shares a GPU, but its throughput and latency need the "
                            "GPU to itself (T3)")
            rate = replica_throughput(w, g, pl.gpus, wf.policy, _estimate(w, g, pl.gpus, wf.policy))
            total += rate.tokens_per_s
            errs += [f"{where} on {g.sku} x{pl.gpus}: {miss}" for miss in latency_misses(w, rate)]
            if pl.tokens_per_s is not None and not math.isclose(
                    pl.tokens_per_s, rate.tokens_per_s, rel_tol=1e-6):
                errs.append(f"{where}: reports {pl.tokens_per_s:.1f} tokens/s, the estimator "
                            f"gives {rate.tokens_per_s:.1f}")
        need = planned_target(w, wf.policy)
        if need is None:
            continue
        got = delivered_fraction(w, wf.policy) * total
        if got < need * (1 - 1e-9) - TOL:
            errs.append(f"{w.name}: delivers {got:,.1f} tokens/s < target {need:,.1f} (T3)")
        if w.kind != "inference":
            shapes = {(pl.gpu, pl.gpus) for pl in mine}
            if len(shapes) > 1:
                errs.append(f"{w.name}: training replicas on "
                            f"{', '.join(f'{g} x{d}' for g, d in sorted(shapes, key=str))}; "
                            "data-parallel ranks need one GPU SKU and degree (T4)")
    return errs


# -- Cost ---------------------------------------------------------------------------------
def _check_cost(option: PlanOption, wf: WorkloadFile, skus: _Skus) -> list[str]:
    """The bill of materials lists exactly the servers' parts at catalog prices, and the
    total is their sum (within the budget, if any)."""
    errs = []
    qty: dict[str, int] = {}
    for s in option.servers:
        if s.owned:
            continue  # owned servers are not bought (P4)
        for sku, q in s.parts():
            qty[sku] = qty.get(sku, 0) + q
    lines = {ln.sku: ln for ln in option.lines}
    if set(lines) != set(qty):
        errs.append(f"BOM SKUs {sorted(lines)} differ from the servers' {sorted(qty)}")
    total = 0.0
    for sku, q in qty.items():
        price = skus.price(sku)
        if price is None:
            errs.append(f"BOM line {sku}: not in the catalog, so it has no price")
            continue
        total += q * price
        ln = lines.get(sku)
        if ln and (ln.qty != q or abs(ln.unit_price - price) > TOL):
            errs.append(f"BOM line {sku}: {ln.qty} x {ln.unit_price} != {q} x {price}")
    if abs(total - option.total_cost) > 0.01:
        errs.append(f"total {option.total_cost:.2f} != priced servers {total:.2f}")
    if wf.policy.budget is not None and total > wf.policy.budget + 0.01:
        errs.append(f"total {total:.2f} over the budget {wf.policy.budget:.2f}")
    return errs


def _check_allowed_skus(option: PlanOption, wf: WorkloadFile) -> list[str]:
    """Allowed SKUs: no server buys a SKU of ``policy.exclude``."""
    excluded = set(wf.policy.exclude)
    errs = []
    for s in option.servers:
        if s.owned:
            continue  # owned servers are exempt from exclude (P4)
        for sku, q in ((s.platform, 1), (s.gpu, s.gpu_count), (s.memory, s.dimm_count),
                       (s.storage, s.drive_count)):
            if sku and q and sku in excluded:
                errs.append(f"{s.id}: buys {sku}, which the policy excludes")
    return errs


def _check_gpu_counts(option: PlanOption, skus: _Skus) -> list[str]:
    """O1: every server is bought with one of its platform's GPU counts."""
    errs = []
    for s in option.servers:
        p = skus.platforms.get(s.platform)
        if p is None:
            continue  # reported by _check_servers
        counts = p.allowed_gpu_counts()
        if s.gpu_count not in counts:
            errs.append(f"{s.id}: {s.gpu_count} GPUs, but {s.platform} is sold with "
                        f"{', '.join(map(str, counts))} (O1)")
    return errs


def _replica_cores(w: Workload, gpus: int) -> int:
    """O3: cores one replica needs: data.cpu_cores, else training d (workers + 1),
    inference 2d, preprocess max(1, workers)."""
    if w.data.cpu_cores is not None:
        return w.data.cpu_cores
    if w.kind in ("train", "lora", "qlora"):
        return gpus * (w.data.workers + 1)
    if w.kind == "inference":
        return 2 * gpus
    return max(1, w.data.workers)


def _check_cpu_cores(option: PlanOption, wf: WorkloadFile, skus: _Skus) -> list[str]:
    """O3: a server's cores cover the sum of its replicas' needs (when the catalog has them)."""
    by_name = {w.name: w for w in wf.workloads}
    servers = {s.id: s for s in option.servers}
    used: dict[str, int] = {}
    for pl in option.placements:
        w = by_name.get(pl.workload)
        if w is not None and pl.server in servers:
            used[pl.server] = used.get(pl.server, 0) + _replica_cores(w, pl.gpus)
    errs = []
    for sid, need in used.items():
        p = skus.platforms.get(servers[sid].platform)
        if p is None:
            continue  # reported by _check_servers
        if p.cpu_cores is not None and need > p.cpu_cores:
            errs.append(f"{sid}: its replicas need {need} CPU cores, "
                        f"{p.sku} has {p.cpu_cores} (O3)")
    return errs


# -- What is owned, the site and the cost of owning (P1–P4) ---------------------------------
def _config(s) -> tuple:
    """An owned server's configuration, as the inventory writes it."""
    return (s.platform, s.gpu, s.gpu_count, s.memory, s.dimm_count, s.storage, s.drive_count)


def _check_owned(option: PlanOption, wf: WorkloadFile) -> list[str]:
    """P4: every owned server (used or idle) is one of the inventory, and per configuration
    used + idle = the count owned; idle servers run nothing."""
    owned: dict[tuple, int] = {}
    for inv in wf.inventory:
        key = (inv.platform, inv.gpu, inv.gpu_count, inv.memory, inv.dimm_count, inv.storage,
               inv.drive_count)
        owned[key] = owned.get(key, 0) + inv.count
    listed: dict[tuple, int] = {}
    errs = []
    for s in (*option.servers, *option.idle):
        if not s.owned:
            if s in option.idle:
                errs.append(f"{s.id}: listed idle but not owned")
            continue
        key = _config(s)
        if key not in owned:
            errs.append(f"{s.id}: marked owned, but the inventory has no such server")
        listed[key] = listed.get(key, 0) + 1
    for key, n in owned.items():
        if listed.get(key, 0) != n:
            errs.append(f"owned {key[0]} ({key[1] or 'CPU'} x{key[2]}): {listed.get(key, 0)} "
                        f"used or idle, {n} owned (P4)")
    idle = {s.id for s in option.idle}
    errs += [f"{pl.workload}#{pl.replica}: placed on idle server {pl.server}"
             for pl in option.placements if pl.server in idle]
    return errs


def _power_w(s, skus: _Skus) -> float:
    """P1: platform power_w + gpu_count × GPU power_w (0 for an unknown SKU, reported apart)."""
    p = skus.platforms.get(s.platform)
    g = skus.gpus.get(s.gpu) if s.gpu is not None else None
    return (p.power_w if p else 0.0) + (s.gpu_count * g.power_w if g and s.gpu_count else 0.0)


def _check_site(option: PlanOption, wf: WorkloadFile, skus: _Skus) -> list[str]:
    """P3: no server above one rack's power or height; Σ power ≤ racks × rack_kw and
    Σ U ≤ racks × rack_units over the servers the plan runs."""
    site = wf.site
    if site is None:
        return []
    errs = []
    total_w = 0.0
    units = 0
    for s in option.servers:
        w = _power_w(s, skus)
        p = skus.platforms.get(s.platform)
        u = (p.rack_units or 0) if p else 0
        total_w += w
        units += u
        if w > site.rack_kw * 1000 + TOL:
            errs.append(f"{s.id}: draws {w / 1000:g} kW, over one rack's {site.rack_kw:g} kW (P3)")
        if u > site.rack_units:
            errs.append(f"{s.id}: {u} U, taller than a rack's {site.rack_units} U (P3)")
    if total_w > site.racks * site.rack_kw * 1000 + TOL:
        errs.append(f"servers draw {total_w / 1000:g} kW, over {site.racks} racks x "
                    f"{site.rack_kw:g} kW (P3)")
    if units > site.racks * site.rack_units:
        errs.append(f"servers take {units} U, over {site.racks} racks x {site.rack_units} U (P3)")
    return errs


def _check_own_cost(option: PlanOption, wf: WorkloadFile, skus: _Skus) -> list[str]:
    """P1, P2: the power and TCO the option reports are those of its servers:
    kW = Σ (platform W + k × GPU W) / 1000; TCO = capex (1 + pct·Y) + kW · 8,760 · Y · u ·
    PUE · kwh_price + racks · rack_cost · Y, racks = max(⌈kW / rack_kw⌉, ⌈U / rack_units⌉)."""
    own = option.own
    if own is None:
        return []
    errs = []
    kw = sum(_power_w(s, skus) for s in option.servers) / 1000
    if abs(kw - own.power_kw) > 1e-3:
        errs.append(f"reports {own.power_kw:g} kW, its servers draw {kw:g} kW (P1)")
    tco = wf.policy.tco
    if tco is None:
        return errs
    racks = 0
    if wf.site is not None:
        units = sum((skus.platforms[s.platform].rack_units or 0) for s in option.servers
                    if s.platform in skus.platforms)
        racks = max(math.ceil(kw / wf.site.rack_kw - 1e-9) if kw > 0 else 0,
                    math.ceil(units / wf.site.rack_units - 1e-9) if units > 0 else 0)
    want = (option.total_cost * (1 + (tco.support_pct_per_year or 0.0) * tco.years)
            + kw * 8760 * tco.years * tco.utilisation * tco.pue * tco.kwh_price
            + racks * (tco.rack_cost_per_year or 0.0) * tco.years)
    if own.tco is None or abs(want - own.tco) > 0.05:
        errs.append(f"reports TCO {own.tco}, its servers cost {want:.2f} to own (P2)")
    return errs
