"""Memory and degrees (R8, R10, R11, R12, R15, R17, R19): each replica's degree, GPUs,
VRAM and host RAM; what shares a GPU; each server's host RAM; the replicas each workload
needs.

The replicas pass (``check_r8_r10``) also gathers what the placements take (``Usage``)
and the demand pass the workloads served: the checks after them read those figures.
"""

from __future__ import annotations

import math

from ..estimate.memory import Estimate
from ..estimate.throughput import planned_target
from ..inputs.policy import Policy
from ..inputs.workload import Workload
from ..plan_types import Placement, Server
from ..rules import usable
from .subject import TOL, Skus, Subject, Usage, estimate_once


def usage(sub: Subject) -> Usage:
    """What the placements take (gathered once, by the replicas pass)."""
    return _replicas(sub)[0]


def served(sub: Subject) -> set[str]:
    """The workloads the plan serves in full (gathered once, by the demand pass)."""
    return _demand(sub)[0]


def check_r8_r10(sub: Subject) -> list[str]:
    """Each placement on its own: a known workload on a server of the plan, a valid degree
    (R8, R10), distinct GPUs of the server, and VRAM (R15) and host RAM (R11, R12) at least
    the estimate."""
    return _replicas(sub)[1]


def _replicas(sub: Subject) -> tuple[Usage, list[str]]:
    return sub.once("replicas", _gather_replicas)


def _gather_replicas(sub: Subject) -> tuple[Usage, list[str]]:
    wf, skus, use = sub.wf, sub.skus, Usage()
    errs: list[str] = []
    servers = {s.id: s for s in sub.option.servers}
    by_name = {w.name: w for w in wf.workloads}
    for pl in sub.option.placements:
        w = by_name.get(pl.workload)
        s = servers.get(pl.server)
        where = f"{pl.workload}#{pl.replica}"
        if w is None or s is None:
            errs.append(f"{where}: unknown workload or server {pl.server}")
            continue
        use.replicas[w.name] = use.replicas.get(w.name, 0) + 1
        if w.kind == "preprocess":
            if pl.gpus != 0 or pl.gpu_indices:
                errs.append(f"{where}: preprocess uses no GPU")
            e = estimate_once(w, None, 0, wf.policy)
        else:
            gpu_e = _gpu_replica(pl, w, s, skus, wf.policy, where, errs)
            if gpu_e is None:
                continue
            e = gpu_e
            for i in pl.gpu_indices:
                use.gpu_load.setdefault((s.id, i), []).append((w, pl.vram_gb_per_gpu))
        ram_need = e.host_ram_gb
        if pl.host_ram_gb + TOL < ram_need:
            errs.append(f"{where}: reserves {pl.host_ram_gb} GB RAM < need {ram_need}")
        use.ram_used[s.id] = use.ram_used.get(s.id, 0.0) + max(pl.host_ram_gb, ram_need)
    return use, errs


def _gpu_replica(pl: Placement, w: Workload, s: Server, skus: Skus, policy: Policy,
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
    g = skus.gpu(pl.gpu)
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
    e = estimate_once(w, g, d, policy)
    if not e.fits:
        errs.append(f"{where}: {e.vram_gb_per_gpu:.1f} GB/GPU does not fit {g.sku}")
    if pl.vram_gb_per_gpu + TOL < e.vram_gb_per_gpu:
        errs.append(f"{where}: reserves {pl.vram_gb_per_gpu} GB < need {e.vram_gb_per_gpu}")
    return e


def check_r17(sub: Subject) -> list[str]:
    """Only shareable replicas share a GPU (R17), within its headroom line (R15)."""
    errs = []
    servers = {s.id: s for s in sub.option.servers}
    for (sid, i), loads in usage(sub).gpu_load.items():
        if len(loads) > 1 and not all(w.shareable for w, _ in loads):
            errs.append(f"{sid} GPU {i}: shared by {len(loads)} replicas, not all shareable (R17)")
        g = sub.skus.gpu(servers[sid].gpu)
        if g is None:
            continue  # an unknown GPU is reported with its placements
        line = usable(g.vram_gb, sub.wf.policy)
        if sum(v for _, v in loads) > line + TOL:
            errs.append(f"{sid} GPU {i}: {sum(v for _, v in loads):.1f} GB over the "
                        f"headroom line {line:.1f} GB (R15)")
    return errs


def check_r11_r12(sub: Subject) -> list[str]:
    """Each server's reserved host RAM stays under its headroom line (R11, R12, R15)."""
    errs = []
    servers = {s.id: s for s in sub.option.servers}
    for sid, used in usage(sub).ram_used.items():
        s = servers[sid]
        dimm = sub.skus.memory.get(s.memory)
        if dimm is None:
            continue  # an unknown DIMM is reported with its server
        installed = s.dimm_count * dimm.size_gb
        if used > usable(installed, sub.wf.policy) + TOL:
            errs.append(f"{sid}: host RAM {used:.1f} GB over the headroom line of "
                        f"{installed:.0f} GB (R11, R12, R15)")
    return errs


def check_r19(sub: Subject) -> list[str]:
    """Every workload served with ⌈replicas × growth⌉ replicas or listed unserved (R19);
    with ``Subject.spare`` (U1) at least that many."""
    return _demand(sub)[1]


def _demand(sub: Subject) -> tuple[set[str], list[str]]:
    return sub.once("demand", _gather_demand)


def _gather_demand(sub: Subject) -> tuple[set[str], list[str]]:
    """The workloads served, and the violations of R19."""
    option, wf = sub.option, sub.wf
    placed = usage(sub).replicas
    errs = []
    done = set()
    names = {w.name for w in wf.workloads}
    errs += [f"{name}: listed unserved but not a workload of the file"
             for name in option.unserved if name not in names]
    for w in wf.workloads:
        want = max(1, math.ceil(w.replicas * wf.policy.growth - 1e-9))
        got = placed.get(w.name, 0)
        if w.name in option.unserved:
            if got:
                errs.append(f"{w.name}: listed unserved but has {got} replicas placed")
        elif got < want or (got > want and planned_target(w, wf.policy) is None
                            and not sub.spare):
            errs.append(f"{w.name}: {got} replicas placed, {want} needed (R19)")
        else:
            done.add(w.name)
    return done, errs
