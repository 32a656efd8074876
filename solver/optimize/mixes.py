"""``--alternatives gpu-mix|hardware``: the next cheapest plans with another GPU (or
server) mix, found by cutting off each purchase list already shown."""

from __future__ import annotations

from ..result import SolveStatus
from . import tuning
from .plan_value import expansion_value
from .program import exclude_bom
from .rounds import solve_and_expand
from .run_state import Run, cut_ub, program_counts, purchase_counts
from .search_options import SearchOptions


def ranked_mixes(run: Run, platforms: bool) -> None:
    """``--alternatives gpu-mix|hardware``: the next cheapest plans with another GPU mix (and
    with ``platforms``, another server mix), by cutting off each mix found."""
    m, cand = run.m, run.cand
    ub = cut_ub(run)
    label = "next hardware mix" if platforms else "next GPU mix"
    seen = {tuple(sorted(purchase_counts(run.options[0].servers, platforms).items()))}
    if run.last is not None:
        exclude_bom(m, program_counts(run.last, cand), ub, platforms=platforms)
    skipped = 0
    why_fewer = None
    for _ in range((run.top - 1) * tuning.MAX_DUPLICATE_TRIES):
        if len(run.options) == run.top:
            break
        if not run.clock.can_start(f"option {len(run.options) + 1}"):
            why_fewer = "the time limit ran out"
            break
        run.progress(f"option {len(run.options) + 1}: {label}", run.best_cost())
        opts = SearchOptions(run.gap, share=run.share, value_of=run.repair_value)
        out, exp, _, _ = solve_and_expand(m, cand, run.wf, run.catalog, run.solver, run.clock,
                                          opts)
        if out.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION) or exp is None:
            why_fewer = ("the time limit ran out" if out.status == SolveStatus.NO_SOLUTION
                         else "no other distinct purchase list exists")
            break
        # The cut is on the program's counts; a slack GPU there can expand to a plan already
        # listed, so distinctness is judged again on the physical servers.
        exclude_bom(m, program_counts(out, cand), ub, platforms=platforms)
        key = tuple(sorted(purchase_counts(exp.servers, platforms).items()))
        if key in seen:
            continue
        if run.budget is not None and exp.cost > run.budget + 0.01:
            continue  # servers added by a packing repair broke the budget: look further
        if out.bound and expansion_value(exp, run.wf, run.catalog) > out.bound * (1 + tuning.WEAK_OPTION):
            skipped += 1  # the time ran out on this alternative: not worth showing finance
            continue
        seen.add(key)
        run.options.append(run.checked(out, exp, label))
    else:
        if len(run.options) < run.top:
            why_fewer = ("the further solves repeated a purchase list already shown, broke the "
                         "budget or stopped far from their bound")
    if len(run.options) < run.top:
        run.notes.append(f"{len(run.options)} of {run.top} options: {why_fewer}")
    if skipped:
        run.notes.append(
            f"{skipped} alternative(s) left out: the time limit ran out more than "
            f"{tuning.WEAK_OPTION:.0%} above their bound; raise --time-limit to see them")

