"""The plan pipeline: candidates -> program -> solve -> expand -> check -> rank.

``plan`` is what ``plan-buy plan`` runs; it returns a PlanResult or raises a PlanBuyError
(InfeasibleError with a reason per workload, SolverError, CheckError).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..errors import InfeasibleError, InputError, SolverError
from ..inputs.catalog import Catalog
from ..inputs.exclude import check_exclude
from ..inputs.owned import check_inventory, check_site
from ..inputs.workload import WorkloadFile
from ..plan_types import PlanOption
from ..result import Baseline, PlanResult, SolveStatus, Termination
from . import tuning
from .advice import checkpointing_note
from .alternatives import (
    DEFAULT_SLACK,
    MODES,
)
from .baseline import baseline_cost, why_no_reference
from .bounds import drive_bound, pattern_bound
from .budget import Budget
from .candidates import (
    cores_unchecked,
    enumerate_candidates,
)
from .diagnosis import infeasibility_reasons, no_plan_error
from .engines import default_solver
from .expand import Expansion
from .mixes import ranked_mixes
from .near_optimal import search_kinds
from .plan_value import drives_alone
from .program import (
    build,
    drop_disk_choices,
    exclude_bom,
    fix_priority,
    set_cost_objective,
    set_priority_objective,
)
from .rounds import solve_and_expand
from .run_state import ProgressFn, Run, cut_ub, program_counts
from .search_options import SearchOptions
from .site_fit import site_reasons
from .solve import DEFAULT_GAP, Outcome
from .wording import drives_gap


def plan(
    wf: WorkloadFile,
    catalog: Catalog,
    top: int = 3,
    solver: str | None = None,
    time_limit: float | None = None,
    gap: float = DEFAULT_GAP,
    alternatives: str = "kinds",
    slack: float = DEFAULT_SLACK,
    with_baseline: bool = True,
    started: float | None = None,
    reserve_s: float = 0.0,
    progress: ProgressFn | None = None,
) -> PlanResult:
    """The cheapest purchase plan for the mix and up to ``top`` − 1 alternatives, each checked.

    Stages: candidates → program → (budget: most priority served) → the cheapest plan →
    alternatives → reference configuration → result.

    Args:
        wf: the workload file (its policy's budget, growth and headroom apply).
        catalog: the priced catalog.
        top: how many options to return, the cheapest included.
        solver: "highs" or "cbc"; default the first available.
        time_limit: seconds for the whole run, counted from ``started``: solves share a
            deterministic work budget and never run past the clock (docs/solver.md, "How
            --time-limit is spent"); later options and the baseline are skipped, with a
            note, when it is spent.
        gap: relative MIP gap counted as optimal.
        alternatives: "kinds" (near-optimal plans within ``slack`` that each push one
            direction, docs/solver.md "Alternatives"), "gpu-mix" (the next cheapest plans
            with another GPU mix) or "hardware" (another GPU or server mix).
        slack: kinds only: alternatives cost at most (1 + slack) x the cheapest plan.
        with_baseline: also price the rule-of-thumb reference configuration (R20).
        started: perf_counter time the run's clock started (default: now).
        reserve_s: seconds the caller needs after ``plan`` returns (the workbook).
        progress: told each stage as it starts, with the best cost so far.
    """
    if alternatives not in MODES:
        raise InputError(f"unknown alternatives mode '{alternatives}'. To fix: use one of "
                         f"{', '.join(MODES)}")
    check_exclude(wf.policy.exclude, catalog)
    check_inventory(wf, catalog)
    check_site(wf, catalog)
    solver = solver or default_solver()
    tell = progress or (lambda stage, best: None)
    tell("candidates", None)
    cand = enumerate_candidates(wf, catalog)
    reasons = infeasibility_reasons(wf, catalog, cand)
    if reasons:
        raise InfeasibleError("no plan exists: some workloads cannot run on any option", reasons)
    m = build(wf, catalog, cand, wf.policy.budget)
    # Calibrated without the O4 disk rows: counting them gave a 200-workload mix a quarter
    # of its search.
    clock = Budget.start(time_limit, m.size, sum(cand.replicas.values()), top,
                         started=started, reserve_s=reserve_s)
    run = Run(wf, catalog, cand, m, solver, clock, gap, top, time_limit, tell)
    if run.budget is not None:
        _serve_most_priority(run)
    _cheapest(run)
    if alternatives == "kinds":
        search_kinds(run, slack)
    else:
        ranked_mixes(run, platforms=alternatives == "hardware")
    return _result(run, with_baseline)


def _serve_most_priority(run: Run) -> None:
    """Budget phase one: the most priority the budget can serve, then fixed for the cost phase."""
    m, cand, wf = run.m, run.cand, run.wf
    run.progress("most priority within the budget", None)
    set_priority_objective(m)
    # Packing cuts found here keep the priority level one that real servers can reach
    # within the budget; otherwise the cost phase could be left with no plan.
    # Served priority must be the true maximum, so this phase never uses a loose gap.
    first = solve_and_expand(m, cand, wf, run.catalog, run.solver, run.clock,
                             SearchOptions(run.gap, loose=False, share=0.5)).outcome
    if first.status == SolveStatus.INFEASIBLE:
        raise InfeasibleError(f"no plan serves any workload within the budget of "
                              f"{run.budget:,.0f}")
    if first.status == SolveStatus.NO_SOLUTION:
        raise no_plan_error(run.solver, run.time_limit, run.catalog, "within the budget")
    best = sum(w.priority * cand.replicas[w.name] * first.serve.get(w.name, 0)
               for w in wf.workloads)
    fix_priority(m, best)
    set_cost_objective(m)
    m.lp_bound = None  # an LP value of the priority phase bounds priority, not cost



def _cheapest(run: Run) -> None:
    """Rank 1: the cheapest plan (with a budget, the cheapest serving the most priority).

    A plan whose packing repair broke the budget is cut off and the next one tried.
    """
    m = run.m
    stage = "the plan of lowest TCO" if run.objective == "tco" else "the cheapest plan"
    run.progress(stage, None)
    # The search's better plans, on the progress line: here the objective is what they cost.
    # Each solve (a packing round, a re-solve) starts its search afresh: show the least.
    shown = [math.inf]

    def found(value: float) -> None:
        if value < shown[0]:
            shown[0] = value
            run.progress(stage, value)

    m.on_found = found
    try:
        _cheapest_tries(run)
    finally:
        m.on_found = None


def _cheapest_tries(run: Run) -> None:
    """``_cheapest``'s search: up to tuning.MAX_DUPLICATE_TRIES plans, until one keeps the budget."""
    m, cand = run.m, run.cand
    start = run.clock.used
    for _ in range(tuning.MAX_DUPLICATE_TRIES):
        opts = SearchOptions(run.gap, share=tuning.RANK1_SHARE, close=True,
                             disk_retries=tuning.DISK_RETRIES, value_of=run.repair_value)
        out, exp, proven, drives = solve_and_expand(m, cand, run.wf, run.catalog, run.solver,
                                                    run.clock, opts)
        drop_disk_choices(m)
        if out.status == SolveStatus.NO_SOLUTION:
            raise no_plan_error(run.solver, run.time_limit, run.catalog)
        if out.status == SolveStatus.INFEASIBLE:
            if run.rank1_bound is None and run.rank1_objective is None:
                seconds, _ = run.clock.limits()
                reasons = site_reasons(run.wf, run.catalog, cand, run.solver, seconds, run.gap)
                raise InfeasibleError("no plan satisfies every constraint together"
                                      + (": the mix does not fit the site" if reasons else ""),
                                      reasons)
            break
        if exp is None:  # a solve that found a plan always expands it
            raise no_plan_error(run.solver, run.time_limit, run.catalog)
        if run.rank1_objective is None:
            run.rank1_bound, run.rank1_objective = proven, out.objective
        if run.budget is not None and exp.cost > run.budget + 0.01:
            # Servers added by a packing repair broke the budget: look further.
            exclude_bom(m, program_counts(out, cand), cut_ub(run))
            continue
        # Under objective tco rank 1 is the plan cheapest to own, not to buy.
        label = "lowest TCO" if run.objective == "tco" else "cheapest"
        run.options.append(run.checked(out, exp, label))
        run.last = out
        run.rank1_ticks = run.clock.used - start
        run.rank1_drives = drives[0] if drives else 0.0
        run.rank1_limited = out.status == SolveStatus.FEASIBLE or bool(run.clock.skipped)
        _prove_patterns(run, exp)
        _prove_drives(run, exp)
        return
    raise SolverError(
        f"no plan within the budget of {run.budget:,.0f} packed into real servers in the "
        "time given. To fix: raise --time-limit or the budget"
    )


def _prove_patterns(run: Run, exp: Expansion) -> None:
    """The cheapest plan, found on conservative patterns (shared GPUs at the most RAM they
    can need), stands above the gap of the last bound proven: prove one for it afresh
    (``bounds.pattern_bound``)."""
    m = run.m
    if m.conservative and not m.priced:
        _raise_bound(run, exp, lambda ticks: (pattern_bound(
            m, run.wf, run.catalog, run.cand, run.solver, run.clock, run.gap, ticks), None))


def _prove_drives(run: Run, exp: Expansion) -> None:
    """The cheapest plan's drives, whole per server, cost more than the program's disk rows
    said on some types, and it stands above the gap of the last bound proven: prove one
    with those types also on server patterns that carry their datasets and drives
    (``bounds.drive_bound``), on no more work than rank 1's own (without a time limit
    too: on the 10-workload mixes it proved, 2 and 39 checkpoints against 120 and 203).
    That solve's plan replaces the cheapest when it costs less once expanded."""
    own = max(1, run.rank1_ticks)
    if exp.disk_types:
        _raise_bound(run, exp, lambda ticks: drive_bound(
            run.m, exp.disk_types, run.wf, run.catalog, run.cand, run.solver, run.clock,
            run.gap, own if ticks is None else min(ticks, own)))


def _raise_bound(run: Run, exp: Expansion, prove: Callable[[int | None],
                                                 tuple[float | None, tuple[Outcome, Any] | None]]
                 ) -> None:
    """When the cheapest plan stands above the gap of the last bound proven, a better bound
    from ``prove`` (given its work: a share of what is left) is kept, and the plan it found
    (an outcome and its expansion), when cheaper. Capital cost without a budget only (the
    bounds are of that program)."""
    bound = run.rank1_bound
    if run.objective != "capex" or run.budget is not None or bound is None:
        return
    value = run.value(run.options[0])
    if value <= bound * (1 + run.gap) or not run.clock.can_start("proving the bound"):
        return
    run.progress("proving the cheapest plan's bound", value)
    _, ticks = run.clock.limits(tuning.PATTERN_BOUND_SHARE)
    proven, found = prove(ticks)
    if found is not None and found[1].cost < value - 0.01:
        out, exp = found
        run.options[0] = replace(run.checked(out, exp, run.options[0].label), rank=1)
        run.last = out
        value = run.value(run.options[0])
    if proven is None or proven <= bound:
        return
    run.rank1_bound = proven
    if not run.rank1_drives and drives_alone(value, exp.drive_extra, proven, run.gap):
        run.rank1_drives = exp.drive_extra  # what is left of the gap is option 1's drives


def _result(run: Run, with_baseline: bool) -> PlanResult:
    """Sort and label the options, measure rank 1 against its bound, price the reference."""
    # Ranked by what the program minimised (capex, or TCO under objective tco), and
    # over_cheapest measured on the same figure, so it is the share the slack bounds.
    options = sorted(run.options, key=run.value)
    cheapest = run.value(options[0])
    options = [replace(o, rank=i + 1, over_cheapest=(run.value(o) / cheapest - 1
                                                     if cheapest else 0.0))
               for i, o in enumerate(options)]
    best = options[0]
    # The cheapest plan is measured against the best bound a relaxation proved; without one
    # (the first solve did not finish with a bound) nothing is claimed beyond feasibility.
    if run.rank1_bound is None:
        rel_gap = None
        exact = False
    else:
        value = run.value(best)
        rel_gap = max(0.0, (value - run.rank1_bound) / value) if value else 0.0
        # rank1_bound comes only from solves of a relaxation (or a converged LP), so a plan
        # within the gap of it is proven, even if its own last solve was on patterns.
        exact = rel_gap <= run.gap + 1e-9
        # Report the bound the status claim rests on (the best one proven), not the last
        # solve's, which a loose round may have left lower; capped at the plan's own value
        # (the program's objective adds a tie-break of a thousandth per server).
        known = run.rank1_bound if best.lower_bound is None else max(run.rank1_bound,
                                                                      best.lower_bound)
        best = replace(best, lower_bound=min(known, value))
        options[0] = best
    notes = tuple(run.notes)
    if not exact and rel_gap is not None:
        notes += drives_gap(run, run.value(best))
    unchecked = cores_unchecked(run.catalog, run.wf.policy.exclude)
    if unchecked:  # said once per run, whatever the number of options
        notes += ((f"the catalog gives no cpu_cores for {', '.join(unchecked)}: CPU cores are "
                   "not checked on those servers. To fix: add cpu_cores to each platform"),)
    baseline, more, warnings = _reference(run, with_baseline, best, exact)
    notes += more
    advice = checkpointing_note(run.wf, run.catalog)
    if advice is not None:
        notes += (advice,)
    clock = run.clock
    if clock.clock_stopped or clock.clock_skipped:
        did = []
        if clock.clock_stopped:
            did.append(f"ended {clock.clock_stopped} solve(s)")
        if clock.clock_skipped:
            did.append(f"skipped {clock.clock_skipped} stage(s)")
        notes += ((f"the wall clock, not the work budget, {' and '.join(did)}, so a rerun "
                   "may return a different plan"),)
    return PlanResult(
        status=SolveStatus.OPTIMAL if exact else SolveStatus.FEASIBLE,
        termination=_termination(run, exact, rel_gap),
        currency=run.catalog.currency,
        options=tuple(options),
        solver=run.solver,
        gap=round(rel_gap, 6) if rel_gap is not None else None,
        baseline=baseline,
        notes=notes,
        reference_notes=more,
        warnings=warnings,
    )



def _termination(run: Run, exact: bool, rel_gap: float | None) -> Termination:
    """Why option 1 stands where it does: proven (at the bound, or within the gap), cut
    by the time limit, or not proven for another reason (the notes say which)."""
    if exact:
        return Termination.OPTIMAL if (rel_gap or 0.0) <= 1e-9 else Termination.GAP_REACHED
    limited = run.rank1_limited or "proving the bound" in run.clock.skipped
    if run.time_limit and limited:
        return Termination.TIME_LIMIT_WITH_PLAN
    return Termination.NOT_PROVEN


def _reference(run: Run, with_baseline: bool, best: PlanOption,
               exact: bool) -> tuple[Baseline | None, tuple[str, ...], tuple[str, ...]]:
    """The R20 reference configuration compared with the cheapest plan, with its notes and
    warnings (none with a budget, or when not asked for)."""
    if not with_baseline or run.budget is not None:
        return None, (), ()
    if not run.clock.can_start("the reference configuration"):
        return None, ("no R20 reference configuration priced: the time limit ran out",), ()
    run.progress("the reference configuration", run.value(best))
    baseline = baseline_cost(run.wf, run.catalog, run.cand, run.solver, run.clock)
    if baseline is None:
        return None, tuple(why_no_reference(run.wf, run.catalog, run.cand)), ()
    baseline = baseline.compared_with(best.total_cost)
    warnings: tuple[str, ...] = ()
    if exact and baseline.total_cost - best.total_cost < -0.01 and run.objective == "capex":
        # Two of plan-buy's own figures disagree; the plan itself passed the checker,
        # so it is still written and the disagreement is reported, not fatal. (Under
        # objective tco the best plan may rightly cost more to buy than the reference.)
        warnings += (
            (f"the proven-optimal plan costs more than the reference configuration "
             f"({baseline.name}), which should be impossible; the plan is correct "
             "by the checker, but please report this to the plan-buy maintainers"),
        )
    return baseline, (), warnings
