"""Capacity at every moment (H4): what runs on each server at each instant fits it.

The set of runs under way changes only where a window begins or ends, so the check sweeps
those instants (and t = 0). At each one it builds a snapshot of the servers that runs occupy:
their always-on placements, plus one placement per replica of every bought run with
begin ≤ t < end, on GPUs no other replica holds (a run's replicas need their GPUs to
themselves, T3), reserving what the estimator says it needs; today's per-server checks then
verify the snapshot (R8, R10, R11, R12, R15, R17, O3). Local disks and the storage pool (O4)
and the site's power (P3: a run server draws power only while a run is on it; every other
server all the time) are summed here per instant. A violation is reported once, at the
first instant it happens.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..inputs.catalog import GpuSku
from ..inputs.workload import Workload
from ..plan_types import Placement, Server
from ..rules import usable
from ..run_types import RunEntry
from .memory import check_r8_r10, check_r11_r12, check_r17, served
from .network import fabric_switches
from .orderable import check_o3
from .owning import power_w
from .subject import TOL, Subject, estimate_once
from .windows import name, sound_runs

Run = tuple[RunEntry, Workload, GpuSku]
"""A scheduled run with its workload and GPU."""


@dataclass(frozen=True)
class Fleet:
    """What does not change in time: the plan's servers, the always-on replicas on them,
    the servers that draw power all the time and the datasets always-on replicas keep."""

    servers: dict[str, Server]
    always: dict[str, tuple[Placement, ...]]
    """Always-on placements by server id."""
    drawing: frozenset[str]
    """Servers that are not run servers, or hold an always-on replica."""
    local: dict[str, dict[str, float]]
    """Server id -> the datasets its always-on replicas read locally, TB by workload."""
    pool_tb: float
    """TB the always-on workloads served keep in the pool (checkpoints, shared datasets)."""

    @classmethod
    def of(cls, sub: Subject) -> Fleet:
        option = sub.option
        always: dict[str, list[Placement]] = {}
        for pl in option.placements:
            always.setdefault(pl.server, []).append(pl)
        runs_only = set(option.time.run_servers) if option.time is not None else set()
        by_name = {w.name: w for w in sub.wf.workloads}
        local: dict[str, dict[str, float]] = {}
        for pl in option.placements:
            w = by_name.get(pl.workload)
            if w is not None and w.local_tb > 0:
                local.setdefault(pl.server, {})[w.name] = w.local_tb
        done = served(sub)
        return cls(
            servers={s.id: s for s in option.servers},
            always={sid: tuple(pls) for sid, pls in always.items()},
            drawing=frozenset(s.id for s in option.servers
                              if s.id not in runs_only or s.id in always),
            local=local,
            pool_tb=sum(w.pool_tb for w in sub.wf.workloads if w.name in done),
        )


def check_h4(sub: Subject) -> list[str]:
    """H4: at t = 0 and every instant a window begins or ends, the always-on replicas and
    the replicas of the bought runs under way (begin ≤ t < end) fit each server as a plan
    does today (GPUs, VRAM under headroom, host RAM, CPU cores, local disk: R8, R10, R11,
    R12, R15, R17, O3, O4); the pool holds the always-on and running workloads' data (O4);
    Σ power of the servers drawing at t ≤ racks x rack_kw (P3)."""
    if sub.timed is None:
        return []
    fleet = Fleet.of(sub)
    bought = [run for run in sound_runs(sub)
              if run[0].servers is not None and run[0].rented is None
              and len(run[0].servers) == run[0].replicas]
    instants = sorted({0.0, *(r.begin_h for r in sub.option.runs),
                       *(r.end_h for r in sub.option.runs)})
    first: dict[str, tuple[float, str]] = {}
    for t in instants:
        active = [run for run in bought if run[0].begin_h <= t < run[0].end_h]
        for err in _moment(sub, fleet, active):
            # Site and pool totals vary by instant: the first instant over the line is enough.
            key = "P3" if err.endswith("(P3)") else "pool" if err.startswith("storage ") else err
            first.setdefault(key, (t, err))
    return [f"at {t:,.2f} h: {err} (H4)" for t, err in first.values()]


def _moment(sub: Subject, fleet: Fleet, active: list[Run]) -> list[str]:
    """What does not fit at one instant, the bought runs ``active`` under way."""
    placed, errs = _run_placements(sub, fleet, active)
    if placed:
        touched = tuple(fleet.servers[sid] for sid in placed)
        snap = replace(sub.option, servers=touched, runs=(), time=None,
                       placements=tuple(pl for sid in placed
                                        for pl in (*fleet.always.get(sid, ()), *placed[sid])))
        assert sub.timed is not None
        now = Subject(snap, sub.timed, sub.skus)
        errs += check_r8_r10(now) + check_r17(now) + check_r11_r12(now) + check_o3(now)
        errs += _storage(sub, fleet, placed, active)
    return errs + _power(sub, fleet, set(placed))


def _run_placements(sub: Subject, fleet: Fleet,
                    active: list[Run]) -> tuple[dict[str, list[Placement]], list[str]]:
    """One placement per replica of the runs under way, on the lowest GPUs of its server
    that no always-on replica or other run holds; a server whose GPUs run out is reported
    (a server or GPU not the run's is H3's)."""
    assert sub.timed is not None
    policy = sub.timed.policy
    placed: dict[str, list[Placement]] = {}
    free: dict[str, list[int]] = {}
    want: dict[str, set[str]] = {}
    short: set[str] = set()
    need: dict[str, int] = {}
    for r, w, g in active:
        e = estimate_once(w, g, r.gpus, policy)
        for j, sid in enumerate(r.servers or (), 1):
            s = fleet.servers.get(sid)
            if s is None or s.gpu != r.gpu:
                continue
            if sid not in free:
                held = {i for pl in fleet.always.get(sid, ()) for i in pl.gpu_indices}
                free[sid] = [i for i in range(s.gpu_count) if i not in held]
                placed[sid] = []
            want.setdefault(sid, set()).add(name(r))
            need[sid] = need.get(sid, 0) + r.gpus
            take, free[sid] = free[sid][:r.gpus], free[sid][r.gpus:]
            if len(take) == r.gpus:
                placed[sid].append(Placement(w.name, j, sid, r.gpu, r.gpus, e.vram_gb_per_gpu,
                                             e.host_ram_gb, tuple(take)))
            else:
                free[sid] = []
                short.add(sid)
    errs = []
    for sid in sorted(short):
        s = fleet.servers[sid]
        taken = len({i for pl in fleet.always.get(sid, ()) for i in pl.gpu_indices})
        errs.append(f"{sid}: {', '.join(sorted(want[sid]))} need {need[sid]} GPUs, "
                    f"{s.gpu_count - taken} of its {s.gpu_count} are free of always-on replicas")
    return placed, errs


def _drives_tb(s: Server, sub: Subject) -> float:
    drive = sub.skus.storage.get(s.storage) if s.storage is not None else None
    return s.drive_count * drive.size_tb if s.drive_count and drive is not None else 0.0


def _storage(sub: Subject, fleet: Fleet, placed: dict[str, list[Placement]],
             active: list[Run]) -> list[str]:
    """O4 at one instant: each occupied server's drives hold the datasets read locally there
    (each once) under the headroom line; the pool's drives hold every server's local copies
    and the always-on and running workloads' checkpoints and shared datasets."""
    policy = sub.wf.policy
    by_name = {w.name: w for _, w, _ in active}
    local = dict(fleet.local)
    errs = []
    for sid, pls in placed.items():
        here = dict(fleet.local.get(sid, {}))
        here.update({pl.workload: by_name[pl.workload].local_tb for pl in pls
                     if by_name[pl.workload].local_tb > 0})
        local[sid] = here
        tb = _drives_tb(fleet.servers[sid], sub)
        if sum(here.values()) > usable(tb, policy) + TOL:
            errs.append(f"{sid}: local datasets {sum(here.values()):.2f} TB over the headroom "
                        f"line of its {tb:.2f} TB of drives (O4, R15)")
    have = sum(_drives_tb(s, sub) for s in fleet.servers.values())
    used = (fleet.pool_tb + sum(w.pool_tb for w in by_name.values())
            + sum(sum(d.values()) for d in local.values()))
    if used > usable(have, policy) + TOL:
        errs.append(f"storage {used:.2f} TB over the headroom line of the pool's "
                    f"{have:.2f} TB (O4, R15)")
    return errs


def _power(sub: Subject, fleet: Fleet, running: set[str]) -> list[str]:
    """P3 at one instant: Σ power of the servers drawing (all the time, or running a run
    now) and of the switches of their fabrics (N3) ≤ racks x rack_kw."""
    site = sub.wf.site
    if site is None:
        return []
    on = fleet.drawing | running
    watts = sum(power_w(fleet.servers[sid], sub.skus) for sid in on)
    # N3: a fabric's switches draw while a server cabled to it does.
    watts += sum(w.power_w * n for f in sub.option.fabric if on & set(f.servers)
                 for w, n in fabric_switches((f,), sub.skus))
    if watts > site.racks * site.rack_kw * 1000 + TOL:
        return [f"servers draw {watts / 1000:g} kW, over {site.racks} racks x "
                + f"{site.rack_kw:g} kW (P3)"]
    return []
