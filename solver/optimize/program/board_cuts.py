"""Cuts on GPU boards, valid for every plan and added as the program is built: CPU-only
replicas too large to ride beside GPU replicas (``block``, ``gpu.room``) and servers one
GPU replica fills (``full``)."""

from __future__ import annotations

import math

from ...inputs.workload import WorkloadFile
from ...rules import usable
from ..lp import pulp
from ..replicas import ReplicaOption
from .model import Model
from .names import row_name

MAX_CUT_LEVELS = 40
"""Most thresholds used per packing cut family (distinct item sizes, evenly sampled)."""


def define_blockers(m: Model, wf: WorkloadFile) -> None:
    """CPU-only replicas too large to ride beside a GPU replica (valid for every plan).

    On a type t with K GPU slots and usable RAM C, take a threshold θ (the RAM of some GPU
    option on t): a CPU-only replica needing r > C − θ (a *blocker*) cannot share a server
    with any GPU replica needing ≥ θ. The servers holding blockers hold no such replica and at
    most C of blockers' RAM each, the others at most K of their GPUs, so

        Σ_{excl o: r_o ≥ θ} d_o x_ot / K + Σ_{blockers} r_o x_ot / C ≤ n_t   (``block(t,j)``)
        Σ_{excl o: r_o ≥ θ} d_o x_ot / K + Σ_{blockers, r_o > C/2} x_ot ≤ n_t  (``block.alone(t,j)``)

    (two blockers above C/2 never share a server). For each set of blockers only the least θ
    that gives it is used, the strongest. The RAM sum alone lets a 1,500 GB preprocess job
    fill the RAM an 8-GPU board's replicas leave, which no server can do.

    And GPU room: take a density ρ (the RAM per GPU, r_o / d_o, of some exclusive GPU option
    on t), and S_ρ the options at least that dense; a server holding a CPU-only replica of
    r > C/2 (at most one such per server) holds at most g_o(ρ) GPUs of S_ρ replicas, the most
    GPUs g ≤ K whose cheapest fill from S_ρ (in RAM; any multiplicities, a small dynamic
    programme over g) fits within C − r_o:

        Σ_{excl o: r_o/d_o ≥ ρ} d_o x_ot + Σ_{CPU-only o: r_o > C/2} (K − g_o(ρ)) x_ot ≤ K n_t
                                                                        (``gpu.room(t,j)``)

    one row per distinct set of losses K − g_o(ρ), each at the least ρ giving it.
    """
    for key, t in m.types.items():
        if t.gpu is None or not t.gpu_slots:
            continue
        cap = usable(t.ram_gb, wf.policy)
        items = m.on_type[key]
        cpu = [(o, v) for o, v in items if o.degree == 0 and o.ram_gb > 0]
        gpu = [(o, v) for o, v in items if o.degree > 0 and not o.shared]
        if not cpu or not gpu:
            continue
        k = t.gpu_slots
        big = [(o, v) for o, v in cpu if o.ram_gb > cap / 2 + 1e-9]
        losses: set[tuple[int, ...]] = set()
        for rho in sorted({o.ram_gb / o.degree for o, _ in gpu if o.ram_gb > 0}):
            fill = _least_ram_fill([o for o, _ in gpu if o.ram_gb / o.degree >= rho - 1e-9], k)
            lost = tuple(k - max(g for g in range(k + 1) if fill[g] <= cap - o.ram_gb + 1e-9)
                         for o, _ in big)
            if not any(lost) or lost in losses:
                continue
            losses.add(lost)
            dense = pulp.lpSum(o.degree * v for o, v in gpu if o.ram_gb / o.degree >= rho - 1e-9)
            m.prob += (dense + pulp.lpSum(g * v for g, (_, v) in zip(lost, big, strict=True) if g)
                       <= k * m.n[key]), row_name("gpu.room", key, len(losses) - 1)
        seen: set[frozenset[str]] = set()
        j = 0
        for theta in sorted({o.ram_gb for o, _ in gpu}):
            blockers = [(o, v) for o, v in cpu if o.ram_gb > cap - theta + 1e-9]
            names = frozenset(v.name for _, v in blockers)
            if not blockers or names in seen:
                continue
            seen.add(names)
            large = pulp.lpSum((o.degree / t.gpu_slots) * v for o, v in gpu
                               if o.ram_gb >= theta - 1e-9)
            m.prob += (large + pulp.lpSum((o.ram_gb / cap) * v for o, v in blockers)
                       <= m.n[key]), row_name("block", key, j)
            alone = [v for o, v in blockers if o.ram_gb > cap / 2 + 1e-9]
            if alone:
                m.prob += large + pulp.lpSum(alone) <= m.n[key], row_name("block.alone", key, j)
            j += 1


def _least_ram_fill(options: list[ReplicaOption], slots: int) -> list[float]:
    """fill[g]: the least host RAM any multiset of ``options`` filling exactly g GPUs needs
    (inf when none does), g = 0..slots."""
    fill = [0.0] + [math.inf] * slots
    for g in range(1, slots + 1):
        fill[g] = min((fill[g - o.degree] + o.ram_gb for o in options if o.degree <= g),
                      default=math.inf)
    return fill


def define_full_boards(m: Model, wf: WorkloadFile) -> None:
    """Servers filled by one GPU replica hold nothing else that needs a GPU (valid for
    every plan).

    On a type t with K GPUs a server and usable RAM C, a *full* replica (exclusive, d_o =
    K) takes all of its server's GPUs. Take a threshold r among the RAM needs of t's full
    options and F_r = Σ_{full o: r_o ≥ r} x_ot, the servers holding such a replica (one
    each). Beside one sits no replica that needs a GPU (exclusive or shared) and no CPU-only
    replica of r_o > C − r; so those, E_r, sit on the other n_t − F_r servers, at most C of
    RAM each:

        Σ_{o ∈ E_r} r_o x_ot ≤ C (n_t − F_r)                            (``full(t,j)``)
        Σ_{o ∈ E_r} c_o x_ot ≤ cores_p (n_t − F_r)                (``full.cores(t,j)``)

    the second where the platform's cores are checked (O3); one row per distinct r (at most
    ``MAX_CUT_LEVELS``, evenly sampled). The sums let the
    RAM an 8-GPU replica leaves on its board hold the 2-GPU replicas that sit beside a
    2,880 GB preprocess job elsewhere: on the generated 1,000-workload mix eleven such jobs
    on H200 boards left 4,365 GB for 6,060 GB of 2-GPU replicas, and repair bought boards.
    """
    for key, t in m.types.items():
        k = t.gpu_slots if t.gpu is not None else 0
        items = m.on_type[key]
        full = [(o, v) for o, v in items if k and o.degree == k and not o.shared]
        if not full:
            continue
        cap = usable(t.ram_gb, wf.policy)
        levels = sorted({o.ram_gb for o, _ in full})
        if len(levels) > MAX_CUT_LEVELS:
            step = len(levels) / MAX_CUT_LEVELS
            levels = [levels[int(i * step)] for i in range(MAX_CUT_LEVELS)]
        cores = t.platform.cpu_cores
        for j, r in enumerate(levels):
            holding = [(o, v) for o, v in full if o.ram_gb >= r - 1e-9]
            held = {v.name for _, v in holding}
            elsewhere = [(o, v) for o, v in items
                         if (o.degree > 0 and v.name not in held)
                         or (o.degree == 0 and o.ram_gb > cap - r + 1e-9)]
            if any(o.ram_gb > 0 for o, _ in elsewhere):
                m.prob += ((pulp.lpSum(o.ram_gb * v for o, v in elsewhere)
                           <= cap * (m.n[key] - pulp.lpSum(v for _, v in holding))),
                           row_name("full", key, j))
            if cores and any(o.cores > 0 for o, _ in elsewhere):
                m.prob += (pulp.lpSum(o.cores * v for o, v in elsewhere)
                           <= cores * (m.n[key] - pulp.lpSum(v for _, v in holding)),
                           row_name("full.cores", key, j))
