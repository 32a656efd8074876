"""Scenario sweeps: what each budget, demand growth, headroom and price change buys.

A sweep is data, so every scenario is checked like a file the user wrote. ``build_sweep`` parses the axes and turns the cartesian
product into scenarios, each a validated copy of the input (policy overrides through
``with_policy``, price multipliers through a re-validated catalog). ``run_sweep`` solves
them in worker processes and returns one row per scenario; ``sweep_frame`` lays the rows
out as one table (CSV, workbook) and ``ScenarioRow.to_json`` as JSON.

The knee of a group (scenarios that differ only in budget) is its cheapest full plan: the
smallest budget that serves every workload, found exactly by solving without a budget.
Budgets at or above the full plan's cost buy that same plan, so they are not solved again.
Under ``objective: tco`` that plan is the full plan of lowest TCO, which may cost more to buy
than another full plan: the knee is then found by a second solve of the group that
minimises capital cost.

Money is in the catalog's currency; priority is Σ priority × ⌈replicas × growth⌉.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from enum import StrEnum
from multiprocessing import connection

from pydantic import ValidationError

from .. import interrupt
from ..errors import InfeasibleError, InputError, PlanBuyError
from ..inputs.catalog import Catalog
from ..inputs.scenario import with_policy
from ..inputs.workload import WorkloadFile
from ..optimize.diagnosis import NoPlanInTime
from ..optimize.pipeline import plan
from ..optimize.solve import DEFAULT_GAP
from ..plan_types import BomLine
from ..result import PlanResult, Termination
from .axes import (
    MAX_SCENARIOS,
    Prices,
    parse_prices,
    parse_values,
    priced_catalog,
)

Owning = tuple[tuple[str, float | str], ...]
"""(name, value) of each cost-of-owning axis given: kwh_price, years, objective (P2)."""
Group = tuple[float, float, Prices, Owning]
"""(growth, headroom, price multipliers, owning): everything about a scenario but its
budget."""


@dataclass(frozen=True)
class Scenario:
    """One point of the grid; ``budget`` None means the cheapest plan that serves all."""

    id: int
    budget: float | None
    growth: float
    headroom: float
    prices: Prices = ()
    owning: Owning = ()
    """Cost-of-owning axes (``--kwh-price``, ``--years``, ``--objective``) and their values."""

    @property
    def group(self) -> Group:
        """Everything but the budget: scenarios of one group share their knee."""
        return (self.growth, self.headroom, self.prices, self.owning)


@dataclass
class Sweep:
    """A validated grid: scenarios, and the inputs of each group (budget cleared)."""

    wf: WorkloadFile
    catalog: Catalog
    scenarios: tuple[Scenario, ...]
    groups: dict[Group, tuple[WorkloadFile, Catalog]]
    price_targets: tuple[str, ...] = ()

    def inputs(self, s: Scenario) -> tuple[WorkloadFile, Catalog]:
        """The scenario's validated workload file and catalog."""
        wf, cat = self.groups[s.group]
        return (wf if s.budget is None else with_policy(wf, budget=s.budget)), cat


def _group_file(wf: WorkloadFile, growth: float, headroom: float) -> WorkloadFile:
    """A validated copy with that growth and headroom and no budget (the full plan)."""
    try:
        copy = with_policy(wf, growth=growth, headroom=headroom)
    except InputError as exc:
        raise InputError(
            f"--growth {growth:g} / --headroom {headroom:g}: invalid policy", exc.problems
        ) from None
    policy = copy.policy.model_copy(update={"budget": None})
    try:  # the file-level rules (planned replicas cap) depend on growth
        return WorkloadFile.model_validate({**dict(copy), "policy": policy})
    except ValidationError as exc:
        problems = [e["msg"] for e in exc.errors()]
        raise InputError(f"--growth {growth:g} gives an invalid workload file", problems) from None


def build_sweep(
    wf: WorkloadFile,
    catalog: Catalog,
    budget: str | None = None,
    growth: str | None = None,
    headroom: str | None = None,
    prices: Sequence[str] = (),
    kwh_price: str | None = None,
    years: str | None = None,
    objective: str | None = None,
) -> Sweep:
    """Parse the axes and validate every scenario before anything is solved.

    An axis not given takes the file's value (its policy's budget, if any, or none).

    Raises:
        InputError: a bad axis, an unknown SKU, too many scenarios, or an invalid copy.
    """
    p = wf.policy
    budgets: tuple[float | None, ...] = (
        parse_values(budget, "--budget", 0.0, strict=True, example="500k") if budget is not None
        else (p.budget,)  # --budget "" is a mistake to report, not "no budget"
    )
    budgets = tuple(sorted(budgets, key=lambda b: -1 if b is None else b))
    growths = parse_values(growth, "--growth", 0.0, strict=True, example="1.25") if growth else (p.growth,)
    headrooms = parse_values(headroom, "--headroom", 0.0, below=1.0) if headroom else (p.headroom,)
    price_axes = parse_prices(prices, catalog)
    owning_axes = _owning_axes(wf, kwh_price, years, objective)
    total = (len(budgets) * len(growths) * len(headrooms) * math.prod(len(m) for _, m in price_axes)
             * math.prod(len(v) for _, v in owning_axes))
    if total > MAX_SCENARIOS:
        raise InputError(
            f"the sweep has {total:,} scenarios; at most {MAX_SCENARIOS:,}. "
            "To fix: use fewer steps or values"
        )
    targets = tuple(t for t, _ in price_axes)
    scenarios: list[Scenario] = []
    groups: dict[Group, tuple[WorkloadFile, Catalog]] = {}
    price_grid = list(itertools.product(*(m for _, m in price_axes)))
    names = tuple(n for n, _ in owning_axes)
    owning_grid = list(itertools.product(*(v for _, v in owning_axes)))
    for g, h, mults, values in itertools.product(growths, headrooms, price_grid, owning_grid):
        pr = tuple(zip(targets, mults))
        own: Owning = tuple(zip(names, values))
        groups[(g, h, pr, own)] = (_owning_file(_group_file(wf, g, h), own),
                                   priced_catalog(catalog, pr))
        for b in budgets:
            scenarios.append(Scenario(len(scenarios) + 1, b, g, h, pr, own))
    return Sweep(wf, catalog, tuple(scenarios), groups, targets)


def _owning_axes(wf: WorkloadFile, kwh_price: str | None, years: str | None,
                 objective: str | None) -> tuple[tuple[str, tuple[float | str, ...]], ...]:
    """The cost-of-owning axes given (P2): kWh prices, horizons in years, objectives.

    Raises:
        InputError: a bad value, or an axis that needs ``policy.tco`` on a file without it
            and without ``--kwh-price``.
    """
    axes: list[tuple[str, tuple[float | str, ...]]] = []
    if kwh_price:
        axes.append(("kwh_price", parse_values(kwh_price, "--kwh-price", 0.0, below=100.0)))
    if years:
        values = parse_values(years, "--years", 1.0, below=31.0)
        if any(v != int(v) for v in values):
            raise InputError(f"--years: '{years}' must be whole years. To fix: e.g. 3,5,7")
        axes.append(("years", tuple(int(v) for v in values)))
    if objective:
        names = tuple(dict.fromkeys(o.strip() for o in objective.split(",")))
        bad = [o for o in names if o not in ("capex", "tco")]
        if bad:
            raise InputError(f"--objective: '{', '.join(bad)}' is not capex or tco. To fix: "
                             "write --objective capex,tco")
        axes.append(("objective", names))
    if axes and wf.policy.tco is None and not kwh_price:
        raise InputError(
            "--years and --objective need the cost of owning: the file has no policy.tco. "
            "To fix: add policy.tco (at least kwh_price) to the file, or pass --kwh-price")
    return tuple(axes)


def _owning_file(wf: WorkloadFile, owning: Owning) -> WorkloadFile:
    """A validated copy with the scenario's kWh price, years and objective (P2)."""
    if not owning:
        return wf
    values = dict(owning)
    tco = wf.policy.tco.model_dump() if wf.policy.tco is not None else {}
    tco.update({k: v for k, v in values.items() if k in ("kwh_price", "years")})
    policy = wf.policy.model_dump()
    policy["tco"] = tco
    if "objective" in values:
        policy["objective"] = values["objective"]
    try:
        return WorkloadFile.model_validate({**wf.model_dump(), "policy": policy})
    except ValidationError as exc:
        raise InputError("a cost-of-owning axis gives an invalid workload file",
                         [e["msg"] for e in exc.errors()]) from None


# -- Running ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Solved:
    """What one solve in a worker returned: a plan, or the error that stopped it."""

    result: PlanResult | None
    error: str | None = None
    exit_code: int | None = None
    seconds: float = 0.0
    termination: Termination | None = None
    """How the run ended (the plan's, or the error's when typed; None: another failure)."""


def solve_one(
    wf: WorkloadFile, catalog: Catalog, solver: str | None, time_limit: float | None, gap: float
) -> Solved:
    """Plan one scenario (rank 1 only, no R20 baseline); never raises for a failed plan."""
    start = time.perf_counter()
    try:
        result = plan(
            wf, catalog, top=1, solver=solver, time_limit=time_limit, gap=gap, with_baseline=False
        )
        return Solved(result, seconds=time.perf_counter() - start,
                      termination=result.termination)
    except PlanBuyError as exc:
        return Solved(None, str(exc), exc.exit_code, time.perf_counter() - start,
                      _error_termination(exc))
    except Exception as exc:  # noqa: BLE001 - a bug in one scenario must not sink the others
        return Solved(
            None, f"internal error: {type(exc).__name__}: {exc}", 1, time.perf_counter() - start
        )


def _error_termination(exc: PlanBuyError) -> Termination | None:
    """How a run that raised ``exc`` ended, where its type says (None: another failure)."""
    if isinstance(exc, InfeasibleError):
        return Termination.INFEASIBLE
    if isinstance(exc, NoPlanInTime):
        return Termination.TIME_LIMIT_WITHOUT_PLAN
    return None


class _Inline:
    """The executor interface for --jobs 1: runs each task at submit, in this process."""

    def submit(self, fn, *args) -> Future:
        f: Future = Future()
        f.set_result(fn(*args))
        return f

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


STOP_GRACE_S = 3.0
"""Seconds a stopped worker has to end its solver and remove its files before SIGKILL.

A worker waiting on CBC ends at once; one inside HiGHS's C code cannot run its handler
until HiGHS returns, and has nothing to clean up, so it is killed."""


def _stop(ex) -> None:
    """Cancel queued scenarios, stop running ones now, and return once every worker is gone.

    SIGTERM has a worker kill its solver process and remove its temporary files
    (``interrupt.worker_signals``); one still running after ``STOP_GRACE_S`` is killed.
    """
    if isinstance(ex, ProcessPoolExecutor):
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for proc in procs:
            proc.terminate()
        deadline = time.monotonic() + STOP_GRACE_S
        running = {proc.sentinel: proc for proc in procs}
        while running and (left := deadline - time.monotonic()) > 0:
            for sentinel in connection.wait(list(running), left):
                running.pop(sentinel)
        for proc in running.values():
            proc.kill()
        connection.wait([proc.sentinel for proc in running.values()], STOP_GRACE_S)
    ex.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class ScenarioRow:
    """One scenario and what it buys (money in the catalog's currency)."""

    scenario: Scenario
    status: str
    """optimal | feasible (time limit, best found) | infeasible | failed | timeout."""
    total_cost: float | None
    served_priority: float | None
    total_priority: float
    served: tuple[str, ...]
    unserved: tuple[str, ...]
    gpus: dict[str, int]
    knee_budget: float | None
    """Cost of the group's cheapest full plan: the smallest budget that serves all (under
    ``objective: tco`` too, where the full plan bought above it is another)."""
    marginal_priority_per_dollar: float | None = None
    """(served priority − previous budget's) ÷ (budget − previous budget); from 0 first."""
    seconds: float = 0.0
    reused_knee: bool = False
    """The budget is at or above the full plan's cost (the knee's, but under ``objective:
    tco``), so that plan is the answer (not re-solved)."""
    error: str | None = None
    exit_code: int | None = None
    """The CLI exit code of the error (3 infeasible, 4 solver), None with a plan."""
    tco: float | None = None
    """P2: the plan's total cost of ownership (with ``policy.tco``)."""
    power_kw: float | None = None
    """P1: the plan's power drawn, kW."""
    gap: float | None = None
    """The solve's relative gap when known (0 when proven optimal)."""
    lines: tuple[BomLine, ...] = ()
    """The plan's bill of materials (the workbook's Sweep BOM sheet); none without a plan."""

    status_note: str = ""
    """Why a plan is only ``feasible`` (``feasible_why``); "" for any other status."""

    def to_json(self) -> dict:
        s = self.scenario
        return {
            "scenario": s.id,
            "budget": s.budget,
            "growth": s.growth,
            "headroom": s.headroom,
            "prices": dict(s.prices),
            "owning": dict(s.owning),
            "status": self.status,
            "total_cost": None if self.total_cost is None else round(self.total_cost, 2),
            "served_priority": self.served_priority,
            "total_priority": self.total_priority,
            "served": list(self.served),
            "unserved": list(self.unserved),
            "gpus": self.gpus,
            "knee_budget": self.knee_budget,
            "marginal_priority_per_dollar": self.marginal_priority_per_dollar,
            "reused_knee": self.reused_knee,
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "tco": self.tco,
            "power_kw": self.power_kw,
            "gap": self.gap,
            "status_note": self.status_note,
        }


@dataclass
class SweepRun:
    """A finished (or interrupted) sweep: rows in grid order, the base plan, the facts."""

    rows: list[ScenarioRow]
    base: Solved | None
    interrupted: bool
    not_run: int
    seconds: float
    jobs: int
    solves: int
    knees: dict[Group, ScenarioRow] = field(default_factory=dict)
    """group -> the row of its cheapest full plan (budget None), for the knee report."""
    preferred: dict[Group, ScenarioRow] = field(default_factory=dict)
    """group -> the row of its full plan of lowest TCO, for groups under ``objective: tco``
    (budgets at or above its cost buy it; ``report.dearer_preferred`` keeps those that cost
    more than the knee)."""


class ScenarioStatus(StrEnum):
    """How one scenario of a sweep ended (compares equal to its lower-case name)."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"
    """The time limit ran out before any plan was found."""
    FAILED = "failed"
    """The solver failed for another reason."""


def _status(solved: Solved) -> ScenarioStatus:
    """The scenario's status, read from how its run ended (``Termination``)."""
    if solved.result is not None:
        return ScenarioStatus(solved.result.status)
    if solved.termination == Termination.INFEASIBLE:
        return ScenarioStatus.INFEASIBLE
    if solved.termination == Termination.TIME_LIMIT_WITHOUT_PLAN:
        return ScenarioStatus.TIMEOUT
    return ScenarioStatus.FAILED


def _row(
    s: Scenario, wf: WorkloadFile, solved: Solved, reused: bool = False
) -> ScenarioRow:
    weight = {w.name: w.priority * wf.planned_replicas(w) for w in wf.workloads}
    total = float(sum(weight.values()))
    if solved.result is None or not solved.result.options:
        return ScenarioRow(
            s,
            _status(solved),
            None,
            None,
            total,
            (),
            (),
            {},
            None,
            seconds=solved.seconds,
            error=solved.error,
            exit_code=solved.exit_code,
        )
    best = solved.result.options[0]
    served = tuple(n for n in weight if n not in best.unserved)
    return ScenarioRow(
        s,
        _status(solved),
        best.total_cost,
        float(sum(weight[n] for n in served)),
        total,
        served,
        tuple(best.unserved),
        best.gpus_by_sku(),
        None,
        seconds=0.0 if reused else solved.seconds,
        reused_knee=reused,
        tco=best.own.tco if best.own is not None else None,
        power_kw=best.own.power_kw if best.own is not None else None,
        gap=solved.result.gap,
        lines=tuple(best.lines),
        status_note=feasible_why(solved),
    )


def feasible_why(solved: Solved) -> str:
    """Why a plan is ``feasible`` rather than ``optimal``: the time limit ended its solve,
    and its gap above the proven bound (or that no bound was proven); "" when optimal."""
    res = solved.result
    if res is None or res.status != "feasible":
        return ""
    parts = []
    if res.termination == Termination.TIME_LIMIT_WITH_PLAN:
        parts.append("time limit")
    parts.append("no proven bound" if res.gap is None else f"gap {res.gap:.2%}")
    return "; ".join(parts)


def _file_owning(sweep: Sweep) -> Owning:
    """The file's own values of the owning axes swept (the base plan's group)."""
    if not sweep.scenarios or not sweep.scenarios[0].owning:
        return ()
    p = sweep.wf.policy
    own: dict[str, float | str] = {"objective": p.objective}
    if p.tco is not None:
        own.update(kwh_price=p.tco.kwh_price, years=p.tco.years)
    return tuple((n, own.get(n, v)) for n, v in sweep.scenarios[0].owning)


def default_jobs() -> int:
    """Worker processes by default: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def run_sweep(
    sweep: Sweep,
    jobs: int | None = None,
    solver: str | None = None,
    time_limit: float | None = None,
    gap: float = DEFAULT_GAP,
    with_base: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> SweepRun:
    """Solve every scenario; a failed one is reported in its row, Ctrl-C keeps what finished.

    Each group's full plan is solved first (its cost is the knee); then only the budgets
    below the knee are solved, as budgeted plans (most priority, then least cost).

    Args:
        sweep: the validated grid.
        jobs: worker processes (default: all CPUs); 1 solves in this process.
        solver, time_limit, gap: as for ``plan`` (time limit in seconds per scenario run).
        with_base: also plan the unswept input (for the workbook), reusing a grid scenario
            when one is the same.
        on_progress: called with (scenarios done, scenarios in all) after each result.
    """
    start = time.perf_counter()
    by_group: dict[Group, list[Scenario]] = {}
    for s in sweep.scenarios:
        by_group.setdefault(s.group, []).append(s)
    p = sweep.wf.policy
    base_group: Group = (p.growth, p.headroom, tuple((t, 1.0) for t in sweep.price_targets),
                         _file_owning(sweep))
    base_needed = with_base and not (p.budget is None and base_group in by_group)
    tasks = len(by_group) + base_needed + sum(_by_tco(sweep.groups[g][0]) for g in by_group)
    jobs = max(1, min(jobs or default_jobs(), tasks + sum(len(v) for v in by_group.values())))
    ex = ProcessPoolExecutor(jobs, initializer=interrupt.worker_signals) if jobs > 1 else _Inline()
    run = _Scheduler(sweep, ex, by_group, solver, time_limit, gap,
                     base_group if with_base and p.budget is None else None)
    try:
        if base_needed:
            run.submit(_BasePlan(), *_base_inputs(sweep))
        for group in by_group:
            wf, cat = sweep.groups[group]
            run.submit(_FullPlan(group), wf, cat)
            if _by_tco(wf):
                run.submit(_CheapestFull(group), with_policy(wf, objective="capex"), cat)
        run.until_done(on_progress)
    except KeyboardInterrupt:
        run.interrupted = True
        _stop(ex)
    else:
        ex.shutdown(wait=True)
    return _finish(sweep, run, start, jobs)


class _Scheduler:
    """The sweep's work queue: full plans first; each full plan's cost (the knee) decides
    which budgets of its group still need a budgeted solve."""

    def __init__(self, sweep: Sweep, ex, by_group: dict[Group, list[Scenario]],
                 solver: str | None, time_limit: float | None, gap: float,
                 base_group: Group | None) -> None:
        self.sweep, self.ex, self.by_group = sweep, ex, by_group
        self.solver, self.time_limit, self.gap = solver, time_limit, gap
        self.base_group = base_group
        """The group whose full plan is also the unswept input's plan (None: none is)."""
        self.rows: dict[int, ScenarioRow] = {}
        self.fulls: dict[Group, Solved] = {}
        self.cheapest: dict[Group, Solved] = {}
        """Under ``objective: tco``: each group's full plan of least capital cost (its knee)."""
        self.base: Solved | None = None
        self.pending: dict[Future, _Task] = {}
        self.solves = 0
        self.interrupted = False

    def submit(self, task: _Task, wf: WorkloadFile, cat: Catalog) -> None:
        future = self.ex.submit(solve_one, wf, cat, self.solver, self.time_limit, self.gap)
        self.pending[future] = task

    def until_done(self, on_progress: Callable[[int, int], None] | None) -> None:
        """Collect results as they come, submitting the budgeted solves they call for."""
        while self.pending:
            done, _ = wait(list(self.pending), return_when=FIRST_COMPLETED)
            for f in done:
                task = self.pending.pop(f)
                self._take(task, _result_of(f))
                if on_progress:
                    on_progress(len(self.rows), len(self.sweep.scenarios))

    def _take(self, task: _Task, solved: Solved) -> None:
        self.solves += 1
        if isinstance(task, _BasePlan):
            self.base = solved
        elif isinstance(task, _FullPlan):
            self._full_plan(task.group, solved)
        elif isinstance(task, _CheapestFull):
            self.cheapest[task.group] = solved
        else:
            s = task.scenario
            self.rows[s.id] = _row(s, self.sweep.inputs(s)[0], solved)

    def _full_plan(self, group: Group, solved: Solved) -> None:
        """A group's full plan: rows for budgets at or above its cost, solves for the rest."""
        self.fulls[group] = solved
        if group == self.base_group:
            self.base = solved
        knee = solved.result.options[0].total_cost if solved.result else None
        for s in self.by_group[group]:
            wf, cat = self.sweep.inputs(s)
            if s.budget is None or (knee is not None and s.budget >= knee - 1e-6):
                self.rows[s.id] = _row(s, wf, solved, reused=s.budget is not None)
            else:
                self.submit(_BudgetPlan(s), wf, cat)


def _result_of(f: Future) -> Solved:
    try:
        return f.result()
    except BaseException as exc:  # noqa: BLE001 - a worker died (memory) or the pool broke
        return Solved(None, f"worker failed: {type(exc).__name__}: {exc}", 1)


@dataclass(frozen=True)
class _BasePlan:
    """A solve of the unswept input (for the workbook)."""


@dataclass(frozen=True)
class _FullPlan:
    """A solve of a group's full plan, without a budget: its cost is the group's knee."""

    group: Group


@dataclass(frozen=True)
class _CheapestFull:
    """Under ``objective: tco``, a group's full plan of least capital cost: its knee, the
    smallest budget that serves every workload (the full plan of lowest TCO may cost more)."""

    group: Group


@dataclass(frozen=True)
class _BudgetPlan:
    """A solve of one scenario whose budget is below its group's knee."""

    scenario: Scenario


_Task = _BasePlan | _FullPlan | _CheapestFull | _BudgetPlan
"""What a submitted solve is for."""


def _by_tco(wf: WorkloadFile) -> bool:
    """The group's full plan is its lowest TCO, not its least capex: its knee is solved
    apart (``_CheapestFull``)."""
    return wf.policy.objective == "tco"


def _base_inputs(sweep: Sweep) -> tuple[WorkloadFile, Catalog]:
    return sweep.wf, sweep.catalog


def _finish(sweep: Sweep, run: _Scheduler, start: float, jobs: int) -> SweepRun:
    """Attach each group's knee and each budget's marginal priority per extra dollar."""
    rows = run.rows
    knees, preferred = {}, {}
    order = {g: i for i, g in enumerate(sweep.groups)}  # grid order, not completion order
    for group, solved in sorted(run.fulls.items(), key=lambda kv: order[kv[0]]):
        s0 = Scenario(0, None, *group)
        wf = sweep.groups[group][0]
        full = _row(s0, wf, solved)
        if not _by_tco(wf):
            knees[group] = full
            continue
        preferred[group] = full  # its knee is the capex solve's (none if interrupted before)
        if group in run.cheapest:
            knees[group] = _row(s0, wf, run.cheapest[group])
    ordered = []
    previous: dict[Group, tuple[float, float]] = {}
    for s in sweep.scenarios:  # grid order: budgets ascend within a group
        if s.id not in rows:
            continue
        row = rows[s.id]
        knee = knees.get(s.group)
        marginal = None
        if s.budget is not None and row.served_priority is not None:
            b0, p0 = previous.get(s.group, (0.0, 0.0))
            marginal = (row.served_priority - p0) / (s.budget - b0) if s.budget > b0 else None
            previous[s.group] = (s.budget, row.served_priority)
        ordered.append(
            replace(
                row,
                knee_budget=knee.total_cost if knee else None,
                marginal_priority_per_dollar=marginal,
            )
        )
    return SweepRun(
        ordered,
        run.base,
        run.interrupted,
        len(sweep.scenarios) - len(ordered),
        time.perf_counter() - start,
        jobs,
        run.solves,
        knees,
        preferred,
    )
