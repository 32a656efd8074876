"""The concrete schedule of a solved run program (H3): each run's window, replicas and the
ids of the run servers it holds, and the run servers themselves.

Server ids go to runs per configuration in order of their begin times: a run takes any of
its configuration's servers free at its begin (a server is free once the run on it has
ended). The program's rows (servers per period ≤ bought) make this always succeed: every run
active at an instant occupies that instant's period.
"""

from __future__ import annotations

from ...errors import CheckError
from ...plan_types import Server
from ...rules.fabric import RUN_POD
from ...run_types import Rented, RunEntry
from .fleet import RunServer
from .options import PoolWay, RentWay

RUN_SERVER_PREFIX = "r"


def run_servers(configs: tuple[RunServer, ...], counts: list[int]
                ) -> tuple[list[Server], dict[int, list[str]]]:
    """The run servers bought (ids r1, r2, ... in configuration order) and, per
    configuration, their ids. Their ``disk_used_tb`` is 0: what they store changes with
    the runs on them (the checker's H4 measures it at every instant)."""
    servers: list[Server] = []
    ids: dict[int, list[str]] = {}
    for c, (cfg, n) in enumerate(zip(configs, counts)):
        for _ in range(n):
            sid = f"{RUN_SERVER_PREFIX}{len(servers) + 1}"
            ids.setdefault(c, []).append(sid)
            servers.append(Server(sid, cfg.platform, cfg.gpu, cfg.gpu_count, cfg.memory,
                                  cfg.dimm_count, cfg.storage, cfg.drive_count,
                                  disk_tb=cfg.disk_tb, nics=cfg.nics, pod=RUN_POD))
    return servers, ids


def entries(chosen: list[PoolWay | RentWay], ids: dict[int, list[str]]) -> list[RunEntry]:
    """Every chosen way as a schedule entry, servers assigned (by begin time per
    configuration), sorted by workload and run."""
    free_at: dict[str, float] = {sid: 0.0 for group in ids.values() for sid in group}
    out: list[RunEntry] = []
    for w in sorted(chosen, key=lambda w: (w.begin_h, w.run.key)):
        r = w.run
        common = {"workload": r.workload, "run": r.run, "begin_h": w.begin_h, "end_h": w.end_h,
                  "replicas": w.replicas, "gpu": w.option.gpu or "", "gpus": w.option.degree,
                  "start_h": r.start_h, "deadline_h": r.deadline_h, "tokens": r.tokens,
                  "tokens_per_s": w.option.tokens_per_s or 0.0, "efficiency": w.efficiency}
        if isinstance(w, RentWay):
            gpus = w.replicas * w.option.degree
            out.append(RunEntry(**common, servers=None,  # type: ignore[arg-type]
                                rented=Rented(gpus, w.billed_h, w.cost, w.per_gpu_hour)))
            continue
        free = [sid for sid in ids.get(w.config, []) if free_at[sid] <= w.begin_h + 1e-9]
        if len(free) < w.servers:
            raise CheckError("plan-buy produced an invalid schedule (a bug; please report it)",
                             [(f"{r.workload} run {r.run} needs {w.servers} run servers at "
                               f"{w.begin_h:,.1f} h, {len(free)} are free (H4)")])
        taken = free[:w.servers]
        for sid in taken:
            free_at[sid] = w.end_h
        m = w.replicas // w.servers
        held = tuple(sid for sid in taken for _ in range(m))[:w.replicas]
        out.append(RunEntry(**common, servers=held, rented=None))  # type: ignore[arg-type]
    return sorted(out, key=lambda e: (e.workload, e.run))
