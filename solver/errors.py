"""One exception family: the library raises, the CLI formats and picks the exit code."""

from __future__ import annotations


class PlanBuyError(Exception):
    """Base of every error plan-buy reports to a user.

    Attributes:
        problems: one line per problem found (all are reported together).
        exit_code: the process exit code the CLI uses for this family.
    """

    exit_code = 1

    def __init__(self, message: str, problems: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.problems = list(problems or [])

    def __str__(self) -> str:
        if not self.problems:
            return self.message
        shown = self.problems[:MAX_SHOWN]
        lines = [self.message, *(f"  - {p}" for p in shown)]
        if len(self.problems) > len(shown):
            lines.append(f"  ... and {len(self.problems) - len(shown):,} more problems like these")
        return "\n".join(lines)


MAX_SHOWN = 50
"""Most problems printed: a generated file with a million mistakes must not flood stderr."""


class InputError(PlanBuyError):
    """Bad input file or bad usage: nothing runs (exit 2)."""

    exit_code = 2


class InfeasibleError(PlanBuyError):
    """No plan exists for the inputs; ``problems`` names each workload and why (exit 3)."""

    exit_code = 3


class SolverError(PlanBuyError):
    """The solver is missing, crashed, or hit its time limit without a plan (exit 4)."""

    exit_code = 4


class CheckError(PlanBuyError):
    """A reported plan broke a plan rule: a bug in plan-buy, never the user's fault."""

    exit_code = 5


class NothingServedError(InfeasibleError):
    """A budget too small to serve any workload: no plan to buy (exit 3).

    Carries the facts the reader needs to pick a budget: what the cheapest workload costs
    served on its own, and what serving every workload costs (``optimize.smallest``).
    """

    def __init__(self, message: str, problems: list[str], facts: dict):
        super().__init__(message, problems)
        self.facts = facts
        """The ``--json`` document's fields besides status and options (docs/json.md)."""

    def to_json(self) -> dict:
        """The ``--json`` document: status infeasible, no options, the facts, the message."""
        return {"status": "infeasible", **self.facts, "options": [], "error": str(self)}
