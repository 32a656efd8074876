"""Running a sweep's scenarios on worker processes: each group's full plan first (its
cost is the knee), then only the budgets below the knee, as budgeted plans; Ctrl-C keeps
what finished.

The knee of a group (scenarios that differ only in budget) is its cheapest full plan: the
smallest budget that serves every workload, found exactly by solving without a budget.
Budgets at or above the full plan's cost buy that same plan, so they are not solved again.
Under ``objective: tco`` that plan is the full plan of lowest TCO, which may cost more to buy
than another full plan: the knee is then found by a second solve of the group that
minimises capital cost. A file with a horizon is planned over time (``plan_over_time``), as
``plan-buy plan`` plans it; its knee is its best plan's capital cost.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from multiprocessing import connection
from typing import Any

from .. import interrupt
from ..errors import InfeasibleError, PlanBuyError
from ..inputs.catalog import Catalog
from ..inputs.scenario import with_policy
from ..inputs.workload import WorkloadFile
from ..optimize.diagnosis import NoPlanInTime
from ..optimize.pipeline import plan
from ..optimize.runs.plan import plan_over_time
from ..optimize.solve import DEFAULT_GAP
from ..result import Termination
from .engine import SCHEDULER_ENV, dask_executor
from .rows import ScenarioRow, Solved, SweepRun, row_of
from .scenarios import Group, Owning, Scenario, Sweep
from .timing import Timing, file_timing


def solve_one(
    wf: WorkloadFile, catalog: Catalog, solver: str | None, time_limit: float | None, gap: float
) -> Solved:
    """Plan one scenario (rank 1 only, no R20 baseline); never raises for a failed plan."""
    start = time.perf_counter()
    try:
        planner = plan if wf.policy.horizon is None else plan_over_time  # as answer() does
        result = planner(
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

    def submit(self, fn: Callable[..., Solved], *args: object) -> Future[Solved]:
        f: Future[Solved] = Future()
        f.set_result(fn(*args))
        return f

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


Executor = ProcessPoolExecutor | _Inline
"""Where the scenarios run: worker processes, or this process for --jobs 1."""

STOP_GRACE_S = 3.0
"""Seconds a stopped worker has to end its solver and remove its files before SIGKILL.

A worker waiting on CBC ends at once; one inside HiGHS's C code cannot run its handler
until HiGHS returns, and has nothing to clean up, so it is killed."""


def _stop(ex: Executor | Any) -> None:
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
    if isinstance(ex, ProcessPoolExecutor | _Inline):
        ex.shutdown(wait=False, cancel_futures=True)
    else:  # a Dask cluster's executor: its shutdown cancels what is not done
        ex.shutdown(wait=False)


def _file_owning(sweep: Sweep) -> Owning:
    """The file's own values of the owning axes swept (the base plan's group)."""
    if not sweep.scenarios or not sweep.scenarios[0].owning:
        return ()
    p = sweep.wf.policy
    own: dict[str, float | str] = {"objective": p.objective}
    if p.tco is not None:
        own.update(kwh_price=p.tco.kwh_price, years=p.tco.years)
    return tuple((n, own.get(n, v)) for n, v in sweep.scenarios[0].owning)


def _file_timing(sweep: Sweep) -> Timing | None:
    """The file's own values of the time axes swept (the base plan's group); None where no
    scenario can be the file (a repeated job's run count sets ``until``): the base plan is
    then a solve of its own."""
    if not sweep.scenarios or not sweep.scenarios[0].timing:
        return ()
    own = file_timing(sweep.wf, [n for n, _ in sweep.scenarios[0].timing])
    if any(v is None for _, v in own):
        return None
    return tuple((n, float(v)) for n, v in own if v is not None)


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
    scheduler: str | None = None,
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
        scheduler: address of a running Dask scheduler (``tcp://host:8786``; default the
            ``DASK_SCHEDULER_ADDRESS`` environment variable): the solves run on its workers
            (``engine.dask_executor``) and ``jobs`` is ignored; without one, on
            this machine's processes.

    Raises:
        InputError: a scheduler that cannot be reached, or whose workers cannot import
            plan-buy (exit 2).
    """
    start = time.perf_counter()
    by_group: dict[Group, list[Scenario]] = {}
    for s in sweep.scenarios:
        by_group.setdefault(s.group, []).append(s)
    p = sweep.wf.policy
    own_timing = _file_timing(sweep)
    base_group: Group = (p.growth, p.headroom, tuple((t, 1.0) for t in sweep.price_targets),
                         _file_owning(sweep), own_timing or ())
    in_grid = p.budget is None and own_timing is not None and base_group in by_group
    base_needed = with_base and not in_grid
    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address is not None:
        with dask_executor(address, solve_one) as (ex, threads):
            run = _Scheduler(sweep, ex, by_group, solver, time_limit, gap,
                             base_group if with_base and in_grid else None)
            _drive(run, sweep, by_group, base_needed, on_progress)
        return _finish(sweep, run, start, threads)
    tasks = len(by_group) + base_needed + sum(_by_tco(sweep.groups[g][0]) for g in by_group)
    jobs = max(1, min(jobs or default_jobs(), tasks + sum(len(v) for v in by_group.values())))
    ex = ProcessPoolExecutor(jobs, initializer=interrupt.worker_signals) if jobs > 1 else _Inline()
    run = _Scheduler(sweep, ex, by_group, solver, time_limit, gap,
                     base_group if with_base and in_grid else None)
    _drive(run, sweep, by_group, base_needed, on_progress)
    return _finish(sweep, run, start, jobs)


def _drive(run: _Scheduler, sweep: Sweep, by_group: dict[Group, list[Scenario]],
           base_needed: bool, on_progress: Callable[[int, int], None] | None) -> None:
    """Submit the full plans (and the base), then collect every result; Ctrl-C stops the
    workers and keeps what finished."""
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
        _stop(run.ex)
    else:
        run.ex.shutdown(wait=True)


class _Scheduler:
    """The sweep's work queue: full plans first; each full plan's cost (the knee) decides
    which budgets of its group still need a budgeted solve."""

    def __init__(self, sweep: Sweep, ex: Executor, by_group: dict[Group, list[Scenario]],
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
            self.rows[s.id] = row_of(s, self.sweep.inputs(s)[0], solved)

    def _full_plan(self, group: Group, solved: Solved) -> None:
        """A group's full plan: rows for budgets at or above its cost, solves for the rest."""
        self.fulls[group] = solved
        if group == self.base_group:
            self.base = solved
        knee = solved.result.options[0].total_cost if solved.result else None
        for s in self.by_group[group]:
            wf, cat = self.sweep.inputs(s)
            if s.budget is None or (knee is not None and s.budget >= knee - 1e-6):
                self.rows[s.id] = row_of(s, wf, solved, reused=s.budget is not None)
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
        full = row_of(s0, wf, solved)
        if not _by_tco(wf):
            knees[group] = full
            continue
        preferred[group] = full  # its knee is the capex solve's (none if interrupted before)
        if group in run.cheapest:
            knees[group] = row_of(s0, wf, run.cheapest[group])
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
