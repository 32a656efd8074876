"""What one option's search is asked and what it returns: its frozen options, its share of
the work, its first solve begun early (``start_first``), the best plan it holds and what
it found (``Searched``). The search itself is ``rounds.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from .budget import Budget
from .expand import Expansion
from .outcome import Outcome
from .program import Model
from .solve import Started, start_solve

ValueFn = Callable[[Outcome, Expansion], "float | None"]
"""What the program minimises, measured on an expanded plan (None: not measured)."""
ShownFn = Callable[[Outcome, Expansion], bool]
"""Whether the caller would show an expanded plan as it is."""


@dataclass(frozen=True)
class SearchOptions:
    """How one option's search (``solve_and_expand``) runs: its gap, its work and when it
    stops. Frozen: the caller builds one per search, the search never changes it."""

    gap: float
    """Relative MIP gap counted as optimal."""
    loose: bool = True
    """Rounds that may still fail to pack are solved to ``tuning.LOOSE_GAP`` first (on
    programs above ``tuning.LOOSE_MIN_ROWS``); once a plan packs, one more solve closes
    the gap."""
    share: float = 1.0
    """Share of the work budget left that this option may use, in all its rounds."""
    warm: bool = False
    """Start the first solve from the previous solve's values (later rounds always do), a
    plan to fall back on: its work share ends that solve only once it finds a better one
    (``beat_start``)."""
    cap: int | None = None
    """Bound on this option's search checkpoints in all its rounds, with or without a time
    limit (a solve stops at its share once it has a plan: the best plan found is kept, so
    the option is a plan, not always the proven best of its objective)."""
    disk_retries: int = 0
    """When a plan solved to the gap costs more than the bound proven because its drives,
    rounded per server, cost more than the program's disk rows said (O4), up to this many
    re-solves with that choice cut off (``exclude_disk_choice``; the caller drops the cuts
    with ``drop_disk_choices``). Another optimum of the program may pack its datasets as
    the rows assumed."""
    value_of: ValueFn | None = None
    """What the program minimises measured on an expanded plan: a plan whose packing
    repair left that value at the solve's own objective (the repair moved replicas or
    upgraded memory at no cost in it) counts as packed, since a round of cuts could only
    find another plan of the same value."""
    first: Started | None = None
    """The first solve, begun earlier by ``start_first`` with the same ``share``, ``cap``
    and gap (its plan is read back here; solved afresh if the program changed in kind
    meanwhile)."""
    shown: ShownFn | None = None
    """Whether the caller would show a plan as it is (an alternative: within the slack and
    the budget). Once the best plan in hand is one, a later round that has found no plan
    of its own when this option's work is spent ends there: a round whose last plan new
    cuts cut off otherwise searches on until it finds any plan (on a generated 10-workload
    mix, 99 and 83 checkpoints past a work share of 1, the option's cap long spent, with a
    plan within the slack in hand)."""
    close: bool = False
    """A plan that packs, from a solve at the target gap that its work share ended before
    it proved the gap, gets one more solve from that plan with all of this option's work
    left (the share kept for packing rounds it no longer needs). On the enterprise test mix
    under --time-limit 60 rank 1's third solve packed at checkpoint 674 with a bound 0.29%
    below its plan; the solve proves it at checkpoint 987."""


class Searched(NamedTuple):
    """What one option's search found (unpacks as ``out, exp, proven, drives``)."""

    outcome: Outcome
    """The best plan's solve (or the last solve, when none found a plan)."""
    expansion: Expansion | None
    """That plan on physical servers; None when no solve found a plan."""
    proven: float | None
    """The best lower bound proven by a solve whose program was still a relaxation."""
    drives: tuple[float, ...] = ()
    """``Expansion.drive_extra`` of each plan solved to the gap that packs and is within
    the gap of the bound proven but for its drives, whole on each server (O4's rows count
    a type's drives together): then the drives alone keep that plan from the bound."""


class Best(NamedTuple):
    """A plan in hand: its solve, its expansion and its value by what the program minimises
    (``plan_value.expansion_value``)."""

    outcome: Outcome
    expansion: Expansion
    value: float


def own_work(clock: Budget, share: float, cap: int | None) -> float | None:
    """Search checkpoints one option may use in all its rounds: ``share`` of the work
    budget left, at most ``cap`` (None: no limit)."""
    own = None if clock.ticks is None else share * clock.ticks
    if cap is not None:
        own = float(cap) if own is None else min(own, float(cap))
    return own


def start_first(m: Model, solver: str, clock: Budget, gap: float, share: float = 1.0,
                cap: int | None = None, beside: bool = False) -> Started | None:
    """The first solve of ``solve_and_expand(..., loose=False, warm=True)`` with this
    ``share``, ``cap`` and ``gap``, begun now from the variables' values of now
    (``solve.start_solve``; with ``beside`` it runs on a spare core meanwhile). Pass it as
    ``first``; None where it cannot be begun early.

    It may use all of the option's work, not half as a first round does: begun before the
    round ahead of it ends, it starts from an earlier plan (the cheapest, for the second
    alternative) rather than from the plan before it, and on a spare core its search is
    time the run spends anyway."""
    own = own_work(clock, share, cap)
    ticks = None if own is None else max(1, int(own))
    return start_solve(m, solver, clock.limits()[0], gap, work_ticks=ticks, warm=True,
                       beat_start=True, beside=beside)

