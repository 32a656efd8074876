"""The result rows of a sweep: what one solve returned (``Solved``), the row it makes for
its scenario (``ScenarioRow``: status, cost, priority served, GPUs, the bill of materials,
and over a horizon what it charges, rents and costs there: ``TimeRow``) and the finished
sweep (``SweepRun``).

A scenario's status is read from how its run ended (``Termination``), never guessed from
exit codes or timings. Money is in the catalog's currency; priority is Σ priority ×
⌈replicas × growth⌉.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..inputs.workload import WorkloadFile
from ..plan_types import BomLine, PlanOption
from ..result import PlanResult, Termination
from .scenarios import Group, Scenario
from .timing import axis_column


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
    time: TimeRow | None = None
    """H1, H5, H6: what the plan costs over its horizon; None without a horizon."""

    def to_json(self) -> dict:
        s = self.scenario
        out = self._json()
        if s.timing:
            out["timing"] = {axis_column(n): v for n, v in s.timing}
        if self.time is not None:
            out.update(self.time.to_json())
        return out

    def _json(self) -> dict:
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


@dataclass(frozen=True)
class TimeRow:
    """A scenario's plan over its horizon (H6): what it charges, rents and costs there, and
    how much of its runs' work is rented against the GPUs it buys (money in the catalog's
    currency; all None when the scenario has no plan)."""

    capex_charged: float | None = None
    """Capex x the horizon's share of the hardware's life (H1)."""
    rent_cost: float | None = None
    """What the rented runs cost (H5)."""
    horizon_cost: float | None = None
    """What the plan minimises over the horizon: capex charged + rent (+ running costs)."""
    gpus_bought: int | None = None
    """GPUs on the servers bought (owned servers left out), always-on and run servers."""
    rented_gpu_hours: float | None = None
    """Σ over rented runs of GPUs x hours billed."""
    runs_rented: int | None = None
    runs: int | None = None
    """Runs rented, and runs in all."""

    def to_json(self) -> dict:
        def money(v: float | None) -> float | None:
            return None if v is None else round(v, 2)

        return {"capex_charged": money(self.capex_charged), "rent_cost": money(self.rent_cost),
                "horizon_cost": money(self.horizon_cost), "gpus_bought": self.gpus_bought,
                "rented_gpu_hours": (None if self.rented_gpu_hours is None
                                     else round(self.rented_gpu_hours, 1)),
                "runs_rented": self.runs_rented, "runs": self.runs}


def time_row(wf: WorkloadFile, best: PlanOption | None) -> TimeRow | None:
    """The row's costs over the horizon: None without one, blanks without a plan."""
    if wf.policy.horizon is None:
        return None
    if best is None or best.time is None:
        return TimeRow()
    rented = [r.rented for r in best.runs if r.rented is not None]
    bought = sum(s.gpu_count for s in best.servers if s.gpu and not s.owned)
    return TimeRow(best.time.capex_charged, best.time.rent, best.time.horizon_cost, bought,
                   sum(r.gpus * r.hours for r in rented), len(rented), len(best.runs))


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
            time=time_row(wf, None),
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
        time=time_row(wf, best),
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
