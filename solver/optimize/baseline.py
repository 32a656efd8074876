"""The reference configurations (R20): the rule-of-thumb pool a plan must beat.

The rule of thumb sizes pools by model scale:
    small  (7-13B fine-tune): 2x RTX 4090 or 1x A100 40GB, 128 GB DDR4-3200, 2 TB NVMe
    medium (30-70B):          4x A100 80GB or 8x A100 40GB, 512 GB DDR4-3200, 8 TB NVMe
    large  (100B+):           8x H100 or 16x A100 80GB, 1 TB+ DDR5, 16 TB+ NVMe
A workload file is classed by its largest model; the baseline buys as many whole reference
servers as the mix needs (the same integer program, restricted to that server with every GPU
slot filled), with the reference drives in each and more of them if the data needs it
(at least what the program's drives for those servers cost, so that the reference obeys O4,
storage where the data is read, as the plans it is compared with do).
A reference server holds the reference's GPU count, no more: the program it solves may
install at most that many GPUs per server, and the baseline is priced from the servers that
solve actually bought (a "1x A100 40GB" workstation holds one A100 even though the platform
has two slots).
The cheapest of the scenario's two variants that can run the mix is the baseline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..estimate.replica import estimate
from ..inputs.catalog import Catalog
from ..inputs.policy import PARALLEL_DEGREES, Policy
from ..inputs.workload import WorkloadFile
from ..plan_types import Server
from ..result import Baseline, SolveStatus
from ..rules.fabric import fabric_lines, fabric_of
from ..rules.storage import stored_tb
from .budget import Budget
from .candidates import Candidates, ServerType, type_accepts
from .outcome import Outcome
from .program import build, require_reference
from .replicas import ReplicaOption, policy_degrees
from .solve import solve


@dataclass(frozen=True)
class Reference:
    """One reference server of the seed, in catalog SKUs."""

    label: str
    platform: str
    gpu: str
    gpus: int
    memory_type: str
    ram_gb: float
    storage_tb: float


SCENARIOS: dict[str, tuple[Reference, ...]] = {
    "small": (
        Reference("2x RTX 4090, 128 GB DDR4-3200, 2 TB NVMe", "ws-2gpu-ddr4", "rtx-4090", 2,
                  "ddr4", 128, 2),
        Reference("1x A100 40GB, 128 GB DDR4-3200, 2 TB NVMe", "ws-2gpu-ddr4", "a100-40g", 1,
                  "ddr4", 128, 2),
    ),
    "medium": (
        Reference("4x A100 80GB, 512 GB DDR4-3200, 8 TB NVMe", "srv-4gpu-ddr4", "a100-80g-pcie",
                  4, "ddr4", 512, 8),
        Reference("8x A100 40GB, 512 GB RAM, 8 TB NVMe", "srv-8gpu-ddr5", "a100-40g", 8,
                  "ddr5", 512, 8),
    ),
    "large": (
        Reference("8x H100, 1 TB DDR5, 16 TB NVMe", "hgx-h100-8gpu-ddr5", "h100-sxm", 8, "ddr5",
                  1024, 16),
        Reference("16x A100 80GB (2 servers), 1 TB RAM each, 16 TB NVMe", "hgx-a100-8gpu-ddr4",
                  "a100-80g-sxm", 8, "ddr4", 1024, 16),
    ),
}


def scenario_of(wf: WorkloadFile) -> str | None:
    """small / medium / large by the largest model in the mix (None without GPU work)."""
    sizes = [w.arch.params_b for w in wf.workloads if w.kind != "preprocess"]
    if not sizes:
        return None
    biggest = max(sizes)
    return "small" if biggest < 20 else "medium" if biggest < 100 else "large"


def _reference_types(ref: Reference,
                     cand: Candidates) -> tuple[list[ServerType], list[ServerType]]:
    """Reference servers (its platform and GPU, at least its RAM) and CPU-only nodes.

    The reference configurations size GPU servers; a preprocessing job too big for them runs on
    CPU-only nodes, as a heterogeneous pool (R16) would.
    """
    gpu_types = [t for t in cand.types
                 if t.platform.sku == ref.platform and t.gpu is not None and t.gpu.sku == ref.gpu
                 and t.ram_gb >= ref.ram_gb]
    cpu_types = [t for t in cand.types if t.platform.gpu_slots == 0]
    return gpu_types, cpu_types


def _reference_runs(ref: Reference, t: ServerType, o: ReplicaOption, policy: Policy) -> bool:
    """Option ``o`` runs on reference type ``t``: it fits, within the reference's GPU count."""
    if not type_accepts(t, o, policy):
        return False
    return t.gpu is None or o.gpu is None or o.degree <= ref.gpus


def _drives(tb: float, catalog: Catalog, bays: int) -> tuple[str, int] | None:
    """Cheapest single drive SKU and count reaching ``tb`` within ``bays``."""
    best: tuple[str, int, float] | None = None
    for s in catalog.storage:
        count = max(1, math.ceil(tb / s.size_tb - 1e-9))
        if count <= bays and (best is None or count * s.price < best[2]):
            best = (s.sku, count, count * s.price)
    return best[:2] if best is not None else None


def baseline_cost(wf: WorkloadFile, catalog: Catalog, cand: Candidates, solver: str,
                  clock: Budget | None = None) -> Baseline | None:
    """The cheapest valid reference configuration for the mix, or None if none applies.

    ``clock`` is the run's time budget: each variant's solve gets half of what is left (the
    second all of it), and a variant is not started once it is spent.
    """
    clock = clock or Budget()
    scenario = scenario_of(wf)
    if scenario is None:
        return None
    served = wf.model_copy(update={"policy": wf.policy.model_copy(update={"budget": None})})
    best: tuple[float, Baseline] | None = None
    for i, ref in enumerate(SCENARIOS[scenario]):
        if i and not clock.can_start("the second reference configuration"):
            break
        priced = _price_reference(ref, scenario, served, catalog, cand, solver, clock,
                                  0.5 if i == 0 else 1.0)
        # Compared unrounded, as the cost each reference really has.
        if priced is not None and (best is None or priced[0] < best[1].total_cost):
            best = priced
    return best[1] if best is not None else None


def _price_reference(ref: Reference, scenario: str, wf: WorkloadFile, catalog: Catalog,
                     cand: Candidates, solver: str, clock: Budget,
                     share: float) -> tuple[float, Baseline] | None:
    """One reference server bought for the whole mix (``wf`` without a budget): its cost
    and what it buys, or None when it cannot run the mix."""
    try:
        platform = catalog.platform(ref.platform)
        catalog.gpu(ref.gpu)
    except KeyError:
        return None  # a custom catalog without the reference SKUs
    gpu_types, cpu_types = _reference_types(ref, cand)
    allowed = gpu_types + cpu_types
    runnable = all(
        any(_reference_runs(ref, t, o, wf.policy) for o in cand.options[w.name] for t in allowed)
        for w in wf.workloads
    )
    drives = _drives(ref.storage_tb, catalog, platform.drive_bays)
    if not gpu_types or not runnable or drives is None:
        return None
    m = build(wf, catalog, cand, None)
    require_reference(m, {t.key for t in allowed}, {t.key: ref.gpus for t in gpu_types})
    seconds, ticks = clock.limits(share)
    out = solve(m, solver, seconds, work_ticks=ticks)
    clock.spend(out.ticks, out.clock_stopped, out.seconds)
    if out.status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        return None
    servers = sum(out.n[t.key] for t in gpu_types)
    # Priced from the servers this solve bought: whole reference servers, each with the
    # reference's GPU count (the program installed at most that many on each).
    cost = sum(out.n[t.key] * t.server_price(catalog, ref.gpus) for t in gpu_types) + sum(
        out.n[t.key] * t.server_price(catalog) for t in cpu_types
    )
    drive_cost = _reference_drives_cost(drives, servers, platform.drive_bays, cpu_types, out,
                                        wf, catalog)
    if drive_cost is None:
        return None
    # O4: local copies on every server that reads them may need more than the reference's.
    cost += max(drive_cost, sum(count * c * catalog.drive(sku).price
                                for (_, sku, c), count in out.z.items()))
    cpu_nodes = sum(out.n[t.key] for t in cpu_types)
    cost += _fabric_cost([t.platform.sku for t in (*gpu_types, *cpu_types)
                          for _ in range(out.n[t.key])], catalog)
    label = f"R20 {scenario}: {ref.label}" + (f" + {cpu_nodes} CPU node(s)" if cpu_nodes else "")
    return cost, Baseline(scenario=scenario, name=label, servers=servers + cpu_nodes,
                          gpus=servers * ref.gpus, gpu=ref.gpu, total_cost=round(cost, 2))


def _fabric_cost(platforms: list[str], catalog: Catalog) -> float:
    """N3: what the reference's servers' fabric costs, as a plan's is priced (its servers'
    included NICs only)."""
    servers = [Server(f"b{i}", sku, None, 0, "", 0, None, 0) for i, sku in enumerate(platforms)]
    return sum(ln.extended for ln in fabric_lines(fabric_of(servers, catalog), catalog))


def _reference_drives_cost(drives: tuple[str, int], servers: int, bays_per_server: int,
                           cpu_types: list[ServerType], out: Outcome, wf: WorkloadFile,
                           catalog: Catalog) -> float | None:
    """The reference drives in each reference server, more if the data needs them; None
    when they do not fit the bays of the servers bought."""
    sku, per_server = drives
    size = catalog.drive(sku).size_tb
    need_tb = stored_tb(wf.workloads)
    total_drives = max(per_server * servers, math.ceil(need_tb / size - 1e-9))
    bays = servers * bays_per_server + sum(out.n[t.key] * t.platform.drive_bays for t in cpu_types)
    if total_drives > bays:
        return None
    return total_drives * catalog.drive(sku).price


def why_no_reference(wf: WorkloadFile, catalog: Catalog, cand: Candidates) -> list[str]:
    """For each of the scenario's reference servers, the workloads that cannot run on it."""
    scenario = scenario_of(wf)
    if scenario is None:
        return []
    policy = wf.policy
    reasons = []
    refs = SCENARIOS[scenario]
    platforms = {p.sku for p in catalog.platforms}
    gpus = {g.sku for g in catalog.gpus}
    lacking = [ref for ref in refs if ref.platform not in platforms or ref.gpu not in gpus]
    if len(lacking) == len(refs):
        # A catalog of its own SKUs (a vendor's quote): one line, not one paragraph a server.
        return [f"R20 {scenario}: not priced, the catalog has none of its reference servers ("
                + ", ".join(f"{ref.platform} with {ref.gpu}" for ref in refs) + ")"]
    for ref in refs:
        if ref in lacking:
            reasons.append(f"R20 {scenario} ({ref.label}): the catalog lacks {ref.platform} "
                           f"or {ref.gpu}")
            continue
        platform, gpu = catalog.platform(ref.platform), catalog.gpu(ref.gpu)
        gpu_types, cpu_types = _reference_types(ref, cand)
        allowed = gpu_types + cpu_types
        blocked = []
        for w in wf.workloads:
            if any(_reference_runs(ref, t, o, policy)
                   for o in cand.options[w.name] for t in allowed):
                continue
            if w.kind == "preprocess":
                blocked.append(f"{w.name} needs more host RAM than the reference server or "
                               "a CPU-only node holds")
                continue
            fitting = [d for d in PARALLEL_DEGREES if d <= min(platform.gpu_slots, ref.gpus)
                       and estimate(w, gpu, d, policy).fits]
            if not fitting:
                blocked.append(f"{w.name} does not fit in {ref.gpus} x {gpu.sku}")
            elif not set(fitting) & set(policy_degrees(gpu, policy)):
                blocked.append(f"{w.name} needs {fitting[0]} x {gpu.sku}, more than the "
                               "policy's parallel-degree limits allow on it")
            else:
                blocked.append(f"{w.name} needs more host RAM than the reference server")
        if blocked:
            reasons.append(f"R20 {scenario} ({ref.label}) cannot run this mix: "
                           + "; ".join(blocked))
    return reasons
