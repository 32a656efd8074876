"""Where work runs, as tidy tables: every replica's server, GPUs and memory (Placement),
the estimator's VRAM breakdown (Memory) and every workload as asked and planned
(Demand)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict

import pandas as pd

from .. import rules
from ..estimate.replica import estimate
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import PlanResult
from ..rules.cores import replica_cores
from .chargeback import team_of, workload_costs
from .measured_cells import band_columns, measured_columns


def placement_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """Every replica of every option: server, GPUs, degree, batch, VRAM vs usable, host RAM,
    cores (O3) and disk (O4: its server's local datasets vs installed TB)."""
    team = team_of(wf)
    kind = {w.name: w.kind for w in wf.workloads}
    by_name = {w.name: w for w in wf.workloads}
    rows = []
    for opt in result.options:
        platform = {s.id: s.platform for s in opt.servers}
        disk = {s.id: (s.disk_used_tb, s.disk_tb) for s in opt.servers}  # O4
        cores = {}  # O3: cores each replica needs, and their sum per server
        for p in opt.placements:
            w = by_name.get(p.workload)
            cores[(p.workload, p.replica)] = replica_cores(w, p.gpus) if w else 0
        server_cores: dict[str, int] = defaultdict(int)
        for p in opt.placements:
            server_cores[p.server] += cores[(p.workload, p.replica)]
        for p in opt.placements:
            usable = rules.usable(catalog.gpu(p.gpu).vram_gb, wf.policy) if p.gpu else None
            rows.append(
                {
                    "option": f"Option {opt.rank}",
                    "workload": p.workload,
                    "team": team.get(p.workload, ""),
                    "kind": kind.get(p.workload, ""),
                    "replica": p.replica,
                    "server": p.server,
                    "platform": platform.get(p.server, ""),
                    "gpu": p.gpu or "(none, CPU)",
                    "gpu_indices": ",".join(str(i) for i in p.gpu_indices),
                    "degree": p.gpus,
                    "micro_batch": p.micro_batch,
                    "grad_accum_steps": p.grad_accum_steps,
                    **_serving(by_name.get(p.workload), p, catalog, wf),
                    "vram_gb_per_gpu": p.vram_gb_per_gpu,
                    "usable_vram_gb": usable,
                    "vram_fill": p.vram_gb_per_gpu / usable if usable else None,
                    "host_ram_gb": p.host_ram_gb,
                    "cpu_cores": cores[(p.workload, p.replica)],
                    "server_cores_used": server_cores[p.server],
                    "server_cpu_cores": catalog.platform(platform[p.server]).cpu_cores
                    if p.server in platform else None,
                    "server_disk_used_tb": disk[p.server][0] if p.server in disk else None,
                    "server_disk_tb": disk[p.server][1] if p.server in disk else None,
                }
            )
    return pd.DataFrame(rows)


def _serving(w, p, catalog: Catalog, wf: WorkloadFile) -> dict[str, float | int | None]:
    """An inference replica's serving batch (what ``batch: auto`` chose on its GPU), time per
    output token and to the first token (ms); None for other kinds."""
    if w is None or w.kind != "inference" or p.gpu is None:
        return {"serving_batch": None, "tpot_ms": None, "ttft_ms": None}
    return {"serving_batch": estimate(w, catalog.gpu(p.gpu), p.gpus, wf.policy).batch,
            "tpot_ms": p.tpot_ms, "ttft_ms": p.ttft_ms}


def memory_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """The estimator's VRAM breakdown per workload for the GPU and degree it was placed on;
    the workload's measurements of that cell beside it where the file gives any (E2:
    ``measured_columns``) and the error band of its regime (E3: ``band_columns``)."""
    by_name = {w.name: w for w in wf.workloads}
    measured = any(w.measurements for w in wf.workloads)
    seen = set()
    rows = []
    for opt in result.options:
        for p in opt.placements:
            key = (opt.rank, p.workload, p.gpu, p.gpus)
            w = by_name.get(p.workload)
            if key in seen or w is None:
                continue
            seen.add(key)
            gpu = catalog.gpu(p.gpu) if p.gpu else None
            est = estimate(w, gpu, p.gpus if gpu else 0, wf.policy)
            parts = {k: v for k, v in asdict(est.breakdown).items()}
            rows.append(
                {
                    "option": f"Option {opt.rank}",
                    "workload": w.name,
                    "kind": w.kind,
                    "gpu": p.gpu or "(none, CPU)",
                    "degree": est.degree,
                    "micro_batch": est.micro_batch,
                    "grad_accum_steps": est.grad_accum_steps,
                    **parts,
                    "total_gb_per_gpu": est.vram_gb_per_gpu,
                    "usable_vram_gb": est.usable_vram_gb,
                    "fits": "yes" if est.fits else "no",
                    "host_ram_gb": est.host_ram_gb,
                    **(measured_columns(w, gpu, est, wf) if measured else {}),
                    **band_columns(w.kind, est.degree),
                }
            )
    return pd.DataFrame(rows)


def demand_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """Every workload as asked and as option 1 plans it: replicas asked and planned after
    growth (⌈replicas × growth⌉), replicas option 1 places (more where a throughput target
    needs them, none when a budget leaves the workload out), priority, team, where it
    runs, memory per replica (GB) and the cost charged to it."""
    opt = result.options[0] if result.options else None
    costs = workload_costs(opt, wf, catalog) if opt is not None else {}
    rows = []
    for w in wf.workloads:
        mine = [p for p in opt.placements if p.workload == w.name] if opt else []
        first = mine[0] if mine else None
        rows.append({
            "workload": w.name,
            "team": w.team,
            "kind": w.kind,
            "model": w.arch.name if w.kind != "preprocess" else "",
            "priority": w.priority,
            "replicas_asked": w.replicas,
            "replicas_planned": wf.planned_replicas(w),
            "replicas_placed": len(mine),
            "served": "yes" if mine else "no (left out under the budget)",
            "gpu": (first.gpu or "CPU only") if first else "",
            "gpus_per_replica": first.gpus if first else None,
            "vram_per_replica_gb": (first.vram_gb_per_gpu * first.gpus) if first else None,
            "host_ram_per_replica_gb": first.host_ram_gb if first else None,
            "charged_cost": costs.get(w.name, 0.0) if opt else None,
        })
    return pd.DataFrame(rows)
