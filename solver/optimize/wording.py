"""The wording of the alternatives' notes: why a direction was left out, how far a
capped search may be from the best, and why option 1 is not proven (its drives)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..plan_types import PlanOption
from .alternatives import Direction
from .run_state import Run

AS_GOOD = "none does better than the cheapest plan, proven by its search's bound"
"""Why a direction is left out when its search, proven, found nothing better."""
AS_GOOD_TCO = "none does better than option 1, proven by its search's bound"
"""``AS_GOOD`` under ``objective: tco``, where option 1 is the plan of lowest TCO."""
NOT_FOUND = "no better plan found within its share of the search"
"""Why a direction is left out when its capped search found nothing better."""


@dataclass(frozen=True)
class Words:
    """What the alternatives' notes measure the slack from: the cheapest plan, or under
    ``objective: tco`` option 1's TCO. There an alternative may cost less to buy than
    option 1 (a lab's mix: option 1 buys for USD 87,110, its fewest-servers alternative for
    USD 72,390), and "within 5% of the cheapest" read as false."""

    tco: bool

    def of(self, slack: float) -> str:
        """"5% of the cheapest" / "5% of option 1's TCO"."""
        return f"{slack:.0%} of option 1's TCO" if self.tco else f"{slack:.0%} of the cheapest"

    @property
    def cheaper(self) -> str:
        return "a plan of lower TCO" if self.tco else "a cheaper plan"

    def over(self, slack: float) -> str:
        """Why a plan repaired past the slack is left out."""
        return (f"its servers, once packed, have a TCO more than {slack:.0%} over option 1's"
                if self.tco else
                f"its servers, once packed, cost more than {slack:.0%} over the cheapest")

    @property
    def as_good(self) -> str:
        return AS_GOOD_TCO if self.tco else AS_GOOD

    @property
    def first(self) -> str:
        """What a direction's reason is said of (``Direction.applies``): "the cheapest
        plan", or option 1, the plan of lowest TCO, under tco."""
        return "option 1" if self.tco else "the cheapest plan"


@dataclass
class Verdicts:
    """What the alternatives' notes say of each direction besides the options shown."""

    left_out: dict[str, list[str]] = field(default_factory=dict)
    """Why -> the directions left out for it (one reason named once)."""
    unproven: list[str] = field(default_factory=list)
    """Options whose capped search proved nothing: a better plan in its direction may exist."""
    cheaper_may_exist: list[str] = field(default_factory=list)
    """Options proven best in their direction by their search's bound, not proven the
    cheapest such plan."""
    near: dict[str, str] = field(default_factory=dict)
    """Options their search's bound puts at most so far from the best in their direction,
    by label: "lowest power" -> "140 W"."""

    def leave_out(self, why: str, label: str) -> None:
        self.left_out.setdefault(why, []).append(label)

    def forget(self, label: str) -> None:
        """Say nothing more of the option ``label``, no longer shown."""
        self.unproven = [x for x in self.unproven if x != label]
        self.cheaper_may_exist = [x for x in self.cheaper_may_exist if x != label]
        self.near.pop(label, None)

    def capped(self, option: PlanOption, short: float | None, d: Direction,
               currency: str) -> None:
        """An option shown whose search its cap ended, ``short`` of the best in its
        direction by its bound (``Within.short_of_best``)."""
        if short == 0:
            self.cheaper_may_exist.append(option.label)
        elif short is not None:
            self.near[option.label] = d.amount(short, currency)
        else:
            self.unproven.append(option.label)


def note_alternatives(run: Run, why_fewer: str, verdicts: Verdicts, slack: float,
                       words: Words) -> None:
    """The result's notes on the alternatives: fewer than asked, left out, not proven."""
    if len(run.options) < run.top:
        run.notes.append(f"{len(run.options)} of {run.top} options: {why_fewer}")
    if verdicts.left_out:
        run.notes.append(f"alternatives within {words.of(slack)} left out: "
                         + "; ".join(f"{', '.join(labels)} ({why})"
                                     for why, labels in verdicts.left_out.items()))
    capped = "(each alternative's search is capped at a share of rank 1's work)"
    if verdicts.cheaper_may_exist:
        run.notes.append(f"{', '.join(verdicts.cheaper_may_exist)}: no plan within "
                         f"{words.of(slack)} does better in that direction (proven by its "
                         f"search's bound); {words.cheaper} as good in it may exist {capped}")
    if verdicts.near:
        near = ", ".join(f"{label} (within {amount} of the best possible)"
                         for label, amount in verdicts.near.items())
        run.notes.append(f"{near}: the best plan found in that direction "
                         f"within its share of the search {capped}; how far the best possible "
                         f"within {words.of(slack)} can be is proven by its search's bound")
    if verdicts.unproven:
        run.notes.append(f"{', '.join(verdicts.unproven)}: the best plan found in that "
                         f"direction within its share of the search {capped}; a better one in "
                         "that direction may exist")


def drives_gap(run: Run, value: float) -> tuple[str, ...]:
    """Why option 1 is not proven, when data drives are the reason: the program's cheapest
    plan was within the gap of the bound but for its drives, whole on each server (O4's
    rows count a type's drives together, so the bound cannot see that rounding), and no
    plan found costs less than option 1. More search time would not prove it."""
    extra = run.rank1_drives
    if run.objective != "capex" or run.rank1_bound is None or extra <= 0.005:
        return ()
    currency = run.catalog.currency
    return ((f"option 1 is not proven optimal because of data drives: the program counts "
             f"each server type's drives together, and its cheapest plan needs "
             f"{currency} {extra:,.0f} more of them once whole on each server; a plan "
             f"cheaper than option 1, if one exists, saves at most "
             f"{currency} {value - run.rank1_bound:,.0f}"),)
