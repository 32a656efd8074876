"""Solve rounds: solve, expand, and when replicas do not pack, tighten and solve again.

Every option (the cheapest plan, each ranked mix, each alternative) is found by
``solve_and_expand``: valid packing cuts first, then server patterns priced from LP duals
(docs/solver.md, "Cuts when the sums lie"). One option's rounds share their state in a
``_Search``; what they are asked and return is ``search_options.py``'s, how a plan is
valued ``plan_value.py``'s, the cuts ``tighten.py``'s, the rounded plan ``rounded.py``'s
and the bounds proven apart ``bounds.py``'s.
"""

from __future__ import annotations

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import SolveStatus
from . import rounded, tuning
from .bounds import prove_bound
from .budget import Budget
from .candidates import Candidates
from .expand import Expansion, expand
from .lp import pulp
from .outcome import Outcome
from .plan_value import (
    clock_ended_worse,
    drives_alone,
    expansion_value,
    held_value,
    proven_target,
    repaired_free,
)
from .program import Model, add_host_room_rows, disaggregate, exclude_disk_choice
from .search_options import Best, Searched, SearchOptions, own_work
from .solve import solve
from .tighten import generate_patterns, root_cuts, tighten


def solve_and_expand(m: Model, cand: Candidates, wf: WorkloadFile, catalog: Catalog,
                     solver: str, clock: Budget, opts: SearchOptions) -> Searched:
    """Solve; when replicas do not pack into the bought servers, tighten the type and re-solve.

    How far and how hard to search is ``opts`` (``SearchOptions``, each field says what
    it does). Returns the best plan's outcome, its expansion, the best lower bound proven
    by a solve whose program was still a relaxation, and the drives that alone kept a
    plan from that bound (``Searched``).
    """
    return _Search(m, cand, wf, catalog, solver, clock, opts).run()


class _Search:
    """One option's search: the state its rounds share, each round's steps a method."""

    def __init__(self, m: Model, cand: Candidates, wf: WorkloadFile, catalog: Catalog,
                 solver: str, clock: Budget, opts: SearchOptions) -> None:
        self.m, self.cand, self.wf, self.catalog = m, cand, wf, catalog
        self.solver, self.clock, self.opts = solver, clock, opts
        self.own = own_work(clock, opts.share, opts.cap)
        """Search checkpoints this option may use in all its rounds (None: no limit)."""
        self.start_used = clock.used
        self.retries = opts.disk_retries
        self.drives: list[float] = []
        self.proven: float | None = None
        self.closing = False
        """The next solve is ``opts.close``'s (all the work left)."""
        self.closed = False
        """There was one already."""
        self.best: Best | None = None
        self.last: Outcome | None = None
        """The last solve read back (the outcome returned when no solve found a plan)."""
        self.pending: tuple[Outcome, Expansion] | None = None
        """A plan the bound-proving solve found that packs: the next round, without a solve."""
        # Rounds that may still fail to pack are solved to a loose gap; once a solution
        # packs, one more solve closes the gap (the cuts and patterns found meanwhile are
        # kept). A small program is solved to the gap at once: its solve proves the gap
        # about as fast as it reaches the loose one, and a plan that packs then needs no
        # second solve.
        loosen = opts.loose and m.size > tuning.LOOSE_MIN_ROWS
        self.round_gap = max(opts.gap, tuning.LOOSE_GAP) if loosen else opts.gap

    def spent(self) -> int:
        """Checkpoints this option has used so far."""
        return self.clock.used - self.start_used

    def half_left(self) -> int | None:
        """Half of this option's work left: a packing failure still leaves work to tighten
        and re-solve."""
        return None if self.own is None else max(1, int(0.5 * (self.own - self.spent())))

    def all_left(self) -> int | None:
        """All of this option's work left."""
        return None if self.own is None else max(1, int(self.own - self.spent()))

    def bare_ticks(self) -> int | None:
        """All of this option's work left, once the plan in hand could be opts.shown: a search
        that has found no plan of its own by then ends there (``solve``'s ``bare_ticks``)."""
        shown, best = self.opts.shown, self.best
        if shown is None or best is None or not shown(best.outcome, best.expansion):
            return None
        return self.all_left()

    def run(self) -> Searched:
        """All the rounds, up to ``tuning.MAX_CUT_ROUNDS``; what they found."""
        self.start()
        for round_ in range(tuning.MAX_CUT_ROUNDS):
            found = self.next_plan(round_)
            if found is None:
                break
            out, exp = found
            # Every expansion is a whole plan (repaired if need be): keep the best one seen
            # (by what the program minimises: capex, or TCO under objective tco), since a
            # later solve under a shorter time limit may find a worse incumbent.
            value = expansion_value(exp, self.wf, self.catalog)
            if self.best is None or value < self.best.value:
                self.best = Best(out, exp, value)
            if not exp.failed_types or repaired_free(out, exp, self.opts.value_of):
                if not self.packed(out, exp, value):
                    break
            elif not self.tighten_failed(out, exp):
                break  # nothing left to tighten: re-solving would find the same plan
        if self.best is None:
            assert self.last is not None  # the first round always solves
            return Searched(self.last, None, self.proven, tuple(self.drives))
        return Searched(self.best.outcome, self.best.expansion, self.proven,
                        tuple(self.drives))

    def start(self) -> None:
        """Before the first round, on a large program not yet given them: the root cuts and,
        for rank 1, the rounded plan to fall back on; the LP's bound as the first proven."""
        m, wf, opts = self.m, self.wf, self.opts
        if not m.root_cuts and m.size > tuning.ROOT_MIN_ROWS:
            m.root_cuts = True
            root_cuts(m, wf.policy, self.clock)
            if opts.loose and opts.value_of is not None and opts.first is None:
                self.best = self.rounded_plan()
        if m.lp_bound is not None:
            self.proven = m.lp_bound

    def rounded_plan(self) -> Best | None:
        """``rounded.rounded_plan``; when its plan needed repair on a large program, its
        failed types get the cuts a packing round would give them, and the LP's new point
        is rounded again (the cheaper plan is kept)."""
        m, wf = self.m, self.wf
        args = (m, self.cand, wf, self.catalog, self.solver, self.clock, self.own)
        best = rounded.rounded_plan(*args)
        if (best is not None and best.expansion.failed_types
                and m.size > tuning.REROUND_MIN_ROWS
                and self.clock.can_start("a rounded plan", restricted=True)):
            for key in best.expansion.failed_types:
                tighten(m, key, best.outcome.n.get(key, 0), wf)
            again = rounded.rounded_plan(*args)
            if again is not None and again.value < best.value:
                best = again
        return best

    def next_plan(self, round_: int) -> tuple[Outcome, Expansion] | None:
        """This round's plan, expanded: the one a bound-proving solve left pending, else a
        solve's; None when the round ends the search (no time to start it, no plan, or the
        clock ended it on a plan no better than the one in hand)."""
        if self.pending is not None:
            found, self.pending = self.pending, None
            return found
        if (round_ or self.best is not None) and not self.clock.can_start("a packing round"):
            return None  # out of time: a repaired plan is reported as feasible
        out = self.solve_round(round_)
        self.last = out
        self.clock.spend(out.ticks, out.clock_stopped, out.seconds)
        if out.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION):
            return None
        if out.exact and out.bound is not None:
            self.proven = out.bound if self.proven is None else max(self.proven, out.bound)
        lp_bound = self.m.lp_bound
        if lp_bound is not None:
            self.proven = lp_bound if self.proven is None else max(self.proven, lp_bound)
        if clock_ended_worse(out, self.best, self.m.prob.sense == pulp.LpMaximize,
                             held_value(self.best, self.opts.value_of)):
            return None
        return out, expand(out, self.cand, self.wf, self.catalog)

    def solve_round(self, round_: int) -> Outcome:
        """This round's solve: the first one begun earlier (``opts.first``) where it still
        holds, else a solve of the program as the rounds left it."""
        opts, m = self.opts, self.m
        if round_ == 0 and opts.first is not None:
            begun = opts.first.outcome(m, self.clock.limits()[0])
            if begun is not None:
                return begun
        generate_patterns(m, self.clock)
        # The clock's limit is all the time left (the safety net).
        seconds, _ = self.clock.limits()
        # With a bound proven by an earlier round, a plan within the gap of it is proven by
        # that bound: the solve stops on finding one instead of proving it again.
        out = solve(m, self.solver, seconds, self.round_gap,
                    work_ticks=self.all_left() if self.closing else self.half_left(),
                    warm=opts.warm or round_ > 0, target=proven_target(self.proven, opts.gap),
                    beat_start=opts.warm and round_ == 0, bare_ticks=self.bare_ticks())
        self.closing = False
        return out

    def packed(self, out: Outcome, exp: Expansion, value: float) -> bool:
        """A plan that packs (or whose repair cost nothing): whether to search on, to the
        target gap, to prove the plan (``opts.close``) or for another disk choice."""
        opts, gap = self.opts, self.opts.gap
        target = proven_target(self.proven, gap)
        if not (self.round_gap <= gap or (out.gap is not None and out.gap <= gap)
                or (target is not None and out.objective is not None
                    and out.objective <= target)):
            self.round_gap = gap
            return True
        if opts.close and not self.closed and self.worth_closing(out, value):
            self.closing = self.closed = True
            return True
        if drives_alone(value, exp.drive_extra, self.proven, gap):
            self.drives.append(exp.drive_extra)
        assert self.best is not None  # this round's plan at least
        if (self.retries > 0 and exp.disk_types and self.proven is not None
                and self.best.value > self.proven * (1 + gap) + 0.01):
            # Valid cuts first (the bound of the next solve still counts), then another
            # choice of the program's, which is a restriction.
            self.retries -= 1
            m = self.m
            if not m.exact or not add_host_room_rows(m, exp.disk_types, self.wf, self.catalog):
                exclude_disk_choice(m, exp.disk_types, out)
            self.round_gap = gap
            return True
        return False  # packed, and already within the target gap

    def worth_closing(self, out: Outcome, value: float) -> bool:
        """The plan, from a solve its work share ended before it proved the gap, gets one
        more solve with all of this option's work left (``SearchOptions.close``)."""
        gap, proven = self.opts.gap, self.proven
        return (out.status == SolveStatus.FEASIBLE and not out.clock_stopped
                and out.gap is not None and out.gap > gap
                and (proven is None or value > proven * (1 + gap) + 0.01)
                and self.own is not None and self.own - self.spent() >= 1
                and self.clock.can_start("proving the plan"))

    def tighten_failed(self, out: Outcome, exp: Expansion) -> bool:
        """Tighten each type that failed to pack; whether anything changed (a cut, patterns,
        or a plan left pending by a bound-proving solve)."""
        m = self.m
        progress = False
        proved = False
        for key in exp.failed_types:
            # Valid cuts, which tighten the sums cheaply and keep the program a relaxation:
            # a pattern-LP cut every time, Martello-Toth cuts the first time; a type that
            # fails a third time in a small program is modelled by server patterns, which
            # pack exactly (docs/solver.md, "Cuts when the sums lie").
            cut = tighten(m, key, out.n.get(key, 0), self.wf)
            if cut and m.failures[key] < tuning.PATTERNS_AFTER:
                progress = True
                continue
            progress |= cut
            # A type that failed tuning.PATTERNS_AFTER times, or that no new cut holds this
            # plan off (re-solving would find it again), goes to patterns (the cuts stay).
            m.failures[key] = max(m.failures[key], tuning.PATTERNS_AFTER)
            if key not in m.patterns and m.size <= tuning.PATTERN_MAX_ROWS:
                if (m.exact and self.round_gap > self.opts.gap and not proved
                        and self.clock.can_start("proving a bound")):
                    proved = True
                    if self.prove_first():
                        return True
                # False past MAX_PATTERNS: the type then keeps its sums and cuts, and first
                # fit repairs what does not pack.
                progress |= disaggregate(m, key, self.wf.policy)
        return progress

    def prove_first(self) -> bool:
        """Patterns may make the program conservative (shared GPUs) or a restriction
        (priced): prove the bound of the relaxation first, on half of this option's work
        left. True when that solve's plan packs every type: no patterns needed (yet), and
        the next round takes it as its own, at the target gap."""
        self.proven, proof = prove_bound(self.m, self.solver, self.clock, self.opts.gap,
                                         self.proven, self.half_left())
        if proof is None:
            return False
        trial = expand(proof, self.cand, self.wf, self.catalog)
        if trial.failed_types:
            return False
        self.pending = (proof, trial)
        self.round_gap = self.opts.gap
        return True
