"""Bounds proven apart from the rounds' own solves: the program solved, still a relaxation,
to the target gap (``prove_bound``), and relaxations built for plans whose solves prove
nothing, on optimistic server patterns (``pattern_bound``) or on patterns that carry the
datasets' drives (``drive_bound``).
"""

from __future__ import annotations

from dataclasses import replace

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import SolveStatus
from .budget import Budget
from .candidates import Candidates
from .expand import Expansion, expand
from .outcome import Outcome
from .program import Model, build, disaggregate, disaggregate_drives
from .solve import solve


def pattern_bound(m: Model, wf: WorkloadFile, catalog: Catalog, cand: Candidates, solver: str,
                  clock: Budget, gap: float, ticks: int | None) -> float | None:
    """A bound for a plan found on conservative patterns (``m.conservative``: shared GPUs
    counted at the most RAM one can need, so those solves' bounds prove nothing): the
    program built afresh, the same types on patterns with each shared GPU a kind of one
    GPU and no RAM or cores (``disaggregate``'s ``optimistic``), a relaxation, solved to
    ``gap`` within ``ticks``. None when a type's patterns would be priced (a restriction)
    or the solve proves nothing. On a hand-written 10-workload mix whose 4-GPU A100 PCIe
    type, holding shared embedding replicas, went to patterns, the plan of 898,850 stood
    0.18% above the last bound proven (897,290); this one proves 898,782, within 0.01%."""
    fresh = build(wf, catalog, cand, None)
    for key in m.patterns:
        disaggregate(fresh, key, wf.policy, optimistic=True)
    if not fresh.exact:
        return None
    out = _solve_relaxation(fresh, solver, clock, gap, ticks)
    return out.bound if out.exact and out.bound is not None else None


def drive_bound(m: Model, keys: tuple[str, ...], wf: WorkloadFile, catalog: Catalog,
                cand: Candidates, solver: str, clock: Budget, gap: float,
                ticks: int | None) -> tuple[float | None, tuple[Outcome, Expansion] | None]:
    """A bound for a plan whose drives, whole per server, cost more than the program's disk
    rows said on the types ``keys`` (``Expansion.disk_types``): the program with every cut
    it holds and those types also on server patterns that carry their datasets and drives
    (``build.disaggregate_drives``), a relaxation, solved to ``gap`` within ``ticks``. The
    patterns go into a copy of the problem, and the variables get back the values they had
    (the alternatives start from the cheapest plan). Returns the bound proven (None when
    the program is not a relaxation now, ``Model.exact``, no such type could be modelled
    so, or the solve proves nothing) and the solve's plan, expanded (None without one): it
    packs those types' drives as the patterns said, so it may be cheaper than the plan in
    hand.

    On a generated 10-workload mix whose 8-GPU replicas fill every slot of four HGX
    servers, so that a 720 GB and a 900 GB preprocess replica never share one, the rows
    let their 2 TB and 1 TB datasets share one server's two drives (bound 765,990); the
    patterns see five drives, and the plan of 766,140 is proven. On another the solve's
    plan, 450 cheaper than the plan in hand, is its bound: proven optimal."""
    if not m.exact:
        return None, None
    # A copy of the problem takes the pattern rows and columns; the relaxation's plans are
    # not plans to show on the progress line.
    relaxation = replace(m, prob=m.prob.copy(), on_found=None)
    if not [key for key in keys if disaggregate_drives(relaxation, key, wf, catalog)]:
        return None, None
    saved = [(v, v.varValue) for v in m.prob.variables()]
    try:
        out = _solve_relaxation(relaxation, solver, clock, gap, ticks)
        bound = out.bound if out.exact and out.bound is not None else None
        if out.status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
            return bound, None
        return bound, (out, expand(out, cand, wf, catalog))
    finally:
        for v, value in saved:  # the variables are the program's own
            v.varValue = value


def _solve_relaxation(relaxation: Model, solver: str, clock: Budget, gap: float,
                      ticks: int | None) -> Outcome:
    """A solve of a relaxation for its bound: to ``gap``, within ``ticks`` and half the
    clock left, counted on the clock."""
    seconds, _ = clock.limits(0.5)
    out = solve(relaxation, solver, seconds, gap, work_ticks=ticks)
    clock.spend(out.ticks, out.clock_stopped, out.seconds)
    return out


def prove_bound(m: Model, solver: str, clock: Budget, gap: float, proven: float | None,
                ticks: int | None) -> tuple[float | None, Outcome | None]:
    """Solve the program, still a relaxation, to the target gap within ``ticks`` of work
    (half the clock left as the safety net); the better bound proven, and the solve's
    outcome when it holds a plan (None otherwise)."""
    seconds, _ = clock.limits(0.5)
    # From the last round's plan: its value is often the optimum, which is left to prove.
    out = solve(m, solver, seconds, gap, work_ticks=ticks, warm=True)
    clock.spend(out.ticks, out.clock_stopped, out.seconds)
    if out.exact and out.bound is not None:
        proven = out.bound if proven is None else max(proven, out.bound)
    plan = out if out.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE) else None
    return proven, plan
