"""A budget that buys nothing: what the smallest useful purchase would cost.

Under ``policy.budget`` the plan serves the most priority the budget allows. When that is
nothing (every workload costs more than the budget on its own), there is no plan to buy:
``check_serves_something`` raises ``NothingServedError`` naming the cheapest workload and
what serving it alone costs (the least budget that buys anything), beside what serving
every workload costs. Each workload is planned on its own, without the budget (rank 1, no
reference pricing); that only runs when the budget buys nothing.
"""

from __future__ import annotations

from typing import Any

from ..errors import NothingServedError
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import PlanResult
from .full import FullPlan, full_plan


def serves_nothing(result: PlanResult, wf: WorkloadFile) -> bool:
    """True when a budgeted plan's first option serves no workload."""
    if wf.policy.budget is None or not result.options:
        return False
    return len(result.options[0].unserved) >= len(wf.workloads)


def alone_costs(wf: WorkloadFile, catalog: Catalog, **plan_args: Any) -> list[tuple[str, float | None]]:
    """(workload, cost of the cheapest plan serving it alone without the budget), cheapest
    first; None where no plan was found (it cannot run, or the time ran out). ``plan_args``
    as for ``pipeline.plan`` (solver, time_limit, gap, started)."""
    out = [(w.name, full_plan(wf.model_copy(update={"workloads": [w]}), catalog,
                              **plan_args).total_cost)
           for w in wf.workloads]
    # Ties: the most priority first, as the budgeted plan would choose.
    weight = {w.name: -w.priority * wf.planned_replicas(w) for w in wf.workloads}
    return sorted(out, key=lambda nc: (nc[1] is None, nc[1] or 0.0, weight[nc[0]]))


def check_serves_something(result: PlanResult, wf: WorkloadFile, catalog: Catalog,
                           full: FullPlan | None, **plan_args: Any) -> None:
    """Raise ``NothingServedError`` when the budget buys nothing; return otherwise.

    Args:
        result: the budgeted plan.
        wf: the workload file planned (its ``policy.budget`` applied).
        catalog: the catalog it was priced from.
        full: the cheapest plan serving every workload (``full.full_plan``), if priced.
        plan_args: as for ``pipeline.plan`` (solver, time_limit, gap, started).
    """
    if not serves_nothing(result, wf):
        return
    budget, cur = float(wf.policy.budget or 0.0), result.currency
    costs = alone_costs(wf, catalog, **plan_args)
    by_name = {w.name: w for w in wf.workloads}
    cheapest, least = costs[0] if costs and costs[0][1] is not None else (None, None)
    full_cost = full.total_cost if full is not None else None

    def money(value: float) -> str:
        return f"{cur} {value:,.0f}"

    message = f"the budget of {money(budget)} buys nothing: no workload can be served for it"
    if least is not None and least > budget:
        message += (f". To fix: raise the budget (--budget or policy.budget) to at least "
                    f"{money(least)}, what serving {cheapest} alone costs")
    elif least is not None:
        message += (f" in the time given, though {cheapest} alone costs {money(least)}. To fix: "
                    "give the solver more time (--time-limit)")
    problems = []
    for name, cost in costs:
        w = by_name[name]
        what = f"{name} ({w.kind}, priority {w.priority:g}, {wf.planned_replicas(w)} replica(s))"
        problems.append(f"{what}: {money(cost)} on its own" if cost is not None else
                        f"{what}: no plan for it alone was found")
    if full_cost is not None:
        problems.append(f"every workload: {money(full_cost)}")
    elif full is not None:
        problems.append(f"every workload: no plan found ({full.why_not})")
    facts = {
        "currency": cur,
        "budget": budget,
        "unserved": list(result.options[0].unserved),
        "cheapest_workload": cheapest,
        "cheapest_workload_cost": least,
        "workload_costs": [{"workload": n, "total_cost": c} for n, c in costs],
        "full_plan_cost": full_cost,
    }
    raise NothingServedError(message, problems, facts)
