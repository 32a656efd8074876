"""Solve rounds: solve, expand, and when replicas do not pack, tighten and solve again.

Every option (the cheapest plan, each ranked mix, each alternative) is found by
``solve_and_expand``: valid packing cuts first, then server patterns priced from LP duals
(docs/solver.md, "Cuts when the sums lie").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

from ..inputs.catalog import Catalog
from ..inputs.workload import Policy, WorkloadFile
from ..plan_types import OwnCost
from ..result import SolveStatus
from ..rules import usable
from . import tuning
from .budget import Budget
from .candidates import Candidates
from .expand import Expansion, expand
from .lp import pulp
from .outcome import Outcome
from .owning import own_cost
from .program import (
    Model,
    add_host_room_rows,
    add_packing_cuts,
    add_pattern_cut,
    add_shared_big_rows,
    build,
    disaggregate,
    disaggregate_drives,
    exclude_disk_choice,
    pattern_cut_kinds,
    price_patterns,
)
from .solve import Started, lp_duals, pattern_cut_weights, solve, start_solve


def expansion_own(exp: Expansion, wf: WorkloadFile, catalog: Catalog) -> OwnCost:
    """P1–P5 figures of an expansion's servers (idle owned servers draw nothing)."""
    return own_cost(exp.servers, exp.cost, wf.policy.tco, wf.site, catalog)


def expansion_value(exp: Expansion, wf: WorkloadFile, catalog: Catalog) -> float:
    """What the program minimised, for a physical plan: TCO under ``objective: tco``,
    else capital cost (comparable with the program's bound)."""
    if wf.policy.objective == "tco":
        tco = expansion_own(exp, wf, catalog).tco
        if tco is not None:
            return tco
    return exp.cost


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


def solve_and_expand(m: Model, cand: Candidates, wf: WorkloadFile, catalog: Catalog,
                     solver: str, clock: Budget, opts: SearchOptions) -> Searched:
    """Solve; when replicas do not pack into the bought servers, tighten the type and re-solve.

    How far and how hard to search is ``opts`` (``SearchOptions``, each field says what
    it does). Returns the best plan's outcome, its expansion, the best lower bound proven
    by a solve whose program was still a relaxation, and the drives that alone kept a
    plan from that bound (``Searched``).
    """
    own = _own_work(clock, opts.share, opts.cap)
    retries = opts.disk_retries
    drives: list[float] = []
    start_used = clock.used

    def spent() -> int:
        return clock.used - start_used

    def half_left() -> int | None:
        """Half of this option's work left: a packing failure still leaves work to tighten
        and re-solve."""
        return None if own is None else max(1, int(0.5 * (own - spent())))

    def all_left() -> int | None:
        """All of this option's work left."""
        return None if own is None else max(1, int(own - spent()))

    def bare_ticks() -> int | None:
        """All of this option's work left, once the plan in hand could be opts.shown: a search
        that has found no plan of its own by then ends there (``solve``'s ``bare_ticks``)."""
        if opts.shown is None or best is None or not opts.shown(best[0], best[1]):
            return None
        return all_left()

    proven = None
    closing = closed = False
    """The next solve is ``opts.close``'s (all the work left); there was one already."""
    failures = m.failures
    best: tuple | None = None
    # Rounds that may still fail to pack are solved to a loose gap; once a solution packs,
    # one more solve closes the gap (the cuts and patterns found meanwhile are kept).
    # A small program is solved to the gap at once: its solve proves the gap about as fast
    # as it reaches the loose one, and a plan that packs then needs no second solve.
    loosen = opts.loose and m.size > tuning.LOOSE_MIN_ROWS
    round_gap = max(opts.gap, tuning.LOOSE_GAP) if loosen else opts.gap
    pending: tuple[Outcome, Expansion] | None = None
    """A plan the bound-proving solve found that packs: the next round, without a solve."""
    if not m.root_cuts and m.size > tuning.ROOT_MIN_ROWS:
        m.root_cuts = True
        _root_cuts(m, wf.policy, clock)
        if opts.loose and opts.value_of is not None and opts.first is None:
            best = _rounded_plan(m, cand, wf, catalog, solver, clock, own)
            if (best is not None and best[1].failed_types and m.size > tuning.REROUND_MIN_ROWS
                    and clock.can_start("a rounded plan", restricted=True)):
                # Its failed types get the cuts a packing round would give them, and the
                # LP's new point is rounded again.
                for key in best[1].failed_types:
                    _tighten(m, key, best[0].n.get(key, 0), wf)
                again = _rounded_plan(m, cand, wf, catalog, solver, clock, own)
                if again is not None and again[2] < best[2]:
                    best = again
    if m.lp_bound is not None:
        proven = m.lp_bound
    for round_ in range(tuning.MAX_CUT_ROUNDS):
        if pending is not None:
            (out, exp), pending = pending, None
        else:
            if (round_ or best is not None) and not clock.can_start("a packing round"):
                break  # out of time: a repaired plan is reported as feasible
            begun = opts.first.outcome(m, clock.limits()[0]) if round_ == 0 and opts.first else None
            if begun is not None:
                out = begun
            else:
                _generate_patterns(m, clock)
                # The clock's limit is all the time left (the safety net).
                seconds, _ = clock.limits()
                # With a bound proven by an earlier round, a plan within the gap of it is
                # proven by that bound: the solve stops on finding one instead of proving it
                # again.
                out = solve(m, solver, seconds, round_gap,
                            work_ticks=all_left() if closing else half_left(),
                            warm=opts.warm or round_ > 0, target=_target(proven, opts.gap),
                            beat_start=opts.warm and round_ == 0, bare_ticks=bare_ticks())
                closing = False
            clock.spend(out.ticks, out.clock_stopped, out.seconds)
            if out.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION):
                break
            if out.exact and out.bound is not None:
                proven = out.bound if proven is None else max(proven, out.bound)
            if m.lp_bound is not None:
                proven = m.lp_bound if proven is None else max(proven, m.lp_bound)
            if _clock_ended_worse(out, best, m.prob.sense == pulp.LpMaximize,
                                  _held_value(best, opts.value_of)):
                break
            exp = expand(out, cand, wf, catalog)
        # Every expansion is a whole plan (repaired if need be): keep the best one seen (by
        # what the program minimises: capex, or TCO under objective tco), since a later
        # solve under a shorter time limit may find a worse incumbent.
        value = expansion_value(exp, wf, catalog)
        if best is None or value < best[2]:
            best = (out, exp, value)
        if not exp.failed_types or repaired_free(out, exp, opts.value_of):
            target = _target(proven, opts.gap)
            if (round_gap <= opts.gap or (out.gap is not None and out.gap <= opts.gap)
                    or (target is not None and out.objective is not None
                        and out.objective <= target)):
                if (opts.close and not closed and out.status == SolveStatus.FEASIBLE
                        and not out.clock_stopped and out.gap is not None and out.gap > opts.gap
                        and (proven is None or value > proven * (1 + opts.gap) + 0.01)
                        and own is not None and own - spent() >= 1
                        and clock.can_start("proving the plan")):
                    closing = closed = True
                    continue
                if drives_alone(value, exp.drive_extra, proven, opts.gap):
                    drives.append(exp.drive_extra)
                if (retries > 0 and exp.disk_types and proven is not None
                        and best[2] > proven * (1 + opts.gap) + 0.01):
                    # Valid cuts first (the bound of the next solve still counts), then
                    # another choice of the program's, which is a restriction.
                    retries -= 1
                    if not m.exact or not add_host_room_rows(m, exp.disk_types, wf, catalog):
                        exclude_disk_choice(m, exp.disk_types, out)
                    round_gap = opts.gap
                    continue
                break  # packed, and already within the target gap
            round_gap = opts.gap
            continue
        progress = False
        proved = False
        for key in exp.failed_types:
            # Valid cuts, which tighten the sums cheaply and keep the program a relaxation:
            # a pattern-LP cut every time, Martello-Toth cuts the first time; a type that
            # fails a third time in a small program is modelled by server patterns, which
            # pack exactly (docs/solver.md, "Cuts when the sums lie").
            cut = _tighten(m, key, out.n.get(key, 0), wf)
            if cut and failures[key] < tuning.PATTERNS_AFTER:
                progress = True
                continue
            progress |= cut
            # A type that failed tuning.PATTERNS_AFTER times, or that no new cut holds this plan
            # off (re-solving would find it again), goes to patterns (the cuts stay: valid).
            failures[key] = max(failures[key], tuning.PATTERNS_AFTER)
            if key not in m.patterns and m.size <= tuning.PATTERN_MAX_ROWS:
                if (m.exact and round_gap > opts.gap and not proved
                        and clock.can_start("proving a bound")):
                    # Patterns may make the program conservative (shared GPUs) or a
                    # restriction (priced): prove the bound of the relaxation first, on
                    # half of this option's work left.
                    proven, proof = _prove_bound(m, solver, clock, opts.gap, proven, half_left())
                    proved = True
                    if proof is not None:
                        trial = expand(proof, cand, wf, catalog)
                        if not trial.failed_types:
                            # Its plan packs every type: no patterns needed (yet); the next
                            # round takes it as its own, at the target gap.
                            pending = (proof, trial)
                            round_gap = opts.gap
                            progress = True
                            break
                # False past MAX_PATTERNS: the type then keeps its sums and cuts, and first
                # fit repairs what does not pack.
                progress |= disaggregate(m, key, wf.policy)
        if not progress:
            break  # nothing left to tighten: re-solving would find the same plan
    if best is None:
        return Searched(out, None, proven, tuple(drives))
    out, exp, _ = best
    return Searched(out, exp, proven, tuple(drives))


def _tighten(m: Model, key: str, bought: float, wf: WorkloadFile) -> bool:
    """One more packing failure of type ``key`` (counted in ``m.failures``), bought ``bought``
    servers: a pattern-LP cut at that count unless the type is on patterns, and the
    Martello-Toth cuts the first time. Whether a cut was added."""
    m.failures[key] = m.failures.get(key, 0) + 1
    cut = False
    if key not in m.patterns:
        cut = _pattern_cut(m, key, bought, wf.policy)
    if m.failures[key] == 1:
        cut |= _cuts_off_plan(m, key, wf)
    return cut


def drives_alone(value: float, extra: float, bound: float | None, gap: float) -> bool:
    """A plan worth ``value`` would be within ``gap`` of ``bound`` but for ``extra``, what
    its drives, whole on each server, cost beyond the program's drive configurations."""
    return bound is not None and extra > 0.005 and value - extra <= bound * (1 + gap) + 0.01


def _rounded_plan(m: Model, cand, wf: WorkloadFile, catalog: Catalog, solver: str,
                  clock: Budget, own: float | None) -> tuple | None:
    """A plan to fall back on, from the LP at the root cuts' point, in two small solves of
    the program, each a restriction (its bound proves nothing and is not used):

    1. each workload's replicas there rounded to whole ones (``rounded_placements``), those
       placements fixed, and the servers, shared GPUs and drives that hold them solved for
       (0.2 s at N = 200, 0.8 s at N = 1,000, two search checkpoints);
    2. from that plan, each placement held between the whole numbers around its LP value
       (``rounding_box``, which holds the first plan), on ``tuning.ROUNDED_BOX_WORK`` of the work.

    Both plans are expanded and the cheaper one is kept: the program's sums do not rank
    plans as their servers do (at N = 200 the first solved at 20,223,360 and expanded to
    19,964,970, the second at 20,043,990 and expanded to 20,141,700). (HiGHS's own first
    plan under a short limit can be many times the cost: N = 200 under --time-limit 10
    returned 284,575,550 against a bound of 19.7 million.) None where the LP or the first
    solve fail; left out under a budget (the served workloads are decisions) and for
    workloads with throughput targets (their replica counts are)."""
    if wf.policy.budget is not None or _relaxation(m, clock) is None:
        return None
    free = set(cand.targets)
    fixed = rounded_placements(m, free)
    if not fixed:
        return None
    box = rounding_box(m, free)
    rows = add_shared_big_rows(m, wf.policy)
    try:
        best = _restricted_plan(m, cand, wf, catalog, solver, clock,
                                {v: (count, count) for v, count in fixed.items()},
                                None if own is None else tuning.ROUNDED_WORK * own)
        if best is None or not clock.can_start("a rounded plan", restricted=True):
            return best
        wider = _restricted_plan(m, cand, wf, catalog, solver, clock, box,
                                 None if own is None else tuning.ROUNDED_BOX_WORK * own, warm=True,
                                 known=best)
    finally:
        for name in rows:
            m.prob.constraints.pop(name)
    return wider if wider is not None and wider[2] < best[2] else best


def _restricted_plan(m: Model, cand, wf: WorkloadFile, catalog: Catalog, solver: str,
                     clock: Budget, bounds: dict, work: float | None,
                     warm: bool = False, known: tuple | None = None) -> tuple | None:
    """The program solved with each variable of ``bounds`` held within its (low, up), on
    ``work`` checkpoints, to the loose gap; its plan expanded (None when it has none).
    ``warm``: from the variables' values of the solve before. ``known``: a plan in hand
    (outcome, expansion, value): when the solve returns the same decisions, its expansion
    is reused (at N = 1,000 the box often ends on the fixed placements' plan, and each
    expansion takes 10–15 s there)."""
    saved = [(v, v.lowBound, v.upBound) for v in bounds]
    for v, (low, up) in bounds.items():
        v.lowBound, v.upBound = low, up
    try:
        seconds, _ = clock.limits()
        ticks = None if work is None else max(1, int(work))
        out = solve(m, solver, seconds, tuning.LOOSE_GAP, work_ticks=ticks, warm=warm)
    finally:
        for v, low, up in saved:
            v.lowBound, v.upBound = low, up
    clock.spend(out.ticks, out.clock_stopped, out.seconds)
    if out.objective is None or out.status in (SolveStatus.INFEASIBLE,
                                               SolveStatus.NO_SOLUTION):
        return None
    out = replace(out, bound=None, exact=False)
    if known is not None and _same_decisions(out, known[0]):
        return (out,) + known[1:]
    exp = expand(out, cand, wf, catalog)
    return (out, exp, expansion_value(exp, wf, catalog))


def _same_decisions(a: Outcome, b: Outcome) -> bool:
    """Two outcomes buy and place the same (their expansions are the same plan)."""
    def nonzero(d: dict) -> dict:
        return {k: v for k, v in d.items() if v}
    return all(nonzero(getattr(a, f)) == nonzero(getattr(b, f))
               for f in ("n", "x", "shared", "z", "gpus", "serve")) and a.patterns == b.patterns


def rounded_placements(m: Model, free: set[str]) -> dict:
    """x_wot at the LP's point, rounded per workload by largest remainder (the floors, then
    one more to those of largest fraction until the workload's replicas are whole again),
    so every demand row still holds; workloads in ``free`` are left out."""
    by_workload: dict[str, list] = {}
    for (name, _, _), v in m.x.items():
        if name not in free:
            by_workload.setdefault(name, []).append(v)
    fixed: dict[pulp.LpVariable, int] = {}
    for variables in by_workload.values():
        values = [v.varValue or 0.0 for v in variables]
        counts = [math.floor(x + ROUNDING_TOLERANCE) for x in values]
        missing = round(sum(values)) - sum(counts)
        order = sorted(range(len(values)), key=lambda i: (-(values[i] - counts[i]), i))
        for i in order[:max(0, missing)]:
            counts[i] += 1
        fixed.update(zip(variables, counts, strict=True))
    return fixed


def rounding_box(m: Model, free: set[str]) -> dict:
    """x_wot at the LP's point, each held between the whole numbers around it (a whole
    value stays fixed), as (low, up) by variable; workloads in ``free`` are left out. It
    holds ``rounded_placements``'s point."""
    box: dict[pulp.LpVariable, tuple[int, int]] = {}
    for (name, _, _), v in m.x.items():
        if name not in free:
            x = v.varValue or 0.0
            box[v] = (math.floor(x + ROUNDING_TOLERANCE), math.ceil(x - ROUNDING_TOLERANCE))
    return box


def _held_value(best: tuple | None, value_of) -> float | None:
    """What the program minimises, measured on the best plan in hand (its repairs
    included; None when ``value_of`` cannot say, or there is no plan yet)."""
    if best is None or value_of is None:
        return None
    return value_of(best[0], best[1])


def _clock_ended_worse(out: Outcome, best: tuple | None, maximise: bool = False,
                       held: float | None = None) -> bool:
    """The clock ended this solve on a plan no better, by the program's own objective, than
    the best plan in hand: the time is spent, and expanding it cannot help. (On a generated
    1,000-workload mix a packing round stopped by the clock returned a plan 12 times the
    cost, whose expansion took 41 s past a 120 s limit.) ``held``, the program's objective
    measured on the best plan in hand (``value_of``), is what to beat where known: a plan
    the repair made dearer than its solve said leaves room for one between the two.
    Without it, the solve behind that plan."""
    if not out.clock_stopped or best is None:
        return False
    before, now = best[0].objective, out.objective
    if held is not None and before is not None and not maximise:
        before = max(before, held)
    if before is None or now is None:
        return False
    if maximise:  # the budget's first phase: most priority served
        before, now = -before, -now
    return now >= before - 1e-9 * abs(before)


def _own_work(clock: Budget, share: float, cap: int | None) -> float | None:
    """Search checkpoints one option may use in all its rounds: ``share`` of the work
    budget left, at most ``cap`` (None: no limit)."""
    own = None if clock.ticks is None else share * clock.ticks
    if cap is not None:
        own = float(cap) if own is None else min(own, float(cap))
    return own


def start_first(m, solver: str, clock: Budget, gap: float, share: float = 1.0,
                cap: int | None = None, beside: bool = False) -> Started | None:
    """The first solve of ``solve_and_expand(..., loose=False, warm=True)`` with this
    ``share``, ``cap`` and ``gap``, begun now from the variables' values of now
    (``solve.start_solve``; with ``beside`` it runs on a spare core meanwhile). Pass it as
    ``first``; None where it cannot be begun early.

    It may use all of the option's work, not half as a first round does: begun before the
    round ahead of it ends, it starts from an earlier plan (the cheapest, for the second
    alternative) rather than from the plan before it, and on a spare core its search is
    time the run spends anyway."""
    own = _own_work(clock, share, cap)
    ticks = None if own is None else max(1, int(own))
    return start_solve(m, solver, clock.limits()[0], gap, work_ticks=ticks, warm=True,
                       beat_start=True, beside=beside)


def repaired_free(out: Outcome, exp: Expansion, value_of) -> bool:
    """The repaired plan is worth what the solve said its plan was (``value_of``)."""
    if value_of is None or out.objective is None:
        return False
    value = value_of(out, exp)
    return value is not None and value <= out.objective + FREE_REPAIR_TOL * max(
        1.0, abs(out.objective))


FREE_REPAIR_TOL = 1e-9
"""Relative tolerance of "the repair cost nothing" (floating sums of the objective)."""


def _cuts_off_plan(m: Model, key: str, wf: WorkloadFile) -> bool:
    """Add a failed type's packing cuts; whether any of them cuts off the plan just solved
    (the model's variables still hold its values)."""
    before = set(m.prob.constraints)
    add_packing_cuts(m, key, wf.policy)
    new = [row for name, row in m.prob.constraints.items() if name not in before]
    # A row over a variable without a value (none solved yet) counts as cutting it off.
    return any(row.value() is None or not row.valid(1e-6) for row in new)


def _target(proven: float | None, gap: float) -> float | None:
    """The objective a plan must reach to be proven by ``proven``: within ``gap`` of it."""
    if proven is None:
        return None
    return proven + gap * abs(proven)


def _pattern_cut(m: Model, key: str, bought: float, policy: Policy) -> bool:
    """Add the pattern-LP cut of a type that failed to pack, weighed at the counts of the
    solve just read (its variables' values, fractional after an LP); True when it cuts that
    solution off."""
    t = m.types[key]
    kinds = pattern_cut_kinds(m, key)
    present = {kind: sum(v.varValue or 0.0 for v in vs) for kind, vs in kinds.items()}
    present = {kind: c for kind, c in present.items() if c > 1e-6}
    if not present:
        return False
    shape = list(present)
    weights = pattern_cut_weights(shape, [present[k] for k in shape], t.gpu_slots,
                                  usable(t.ram_gb, policy), t.platform.cpu_cores)
    if weights is None or sum(w * present[k] for k, w in zip(shape, weights,
                                                             strict=True)) <= bought + 1e-6:
        return False
    return add_pattern_cut(m, key, dict(zip(shape, weights, strict=True)))


ROUNDING_TOLERANCE = 1e-6
"""An LP value this close to a whole number counts as that number (``rounding_box``)."""


def root_rounds(m: Model, clock: Budget) -> int:
    """How many root rounds a time limit leaves room for: tuning.ROOT_CUT_ROUNDS, fewer where
    their estimated seconds (``tuning.ROOT_ROUND_S`` at 10,000 rows, growing with rows^1.5, the
    whole LP counted) would pass tuning.ROOT_SHARE of the work left in calibrated seconds (the work
    budget's own measure, so the count is the same on every run); never fewer than
    tuning.ROOT_MIN_ROUNDS."""
    left = clock.nominal_left(m.size)
    if left is None:
        return tuning.ROOT_CUT_ROUNDS
    each = tuning.ROOT_ROUND_S * (len(m.prob.constraints) / 10_000) ** 1.5
    return max(tuning.ROOT_MIN_ROUNDS,
               min(tuning.ROOT_CUT_ROUNDS, int(tuning.ROOT_SHARE * left / each)))


def _root_cuts(m: Model, policy: Policy, clock: Budget) -> None:
    """Pattern-LP cuts at the LP relaxation's point, for every type it uses, before the first
    integer solve (a cutting-plane root: each LP takes a fraction of an integer solve, and the
    cuts hold for every plan), ``root_rounds`` times. Skipped without HiGHS. On a machine
    slower than calibrated the clock stops them too once they used tuning.ROOT_SHARE of the seconds
    left (a rerun may then differ: noted)."""
    start, left = time.perf_counter(), clock.seconds_left()
    for _ in range(root_rounds(m, clock)):
        if left is not None and time.perf_counter() - start > tuning.ROOT_SHARE * left:
            clock.clock_skipped += 1
            return
        if _relaxation(m, clock) is None:
            return
        added = 0
        for key, n in m.n.items():
            if (n.varValue or 0.0) > 1e-6 and key not in m.patterns:
                added += _pattern_cut(m, key, n.varValue or 0.0, policy)
        if not added:
            return


def _relaxation(m: Model, clock: Budget) -> dict[str, float] | None:
    """``lp_duals`` of the whole program, its seconds counted (``Budget.spend_lp``: a solve of
    the whole program is not started with less than tuning.ROOT_LP_TIMES times as many left); on a
    minimisation that is a relaxation of the plan rules (``Model.exact``) its value bounds
    every plan (``m.lp_bound``), so a run the clock ends before the integer search of the
    whole program still reports a proven gap."""
    began = time.perf_counter()
    duals = lp_duals(m)
    clock.spend_lp(time.perf_counter() - began)
    if duals is not None and m.exact and m.prob.sense == pulp.LpMinimize:
        m.lp_bound = max(m.lp_bound or duals["objective"], duals["objective"])
    return duals


def pattern_bound(m: Model, wf: WorkloadFile, catalog: Catalog, cand, solver: str,
                  clock: Budget, gap: float, ticks: int | None) -> float | None:
    """A bound for a plan found on conservative patterns (``m.conservative``: shared GPUs
    counted at the most RAM one can need, so those solves' bounds prove nothing): the
    program built afresh, the same types on patterns with each shared GPU a kind of one
    GPU and no RAM or cores (``disaggregate``'s ``optimistic``), a relaxation, solved to
    ``gap`` within ``ticks``. None when a type's patterns would be priced (a restriction)
    or the solve proves nothing. On a hand-written 10-workload mix whose 4-GPU A100 PCIe
    type, holding shared embedding replicas, went to patterns, the plan of 898,850 stood
    0.18% above the last bound proven (897,290); this one proves 898,782, within 0.01%."""
    fresh = build(wf, catalog, cand, None)
    for key in m.patterns:
        disaggregate(fresh, key, wf.policy, optimistic=True)
    if not fresh.exact:
        return None
    out = _solve_relaxation(fresh, solver, clock, gap, ticks)
    return out.bound if out.exact and out.bound is not None else None


def drive_bound(m: Model, keys: tuple[str, ...], wf: WorkloadFile, catalog: Catalog, cand,
                solver: str, clock: Budget, gap: float,
                ticks: int | None) -> tuple[float | None, tuple[Outcome, Expansion] | None]:
    """A bound for a plan whose drives, whole per server, cost more than the program's disk
    rows said on the types ``keys`` (``Expansion.disk_types``): the program with every cut
    it holds and those types also on server patterns that carry their datasets and drives
    (``build.disaggregate_drives``), a relaxation, solved to ``gap`` within ``ticks``. The
    patterns go into a copy of the problem, and the variables get back the values they had
    (the alternatives start from the cheapest plan). Returns the bound proven (None when
    the program is not a relaxation now, ``Model.exact``, no such type could be modelled
    so, or the solve proves nothing) and the solve's plan, expanded (None without one): it
    packs those types' drives as the patterns said, so it may be cheaper than the plan in
    hand.

    On a generated 10-workload mix whose 8-GPU replicas fill every slot of four HGX
    servers, so that a 720 GB and a 900 GB preprocess replica never share one, the rows
    let their 2 TB and 1 TB datasets share one server's two drives (bound 765,990); the
    patterns see five drives, and the plan of 766,140 is proven. On another the solve's
    plan, 450 cheaper than the plan in hand, is its bound: proven optimal."""
    if not m.exact:
        return None, None
    # A copy of the problem takes the pattern rows and columns; the relaxation's plans are
    # not plans to show on the progress line.
    relaxation = replace(m, prob=m.prob.copy(), on_found=None)
    if not [key for key in keys if disaggregate_drives(relaxation, key, wf, catalog)]:
        return None, None
    saved = [(v, v.varValue) for v in m.prob.variables()]
    try:
        out = _solve_relaxation(relaxation, solver, clock, gap, ticks)
        bound = out.bound if out.exact and out.bound is not None else None
        if out.status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
            return bound, None
        return bound, (out, expand(out, cand, wf, catalog))
    finally:
        for v, value in saved:  # the variables are the program's own
            v.varValue = value


def _solve_relaxation(relaxation: Model, solver: str, clock: Budget, gap: float,
                      ticks: int | None) -> Outcome:
    """A solve of a relaxation for its bound: to ``gap``, within ``ticks`` and half the
    clock left, counted on the clock."""
    seconds, _ = clock.limits(0.5)
    out = solve(relaxation, solver, seconds, gap, work_ticks=ticks)
    clock.spend(out.ticks, out.clock_stopped, out.seconds)
    return out


def _prove_bound(m: Model, solver: str, clock: Budget, gap: float, proven: float | None,
                 ticks: int | None) -> tuple[float | None, Outcome | None]:
    """Solve the program, still a relaxation, to the target gap within ``ticks`` of work
    (half the clock left as the safety net); the better bound proven, and the solve's
    outcome when it holds a plan (None otherwise)."""
    seconds, _ = clock.limits(0.5)
    # From the last round's plan: its value is often the optimum, which is left to prove.
    out = solve(m, solver, seconds, gap, work_ticks=ticks, warm=True)
    clock.spend(out.ticks, out.clock_stopped, out.seconds)
    if out.exact and out.bound is not None:
        proven = out.bound if proven is None else max(proven, out.bound)
    plan = out if out.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE) else None
    return proven, plan


def _generate_patterns(m, clock: Budget) -> None:
    """Column generation for pattern-priced types: LP duals -> best new pattern, repeated.

    Stops when no pattern has negative reduced cost or after tuning.MAX_PRICING_ROUNDS (a count,
    so the same on every run); a quarter of the time left is the clock's safety net.
    """
    if not m.priced:
        return
    left = clock.seconds_left()
    stop = None if left is None else 0.25 * left
    for _ in range(tuning.MAX_PRICING_ROUNDS):
        now = clock.seconds_left()
        remaining = None if stop is None or left is None or now is None else stop - (left - now)
        if remaining is not None and remaining <= 0:
            clock.clock_stopped += 1
            return
        duals = lp_duals(m, None if remaining is None else max(0.05, remaining))
        if duals is None:
            return
        if not price_patterns(m, duals):
            # No pattern prices out: this LP value bounds every plan (column generation).
            if not m.conservative:
                m.lp_bound = max(m.lp_bound or duals["objective"], duals["objective"])
            return
