"""What a plan found is worth against the program, and the rules the rounds read from it:
its value by what the program minimises (capex, or TCO), whether its packing repair cost
nothing in that value, whether its drives alone keep it from the bound proven, and whether
a solve the clock ended did any better than the plan in hand.
"""

from __future__ import annotations

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..plan_types import OwnCost
from .expand import Expansion
from .outcome import Outcome
from .owning import own_cost
from .search_options import Best, ValueFn


def expansion_own(exp: Expansion, wf: WorkloadFile, catalog: Catalog) -> OwnCost:
    """P1–P5 figures of an expansion's servers (idle owned servers draw nothing)."""
    return own_cost(exp.servers, exp.cost, wf.policy.tco, wf.site, catalog)


def expansion_value(exp: Expansion, wf: WorkloadFile, catalog: Catalog) -> float:
    """What the program minimised, for a physical plan: TCO under ``objective: tco``,
    else capital cost (comparable with the program's bound)."""
    if wf.policy.objective == "tco":
        tco = expansion_own(exp, wf, catalog).tco
        if tco is not None:
            return tco
    return exp.cost


def repaired_free(out: Outcome, exp: Expansion, value_of: ValueFn | None) -> bool:
    """The repaired plan is worth what the solve said its plan was (``value_of``)."""
    if value_of is None or out.objective is None:
        return False
    value = value_of(out, exp)
    return value is not None and value <= out.objective + FREE_REPAIR_TOL * max(
        1.0, abs(out.objective))


FREE_REPAIR_TOL = 1e-9
"""Relative tolerance of "the repair cost nothing" (floating sums of the objective)."""


def drives_alone(value: float, extra: float, bound: float | None, gap: float) -> bool:
    """A plan worth ``value`` would be within ``gap`` of ``bound`` but for ``extra``, what
    its drives, whole on each server, cost beyond the program's drive configurations."""
    return bound is not None and extra > 0.005 and value - extra <= bound * (1 + gap) + 0.01


def held_value(best: Best | None, value_of: ValueFn | None) -> float | None:
    """What the program minimises, measured on the best plan in hand (its repairs
    included; None when ``value_of`` cannot say, or there is no plan yet)."""
    if best is None or value_of is None:
        return None
    return value_of(best[0], best[1])


def clock_ended_worse(out: Outcome, best: Best | None, maximise: bool = False,
                      held: float | None = None) -> bool:
    """The clock ended this solve on a plan no better, by the program's own objective, than
    the best plan in hand: the time is spent, and expanding it cannot help. (On a generated
    1,000-workload mix a packing round stopped by the clock returned a plan 12 times the
    cost, whose expansion took 41 s past a 120 s limit.) ``held``, the program's objective
    measured on the best plan in hand (``value_of``), is what to beat where known: a plan
    the repair made dearer than its solve said leaves room for one between the two.
    Without it, the solve behind that plan."""
    if not out.clock_stopped or best is None:
        return False
    before, now = best[0].objective, out.objective
    if held is not None and before is not None and not maximise:
        before = max(before, held)
    if before is None or now is None:
        return False
    if maximise:  # the budget's first phase: most priority served
        before, now = -before, -now
    return now >= before - 1e-9 * abs(before)


def proven_target(proven: float | None, gap: float) -> float | None:
    """The objective a plan must reach to be proven by ``proven``: within ``gap`` of it."""
    if proven is None:
        return None
    return proven + gap * abs(proven)

