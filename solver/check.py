"""The plan checker: verifies one plan against the SPEC's rules alone.

It knows the catalog, the workload file and the estimator, never the integer program, so a
modelling bug cannot hide behind itself. ``check_plan`` returns every violation found;
the pipeline refuses to report a plan with any.
"""

from __future__ import annotations

import math

from .estimate.memory import estimate
from .inputs.catalog import Catalog
from .inputs.workload import WorkloadFile
from .optimize.plan import PlanOption

TOL = 1e-6


def _check_servers(option: PlanOption, catalog: Catalog) -> list[str]:
    errs = []
    skus = {
        "platform": {p.sku for p in catalog.platforms},
        "gpu": {g.sku for g in catalog.gpus},
        "memory": {m.sku for m in catalog.memory},
        "storage": {s.sku for s in catalog.storage},
    }
    ids = [s.id for s in option.servers]
    if len(set(ids)) != len(ids):
        errs.append("server ids repeat")
    for s in option.servers:
        if s.platform not in skus["platform"]:
            errs.append(f"{s.id}: unknown platform {s.platform}")
            continue
        p = catalog.platform(s.platform)
        if s.gpu_count < 0 or s.dimm_count < 0 or s.drive_count < 0:
            errs.append(f"{s.id}: negative count")
        if s.gpu_count:
            if s.gpu not in skus["gpu"]:
                errs.append(f"{s.id}: unknown GPU {s.gpu}")
            elif not p.takes(catalog.gpu(s.gpu)):
                errs.append(f"{s.id}: {s.gpu} form factor not taken by {p.sku}")
            if s.gpu_count > p.gpu_slots:
                errs.append(f"{s.id}: {s.gpu_count} GPUs > {p.gpu_slots} slots")
        if s.memory not in skus["memory"]:
            errs.append(f"{s.id}: unknown memory {s.memory}")
        elif catalog.dimm(s.memory).type != p.memory_type:
            errs.append(f"{s.id}: {s.memory} is not {p.memory_type}")
        if s.dimm_count <= 0 or s.dimm_count % p.memory_channels or s.dimm_count > p.dimm_slots:
            errs.append(
                f"{s.id}: {s.dimm_count} DIMMs must be a positive multiple of "
                f"{p.memory_channels} channels within {p.dimm_slots} slots (R14)"
            )
        if s.drive_count:
            if s.storage not in skus["storage"]:
                errs.append(f"{s.id}: unknown storage {s.storage}")
            if s.drive_count > p.drive_bays:
                errs.append(f"{s.id}: {s.drive_count} drives > {p.drive_bays} bays")
    return errs


def _check_placements(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    errs = []
    policy = wf.policy
    servers = {s.id: s for s in option.servers}
    by_name = {w.name: w for w in wf.workloads}
    counts: dict[str, int] = {}
    gpu_load: dict[tuple[str, int], list] = {}
    ram_used: dict[str, float] = {}
    for pl in option.placements:
        w = by_name.get(pl.workload)
        s = servers.get(pl.server)
        where = f"{pl.workload}#{pl.replica}"
        if w is None or s is None:
            errs.append(f"{where}: unknown workload or server {pl.server}")
            continue
        counts[w.name] = counts.get(w.name, 0) + 1
        if w.kind == "preprocess":
            if pl.gpus != 0 or pl.gpu_indices:
                errs.append(f"{where}: preprocess uses no GPU")
            e = estimate(w, None, 0, policy)
        else:
            d = pl.gpus
            if d < 1 or d & (d - 1) or d > policy.max_parallel_degree:
                errs.append(f"{where}: degree {d} not a power of two <= {policy.max_parallel_degree}")
                continue
            if pl.gpu != s.gpu:
                errs.append(f"{where}: placed on {pl.gpu} but {s.id} holds {s.gpu}")
                continue
            g = catalog.gpu(pl.gpu)
            if d > g.nvlink_gpus and d > policy.max_pcie_parallel_degree:
                errs.append(f"{where}: degree {d} beyond NVLink needs <= "
                            f"{policy.max_pcie_parallel_degree} (R10)")
            if len(pl.gpu_indices) != d or len(set(pl.gpu_indices)) != d or any(
                i < 0 or i >= s.gpu_count for i in pl.gpu_indices
            ):
                errs.append(f"{where}: needs {d} distinct GPUs of {s.id} ({s.gpu_count} GPUs)")
            e = estimate(w, g, d, policy)
            if not e.fits:
                errs.append(f"{where}: {e.vram_gb_per_gpu:.1f} GB/GPU does not fit {g.sku}")
            if pl.vram_gb_per_gpu + TOL < e.vram_gb_per_gpu:
                errs.append(f"{where}: reserves {pl.vram_gb_per_gpu} GB < need {e.vram_gb_per_gpu}")
            for i in pl.gpu_indices:
                gpu_load.setdefault((s.id, i), []).append((w, pl.vram_gb_per_gpu))
        ram_need = e.host_ram_gb
        if pl.host_ram_gb + TOL < ram_need:
            errs.append(f"{where}: reserves {pl.host_ram_gb} GB RAM < need {ram_need}")
        ram_used[s.id] = ram_used.get(s.id, 0.0) + max(pl.host_ram_gb, ram_need)

    for (sid, i), loads in gpu_load.items():
        g = catalog.gpu(servers[sid].gpu)
        line = g.vram_gb * (1 - policy.headroom)
        if len(loads) > 1 and not all(w.shareable for w, _ in loads):
            errs.append(f"{sid} GPU {i}: shared by {len(loads)} replicas, not all shareable (R17)")
        if sum(v for _, v in loads) > line + TOL:
            errs.append(f"{sid} GPU {i}: {sum(v for _, v in loads):.1f} GB over the "
                        f"headroom line {line:.1f} GB (R15)")
    for sid, used in ram_used.items():
        s = servers[sid]
        installed = s.dimm_count * catalog.dimm(s.memory).size_gb
        if used > installed * (1 - policy.headroom) + TOL:
            errs.append(f"{sid}: host RAM {used:.1f} GB over the headroom line of "
                        f"{installed:.0f} GB (R11, R12, R15)")

    served = set()
    for w in wf.workloads:
        want = max(1, math.ceil(w.replicas * policy.growth - 1e-9))
        got = counts.get(w.name, 0)
        if w.name in option.unserved:
            if got:
                errs.append(f"{w.name}: listed unserved but has {got} replicas placed")
        elif got != want:
            errs.append(f"{w.name}: {got} replicas placed, {want} needed (R19)")
        else:
            served.add(w.name)
    need_tb = sum(w.storage_tb for w in wf.workloads if w.name in served)
    have_tb = sum(
        s.drive_count * catalog.drive(s.storage).size_tb for s in option.servers if s.drive_count
    )
    if have_tb + TOL < need_tb:
        errs.append(f"storage {have_tb:.2f} TB < {need_tb:.2f} TB needed")
    return errs


def _check_cost(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    errs = []
    qty: dict[str, int] = {}
    for s in option.servers:
        for sku, q in ((s.platform, 1), (s.gpu, s.gpu_count), (s.memory, s.dimm_count),
                       (s.storage, s.drive_count)):
            if sku and q:
                qty[sku] = qty.get(sku, 0) + q
    lines = {ln.sku: ln for ln in option.lines}
    if set(lines) != set(qty):
        errs.append(f"BOM SKUs {sorted(lines)} differ from the servers' {sorted(qty)}")
    for sku, q in qty.items():
        ln = lines.get(sku)
        if ln and (ln.qty != q or abs(ln.unit_price - catalog.price_of(sku)) > TOL):
            errs.append(f"BOM line {sku}: {ln.qty} x {ln.unit_price} != {q} x {catalog.price_of(sku)}")
    total = sum(q * catalog.price_of(sku) for sku, q in qty.items())
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
        for sku, q in ((s.platform, 1), (s.gpu, s.gpu_count), (s.memory, s.dimm_count),
                       (s.storage, s.drive_count)):
            if sku and q and sku in excluded:
                errs.append(f"{s.id}: buys {sku}, which the policy excludes")
    return errs


def _check_gpu_counts(option: PlanOption, catalog: Catalog) -> list[str]:
    """O1: every server is bought with one of its platform's GPU counts."""
    errs = []
    for s in option.servers:
        try:
            counts = catalog.platform(s.platform).allowed_gpu_counts()
        except KeyError:
            continue  # reported by _check_servers
        if s.gpu_count not in counts:
            errs.append(f"{s.id}: {s.gpu_count} GPUs, but {s.platform} is sold with "
                        f"{', '.join(map(str, counts))} (O1)")
    return errs


def _replica_cores(w, gpus: int) -> int:
    """O3: cores one replica needs: data.cpu_cores, else training d (workers + 1),
    inference 2d, preprocess max(1, workers)."""
    if w.data.cpu_cores is not None:
        return w.data.cpu_cores
    if w.kind in ("train", "lora", "qlora"):
        return gpus * (w.data.workers + 1)
    if w.kind == "inference":
        return 2 * gpus
    return max(1, w.data.workers)


def _check_cpu_cores(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
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
        try:
            cores = catalog.platform(servers[sid].platform).cpu_cores
        except KeyError:
            continue  # reported by _check_servers
        if cores is not None and need > cores:
            errs.append(f"{sid}: its replicas need {need} CPU cores, "
                        f"{servers[sid].platform} has {cores} (O3)")
    return errs


def check_plan(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """Every way ``option`` breaks the SPEC's plan rules (empty when it is valid)."""
    return (
        _check_servers(option, catalog)
        + _check_placements(option, wf, catalog)
        + _check_cost(option, wf, catalog)
        + _check_allowed_skus(option, wf)
        + _check_gpu_counts(option, catalog)
        + _check_cpu_cores(option, wf, catalog)
    )
