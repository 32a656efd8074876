"""The result rows of a sweep: what one solve returned (``Solved``), the row it makes for
its scenario (``ScenarioRow``: status, cost, priority served, GPUs, the bill of materials)
and the finished sweep (``SweepRun``).

A scenario's status is read from how its run ended (``Termination``), never guessed from
exit codes or timings. Money is in the catalog's currency; priority is Σ priority ×
⌈replicas × growth⌉.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..inputs.workload import WorkloadFile
from ..plan_types import BomLine
from ..result import PlanResult, Termination
from .scenarios import Group, Scenario


@dataclass(frozen=True)
class Solved:
    """What one solve in a worker returned: a plan, or the error that stopped it."""

    result: PlanResult | None
    error: str | None = None
    exit_code: int | None = None
    seconds: float = 0.0
    termination: Termination | None = None
    """How the run ended (the plan's, or the error's when typed; None: another failure)."""


@dataclass(frozen=True)
class ScenarioRow:
    """One scenario and what it buys (money in the catalog's currency)."""

    scenario: Scenario
    status: str
    """optimal | feasible (time limit, best found) | infeasible | failed | timeout."""
    total_cost: float | None
    served_priority: float | None
    total_priority: float
    served: tuple[str, ...]
    unserved: tuple[str, ...]
    gpus: dict[str, int]
    knee_budget: float | None
    """Cost of the group's cheapest full plan: the smallest budget that serves all (under
    ``objective: tco`` too, where the full plan bought above it is another)."""
    marginal_priority_per_dollar: float | None = None
    """(served priority − previous budget's) ÷ (budget − previous budget); from 0 first."""
    seconds: float = 0.0
    reused_knee: bool = False
    """The budget is at or above the full plan's cost (the knee's, but under ``objective:
    tco``), so that plan is the answer (not re-solved)."""
    error: str | None = None
    exit_code: int | None = None
    """The CLI exit code of the error (3 infeasible, 4 solver), None with a plan."""
    tco: float | None = None
    """P2: the plan's total cost of ownership (with ``policy.tco``)."""
    power_kw: float | None = None
    """P1: the plan's power drawn, kW."""
    gap: float | None = None
    """The solve's relative gap when known (0 when proven optimal)."""
    lines: tuple[BomLine, ...] = ()
    """The plan's bill of materials (the workbook's Sweep BOM sheet); none without a plan."""

    status_note: str = ""
    """Why a plan is only ``feasible`` (``feasible_why``); "" for any other status."""

    def to_json(self) -> dict:
        s = self.scenario
        return {
            "scenario": s.id,
            "budget": s.budget,
            "growth": s.growth,
            "headroom": s.headroom,
            "prices": dict(s.prices),
            "owning": dict(s.owning),
            "status": self.status,
            "total_cost": None if self.total_cost is None else round(self.total_cost, 2),
            "served_priority": self.served_priority,
            "total_priority": self.total_priority,
            "served": list(self.served),
            "unserved": list(self.unserved),
            "gpus": self.gpus,
            "knee_budget": self.knee_budget,
            "marginal_priority_per_dollar": self.marginal_priority_per_dollar,
            "reused_knee": self.reused_knee,
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "tco": self.tco,
            "power_kw": self.power_kw,
            "gap": self.gap,
            "status_note": self.status_note,
        }


@dataclass
class SweepRun:
    """A finished (or interrupted) sweep: rows in grid order, the base plan, the facts."""

    rows: list[ScenarioRow]
    base: Solved | None
    interrupted: bool
    not_run: int
    seconds: float
    jobs: int
    solves: int
    knees: dict[Group, ScenarioRow] = field(default_factory=dict)
    """group -> the row of its cheapest full plan (budget None), for the knee report."""
    preferred: dict[Group, ScenarioRow] = field(default_factory=dict)
    """group -> the row of its full plan of lowest TCO, for groups under ``objective: tco``
    (budgets at or above its cost buy it; ``report.dearer_preferred`` keeps those that cost
    more than the knee)."""


class ScenarioStatus(StrEnum):
    """How one scenario of a sweep ended (compares equal to its lower-case name)."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"
    """The time limit ran out before any plan was found."""
    FAILED = "failed"
    """The solver failed for another reason."""


def status_of(solved: Solved) -> ScenarioStatus:
    """The scenario's status, read from how its run ended (``Termination``)."""
    if solved.result is not None:
        return ScenarioStatus(solved.result.status)
    if solved.termination == Termination.INFEASIBLE:
        return ScenarioStatus.INFEASIBLE
    if solved.termination == Termination.TIME_LIMIT_WITHOUT_PLAN:
        return ScenarioStatus.TIMEOUT
    return ScenarioStatus.FAILED


def row_of(
    s: Scenario, wf: WorkloadFile, solved: Solved, reused: bool = False
) -> ScenarioRow:
    weight = {w.name: w.priority * wf.planned_replicas(w) for w in wf.workloads}
    total = float(sum(weight.values()))
    if solved.result is None or not solved.result.options:
        return ScenarioRow(
            s,
            status_of(solved),
            None,
            None,
            total,
            (),
            (),
            {},
            None,
            seconds=solved.seconds,
            error=solved.error,
            exit_code=solved.exit_code,
        )
    best = solved.result.options[0]
    served = tuple(n for n in weight if n not in best.unserved)
    return ScenarioRow(
        s,
        status_of(solved),
        best.total_cost,
        float(sum(weight[n] for n in served)),
        total,
        served,
        tuple(best.unserved),
        best.gpus_by_sku(),
        None,
        seconds=0.0 if reused else solved.seconds,
        reused_knee=reused,
        tco=best.own.tco if best.own is not None else None,
        power_kw=best.own.power_kw if best.own is not None else None,
        gap=solved.result.gap,
        lines=tuple(best.lines),
        status_note=feasible_why(solved),
    )


def feasible_why(solved: Solved) -> str:
    """Why a plan is ``feasible`` rather than ``optimal``: the time limit ended its solve,
    and its gap above the proven bound (or that no bound was proven); "" when optimal."""
    res = solved.result
    if res is None or res.status != "feasible":
        return ""
    parts = []
    if res.termination == Termination.TIME_LIMIT_WITH_PLAN:
        parts.append("time limit")
    parts.append("no proven bound" if res.gap is None else f"gap {res.gap:.2%}")
    return "; ".join(parts)
