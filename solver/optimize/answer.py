"""The answer ``plan-buy plan`` gives, as a library call: the ranked plan and, under a
budget, what serving every workload would cost; a budget that buys nothing is an error.

``pipeline.plan`` returns the ranked options alone (the sweep plans many budgets and keeps
a row for each, one that serves nothing included); ``answer`` adds the policy the command
line applies on top of it, so a library caller gets the same answer as the command line.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import PlanResult
from . import pipeline
from .alternatives import DEFAULT_SLACK
from .full import FullPlan, full_plan, needs_full_plan
from .run_state import ProgressFn
from .runs.plan import plan_over_time
from .smallest import check_serves_something, serves_nothing
from .solve import DEFAULT_GAP


@dataclass(frozen=True)
class Answer:
    """A plan and, when its budget leaves a workload out, the plan that serves them all."""

    result: PlanResult
    full: FullPlan | None = None
    """The cheapest plan serving every workload (``full.full_plan``); None without a
    budget, or when the budgeted plan serves every workload."""

    def to_json(self) -> dict:
        """The plan's JSON, with ``full_plan_cost`` when a full plan was priced."""
        doc = self.result.to_json()
        if self.full is not None:
            doc["full_plan_cost"] = self.full.total_cost
        return doc


def answer(
    wf: WorkloadFile,
    catalog: Catalog,
    *,
    top: int = 3,
    solver: str | None = None,
    time_limit: float | None = None,
    gap: float = DEFAULT_GAP,
    alternatives: str = "kinds",
    slack: float = DEFAULT_SLACK,
    started: float | None = None,
    reserve_s: float = 0.0,
    progress: ProgressFn | None = None,
) -> Answer:
    """``pipeline.plan`` (arguments as there) with the command line's policy: under a
    budget that leaves a workload out, the cheapest plan serving every one is priced too,
    and a budget that serves none raises ``NothingServedError`` (what each workload
    would cost alone, against the budget).

    Raises:
        PlanBuyError: as ``pipeline.plan``; ``NothingServedError`` when nothing is served.
    """
    planner = pipeline.plan if wf.policy.horizon is None else plan_over_time
    result = planner(wf, catalog, top=top, solver=solver, time_limit=time_limit,
                           gap=gap, alternatives=alternatives, slack=slack, started=started,
                           reserve_s=reserve_s, progress=progress)
    tell = progress or (lambda stage, best: None)
    full = None
    if wf.policy.budget is not None and needs_full_plan(result):
        tell("the plan serving every workload", None)
        full = full_plan(wf, catalog, solver=solver, time_limit=time_limit, gap=gap,
                         started=started)
    if serves_nothing(result, wf):
        tell("what each workload costs on its own", None)
    check_serves_something(result, wf, catalog, full, solver=solver, time_limit=time_limit,
                           gap=gap, started=started)
    return Answer(result, full)
