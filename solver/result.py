"""How a plan run ended: its status, why it ended there (``Termination``), the ranked
options and the reference configuration they are compared with.

Read by the checker's callers, the reports and the sweep; imports no optimiser module.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Protocol

from .plan_types import PlanOption
from .run_types import HorizonInfo


class SolveStatus(StrEnum):
    """How a solve (or a whole plan) ended. Compares equal to its lower-case name."""

    OPTIMAL = "optimal"
    """Proven within the requested gap."""
    FEASIBLE = "feasible"
    """A plan exists; optimality is not proven (time limit, gap or a restricted program)."""
    INFEASIBLE = "infeasible"
    """No plan satisfies every rule."""
    NO_SOLUTION = "no_solution"
    """The solver stopped (time limit, error) before finding any plan."""


class Termination(StrEnum):
    """Why a plan run ended where it did, which ``status`` alone does not say: a
    ``feasible`` plan may stand there because the time limit ended its search or because
    its search could not prove it (no bound, a restricted program, drives rounded)."""

    OPTIMAL = "optimal"
    """Rank 1 equals the best bound proven."""
    GAP_REACHED = "gap_reached"
    """Rank 1 is proven within the requested relative gap of the bound, not equal to it."""
    TIME_LIMIT_WITH_PLAN = "time_limit_with_plan"
    """The time limit (its work budget or the clock) ended rank 1's search with a plan."""
    TIME_LIMIT_WITHOUT_PLAN = "time_limit_without_plan"
    """The time limit ended the search before any plan (the run raises ``SolverError``)."""
    NOT_PROVEN = "not_proven"
    """A plan, not proven within the gap for another reason than time: no bound proven,
    a search on server patterns, or data drives whole per server (the result's notes)."""
    INFEASIBLE = "infeasible"
    """No plan satisfies every rule (the run raises ``InfeasibleError``)."""
    INTERRUPTED = "interrupted"
    """Ctrl-C or SIGTERM stopped the run (``KeyboardInterrupt``; the CLI exits 130)."""


@dataclass(frozen=True)
class Baseline:
    """The seed's reference configuration priced for the same workloads (R20)."""

    scenario: str
    """small | medium | large: the class of the mix's largest model."""
    name: str
    """Which reference server, and how many CPU-only nodes were added."""
    servers: int
    gpus: int
    gpu: str
    total_cost: float
    """Currency units, rounded to cents."""
    saving: float | None = None
    """Reference cost − the cheapest plan's (currency units); None until compared."""
    saving_pct: float | None = None
    """``saving`` as a fraction of the reference cost."""

    def compared_with(self, plan_cost: float) -> Baseline:
        """This reference with its saving over a plan costing ``plan_cost``."""
        saving = self.total_cost - plan_cost
        return replace(self, saving=round(saving, 2),
                       saving_pct=round(saving / self.total_cost, 4) if self.total_cost else 0.0)

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {
            "scenario": self.scenario, "name": self.name, "servers": self.servers,
            "gpus": self.gpus, "gpu": self.gpu, "total_cost": self.total_cost,
        }
        if self.saving is not None:
            doc["saving"] = self.saving
            doc["saving_pct"] = self.saving_pct
        return doc


class Reported(Protocol):
    """A finding a result carries and writes to ``--json`` as it says."""

    def to_json(self) -> dict: ...


@dataclass(frozen=True)
class PlanResult:
    """The outcome of ``plan``: ranked options and how sure the solver is of them."""

    status: SolveStatus
    currency: str
    options: tuple[PlanOption, ...]
    solver: str = ""
    gap: float | None = None
    """Relative gap of rank 1 (0 when proven optimal)."""
    baseline: Baseline | None = None
    """The rule-of-thumb reference configuration for the same workloads (R20), when one applies."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    reference_notes: tuple[str, ...] = field(default_factory=tuple)
    """Those of ``notes`` that say why no rule-of-thumb reference was priced: ``--json``
    keeps them among the notes; the terminal and the workbook leave them out (nothing to
    act on)."""
    warnings: tuple[str, ...] = field(default_factory=tuple)
    """Inconsistencies between plan-buy's own side figures: reported, never fatal."""
    termination: Termination | None = None
    """Why the run ended where it did (``plan`` always says; None only for a result built
    elsewhere, e.g. by hand in a test). Not written to ``--json``: ``status`` and ``gap``
    are, and the sweep reads this."""
    horizon: HorizonInfo | None = None
    """H1: the horizon the options were planned over (None: no horizon, as before)."""
    robust: Reported | None = None
    """``plan --robust``: how often option 1 holds in the sampled scenarios and what that
    costs (``uncertainty.robust.RobustInfo``); None without --robust."""

    def to_json(self) -> dict:
        doc: dict[str, object] = {
            "status": self.status,
            "currency": self.currency,
            "options": [o.to_json() for o in self.options],
        }
        if self.gap is not None:
            doc["gap"] = self.gap
        if self.baseline is not None:
            doc["baseline"] = self.baseline.to_json()
        if self.horizon is not None:
            doc["horizon"] = self.horizon.to_json()
        if self.robust is not None:
            doc["robust"] = self.robust.to_json()
        if self.notes:
            doc["notes"] = list(self.notes)
        if self.warnings:
            doc["warnings"] = list(self.warnings)
        return doc
