"""Chargeback (R17) as tidy tables: each team's (or workload's) share of the GPUs, host
RAM, storage and network an option buys, idle capacity shared by the teams on its server."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pandas as pd

from ..horizon.runs import timeframe
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..plan_types import PlanOption
from ..result import PlanResult
from .network import network_by_server
from .tables import KINDS

UNASSIGNED = "(idle, no team)"


def team_of(wf: WorkloadFile) -> dict[str, str]:
    """Each workload's team, by workload name."""
    return {w.name: w.team for w in wf.workloads}


def _split(cost: float, weights: dict[str, float], out: dict[str, float]) -> bool:
    """Add ``cost`` to ``out`` pro rata to ``weights``; False when all weights are zero."""
    total = sum(weights.values())
    if total <= 0:
        return False
    for team, w in weights.items():
        out[team] += cost * w / total
    return True


def _gpu_units(opt: PlanOption, team: dict[str, str], hours: float = 0.0
               ) -> dict[str, dict[str, float]]:
    """Per server, GPU-equivalents each team uses; sharers of one GPU split it by VRAM (R17).
    Over a horizon of ``hours``, a server bought for runs counts each run's GPUs for the
    share of the horizon it runs (its team's average GPUs there)."""
    per_gpu: dict[tuple[str, int], list] = defaultdict(list)
    units: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for p in opt.placements:
        t = team.get(p.workload, UNASSIGNED)
        if p.gpus <= 0:
            continue
        if p.gpu_indices:
            for i in p.gpu_indices:
                per_gpu[(p.server, i)].append((t, p.vram_gb_per_gpu))
        else:
            units[p.server][t] += p.gpus
    for (server, _), users in per_gpu.items():
        vram = sum(v for _, v in users)
        for t, v in users:
            units[server][t] += v / vram if vram > 0 else 1 / len(users)
    for r in opt.runs:  # over a horizon: a run's GPUs on a run server, averaged over it
        for server in r.servers or () if hours else ():
            units[server][team.get(r.workload, UNASSIGNED)] += (
                r.gpus * (r.end_h - r.begin_h) / hours)
    return units


def team_costs(opt: PlanOption, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """Charge what one option buys to teams by the GPUs, RAM and storage their jobs use (R17).

    Only servers bought are charged: owned servers (P4) cost nothing, and what each team runs
    on them is shown apart (``owned_gpu_equivalents``, ``owned_host_ram_gb``), so a team
    running only on owned servers is charged nothing. Per bought server, GPU and platform
    cost follow GPU-equivalents used (CPU-only platforms follow host RAM), DIMM cost follows
    host RAM; the network (N3) like platforms: a server's NICs added and its ports' share
    of its fabrics (``network.network_by_server``) split as its platform is, so a server
    nobody uses charges it to the idle row (no fair share). The drives bought follow the dataset + checkpoints TB of the workloads with a
    replica (or, over a horizon, a run) on a bought server. A server bought for runs follows
    the GPU-hours each team's runs take on it. Idle capacity on a server is shared pro rata
    by the teams on it, so the team costs add up to the option's purchase (its bill of
    materials); rent is not part of it.
    """
    team = team_of(wf)
    owned = {s.id for s in opt.servers if s.owned}
    frame = timeframe(wf)
    gpu_units = _gpu_units(opt, team, frame.hours if frame is not None else 0.0)
    ram: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for p in opt.placements:
        ram[p.server][team.get(p.workload, UNASSIGNED)] += p.host_ram_gb
    cost: dict[str, defaultdict[str, float]] = {k: defaultdict(float) for k in KINDS}
    net = network_by_server(opt.servers, opt.fabric, catalog)
    for s in opt.servers:
        if s.owned:
            continue
        g, r = gpu_units.get(s.id, {}), ram.get(s.id, {})
        first, second = (g, r) if s.gpu_count else (r, g)
        charges = {
            "platform": catalog.price_of(s.platform),
            "gpu": catalog.price_of(s.gpu) * s.gpu_count if s.gpu else 0.0,
            "memory": catalog.price_of(s.memory) * s.dimm_count,
            "network": net.get(s.id, 0.0),
        }
        for k, amount in charges.items():
            w1, w2 = (r, g) if k == "memory" else (first, second)
            if amount and not (_split(amount, w1, cost[k]) or _split(amount, w2, cost[k])):
                cost[k][UNASSIGNED] += amount
    on_bought = {p.workload for p in opt.placements if p.server not in owned}
    on_bought |= {r.workload for r in opt.runs if r.servers}
    tb: defaultdict[str, float] = defaultdict(float)
    for w in wf.workloads:
        if w.name in on_bought:
            tb[w.team] += w.storage_tb
    storage = sum(s.drive_count * catalog.price_of(s.storage)
                  for s in opt.servers if s.storage and not s.owned)
    spent = {t: sum(cost[k][t] for k in KINDS) for t in set().union(*cost.values())}
    if storage and not (
        _split(storage, tb, cost["storage"]) or _split(storage, spent, cost["storage"])
    ):
        cost["storage"][UNASSIGNED] += storage
    gpus = _per_team(gpu_units, lambda sid: sid not in owned)
    ram_gb = _per_team(ram, lambda sid: sid not in owned)
    owned_gpus = _per_team(gpu_units, lambda sid: sid in owned)
    owned_ram = _per_team(ram, lambda sid: sid in owned)
    teams = sorted(set().union(*cost.values(), gpus, ram_gb, owned_gpus, owned_ram),
                   key=lambda t: (t == UNASSIGNED, t))
    kind_total = {k: sum(cost[k].values()) for k in KINDS}
    rows = []
    for t in teams:
        row: dict[str, Any] = {
            "option": f"Option {opt.rank}",
            "team": t,
            "workloads": len({p.workload for p in opt.placements if team.get(p.workload) == t}),
            "gpu_equivalents": gpus.get(t, 0.0),
            "host_ram_gb": ram_gb.get(t, 0.0),
            "storage_tb": tb.get(t, 0.0),
            "owned_gpu_equivalents": owned_gpus.get(t, 0.0),
            "owned_host_ram_gb": owned_ram.get(t, 0.0),
        }
        for k in KINDS:
            row[f"{k}_share"] = cost[k].get(t, 0.0) / kind_total[k] if kind_total[k] else 0.0
        for k in KINDS:
            row[f"{k}_cost"] = cost[k].get(t, 0.0)
        row["total_cost"] = sum(row[f"{k}_cost"] for k in KINDS)
        rows.append(row)
    return pd.DataFrame(rows)


def _per_team(per_server: dict[str, dict[str, float]], keep: Callable[[str], bool]
              ) -> defaultdict[str, float]:
    """Σ over the servers ``keep`` selects of each team's figure on that server."""
    out: defaultdict[str, float] = defaultdict(float)
    for sid, by_team in per_server.items():
        if keep(sid):
            for t, v in by_team.items():
                out[t] += v
    return out


def teams_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """``team_costs`` for every option, stacked (an ``option`` column tells them apart); the
    owned-server columns only when some option runs on owned servers."""
    frames = [team_costs(opt, wf, catalog) for opt in result.options]
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    if not any(s.owned for opt in result.options for s in opt.servers):
        df = df.drop(columns=["owned_gpu_equivalents", "owned_host_ram_gb"])
    return df


def workload_costs(opt: PlanOption, wf: WorkloadFile, catalog: Catalog) -> dict[str, float]:
    """One option's cost charged to each workload, by the same rule as ``team_costs``
    (every workload its own team); idle capacity is charged to the idle row."""
    own = wf.model_copy(update={"workloads": [w.model_copy(update={"team": w.name})
                                              for w in wf.workloads]})
    df = team_costs(opt, own, catalog)
    return dict(zip(df["team"], df["total_cost"], strict=True)) if not df.empty else {}
