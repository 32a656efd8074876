"""The plan pipeline: candidates -> program -> solve -> expand -> check -> rank.

``plan`` is what ``plan-buy plan`` runs; it returns a PlanResult or raises a PlanBuyError
(InfeasibleError with a reason per workload, SolverError, CheckError).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..check import check_plan
from ..errors import CheckError, InfeasibleError, InputError, SolverError
from ..inputs.catalog import MAX_PRICE, Catalog
from ..inputs.exclude import check_exclude
from ..inputs.owned import check_inventory, check_site
from ..inputs.workload import Policy, WorkloadFile
from .advice import checkpointing_note, parallel_advice, with_checkpointing
from .alternatives import (
    DEFAULT_SLACK,
    MODES,
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
from .baseline import baseline_cost, why_no_reference
from .budget import Budget
from .candidates import (
    Candidates,
    cores_of,
    cores_unchecked,
    enumerate_candidates,
    type_accepts,
    usable,
)
from .outcome import SolveStatus
from .plan import Baseline, PlanOption, PlanResult
from .program import (
    Model,
    build,
    drop_disk_choices,
    exclude_bom,
    fix_priority,
    hold_pair_rows,
    restore_rows,
    set_cost_objective,
    set_priority_objective,
)
from .replicas import ReplicaOption, is_timed, timed_reason
from .rounds import (
    drive_bound,
    drives_alone,
    expansion_own,
    expansion_value,
    pattern_bound,
    repaired_free,
    solve_and_expand,
    start_first,
)
from .site_fit import site_reasons
from .solve import DEFAULT_GAP, Outcome, Started, default_solver, spare_core
from .targets import target_figures


def infeasibility_reasons(wf: WorkloadFile, catalog: Catalog, cand: Candidates) -> list[str]:
    """Why each workload that cannot run anywhere cannot (empty when every one can)."""
    policy = wf.policy
    reasons = _storage_reasons(wf, catalog)
    allowed = [g for g in catalog.gpus if g.sku not in policy.exclude] or list(catalog.gpus)
    best_gpu = max(allowed, key=lambda g: g.vram_gb)
    line = usable(best_gpu.vram_gb, policy)
    among = "among the GPUs not excluded" if policy.exclude else "in the catalog"
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
                reasons.append(_no_gpu_reason(w.name, catalog, policy))
                continue
            vram = {g.sku: g.vram_gb for g in catalog.gpus}
            # The least need, on the largest card among equals (every GPU needs as much at
            # one degree: the one that comes nearest is named).
            e = min(tried, key=lambda e: (e.vram_gb_per_gpu, -vram.get(e.gpu or "", 0.0)))
            # Headroom is what blocks when some option would fit on the bare card.
            fit_at = max((1 - t.vram_gb_per_gpu / vram[t.gpu] for t in tried if t.gpu in vram),
                         default=0.0)
            fix = (f"lower policy.headroom (now {policy.headroom:g}; it would fit at "
                   f"{_floor(fit_at):g} or less), " if fit_at > 0 else "")
            then = with_checkpointing(w, catalog, policy)
            if then is not None:
                fix += (f"set activation_checkpointing: true (it would fit on {then.gpus} x "
                        f"{then.skus[0]}), ")
            degrees = parallel_advice(w, catalog, policy)
            fix += degrees.fix
            reasons.append(
                f"{w.name} needs {e.vram_gb_per_gpu:.1f} GB per GPU even at degree {e.degree} "
                f"on {e.gpu}; the largest usable VRAM {among} is {line:.1f} GB "
                f"({best_gpu.sku} {best_gpu.vram_gb:g} GB x {1 - policy.headroom:g}) — "
                f"{degrees.binds}. "
                f"To fix: {fix}lower the batch/context/seq_len, or add a larger GPU"
            )
            continue
        if not any(type_accepts(t, o, policy) for o in opts for t in cand.types):
            hosts = [t.disk_tb for o in opts for t in cand.types
                     if type_accepts(t, replace(o, local_tb=0.0), policy)]
            if hosts:
                reasons.append(_disk_reason(w.name, w.local_tb, max(hosts), policy))
                continue
            cores = _cores_reason(w.name, opts, cand, policy)
            if cores is not None:
                reasons.append(cores)
                continue
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


def _no_gpu_reason(name: str, catalog: Catalog, policy: Policy) -> str:
    """A workload with no GPU option tried: every GPU excluded, or none fits a platform."""
    allowed = [g.sku for g in catalog.gpus if g.sku not in policy.exclude]
    if not allowed:
        skus = [g.sku for g in catalog.gpus]
        return (f"{name} needs a GPU, but every GPU in the catalog is excluded ("
                f"{', '.join(skus[:8])}{' ...' if len(skus) > 8 else ''}: policy.exclude and "
                f"--exclude). To fix: stop excluding at least one of them, e.g. {skus[0]}")
    return (f"{name}: no GPU {'left after exclude' if policy.exclude else 'in the catalog'} "
            f"fits any platform ({', '.join(allowed[:8])}). To fix: add a platform whose "
            "form_factors include theirs, or stop excluding one that does")


def _cores_reason(name: str, opts: Sequence[ReplicaOption], cand: Candidates,
                  policy: Policy) -> str | None:
    """O3: why no server takes one replica when host RAM would fit and CPU cores do not
    (None when cores are not what blocks): the fewest cores an option needs and the most
    a server it could run on offers."""
    sized = [(o, t) for o in opts for t in cand.types
             if type_accepts(t, replace(o, cores=0.0, local_tb=0.0), policy)]
    if not sized:
        return None
    need = min(o.cores for o, _ in sized)
    most, platform = max((cores_of(t), t.platform.sku) for _, t in sized)
    fix = (f"write data.cpu_cores: {math.floor(most):g} or less (or fewer data.workers)"
           if most >= 1 else "fix the platforms' cpu_cores in the catalog")
    return (f"{name} needs {need:g} CPU cores per replica (data.cpu_cores, or its default "
            f"from data.workers); the most a server it fits offers is {most:g} ({platform} "
            f"cpu_cores). To fix: {fix}, or add a platform with more cores")


def _disk_reason(name: str, local_tb: float, biggest: float, policy: Policy) -> str:
    """O4: a workload whose local dataset fits no server it could otherwise run on, the
    largest of which holds ``biggest`` TB of drives."""
    fix = (f"lower policy.headroom (now {policy.headroom:g}; it would fit at "
           f"{_floor(1 - local_tb / biggest):g} or less), " if local_tb < biggest else "")
    return (
        f"{name} reads its {local_tb:g} TB dataset locally (data.storage: local), so every "
        f"server that runs a replica holds a copy; the largest server it can run on holds "
        f"at most {usable(biggest, policy):g} TB under the headroom line ({biggest:g} TB of "
        f"drives in all its bays x {1 - policy.headroom:g}). To fix: {fix}set data.storage: "
        "shared to keep one copy in the pool, or add a larger drive or a platform with more "
        "drive bays"
    )


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


ProgressFn = Callable[[str, "float | None"], None]
"""Told each stage as it starts ("option 2: fewest servers") and the best cost so far."""


@dataclass
class _Run:
    """What the stages of one ``plan`` share: inputs, the program, the clock, the options."""

    wf: WorkloadFile
    catalog: Catalog
    cand: Candidates
    m: Model
    solver: str
    clock: Budget
    gap: float
    top: int
    time_limit: float | None
    progress: ProgressFn
    options: list[PlanOption] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rank1_bound: float | None = None
    rank1_objective: float | None = None
    rank1_ticks: int = 0
    """Search checkpoints the cheapest plan's solves used (sizes the alternatives' caps)."""
    rank1_drives: float = 0.0
    """What the drives of the program's cheapest plan, whole on each server, cost beyond its
    drive configurations, when that alone kept the plan from the bound (0: it did not)."""
    last: Outcome | None = None
    """The solve behind the cheapest plan (its counts seed the ranked mixes' first cut)."""

    @property
    def budget(self) -> float | None:
        return self.wf.policy.budget

    @property
    def objective(self) -> str:
        """What the program minimises: ``capex`` or ``tco`` (policy.objective)."""
        return self.wf.policy.objective

    def value(self, option: PlanOption) -> float:
        """An option's objective value: TCO under ``objective: tco``, else capital cost."""
        return option.objective_value(self.objective)

    @property
    def share(self) -> float:
        """The share of the work budget left that the next option may use: an equal part
        for each option still wanted."""
        return 1.0 / max(1, self.top - len(self.options))

    def best_cost(self) -> float | None:
        return min((self.value(o) for o in self.options), default=None)

    def option(self, out: Outcome, exp, label: str) -> PlanOption:
        """The expanded plan as the next option (not checked)."""
        wf = self.wf
        unserved = tuple(w.name for w in wf.workloads if not out.serve.get(w.name, 1))
        return PlanOption(
            rank=len(self.options) + 1, total_cost=exp.cost, servers=exp.servers,
            lines=exp.lines, placements=exp.placements, unserved=unserved,
            lower_bound=out.bound, throughput=target_figures(exp.placements, wf, unserved),
            label=label, own=expansion_own(exp, wf, self.catalog), idle=exp.idle,
        )

    def repair_value(self, out: Outcome, exp) -> float | None:
        """Capital cost of an expanded plan with its drives priced as the program priced
        them (the program's drive rows are sums: rounding drives per server is not a
        repair); None under ``objective: tco``, where drives move more than capex."""
        if self.objective != "capex":
            return None
        return exp.cost - exp.drive_extra

    def checked(self, out: Outcome, exp, label: str) -> PlanOption:
        """The expanded plan as an option, checked (a failure is a bug: CheckError)."""
        option = self.option(out, exp, label)
        problems = check_plan(option, self.wf, self.catalog)
        if problems:
            raise CheckError(f"plan-buy produced an invalid plan (a bug; please report it) "
                             f"for option {option.rank}", problems)
        return option


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
    run = _Run(wf, catalog, cand, m, solver, clock, gap, top, time_limit, tell)
    if run.budget is not None:
        _serve_most_priority(run)
    _cheapest(run)
    if alternatives == "kinds":
        _alternatives(run, slack)
    else:
        _ranked_mixes(run, platforms=alternatives == "hardware")
    return _result(run, with_baseline)


def _serve_most_priority(run: _Run) -> None:
    """Budget phase one: the most priority the budget can serve, then fixed for the cost phase."""
    m, cand, wf = run.m, run.cand, run.wf
    run.progress("most priority within the budget", None)
    set_priority_objective(m)
    # Packing cuts found here keep the priority level one that real servers can reach
    # within the budget; otherwise the cost phase could be left with no plan.
    # Served priority must be the true maximum, so this phase never uses a loose gap.
    first, _, _ = solve_and_expand(m, cand, wf, run.catalog, run.solver, run.clock, run.gap,
                                   loose=False, share=0.5)
    if first.status == SolveStatus.INFEASIBLE:
        raise InfeasibleError(f"no plan serves any workload within the budget of "
                              f"{run.budget:,.0f}")
    if first.status == SolveStatus.NO_SOLUTION:
        raise SolverError(_no_plan_message(run.solver, run.time_limit, run.catalog,
                                           "within the budget"))
    best = sum(w.priority * cand.replicas[w.name] * first.serve.get(w.name, 0)
               for w in wf.workloads)
    fix_priority(m, best)
    set_cost_objective(m)
    m.lp_bound = None  # an LP value of the priority phase bounds priority, not cost


def _cut_ub(run: _Run) -> int:
    """Big-M of the distinctness cuts; targets (T3) let replica counts, so GPU counts, grow."""
    cand, wf = run.cand, run.wf
    return sum(cand.replicas.values()) + 64 + sum(
        (cand.most_replicas(name) - cand.replicas[name]) * wf.policy.max_parallel_degree
        for name in cand.targets)


def _cheapest(run: _Run) -> None:
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


def _cheapest_tries(run: _Run) -> None:
    """``_cheapest``'s search: up to MAX_DUPLICATE_TRIES plans, until one keeps the budget."""
    m, cand = run.m, run.cand
    start = run.clock.used
    for _ in range(MAX_DUPLICATE_TRIES):
        drives: list[float] = []
        out, exp, proven = solve_and_expand(m, cand, run.wf, run.catalog, run.solver,
                                            run.clock, run.gap, share=RANK1_SHARE,
                                            disk_retries=DISK_RETRIES, value_of=run.repair_value,
                                            drives=drives, close=True)
        drop_disk_choices(m)
        if out.status == SolveStatus.NO_SOLUTION:
            raise SolverError(_no_plan_message(run.solver, run.time_limit, run.catalog))
        if out.status == SolveStatus.INFEASIBLE:
            if run.rank1_bound is None and run.rank1_objective is None:
                seconds, _ = run.clock.limits()
                reasons = site_reasons(run.wf, run.catalog, cand, run.solver, seconds, run.gap)
                raise InfeasibleError("no plan satisfies every constraint together"
                                      + (": the mix does not fit the site" if reasons else ""),
                                      reasons)
            break
        if run.rank1_objective is None:
            run.rank1_bound, run.rank1_objective = proven, out.objective
        if run.budget is not None and exp.cost > run.budget + 0.01:
            # Servers added by a packing repair broke the budget: look further.
            exclude_bom(m, _aggregate_counts(out, cand), _cut_ub(run))
            continue
        # Under objective tco rank 1 is the plan cheapest to own, not to buy.
        label = "lowest TCO" if run.objective == "tco" else "cheapest"
        run.options.append(run.checked(out, exp, label))
        run.last = out
        run.rank1_ticks = run.clock.used - start
        run.rank1_drives = drives[0] if drives else 0.0
        _prove_patterns(run, exp)
        _prove_drives(run, exp)
        return
    raise SolverError(
        f"no plan within the budget of {run.budget:,.0f} packed into real servers in the "
        "time given. To fix: raise --time-limit or the budget"
    )


def _prove_patterns(run: _Run, exp) -> None:
    """The cheapest plan, found on conservative patterns (shared GPUs at the most RAM they
    can need), stands above the gap of the last bound proven: prove one for it afresh
    (``rounds.pattern_bound``)."""
    m = run.m
    if m.conservative and not m.priced:
        _raise_bound(run, exp, lambda ticks: (pattern_bound(
            m, run.wf, run.catalog, run.cand, run.solver, run.clock, run.gap, ticks), None))


def _prove_drives(run: _Run, exp) -> None:
    """The cheapest plan's drives, whole per server, cost more than the program's disk rows
    said on some types, and it stands above the gap of the last bound proven: prove one
    with those types also on server patterns that carry their datasets and drives
    (``rounds.drive_bound``), on no more work than rank 1's own (without a time limit
    too: on the 10-workload mixes it proved, 2 and 39 checkpoints against 120 and 203).
    That solve's plan replaces the cheapest when it costs less once expanded."""
    own = max(1, run.rank1_ticks)
    if exp.disk_types:
        _raise_bound(run, exp, lambda ticks: drive_bound(
            run.m, exp.disk_types, run.wf, run.catalog, run.cand, run.solver, run.clock,
            run.gap, own if ticks is None else min(ticks, own)))


def _raise_bound(run: _Run, exp, prove: Callable[[int | None],
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
    _, ticks = run.clock.limits(PATTERN_BOUND_SHARE)
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


def _ranked_mixes(run: _Run, platforms: bool) -> None:
    """``--alternatives gpu-mix|hardware``: the next cheapest plans with another GPU mix (and
    with ``platforms``, another server mix), by cutting off each mix found."""
    m, cand = run.m, run.cand
    ub = _cut_ub(run)
    label = "next hardware mix" if platforms else "next GPU mix"
    seen = {tuple(sorted(_counts(run.options[0].servers, platforms).items()))}
    if run.last is not None:
        exclude_bom(m, _aggregate_counts(run.last, cand), ub, platforms=platforms)
    skipped = 0
    why_fewer = None
    for _ in range((run.top - 1) * MAX_DUPLICATE_TRIES):
        if len(run.options) == run.top:
            break
        if not run.clock.can_start(f"option {len(run.options) + 1}"):
            why_fewer = "the time limit ran out"
            break
        run.progress(f"option {len(run.options) + 1}: {label}", run.best_cost())
        out, exp, _ = solve_and_expand(m, cand, run.wf, run.catalog, run.solver, run.clock,
                                       run.gap, share=run.share, value_of=run.repair_value)
        if out.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION):
            why_fewer = ("the time limit ran out" if out.status == SolveStatus.NO_SOLUTION
                         else "no other distinct purchase list exists")
            break
        # The cut is on the program's counts; a slack GPU there can expand to a plan already
        # listed, so distinctness is judged again on the physical servers.
        exclude_bom(m, _aggregate_counts(out, cand), ub, platforms=platforms)
        key = tuple(sorted(_counts(exp.servers, platforms).items()))
        if key in seen:
            continue
        if run.budget is not None and exp.cost > run.budget + 0.01:
            continue  # servers added by a packing repair broke the budget: look further
        if out.bound and expansion_value(exp, run.wf, run.catalog) > out.bound * (1 + WEAK_OPTION):
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
            f"{WEAK_OPTION:.0%} above their bound; raise --time-limit to see them")


@dataclass(frozen=True)
class _Within:
    """What every alternative's solve shares: the cheapest plan's value C*, its proven
    bound L, the slack, and each direction's work cap and gap."""

    best: float
    lower: float
    slack: float
    cap: int
    gap: float

    def aim(self, run: _Run, d: Direction) -> None:
        """Set the program's objective to direction ``d`` (``set_direction_objective``).

        The LP bound proven so far (``m.lp_bound``, rank 1's cost or another direction's
        f) bounds another objective: it is dropped, else the rounds read it as a bound on
        this one (a cost of thousands against an f of a few servers), and a search ends on
        its first plan as if proven."""
        set_direction_objective(run.m, d, run.catalog, self.best, self.lower, self.slack)
        run.m.lp_bound = None

    def value_of(self, run: _Run, d: Direction) -> Callable[[Outcome, Any], float | None]:
        """That objective measured on an expanded plan, its drives priced as the program
        priced them (``rounds.repaired_free``); None under ``objective: tco``."""
        def value(out: Outcome, exp) -> float | None:
            cost = run.repair_value(out, exp)
            if cost is None:
                return None
            option = run.option(out, exp, d.label)
            return direction_value(d, option, run.catalog, cost, self.best, self.lower,
                                   self.slack)
        return value

    def search(self, run: _Run, d: Direction,
               first: Started | None) -> tuple[Outcome, Any, float | None]:
        """Direction ``d``'s plan: its rounds from the last plan, within its work cap, and
        the lower bound its relaxations proved on the objective (None: none proved)."""
        return solve_and_expand(
            run.m, run.cand, run.wf, run.catalog, run.solver, run.clock, self.gap,
            loose=False, share=run.share, warm=True, cap=self.cap,
            value_of=self.value_of(run, d), first=first, shown=self.shown(run))

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

    def solved(self, run: _Run, d: Direction, out: Outcome, exp) -> bool:
        """The search proved its optimum over the whole slack and the plan shown is worth
        it in the direction's objective (``rounds.repaired_free``). A plan repaired to pack
        may be worse than the optimum proven, and so may one that packed: expansion buys
        only the shared GPUs its replicas fill (on q3, most spare VRAM's solve proved
        1,130.9 GB on four RTX 4090 workstations of two GPUs; their shared replicas fit
        one GPU fewer, and the plan shown had 1,106.9 GB), so its status says nothing of
        the plan until it is measured."""
        return (out.status == SolveStatus.OPTIMAL and exp is not None
                and repaired_free(out, exp, self.value_of(run, d)))

    def over(self, run: _Run, out: Outcome, exp) -> float:
        """How far an expanded plan's value is above the slack (0: within it, or no plan)."""
        if exp is None:
            return 0.0
        excess = expansion_value(exp, run.wf, run.catalog) - (1 + self.slack) * self.best
        return excess if excess > 0.01 else 0.0

    def shown(self, run: _Run) -> Callable[[Outcome, Any], bool]:
        """Whether an expanded plan could be shown as it is (``_judge``): within the slack
        of the cheapest and within the budget."""
        def within(out: Outcome, exp) -> bool:
            return (self.over(run, out, exp) <= 0
                    and (run.budget is None or exp.cost <= run.budget + 0.01))
        return within


def _alternatives(run: _Run, slack: float) -> None:
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
    within = _Within(best, min(lower, best), slack,
                     max(MIN_ALTERNATIVE_TICKS, int(ALTERNATIVE_WORK * run.rank1_ticks)),
                     max(run.gap, ALTERNATIVE_GAP))
    define_cost_slack(m, best, slack)
    held = hold_pair_rows(m)  # valid rows for rank 1's bound; a cost to alternatives' roots
    lp_bound = m.lp_bound  # pattern pricing under another objective must not move it
    verdicts = _Verdicts()
    seen = {server_key(cheapest): cheapest.label}
    words = _Words(run.objective == "tco")
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
            out, exp, bound = within.search(run, d, begun.pop(d.key, None))
            solved = within.solved(run, d, out, exp)
            over = within.over(run, out, exp)
            if over > 0 and run.clock.can_start(f"option {len(run.options) + 1}"):
                # Pushed to the edge of the slack, the plan went over it once packed: search
                # again with room kept for what packing added (its drives, whole per server,
                # or the excess), which cuts that plan off.
                define_cost_slack(m, best, slack, less=max(over, exp.drive_extra))
                again, packed, _ = within.search(run, d, None)  # its bound: a tighter slack
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
    _better_elsewhere(run, tried, verdicts.left_out, cheapest)
    _note_alternatives(run, why_fewer, verdicts, slack, words)


def _begin_next(run: _Run, within: _Within, following: list[Direction],
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


AS_GOOD = "none does better than the cheapest plan, proven by its search's bound"
"""Why a direction is left out when its search, proven, found nothing better."""
AS_GOOD_TCO = "none does better than option 1, proven by its search's bound"
"""``AS_GOOD`` under ``objective: tco``, where option 1 is the plan of lowest TCO."""
NOT_FOUND = "no better plan found within its share of the search"
"""Why a direction is left out when its capped search found nothing better."""


@dataclass(frozen=True)
class _Words:
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


def _better_elsewhere(run: _Run, tried: Sequence[Direction], left_out: dict[str, list[str]],
                      cheapest: PlanOption) -> None:
    """A direction whose capped search found nothing better than the cheapest plan may be
    beaten in its own direction by another direction's plan (on a generated 10-workload
    mix fewest servers stayed at 26, while the lowest-power plan has 11): its reason says
    which plan, so the note does not leave the reader to think none is."""
    for d in tried:
        if d.label not in left_out.get(NOT_FOUND, []):
            continue
        best = _best_shown_below(run, d, cheapest)
        if best is not None:
            left_out[NOT_FOUND].remove(d.label)
            left_out.setdefault(f"{NOT_FOUND}; the {best.label} plan is better in that "
                                "direction", []).append(d.label)
    if not left_out.get(NOT_FOUND, True):
        del left_out[NOT_FOUND]


@dataclass
class _Verdicts:
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
        direction by its bound (``_Within.short_of_best``)."""
        if short == 0:
            self.cheaper_may_exist.append(option.label)
        elif short is not None:
            self.near[option.label] = d.amount(short, currency)
        else:
            self.unproven.append(option.label)


def _note_alternatives(run: _Run, why_fewer: str, verdicts: _Verdicts, slack: float,
                       words: _Words) -> None:
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


def _judge(run: _Run, within: _Within, d: Direction, out: Outcome, exp, bound: float | None,
           seen: dict, verdicts: _Verdicts, cheapest: PlanOption, solved: bool,
           words: _Words) -> None:
    """Keep one direction's plan as the next option, or say in ``verdicts`` why not.
    ``bound``: what direction ``d``'s search proved on its objective over the slack;
    ``solved``: the plan is that search's proven optimum (``_Within.solved``)."""
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


def _drop_beaten(run: _Run, tried: Sequence[Direction], verdicts: _Verdicts) -> None:
    """An alternative that another option shown beats in its own direction is left out
    (a capped fewest-servers search ended on 11 servers where the lowest-power plan has 5,
    on a generated 8-workload mix): its label would claim what the table contradicts.
    Kept when a note already names it as the plan another direction repeated."""
    by_key = {d.key: d for d in tried}
    for option in list(run.options[1:]):
        if option.direction is None:
            continue
        best = _best_shown_below(run, by_key[option.direction.key], option)
        if best is None or any(f"the {option.label} plan" in why for why in verdicts.left_out):
            continue
        run.options.remove(option)
        verdicts.forget(option.label)
        verdicts.leave_out(f"the {best.label} plan is better in that direction than its own "
                           "search's plan", option.label)


def _best_shown_below(run: _Run, d: Direction, than: PlanOption) -> PlanOption | None:
    """The alternative shown that is best in direction ``d``, if it is better there than
    ``than``; None when none is."""
    floor = d.measure(than, run.catalog) - 1e-6
    better = [o for o in run.options[1:] if d.measure(o, run.catalog) < floor]
    return min(better, key=lambda o: d.measure(o, run.catalog)) if better else None


def _result(run: _Run, with_baseline: bool) -> PlanResult:
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
        notes += _drives_gap(run, run.value(best))
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
        currency=run.catalog.currency,
        options=tuple(options),
        solver=run.solver,
        gap=round(rel_gap, 6) if rel_gap is not None else None,
        baseline=baseline,
        notes=notes,
        warnings=warnings,
    )


def _drives_gap(run: _Run, value: float) -> tuple[str, ...]:
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


def _reference(run: _Run, with_baseline: bool, best: PlanOption,
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


LARGEST_SANE_PRICE = MAX_PRICE
"""A unit price above this cannot be a quote (the catalog refuses it; a catalog built in
code may still hold one)."""


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
PATTERN_BOUND_SHARE = 0.25
"""Share of the work left that ``_prove_patterns`` may use."""
ALTERNATIVE_GAP = 1e-3
"""Relative gap of an alternative's solve (0.1%): far below one step of its direction for
any plan of under a thousand steps, and its cost is shown, not claimed optimal."""
ALTERNATIVE_WORK = 0.25
"""Each alternative's search checkpoints, all its rounds together, are capped at this
multiple of rank 1's; a solve gets half of what is left (the rest is kept for a packing
round), a first solve begun ahead all of it. A checkpoint of an alternative's search costs
more than one of rank 1's (its objective mixes a count with the cost): on the generated
10-workload mix, 0.3 let --top 3 take 2.28 times --top 1's wall time, 0.25 1.95 times, with
the same options on every shipped file and six generated mixes (its no-consumer-GPUs
search finds its plan at checkpoint 69 of the 70 it now gets; 0.2 ends before, on a plan
2.6% dearer)."""
MIN_ALTERNATIVE_TICKS = 60
"""The cap's floor, for mixes whose rank 1 took almost no search."""
DISK_RETRIES = 3
"""Re-solves of rank 1 allowed when its drives, rounded per server, cost more than the
program's disk rows said (O4): another optimum of the program may pack as they assumed."""
MAX_DUPLICATE_TRIES = 4
"""Solves allowed per requested option when expansions repeat an earlier purchase list."""
