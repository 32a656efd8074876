"""A plan to fall back on, rounded from the LP at the root cuts' point: each workload's
placements rounded to whole replicas and fixed, then held in the box of whole numbers
around the LP's values, each a small solve of a restriction of the program
(docs/solver.md, "A rounded plan to fall back on").
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import SolveStatus
from . import tuning
from .budget import Budget
from .candidates import Candidates
from .expand import expand
from .lp import pulp
from .outcome import Outcome
from .plan_value import expansion_value
from .program import Model, add_shared_big_rows
from .search_options import Best
from .solve import solve
from .tighten import relaxation


def rounded_plan(m: Model, cand: Candidates, wf: WorkloadFile, catalog: Catalog,
                 solver: str, clock: Budget, own: float | None) -> Best | None:
    """A plan to fall back on, from the LP at the root cuts' point, in two small solves of
    the program, each a restriction (its bound proves nothing and is not used):

    1. each workload's replicas there rounded to whole ones (``rounded_placements``), those
       placements fixed, and the servers, shared GPUs and drives that hold them solved for
       (0.2 s at N = 200, 0.8 s at N = 1,000, two search checkpoints);
    2. from that plan, each placement held between the whole numbers around its LP value
       (``rounding_box``, which holds the first plan), on ``tuning.ROUNDED_BOX_WORK`` of the work.

    Both plans are expanded and the cheaper one is kept: the program's sums do not rank
    plans as their servers do (at N = 200 the first solved at 20,223,360 and expanded to
    19,964,970, the second at 20,043,990 and expanded to 20,141,700). (HiGHS's own first
    plan under a short limit can be many times the cost: N = 200 under --time-limit 10
    returned 284,575,550 against a bound of 19.7 million.) None where the LP or the first
    solve fail; left out under a budget (the served workloads are decisions) and for
    workloads with throughput targets (their replica counts are)."""
    if wf.policy.budget is not None or relaxation(m, clock) is None:
        return None
    free = set(cand.targets)
    fixed = rounded_placements(m, free)
    if not fixed:
        return None
    box = rounding_box(m, free)
    rows = add_shared_big_rows(m, wf.policy)
    try:
        best = _restricted_plan(m, cand, wf, catalog, solver, clock,
                                {v: (count, count) for v, count in fixed.items()},
                                None if own is None else tuning.ROUNDED_WORK * own)
        if best is None or not clock.can_start("a rounded plan", restricted=True):
            return best
        wider = _restricted_plan(m, cand, wf, catalog, solver, clock, box,
                                 None if own is None else tuning.ROUNDED_BOX_WORK * own, warm=True,
                                 known=best)
    finally:
        for name in rows:
            m.prob.constraints.pop(name)
    return wider if wider is not None and wider.value < best.value else best


def _restricted_plan(m: Model, cand: Candidates, wf: WorkloadFile, catalog: Catalog,
                     solver: str, clock: Budget, bounds: dict[Any, tuple[int, int]],
                     work: float | None, warm: bool = False,
                     known: Best | None = None) -> Best | None:
    """The program solved with each variable of ``bounds`` held within its (low, up), on
    ``work`` checkpoints, to the loose gap; its plan expanded (None when it has none).
    ``warm``: from the variables' values of the solve before. ``known``: a plan in hand
    (outcome, expansion, value): when the solve returns the same decisions, its expansion
    is reused (at N = 1,000 the box often ends on the fixed placements' plan, and each
    expansion takes 10–15 s there)."""
    saved = [(v, v.lowBound, v.upBound) for v in bounds]
    for v, (low, up) in bounds.items():
        v.lowBound, v.upBound = low, up
    try:
        seconds, _ = clock.limits()
        ticks = None if work is None else max(1, int(work))
        out = solve(m, solver, seconds, tuning.LOOSE_GAP, work_ticks=ticks, warm=warm)
    finally:
        for v, low, up in saved:
            v.lowBound, v.upBound = low, up
    clock.spend(out.ticks, out.clock_stopped, out.seconds)
    if out.objective is None or out.status in (SolveStatus.INFEASIBLE,
                                               SolveStatus.NO_SOLUTION):
        return None
    out = replace(out, bound=None, exact=False)
    if known is not None and _same_decisions(out, known[0]):
        return known._replace(outcome=out)
    exp = expand(out, cand, wf, catalog)
    return Best(out, exp, expansion_value(exp, wf, catalog))


def _same_decisions(a: Outcome, b: Outcome) -> bool:
    """Two outcomes buy and place the same (their expansions are the same plan)."""
    def nonzero(d: dict[Any, int]) -> dict[Any, int]:
        return {k: v for k, v in d.items() if v}
    return all(nonzero(getattr(a, f)) == nonzero(getattr(b, f))
               for f in ("n", "x", "shared", "z", "gpus", "serve")) and a.patterns == b.patterns


def rounded_placements(m: Model, free: set[str]) -> dict[Any, int]:
    """x_wot at the LP's point, rounded per workload by largest remainder (the floors, then
    one more to those of largest fraction until the workload's replicas are whole again),
    so every demand row still holds; workloads in ``free`` are left out."""
    by_workload: dict[str, list] = {}
    for (name, _, _), v in m.x.items():
        if name not in free:
            by_workload.setdefault(name, []).append(v)
    fixed: dict[pulp.LpVariable, int] = {}
    for variables in by_workload.values():
        values = [v.varValue or 0.0 for v in variables]
        counts = [math.floor(x + ROUNDING_TOLERANCE) for x in values]
        missing = round(sum(values)) - sum(counts)
        order = sorted(range(len(values)), key=lambda i: (-(values[i] - counts[i]), i))
        for i in order[:max(0, missing)]:
            counts[i] += 1
        fixed.update(zip(variables, counts, strict=True))
    return fixed


def rounding_box(m: Model, free: set[str]) -> dict[Any, tuple[int, int]]:
    """x_wot at the LP's point, each held between the whole numbers around it (a whole
    value stays fixed), as (low, up) by variable; workloads in ``free`` are left out. It
    holds ``rounded_placements``'s point."""
    box: dict[pulp.LpVariable, tuple[int, int]] = {}
    for (name, _, _), v in m.x.items():
        if name not in free:
            x = v.varValue or 0.0
            box[v] = (math.floor(x + ROUNDING_TOLERANCE), math.ceil(x - ROUNDING_TOLERANCE))
    return box


ROUNDING_TOLERANCE = 1e-6
"""An LP value this close to a whole number counts as that number (``rounding_box``)."""
