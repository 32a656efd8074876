"""The phrases the terminal and the workbook share: money, memory-use targets and
their status, what an option optimises, how sure the solver is, the rule-of-thumb pool's
name."""

from __future__ import annotations

from ..inputs.policy import Policy
from ..plan_types import DirectionFigure, PlanOption
from ..result import Baseline, PlanResult
from ..rules import headroom_line
from .metrics import TARGETS, USE_TARGET
from .text import wrap


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 server``, ``3 servers`` (``plural`` where adding an s is wrong)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def money(value: float, currency: str) -> str:
    """12345.6 -> 'USD 12,346'."""
    return f"{currency} {value:,.0f}"


def target_text(metric: str) -> str:
    """The utilisation target in words: ``target 85%+``."""
    return f"target {TARGETS[metric]:.0%}+"


def use_cell(value: float | None, status: str | None, target: float | None = None) -> str:
    """``63% (under)`` the target in the header, ``60% (under 81%)`` a lower target of its
    own; a plain figure when on target; ``-`` with nothing installed."""
    if value is None:
        return "-"
    if status != "below":
        return f"{value:.0%}"
    return f"{value:.0%} (under)" if target is None else f"{value:.0%} (under {target:.0%})"


def use_rule_lines(policy: Policy, width: int) -> list[str]:
    """What the use columns measure: one rule for the headroom and the targets."""
    line = headroom_line(policy)
    return wrap(f"Memory use is a share of usable memory ({line:.0%} of installed: the "
                f"{policy.headroom:.0%} headroom is kept free), so 100% is full to the headroom "
                f"line. Target {USE_TARGET:.0%}+; host RAM: or what the fewest DIMMs those "
                "servers take allow.", width)


def direction_text(fig: DirectionFigure | None) -> str:
    """An alternative's figure in its direction, option 1's beside it, and the best any plan
    within the slack can reach there: "5 servers against 10 servers for option 1 (the best
    possible)", "23,200 W against 29,500 W for option 1 (best possible: at least
    20,952 W)"; "" for option 1."""
    if fig is None:
        return ""
    value = fig.amount(fig.value)
    if fig.cheapest is not None:
        value += f" against {fig.amount(fig.cheapest)} for option 1"
    if fig.best_possible is None:
        return f"{value} (best possible not proven)"
    if fig.proven_best or fig.amount(fig.best_possible) == fig.amount(fig.value):
        return f"{value} (the best possible)"  # to the unit shown
    side = "at most" if fig.more_is_better else "at least"
    return f"{value} (best possible: {side} {fig.amount(fig.best_possible)})"


def gpu_list(option: PlanOption) -> str:
    """``6x a100-80g-pcie, 24x a100-80g-sxm``; ``none`` for a CPU-only plan."""
    return ", ".join(f"{n}x {sku}" for sku, n in sorted(option.gpus_by_sku().items())) or "none"




def status_sentence(result: PlanResult, budgeted: bool, tco: bool = False) -> str:
    """How sure the solver is of option 1, in words (``tco``: ranked by ownership cost)."""
    cost = "total cost of ownership" if tco else "cost"
    what = (f"serves the most priority the budget allows, at the lowest {cost} for that"
            if budgeted else
            "costs the least over the horizon of the plans that serve every workload"
            if result.horizon is not None else
            "has the lowest total cost of ownership of the plans that serve every workload"
            if tco else "is the cheapest plan that serves every workload")
    solver = result.solver.upper() if result.solver == "cbc" else "HiGHS"
    if result.status == "optimal":
        return f"Option 1 {what} (proven optimal by the {solver} solver)."
    if result.gap is None:
        return (f"Option 1 is the best plan found; the {solver} solver "
                "proved no bound, so a cheaper plan may exist.")
    return (f"Option 1 is the best plan found: at most {result.gap:.2%} "
            f"dearer than the cheapest possible ({solver} solver); not proven optimal.")


def reference_name(b: Baseline) -> str:
    """The rule-of-thumb pool in plain words: "8 servers of 4x A100 80GB, 512 GB DDR4-3200,
    8 TB NVMe (the usual server for medium models)"."""
    scenario, _, label = b.name.removeprefix("R20 ").partition(": ")
    label = label or scenario
    return (f"{b.servers} server{'s' if b.servers != 1 else ''} of {label} (the usual "
            f"server for {b.scenario} models)")
