"""Run a solver on a built Model and read back a small typed result (imports PuLP): one
solve now (``solve``), one begun now and read back later (``start_solve``), the LP's duals.

The result carries plain numbers keyed like the model's variables, never PuLP objects,
so expansion, checking and reporting stay solver-agnostic. The back-ends themselves are
``engines.py``'s.
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Any

from ..errors import SolverError
from ..result import SolveStatus
from . import tuning
from .children import contained
from .engines import HighsEngine, LpHighs, deferring, highspy_status, make_engine, quiet_stdout
from .lp import pulp
from .outcome import Outcome
from .program import Model

DEFAULT_GAP = 1e-4
"""Relative MIP gap at which a plan counts as proven optimal (0.01%)."""


def _int(v: Any) -> int:
    value = v.value() if hasattr(v, "value") else v
    return round(value or 0)


def solve(m: Model, solver: str, time_limit: float | None = None,
          gap: float = DEFAULT_GAP, work_ticks: int | None = None,
          warm: bool = False, target: float | None = None,
          beat_start: bool = False, bare_ticks: int | None = None) -> Outcome:
    """Solve ``m`` and read back every decision as integers.

    Args:
        time_limit: wall-clock seconds (the safety net).
        work_ticks: stop after this many search checkpoints once a plan is found (HiGHS;
            deterministic, see ``budget.py``).
        warm: start HiGHS from the variables' values of the previous solve.
        target: stop once a plan of objective at most this is found (HiGHS, a minimisation;
            a bound proven by an earlier solve times 1 + gap: the plan is then proven by
            that bound, and searching on would only re-prove it).
        beat_start: with ``warm``, ``work_ticks`` ends the search only once it holds a plan
            better than the start (or after ``tuning.BEAT_START_TICKS`` times as many): the start
            is a plan to fall back on, not the answer (an alternative's first solve).
        bare_ticks: end the search after this many checkpoints if it has found no plan of
            its own by then (the caller holds one to fall back on); without it a search
            with no plan goes on until it finds one, whatever ``work_ticks`` says.

    Raises:
        SolverError: the solver is missing or crashed.
    """
    engine = make_engine(solver, time_limit, gap, work_ticks, warm,
                   target if m.prob.sense == pulp.LpMinimize else None, beat_start and warm,
                   m.on_found, bare_ticks, m.size <= tuning.SUB_MIP_MAX_ROWS)
    start = time.perf_counter()
    deferred = getattr(engine, "interrupt", None)
    try:
        with quiet_stdout(), contained(engine), deferring(deferred):
            m.prob.solve(engine)
    except pulp.PulpSolverError as exc:
        raise SolverError(f"the {solver} solver failed: {exc}") from None
    if deferred is not None:
        deferred.raise_if_requested()
    return _read(m, solver, engine, time_limit, gap, time.perf_counter() - start)


class Started:
    """A HiGHS solve of the program as it is now, read back later by ``outcome``.

    ``start_solve`` copies the program into HiGHS at once; with ``beside`` the search runs
    on another thread (a spare core) while the caller goes on, else it runs when
    ``outcome`` is called. Either way it searches the same program from the same start
    with the same work limit, so it returns the same plan: rows the caller adds to ``m``
    meanwhile, and values other solves write to its variables, do not reach it.
    """

    def __init__(self, engine: HighsEngine, m: Model, time_limit: float | None, gap: float,
                 beside: bool) -> None:
        self.engine = engine
        self.highs = m.prob.solverModel
        self.columns = list(m.prob.variables())
        """The columns as built, in HiGHS's order."""
        self.objective = m.prob.objective
        self.sense = m.prob.sense
        self.patterns = set(m.patterns)
        self.time_limit = time_limit
        self.gap = gap
        self.started = time.perf_counter()
        self.thread: threading.Thread | None = None
        if beside:
            self.thread = threading.Thread(target=self.highs.run, name="plan-buy solve",
                                           daemon=True)
            self.thread.start()

    def current(self, m: Model) -> bool:
        """No server type has gone to patterns since the build: the plan read back is then
        whole (columns added since, such as an objective's flags, are not read)."""
        return set(m.patterns) == self.patterns and not m.priced

    def cancel(self) -> None:
        """Stop the search at its next checkpoint and wait for it (nothing is read back)."""
        self.engine.interrupt.requested = True
        if self.thread is not None:
            self.thread.join()
        self.thread = None

    def outcome(self, m: Model, time_limit: float | None) -> Outcome | None:
        """The solve's plan read back onto ``m`` (its objective restored to the one solved);
        None when the program changed in kind since (``current``): the solve is void.
        ``time_limit``: the seconds left now, for a search that starts only now."""
        if not self.current(m):
            self.cancel()
            return None
        deferred = self.engine.interrupt
        if self.thread is not None:
            self.thread.join()
        else:
            self.time_limit = time_limit
            self.started = time.perf_counter()
            if time_limit is not None:
                self.highs.setOptionValue("time_limit", float(time_limit))
            with deferring(deferred):
                self.highs.run()
        deferred.raise_if_requested()
        for i, var in enumerate(self.columns):
            var.index = i
        m.prob.setObjective(self.objective)
        m.prob.sense = self.sense
        m.prob.solverModel = self.highs
        status, sol = self.engine.findSolutionValues(_Columns(self.highs, self.columns))
        m.prob.assignStatus(status, sol)
        return _read(m, "highs", self.engine, self.time_limit, self.gap,
                     time.perf_counter() - self.started)


class _Columns:
    """What PuLP's HiGHS read-back uses of a problem: the solver model and the columns it
    was built with (rows are not read back: their order may have changed since)."""

    def __init__(self, highs: Any, columns: list) -> None:
        self.solverModel = highs
        self._columns = columns
        self._constraints: dict = {}

    def variables(self) -> list:
        return self._columns


def start_solve(m: Model, solver: str, time_limit: float | None = None,
                gap: float = DEFAULT_GAP, work_ticks: int | None = None,
                warm: bool = False, beat_start: bool = False,
                beside: bool = False) -> Started | None:
    """``solve`` begun now and read back later (``Started``), from the variables' values of
    now; None where that is not possible (CBC; a program with priced pattern columns,
    which a round adds before each solve)."""
    if solver != "highs" or m.priced:
        return None
    engine = make_engine(solver, time_limit, gap, work_ticks, warm, None, beat_start and warm,
                   sub_mips=m.size <= tuning.SUB_MIP_MAX_ROWS)
    with quiet_stdout():
        engine.createAndConfigureSolver(m.prob)
        engine.buildSolverModel(m.prob)
        engine.start_from(m.prob)
    return Started(engine, m, time_limit, gap, beside)


def spare_core() -> bool:
    """This process may use a second processor (a solve can run beside the caller's)."""
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # not on Linux
        return (os.cpu_count() or 1) > 1


def _read(m: Model, solver: str, engine: Any, time_limit: float | None, gap: float,
          seconds: float) -> Outcome:
    """The outcome of the solve just read back onto ``m``'s variables."""
    ticks = getattr(engine, "ticks", 0)
    clock = _clock_stopped(m, solver, time_limit, seconds)
    sol = m.prob.sol_status
    if sol in (pulp.LpSolutionInfeasible, pulp.LpSolutionUnbounded) or m.prob.status == -1:
        return Outcome(SolveStatus.INFEASIBLE, None, None, None, seconds, {}, {}, {}, {}, {},
                       ticks=ticks, clock_stopped=clock)
    if sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return Outcome(SolveStatus.NO_SOLUTION, None, None, None, seconds, {}, {}, {}, {}, {},
                       ticks=ticks, clock_stopped=clock)
    objective = pulp.value(m.prob.objective)
    if objective is None or not math.isfinite(objective) or abs(objective) >= HUGE:
        raise SolverError(
            f"the {solver} solver returned a plan of cost {objective}: the catalog's prices are "
            "too large to compute with. To fix: give prices in a unit that keeps every total "
            "below 1e15 (e.g. thousands of the currency)"
        )
    bound = _bound(m, solver, objective, sol)
    rel_gap = abs(objective - bound) / max(abs(objective), 1e-9) if bound is not None else None
    proven = sol == pulp.LpSolutionOptimal and (rel_gap or 0) <= gap + 1e-12
    status = SolveStatus.OPTIMAL if proven else SolveStatus.FEASIBLE
    return Outcome(
        status=status,
        objective=objective,
        bound=bound,
        gap=rel_gap,
        seconds=seconds,
        n={k: _int(v) for k, v in m.n.items()},
        gpus={k: _int(pulp.value(m.gpus(k))) for k, v in m.n.items() if _int(v)},
        x={k: _int(v) for k, v in m.x.items() if _int(v)},
        shared={k: _int(v) for k, v in m.shared.items()},
        z={k: _int(v) for k, v in m.z.items()},
        serve={k: _int(v) for k, v in m.serve.items()},
        patterns={key: pm.solved(_int) for key, pm in m.patterns.items()},
        exact=m.exact,
        ticks=ticks,
        clock_stopped=clock,
        held=frozenset(i for i, z in m.chance_z.items() if _int(z)),
    )


HUGE = 1e15
"""A plan cost at or above this is a numerical failure, not a price list."""


def _clock_stopped(m: Model, solver: str, time_limit: float | None, seconds: float) -> bool:
    """The wall-clock limit ended this solve (rather than its gap or work limit)."""
    if time_limit is None:
        return False
    highs = getattr(m.prob, "solverModel", None) if solver == "highs" else None
    if highs is not None:
        return highs.getModelStatus() == highspy_status("kTimeLimit")
    return seconds >= 0.95 * time_limit


def lp_duals(m: Model, time_limit: float | None = None) -> dict[str, float] | None:
    """Solve the LP relaxation (HiGHS) and return each named row's dual; None if unsolved.

    Used to price new server patterns; the integer decisions are relaxed for this solve
    only, and the next ``solve`` overwrites every value read here.
    """
    if not pulp.HiGHS().available():
        return None
    engine = LpHighs(time_limit)
    try:
        with quiet_stdout():
            m.prob.solve(engine)
    except pulp.PulpSolverError:
        return None
    if m.prob.sol_status != pulp.LpSolutionOptimal:
        return None
    duals = {name: (m.prob.constraints[name].pi or 0.0) for name in m.pattern_rows()}
    duals["objective"] = pulp.value(m.prob.objective)
    return duals


def _bound(m: Model, solver: str, objective: float, sol: int) -> float | None:
    """The best proven bound; HiGHS reports it, CBC through PuLP only says optimal or not."""
    if solver == "highs" and getattr(m.prob, "solverModel", None) is not None:
        info = m.prob.solverModel.getInfo()
        bound = getattr(info, "mip_dual_bound", None)
        if bound is not None and abs(bound) < 1e30:
            # PuLP hands HiGHS a maximisation as the minimisation of its negation.
            return -bound if m.prob.sense == pulp.LpMaximize else bound
    return objective if sol == pulp.LpSolutionOptimal else None
