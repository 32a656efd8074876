"""What one server of a type holds: its resources (GPU slots, usable RAM, cores) and the
bounds M_wt and M_w|v on the replicas it can carry, read by the O4 rows."""

from __future__ import annotations

import math
from collections.abc import Callable

from ...inputs.policy import Policy
from ...rules import usable
from ..candidates import Candidates, ServerType
from ..replicas import ReplicaOption
from .model import Model


def most_on_one(m: Model, names: set[str], key: str, cand: Candidates, policy: Policy) -> int:
    """M_wt (M_tτ for several workloads): most replicas of the workloads ``names`` one server
    of type ``key`` can hold together, by each resource over the least any of their options
    there takes (a valid bound for any mix of them): GPU slots (a shared replica takes
    v_o / U_g of a GPU), usable RAM and CPU cores; at most the replicas they may run."""
    opts = [o for o, _ in m.on_type[key] if o.workload in names]
    most = _room_bound(m.types[key], opts, float(sum(cand.most_replicas(n) for n in names)),
                       policy)
    return max(1, math.floor(most + 1e-9))


def most_beside(m: Model, w: str, v: str, key: str, cand: Candidates, policy: Policy) -> int:
    """M_w|v: most replicas of ``w`` one server of type ``key`` holds beside one replica of
    ``v``, by each resource less the least any option of v there takes, over the least any
    option of w takes (as ``most_on_one``); 0 when none fits beside it."""
    mine = [o for o, _ in m.on_type[key] if o.workload == w]
    theirs = [o for o, _ in m.on_type[key] if o.workload == v]
    most = _room_bound(m.types[key], mine, float(cand.most_replicas(w)), policy, theirs)
    return max(0, math.floor(most + 1e-9))


def _room_bound(t: ServerType, mine: list[ReplicaOption], most: float, policy: Policy,
                beside: list[ReplicaOption] | None = None) -> float:
    """``most`` capped, for each resource of one server of ``t`` (GPU slots, where a shared
    replica takes v_o / U_g of a GPU; usable RAM; CPU cores where checked), by its room, less
    the least any option of ``beside`` takes, over the least any of ``mine`` takes."""
    for take, room in resources(t, policy):
        per = min(map(take, mine))
        if per > 0:
            taken = min(map(take, beside)) if beside else 0.0
            most = min(most, (room - taken) / per)
    return most


def resources(t: ServerType,
               policy: Policy) -> list[tuple[Callable[[ReplicaOption], float], float]]:
    """What one server of ``t`` offers, as (what a replica's option takes, room): GPU slots
    (a shared replica takes v_o / U_g of a GPU), usable RAM, and CPU cores where the
    catalog lists them (O3)."""
    resources: list[tuple[Callable[[ReplicaOption], float], float]] = []
    if t.gpu is not None:
        cap = usable(t.gpu.vram_gb, policy)
        resources.append((lambda o: o.vram_gb / cap if o.shared else float(o.degree),
                          float(t.gpu_slots)))
    resources.append((lambda o: o.ram_gb, usable(t.ram_gb, policy)))
    if t.platform.cpu_cores is not None:
        resources.append((lambda o: float(o.cores), float(t.platform.cpu_cores)))
    return resources
