"""What a budget leaves unbought: the cheapest plan that serves every workload.

Under ``policy.budget`` the plan serves the most priority the budget allows; the reader
also needs to know what serving everything would cost. ``full_plan`` answers that by
planning the same mix once more without the budget (rank 1 only, no reference pricing),
for the least capital cost whatever ``policy.objective`` says: under ``objective: tco`` the
plan of lowest TCO may cost more to buy than the smallest budget that serves everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import PlanBuyError
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import PlanResult, SolveStatus


@dataclass(frozen=True)
class FullPlan:
    """The cheapest plan serving every workload, or why it could not be priced."""

    total_cost: float | None
    """Catalog currency; None when ``why_not`` says why there is none."""
    gpus_by_sku: dict[str, int]
    status: SolveStatus | None
    """``optimal`` when proven the cheapest; ``feasible`` for the best found in the time."""
    why_not: str = ""


def needs_full_plan(result: PlanResult) -> bool:
    """True when the budgeted plan's first option leaves any workload out."""
    return bool(result.options) and bool(result.options[0].unserved)


def full_plan(wf: WorkloadFile, catalog: Catalog, **plan_args: Any) -> FullPlan:
    """Plan ``wf`` without its budget, for the least capital cost; ``plan_args`` as for
    ``pipeline.plan`` (solver, time_limit, gap, started). Never raises for a plan that
    cannot be found: the reason is returned in ``why_not``."""
    from .pipeline import plan

    unbudgeted = wf.model_copy(update={"policy": wf.policy.model_copy(
        update={"budget": None, "objective": "capex"})})
    try:
        res = plan(unbudgeted, catalog, top=1, with_baseline=False, **plan_args)
    except PlanBuyError as exc:
        return FullPlan(None, {}, None, why_not=str(exc).splitlines()[0])
    best = res.options[0]
    return FullPlan(best.total_cost, best.gpus_by_sku(), res.status)
