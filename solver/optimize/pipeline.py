"""The plan pipeline: candidates -> program -> solve -> expand -> check -> rank.

``plan`` is what ``plan-buy plan`` runs; it returns a PlanResult or raises a PlanBuyError
(InfeasibleError with a reason per workload, SolverError, CheckError).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..check import check_plan
from ..errors import CheckError, InfeasibleError, SolverError
from ..inputs.catalog import Catalog
from ..inputs.exclude import check_exclude
from ..inputs.owned import check_inventory, check_site
from ..inputs.workload import WorkloadFile
from .baseline import baseline_cost, why_no_reference
from .budget import Budget
from .build import (
    Model,
    add_packing_cuts,
    build,
    disaggregate,
    exclude_bom,
    fix_priority,
    price_patterns,
    set_cost_objective,
    set_priority_objective,
)
from .candidates import (
    Candidates,
    cores_unchecked,
    enumerate_candidates,
    is_timed,
    timed_reason,
    type_accepts,
    usable,
)
from .expand import Expansion, expand
from .outcome import SolveStatus
from .owning import own_cost
from .plan import OwnCost, PlanOption, PlanResult
from .solve import DEFAULT_GAP, Outcome, default_solver, lp_duals, solve
from .targets import target_figures


def infeasibility_reasons(wf: WorkloadFile, catalog: Catalog, cand: Candidates) -> list[str]:
    """Why each workload that cannot run anywhere cannot (empty when every one can)."""
    policy = wf.policy
    reasons = _storage_reasons(wf, catalog)
    best_gpu = max(catalog.gpus, key=lambda g: g.vram_gb)
    line = usable(best_gpu.vram_gb, policy)
    for w in wf.workloads:
        opts = cand.options[w.name]
        timed = None if opts or not is_timed(w) else timed_reason(
            w, catalog, policy, cand.tried[w.name])
        if timed is not None:
            reasons.append(timed)
            continue
        if not opts:
            tried = [e for e in cand.tried[w.name]]
            if not tried:
                reasons.append(f"{w.name}: no GPU in the catalog fits any platform")
                continue
            e = min(tried, key=lambda e: e.vram_gb_per_gpu)
            # Headroom is what blocks when some option would fit on the bare card.
            vram = {g.sku: g.vram_gb for g in catalog.gpus}
            fit_at = max((1 - t.vram_gb_per_gpu / vram[t.gpu] for t in tried if t.gpu in vram),
                         default=0.0)
            fix = (f"lower policy.headroom (now {policy.headroom:g}; it would fit at "
                   f"{_floor(fit_at):g} or less), " if fit_at > 0 else "")
            reasons.append(
                f"{w.name} needs {e.vram_gb_per_gpu:.1f} GB per GPU even at degree {e.degree} "
                f"on {e.gpu}; the largest usable VRAM in the catalog is {line:.1f} GB "
                f"({best_gpu.sku} {best_gpu.vram_gb:g} GB x {1 - policy.headroom:g}) — allowed "
                f"degrees are capped at {policy.max_parallel_degree} overall and at "
                f"{policy.max_pcie_parallel_degree} outside an NVLink domain. To fix: {fix}raise "
                "max_parallel_degree, lower the batch/context/seq_len, or add a larger GPU"
            )
            continue
        if not any(type_accepts(t, o, policy) for o in opts for t in cand.types):
            ram = min(o.ram_gb for o in opts)
            biggest = max((usable(t.ram_gb, policy) for t in cand.types), default=0.0)
            largest = max((t.ram_gb for t in cand.types), default=0.0)
            fix = (f"lower policy.headroom (now {policy.headroom:g}; it would fit at "
                   f"{_floor(1 - ram / largest):g} or less), " if ram < largest else "")
            reasons.append(
                f"{w.name} needs {ram:.0f} GB of host RAM per replica; the largest server in "
                f"the catalog offers {biggest:.0f} GB under the headroom line ({largest:.0f} GB "
                f"x {1 - policy.headroom:g}). To fix: {fix}lower data.in_memory_gb / workers, "
                "or add a platform with more DIMM slots"
            )
    return reasons


def _floor(headroom: float) -> float:
    """A headroom rounded down to two decimals, for advice that must still hold."""
    return math.floor(headroom * 100) / 100


def _storage_reasons(wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """The mix keeps data on disk but no platform has a drive bay to put a drive in."""
    keep = [w for w in wf.workloads if w.storage_tb > 0]
    if not keep or any(p.drive_bays > 0 for p in catalog.platforms):
        return []
    total = sum(w.storage_tb for w in keep)
    names = ", ".join(w.name for w in keep[:5]) + (f" and {len(keep) - 5} more"
                                                  if len(keep) > 5 else "")
    return [(
        f"the workloads keep {total:g} TB on disk (data.dataset_tb + data.checkpoints_tb of "
        f"{names}), but every platform in the catalog has drive_bays: 0, so no drive can be "
        "bought. To fix: give a platform drive bays in the catalog, or set those workloads' "
        "dataset_tb and checkpoints_tb to 0 if their data lives elsewhere"
    )]


def _counts(option_servers, platforms: bool) -> dict[str, int]:
    """GPUs by SKU (and servers by platform) of a physical plan."""
    out: dict[str, int] = {}
    for s in option_servers:
        if s.owned:
            continue  # not a purchase (P4)
        if platforms:
            out[s.platform] = out.get(s.platform, 0) + 1
        if s.gpu and s.gpu_count:
            out[s.gpu] = out.get(s.gpu, 0) + s.gpu_count
    return out


def _aggregate_counts(outcome: Outcome, cand: Candidates) -> dict[str, int]:
    """Servers by platform and GPUs by SKU as the program bought them (its G_t, not expanded)."""
    types = {t.key: t for t in cand.types}
    out: dict[str, int] = {}
    for key, n in outcome.n.items():
        if n and not types[key].owned:
            t = types[key]
            out[t.platform.sku] = out.get(t.platform.sku, 0) + n
            if t.gpu is not None and outcome.gpus.get(key):
                out[t.gpu.sku] = out.get(t.gpu.sku, 0) + outcome.gpus[key]
    return out


def plan(
    wf: WorkloadFile,
    catalog: Catalog,
    top: int = 3,
    solver: str | None = None,
    time_limit: float | None = None,
    gap: float = DEFAULT_GAP,
    distinct: str = "gpus",
    with_baseline: bool = True,
    started: float | None = None,
    reserve_s: float = 0.0,
) -> PlanResult:
    """The ``top`` cheapest distinct purchase plans for the mix, each checked.

    Args:
        wf: the workload file (its policy's budget, growth and headroom apply).
        catalog: the priced catalog.
        top: how many distinct purchase lists to return (platform and GPU counts differ).
        solver: "highs" or "cbc"; default the first available.
        time_limit: seconds for the whole run, counted from ``started``: solves share a
            deterministic work budget and never run past the clock (docs/solver.md, "How
            --time-limit is spent"); later ranks and the baseline are skipped, with a
            note, when it is spent.
        gap: relative MIP gap counted as optimal.
        distinct: "gpus" (options differ in GPU mix) or "hardware" (GPU or server mix).
        with_baseline: also price the rule-of-thumb reference configuration (R20).
        started: perf_counter time the run's clock started (default: now).
        reserve_s: seconds the caller needs after ``plan`` returns (the workbook).
    """
    check_exclude(wf.policy.exclude, catalog)
    check_inventory(wf, catalog)
    check_site(wf, catalog)
    solver = solver or default_solver()
    cand = enumerate_candidates(wf, catalog)
    reasons = infeasibility_reasons(wf, catalog, cand)
    if reasons:
        raise InfeasibleError("no plan exists: some workloads cannot run on any option", reasons)
    budget = wf.policy.budget
    m = build(wf, catalog, cand, budget)
    clock = Budget.start(time_limit, len(m.prob.constraints), sum(cand.replicas.values()),
                         top, started=started, reserve_s=reserve_s)

    if budget is not None:
        set_priority_objective(m)
        # Packing cuts found here keep the priority level one that real servers can reach
        # within the budget; otherwise the cost phase could be left with no plan.
        # Served priority must be the true maximum, so this phase never uses a loose gap.
        first, _, _ = _solve_and_expand(m, cand, wf, catalog, solver, clock, gap, loose=False,
                                        share=0.5)
        if first.status == SolveStatus.INFEASIBLE:
            raise InfeasibleError(f"no plan serves any workload within the budget of "
                                  f"{budget:,.0f}")
        if first.status == SolveStatus.NO_SOLUTION:
            raise SolverError(_no_plan_message(solver, time_limit, catalog, "within the budget"))
        best = sum(w.priority * cand.replicas[w.name] * first.serve.get(w.name, 0)
                   for w in wf.workloads)
        fix_priority(m, best)
        set_cost_objective(m)
        m.lp_bound = None  # an LP value of the priority phase bounds priority, not cost

    # Big-M of the distinctness cuts; targets (T3) let replica counts, so GPU counts, grow.
    ub = sum(cand.replicas.values()) + 64 + sum(
        (cand.most_replicas(name) - cand.replicas[name]) * wf.policy.max_parallel_degree
        for name in cand.targets)
    options: list[PlanOption] = []
    rank1: Outcome | None = None
    rank1_bound: float | None = None
    by_platform = distinct == "hardware"
    seen: set[tuple] = set()
    skipped = 0
    why_fewer = None
    for _ in range(top * MAX_DUPLICATE_TRIES):
        if len(options) == top:
            break
        if options and not clock.can_start(f"option {len(options) + 1}"):
            why_fewer = "the time limit ran out"
            break
        # Rank 1 may use most of the work left; each alternative gets a fair share of it.
        share = RANK1_SHARE if not options else 1.0 / max(1, top - len(options))
        out, exp, proven = _solve_and_expand(m, cand, wf, catalog, solver, clock, gap,
                                             share=share)
        if out.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION):
            if not options:
                if out.status == SolveStatus.NO_SOLUTION:
                    raise SolverError(_no_plan_message(solver, time_limit, catalog))
                raise InfeasibleError("no plan satisfies every constraint together")
            why_fewer = ("the time limit ran out" if out.status == SolveStatus.NO_SOLUTION
                         else "no other distinct purchase list exists")
            break
        if rank1 is None:
            rank1, rank1_bound = out, proven
        # The cut is on the program's counts; a slack GPU there can expand to a plan already
        # listed, so distinctness is judged again on the physical servers.
        exclude_bom(m, _aggregate_counts(out, cand), ub, platforms=by_platform)
        key = tuple(sorted(_counts(exp.servers, by_platform).items()))
        if key in seen:
            continue
        if budget is not None and exp.cost > budget + 0.01:
            continue  # servers added by a packing repair broke the budget: look further
        if options and out.bound and _value(exp, wf, catalog) > out.bound * (1 + WEAK_OPTION):
            skipped += 1  # the time ran out on this alternative: not worth showing finance
            continue
        seen.add(key)
        unserved = tuple(w.name for w in wf.workloads if not out.serve.get(w.name, 1))
        option = PlanOption(
            rank=len(options) + 1, total_cost=exp.cost, servers=exp.servers, lines=exp.lines,
            placements=exp.placements, unserved=unserved, lower_bound=out.bound,
            throughput=target_figures(exp.placements, wf, unserved),
            own=_own(exp, wf, catalog), idle=exp.idle,
        )
        problems = check_plan(option, wf, catalog)
        if problems:
            raise CheckError(f"plan-buy produced an invalid plan (a bug; please report it) "
                             f"for option {option.rank}", problems)
        options.append(option)

    else:
        if len(options) < top:
            why_fewer = ("the further solves repeated a purchase list already shown, broke the "
                         "budget or stopped far from their bound")
    if not options:
        raise SolverError(
            f"no plan within the budget of {budget:,.0f} packed into real servers in the time "
            "given. To fix: raise --time-limit or the budget"
        )
    objective = wf.policy.objective
    options.sort(key=lambda o: o.objective_value(objective))
    options = [replace(o, rank=i + 1) for i, o in enumerate(options)]
    best = options[0]
    # The cheapest plan is measured against the best bound a relaxation proved; without one
    # (the first solve did not finish with a bound) nothing is claimed beyond feasibility.
    if rank1_bound is None:
        rel_gap = None
        exact = False
    else:
        value = best.objective_value(objective)
        rel_gap = max(0.0, (value - rank1_bound) / value) if value else 0.0
        # rank1_bound comes only from solves of a relaxation (or a converged LP), so a plan
        # within the gap of it is proven, even if its own last solve was on patterns.
        exact = rel_gap <= gap + 1e-9
    baseline = None
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    if len(options) < top:
        notes += (f"{len(options)} of {top} options: {why_fewer}",)
    unchecked = cores_unchecked(catalog, wf.policy.exclude)
    if unchecked:  # said once per run, whatever the number of options
        notes += ((f"the catalog gives no cpu_cores for {', '.join(unchecked)}: CPU cores are "
                   "not checked on those servers. To fix: add cpu_cores to each platform"),)
    if skipped:
        notes += (
            (f"{skipped} alternative(s) left out: the time limit ran out more than "
             f"{WEAK_OPTION:.0%} above their bound; raise --time-limit to see them"),
        )
    if with_baseline and budget is None:
        if clock.can_start("the reference configuration"):
            baseline = baseline_cost(wf, catalog, cand, solver, clock)
            if baseline is None:
                notes += tuple(why_no_reference(wf, catalog, cand))
        else:
            notes += ("no R20 reference configuration priced: the time limit ran out",)
        if baseline is not None:
            baseline = baseline.compared_with(best.total_cost)
            saving = baseline.total_cost - best.total_cost
            if exact and saving < -0.01 and objective == "capex":
                # Two of plan-buy's own figures disagree; the plan itself passed the checker,
                # so it is still written and the disagreement is reported, not fatal.
                warnings += (
                    (f"the proven-optimal plan costs more than the reference configuration "
                    f"({baseline.name}), which should be impossible; the plan is correct "
                    "by the checker, but please report this to the plan-buy maintainers"),
                )
    if clock.clock_stopped or clock.clock_skipped:
        notes += ((f"the wall clock, not the work budget, ended {clock.clock_stopped} solve(s) "
                   f"and skipped {clock.clock_skipped} stage(s), so a rerun may return a "
                   "different plan"),)
    return PlanResult(
        status=SolveStatus.OPTIMAL if exact else SolveStatus.FEASIBLE,
        currency=catalog.currency,
        options=tuple(options),
        solver=solver,
        gap=round(rel_gap, 6) if rel_gap is not None else None,
        baseline=baseline,
        notes=notes,
        warnings=warnings,
    )


LARGEST_SANE_PRICE = 1e12
"""A unit price above this (a trillion) cannot be a quote: totals lose their cents and the
solver's arithmetic breaks down well before 1e300."""


def _no_plan_message(solver: str, time_limit: float | None, catalog: Catalog,
                     where: str = "") -> str:
    """Why no plan came back when the solver found none: absurd prices first, then the time
    limit only when one was set."""
    where = f" {where}" if where else ""
    top = max([g.price for g in catalog.gpus] + [p.price for p in catalog.platforms]
              + [d.price for d in catalog.memory] + [s.price for s in catalog.storage])
    if top > LARGEST_SANE_PRICE:
        return (f"the {solver} solver could not compute with this catalog: its prices reach "
                f"{top:.3g} {catalog.currency}, too large for floating-point arithmetic to "
                f"price a plan. To fix: correct the prices (every unit price below "
                f"{LARGEST_SANE_PRICE:.0e}), or state them in thousands")
    if time_limit:
        return (f"the {solver} solver stopped without a feasible plan{where} within the time "
                f"limit of {time_limit:g} s. To fix: raise --time-limit")
    return (f"the {solver} solver stopped without a feasible plan{where} and without a time "
            "limit; the program may be numerically unstable (e.g. prices too large or too "
            "small). To fix: check the catalog's prices, or try --solver cbc")


RANK1_SHARE = 0.6
"""Share of the work budget rank 1 may use (alternatives and the baseline share the rest)."""
WEAK_OPTION = 0.10
"""An alternative (rank 2+) more than this above its own solve's bound is not shown."""
MAX_DUPLICATE_TRIES = 4
"""Solves allowed per requested option when expansions repeat an earlier purchase list."""
MAX_CUT_ROUNDS = 8
LOOSE_GAP = 5e-3
"""Relative gap of the solves that may still fail to pack (0.5%): they only need to show
which server types to tighten, so proving their optimum would waste the time budget."""
"""Re-solves allowed per option after a packing failure, each with new valid cuts."""


def _own(exp: Expansion, wf: WorkloadFile, catalog: Catalog) -> OwnCost:
    """P1–P5 figures of an expansion's servers (idle owned servers draw nothing)."""
    return own_cost(exp.servers, exp.cost, wf.policy.tco, wf.site, catalog)


def _value(exp: Expansion, wf: WorkloadFile, catalog: Catalog) -> float:
    """What the program minimised, for a physical plan: TCO under ``objective: tco``,
    else capital cost (comparable with the program's bound)."""
    if wf.policy.objective == "tco":
        tco = _own(exp, wf, catalog).tco
        if tco is not None:
            return tco
    return exp.cost


def _solve_and_expand(m, cand, wf, catalog, solver, clock, gap, loose=True, share=1.0):
    """Solve; when replicas do not pack into the bought servers, tighten the type and re-solve.

    ``share`` of the work budget left is what this option may use, in all its rounds.
    Returns the outcome, its expansion, and the best lower bound proven by a solve whose
    program was still a relaxation (None if there was none).
    """
    own = None if clock.ticks is None else share * clock.ticks
    start_ticks = clock.ticks
    proven = None
    failures = m.failures
    best: tuple | None = None
    # Rounds that may still fail to pack are solved to a loose gap; once a solution packs,
    # one more solve closes the gap (the cuts and patterns found meanwhile are kept).
    round_gap = max(gap, LOOSE_GAP) if loose else gap
    for round_ in range(MAX_CUT_ROUNDS):
        if round_ and not clock.can_start("a packing round"):
            break  # out of time: a repaired plan is reported as feasible
        _generate_patterns(m, clock)
        # Half of this option's work left: a packing failure still leaves work to tighten
        # and re-solve. The clock's limit is all the time left (the safety net).
        seconds, _ = clock.limits()
        ticks = None if own is None else max(1, int(0.5 * (own - (start_ticks - clock.ticks))))
        out = solve(m, solver, seconds, round_gap, work_ticks=ticks)
        clock.spend(out.ticks, out.clock_stopped)
        if out.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION):
            break
        if out.exact and out.bound is not None:
            proven = out.bound if proven is None else max(proven, out.bound)
        if m.lp_bound is not None:
            proven = m.lp_bound if proven is None else max(proven, m.lp_bound)
        exp = expand(out, cand, wf, catalog)
        # Every expansion is a whole plan (repaired if need be): keep the cheapest one seen,
        # since a later solve under a shorter time limit may find a worse incumbent.
        if best is None or _value(exp, wf, catalog) < _value(best[1], wf, catalog):
            best = (out, exp)
        if not exp.failed_types:
            if round_gap <= gap or (out.gap is not None and out.gap <= gap):
                break  # packed, and already within the target gap
            round_gap = gap
            continue
        progress = False
        for key in exp.failed_types:
            # First valid cuts, which tighten the sums cheaply and keep the program a
            # relaxation; a type that fails again is modelled by server patterns, which pack
            # exactly (docs/solver.md, "Cuts when the sums lie").
            failures[key] = failures.get(key, 0) + 1
            if failures[key] == 1:
                progress |= add_packing_cuts(m, key, wf.policy) > 0
            elif key not in m.patterns:
                if m.exact and round_gap > gap and clock.can_start("proving a bound"):
                    # Patterns may make the program conservative (shared GPUs) or a
                    # restriction (priced): prove the bound of the relaxation first, on
                    # half of this option's work left.
                    ticks = (None if own is None
                             else max(1, int(0.5 * (own - (start_ticks - clock.ticks)))))
                    proven = _prove_bound(m, solver, clock, gap, proven, ticks)
                # False past MAX_PATTERNS: the type then keeps its sums and cuts, and first
                # fit repairs what does not pack.
                progress |= disaggregate(m, key, wf.policy)
        if not progress:
            break  # nothing left to tighten: re-solving would find the same plan
    if best is None:
        return out, None, proven
    out, exp = best
    return out, exp, proven


def _prove_bound(m: Model, solver: str, clock: Budget, gap: float, proven: float | None,
                 ticks: int | None) -> float | None:
    """Solve the program, still a relaxation, to the target gap within ``ticks`` of work
    (half the clock left as the safety net); the better bound proven."""
    seconds, _ = clock.limits(0.5)
    out = solve(m, solver, seconds, gap, work_ticks=ticks)
    clock.spend(out.ticks, out.clock_stopped)
    if out.exact and out.bound is not None:
        return out.bound if proven is None else max(proven, out.bound)
    return proven


MAX_PRICING_ROUNDS = 30
"""LP solves spent pricing new server patterns before each integer solve."""


def _generate_patterns(m, clock: Budget) -> None:
    """Column generation for pattern-priced types: LP duals -> best new pattern, repeated.

    Stops when no pattern has negative reduced cost or after MAX_PRICING_ROUNDS (a count,
    so the same on every run); a quarter of the time left is the clock's safety net.
    """
    if not m.priced:
        return
    left = clock.seconds_left()
    stop = None if left is None else 0.25 * left
    for _ in range(MAX_PRICING_ROUNDS):
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


