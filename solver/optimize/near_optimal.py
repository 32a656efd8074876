"""``--alternatives kinds``: within a slack of the cheapest plan, one plan per direction
(fewest servers, no consumer GPUs, ...), each judged, kept or left out with a reason."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..inputs.catalog import Catalog
from ..plan_types import PlanOption
from ..result import SolveStatus
from . import tuning
from .alternatives import (
    Direction,
    define_cost_slack,
    direction_figure,
    direction_value,
    directions,
    improves,
    label_of,
    least_in_direction,
    server_key,
    set_direction_objective,
)
from .expand import Expansion
from .plan_value import expansion_value, repaired_free
from .program import hold_pair_rows, restore_rows, set_cost_objective
from .rounds import solve_and_expand
from .run_state import Run
from .search_options import Searched, SearchOptions, start_first
from .solve import Outcome, Started, spare_core
from .wording import NOT_FOUND, Verdicts, Words, note_alternatives


@dataclass(frozen=True)
class Within:
    """What every alternative's solve shares: the cheapest plan's value C*, its proven
    bound L, the slack, and each direction's work cap and gap."""

    best: float
    lower: float
    slack: float
    cap: int
    gap: float

    def aim(self, run: Run, d: Direction) -> None:
        """Set the program's objective to direction ``d`` (``set_direction_objective``).

        The LP bound proven so far (``m.lp_bound``, rank 1's cost or another direction's
        f) bounds another objective: it is dropped, else the rounds read it as a bound on
        this one (a cost of thousands against an f of a few servers), and a search ends on
        its first plan as if proven."""
        set_direction_objective(run.m, d, run.catalog, self.best, self.lower, self.slack)
        run.m.lp_bound = None

    def value_of(self, run: Run, d: Direction) -> Callable[[Outcome, Any], float | None]:
        """That objective measured on an expanded plan, its drives priced as the program
        priced them (``plan_value.repaired_free``); None under ``objective: tco``."""
        def value(out: Outcome, exp: Expansion) -> float | None:
            cost = run.repair_value(out, exp)
            if cost is None:
                return None
            option = run.option(out, exp, d.label)
            return direction_value(d, option, run.catalog, cost, self.best, self.lower,
                                   self.slack)
        return value

    def search(self, run: Run, d: Direction,
               first: Started | None) -> Searched:
        """Direction ``d``'s plan: its rounds from the last plan, within its work cap, and
        the lower bound its relaxations proved on the objective (None: none proved)."""
        opts = SearchOptions(self.gap, loose=False, share=run.share, warm=True, cap=self.cap,
                             value_of=self.value_of(run, d), first=first,
                             shown=self.shown(run))
        return solve_and_expand(run.m, run.cand, run.wf, run.catalog, run.solver, run.clock,
                                opts)

    def short_of_best(self, d: Direction, option: PlanOption, catalog: Catalog,
                      bound: float | None) -> float | None:
        """How much better than ``option`` a plan within the slack can be in direction
        ``d``, by the bound of ``d``'s search (``least_in_direction``): 0 when none is
        better; None when nothing is proven."""
        least = least_in_direction(d, bound, self.best, self.lower, self.slack)
        if least is None:
            return None
        short = d.measure(option, catalog) - least
        if short <= 1e-9:
            return 0.0
        # A count whose bound proves no more than none at all proves nothing: "within 6
        # servers of the best possible" on a 6-server plan only says there is a plan.
        return None if d.counted and least <= 0 else short

    def solved(self, run: Run, d: Direction, out: Outcome, exp: Expansion | None) -> bool:
        """The search proved its optimum over the whole slack and the plan shown is worth
        it in the direction's objective (``plan_value.repaired_free``). A plan repaired to pack
        may be worse than the optimum proven, and so may one that packed: expansion buys
        only the shared GPUs its replicas fill (on q3, most spare VRAM's solve proved
        1,130.9 GB on four RTX 4090 workstations of two GPUs; their shared replicas fit
        one GPU fewer, and the plan shown had 1,106.9 GB), so its status says nothing of
        the plan until it is measured."""
        return (out.status == SolveStatus.OPTIMAL and exp is not None
                and repaired_free(out, exp, self.value_of(run, d)))

    def over(self, run: Run, out: Outcome, exp: Expansion | None) -> float:
        """How far an expanded plan's value is above the slack (0: within it, or no plan)."""
        if exp is None:
            return 0.0
        excess = expansion_value(exp, run.wf, run.catalog) - (1 + self.slack) * self.best
        return excess if excess > 0.01 else 0.0

    def shown(self, run: Run) -> Callable[[Outcome, Any], bool]:
        """Whether an expanded plan could be shown as it is (``_judge``): within the slack
        of the cheapest and within the budget."""
        def within(out: Outcome, exp: Expansion) -> bool:
            return (self.over(run, out, exp) <= 0
                    and (run.budget is None or exp.cost <= run.budget + 0.01))
        return within


def search_kinds(run: Run, slack: float) -> None:
    """``--alternatives kinds``: within ``slack`` of the cheapest plan, one plan per direction
    (fewest servers, no consumer GPUs, ...), in order, until ``top`` options are found.

    A direction whose plan repeats an earlier option's servers, or is no better than the
    cheapest plan in its own direction, is left out with a note saying why.
    """
    if run.top <= 1:
        return
    m, catalog = run.m, run.catalog
    cheapest = run.options[0]
    # The slack is on what the program minimises: capex, or TCO under objective tco.
    best = run.value(cheapest)
    lower = run.rank1_bound if run.rank1_bound is not None else (run.rank1_objective or 0.0)
    # Each direction's search is capped at a multiple of rank 1's (a count of checkpoints,
    # so deterministic); it keeps the best plan found, always within the slack.
    within = Within(best, min(lower, best), slack,
                     max(tuning.MIN_ALTERNATIVE_TICKS, int(tuning.ALTERNATIVE_WORK * run.rank1_ticks)),
                     max(run.gap, tuning.ALTERNATIVE_GAP))
    define_cost_slack(m, best, slack)
    held = hold_pair_rows(m)  # valid rows for rank 1's bound; a cost to alternatives' roots
    lp_bound = m.lp_bound  # pattern pricing under another objective must not move it
    verdicts = Verdicts()
    seen = {server_key(cheapest): cheapest.label}
    words = Words(run.objective == "tco")
    why_fewer = f"every direction within {words.of(slack)} was tried"
    tried = directions(run.wf.policy)
    why_not = {d.key: d.applies(cheapest, catalog) for d in tried}
    todo = [d for d in tried if why_not[d.key] is None]
    begun: dict[str, Started] = {}
    """Directions whose first solve was begun ahead of their turn (``_begin_next``)."""
    beside = spare_core()
    try:
        for d in tried:
            if len(run.options) == run.top:
                break
            why = why_not[d.key]
            if why is not None:
                verdicts.leave_out(f"{words.first} {why}", d.label)
                continue
            if not run.clock.can_start(f"option {len(run.options) + 1}"):
                why_fewer = "the time limit ran out"
                break
            run.progress(f"option {len(run.options) + 1}: {d.label}", run.best_cost())
            _begin_next(run, within, todo[todo.index(d) + 1:], begun, beside)
            within.aim(run, d)
            out, exp, bound, _ = within.search(run, d, begun.pop(d.key, None))
            solved = within.solved(run, d, out, exp)
            over = within.over(run, out, exp)
            if (over > 0 and exp is not None
                    and run.clock.can_start(f"option {len(run.options) + 1}")):
                # Pushed to the edge of the slack, the plan went over it once packed: search
                # again with room kept for what packing added (its drives, whole per server,
                # or the excess), which cuts that plan off.
                define_cost_slack(m, best, slack, less=max(over, exp.drive_extra))
                again, packed, _, _ = within.search(run, d, None)  # its bound: a tighter slack
                define_cost_slack(m, best, slack)
                if packed is not None and within.over(run, again, packed) <= 0:
                    out, exp = again, packed
                    solved = False  # its optimum is on the tighter slack only
            _judge(run, within, d, out, exp, bound, seen, verdicts, cheapest, solved, words)
    finally:
        for ahead in begun.values():
            ahead.cancel()
    _drop_beaten(run, tried, verdicts)
    m.lp_bound = lp_bound
    set_cost_objective(m)
    m.prob.constraints.pop("cost_slack", None)
    restore_rows(m, held)
    better_elsewhere(run, tried, verdicts.left_out, cheapest)
    note_alternatives(run, why_fewer, verdicts, slack, words)


def _begin_next(run: Run, within: Within, following: list[Direction],
                begun: dict[str, Started], beside: bool) -> None:
    """Begin the next direction's first solve now, before this one's rounds, while two
    options or more are still wanted: on every machine alike, so that with a spare core it
    searches meanwhile and otherwise at its turn, the same program from the same start
    either way (``solve.Started``). It takes the share of the work left that this one
    takes, so together they stay within the work budget."""
    if not following or run.top - len(run.options) < 2 or following[0].key in begun:
        return
    within.aim(run, following[0])
    ahead = start_first(run.m, run.solver, run.clock, within.gap,
                        run.share, within.cap, beside)
    if ahead is not None:
        begun[following[0].key] = ahead



def better_elsewhere(run: Run, tried: Sequence[Direction], left_out: dict[str, list[str]],
                      cheapest: PlanOption) -> None:
    """A direction whose capped search found nothing better than the cheapest plan may be
    beaten in its own direction by another direction's plan (on a generated 10-workload
    mix fewest servers stayed at 26, while the lowest-power plan has 11): its reason says
    which plan, so the note does not leave the reader to think none is."""
    for d in tried:
        if d.label not in left_out.get(NOT_FOUND, []):
            continue
        best = best_shown_below(run, d, cheapest)
        if best is not None:
            left_out[NOT_FOUND].remove(d.label)
            left_out.setdefault(f"{NOT_FOUND}; the {best.label} plan is better in that "
                                "direction", []).append(d.label)
    if not left_out.get(NOT_FOUND, True):
        del left_out[NOT_FOUND]



def _judge(run: Run, within: Within, d: Direction, out: Outcome, exp: Expansion | None,
           bound: float | None, seen: dict, verdicts: Verdicts, cheapest: PlanOption,
           solved: bool, words: Words) -> None:
    """Keep one direction's plan as the next option, or say in ``verdicts`` why not.
    ``bound``: what direction ``d``'s search proved on its objective over the slack;
    ``solved``: the plan is that search's proven optimum (``Within.solved``)."""
    catalog, slack = run.catalog, within.slack
    ceiling = (1 + slack) * within.best
    if out.status == SolveStatus.NO_SOLUTION or exp is None:
        verdicts.leave_out("the time limit ran out", d.label)
        return
    option = run.checked(out, exp, d.label)
    # Its solve bounded f / step + cost share, not the cost: no cost bound to show.
    option = replace(option, label=label_of(d, option, catalog), lower_bound=None)
    again = seen.get(server_key(option))
    if run.value(option) > ceiling + 0.01:
        verdicts.leave_out(words.over(slack), d.label)
    elif run.budget is not None and option.total_cost > run.budget + 0.01:
        verdicts.leave_out("its servers, once packed, broke the budget", d.label)
    elif not improves(d, option, cheapest, catalog):
        # Before the repeat test: a search that came back with the cheapest plan's servers
        # (or another option's no better in this direction) found nothing better, and "the
        # same servers as the cheapest plan" read as if that plan had gone this way ("no
        # consumer GPUs" beside a cheapest plan with two RTX 4090s).
        # Only the bound shows that no plan within the slack is better: a search proven to
        # its gap trades its direction against the cost within one step, and its relative
        # gap is more than the share of a step the cost can add (1/S), so its status alone
        # does not (a generated 8-workload mix: "none does better" at 6 consumer GPUs, when
        # a plan with none costs 3.2% more, found by another direction).
        as_good = within.short_of_best(d, cheapest, catalog, bound) == 0
        verdicts.leave_out(words.as_good if as_good else NOT_FOUND, d.label)
    elif again is not None:
        verdicts.leave_out(f"the same servers as the {again} plan", d.label)
    else:
        seen[server_key(option)] = option.label
        short = within.short_of_best(d, option, catalog, bound)
        least = None if short is None else d.measure(option, catalog) - short
        option = replace(option, direction=direction_figure(d, option, catalog, least,
                                                                  cheapest))
        run.options.append(option)
        if not solved:
            verdicts.capped(option, short, d, catalog.currency)


def _drop_beaten(run: Run, tried: Sequence[Direction], verdicts: Verdicts) -> None:
    """An alternative that another option shown beats in its own direction is left out
    (a capped fewest-servers search ended on 11 servers where the lowest-power plan has 5,
    on a generated 8-workload mix): its label would claim what the table contradicts.
    Kept when a note already names it as the plan another direction repeated."""
    by_key = {d.key: d for d in tried}
    for option in list(run.options[1:]):
        if option.direction is None:
            continue
        best = best_shown_below(run, by_key[option.direction.key], option)
        if best is None or any(f"the {option.label} plan" in why for why in verdicts.left_out):
            continue
        run.options.remove(option)
        verdicts.forget(option.label)
        verdicts.leave_out(f"the {best.label} plan is better in that direction than its own "
                           "search's plan", option.label)


def best_shown_below(run: Run, d: Direction, than: PlanOption) -> PlanOption | None:
    """The alternative shown that is best in direction ``d``, if it is better there than
    ``than``; None when none is."""
    floor = d.measure(than, run.catalog) - 1e-6
    better = [o for o in run.options[1:] if d.measure(o, run.catalog) < floor]
    return min(better, key=lambda o: d.measure(o, run.catalog)) if better else None

