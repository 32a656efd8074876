"""The solver back-ends (imports PuLP): HiGHS with its work-count and Ctrl-C callbacks, the
one-thread HiGHS of the LPs, CBC; which of them run here, and stdout kept clean of them.

A back-end is built per solve by ``make_engine``; ``solve.py`` runs it on a Model.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from .. import interrupt
from ..errors import SolverError
from . import tuning
from .lp import pulp

SOLVERS = ("highs", "cbc")


def available_solvers() -> list[str]:
    """Solvers that can run here, fastest first."""
    found = []
    if pulp.HiGHS().available():
        found.append("highs")
    if pulp.PULP_CBC_CMD(msg=False).available():
        found.append("cbc")
    return found


def default_solver() -> str:
    """The fastest solver that runs here.

    Raises:
        SolverError: none does.
    """
    found = available_solvers()
    if not found:
        raise SolverError(
            "no MIP solver is available. To fix: pip install highspy (HiGHS) or pulp<3.4 "
            "(which bundles CBC)"
        )
    return found[0]


SEED = 1
"""Random seed of every solve: with one thread, the same program and limits give the same
search, so a run that ends on its work budget is reproducible."""


class HighsEngine(pulp.HiGHS):
    """PuLP's HiGHS, stopped after ``work_ticks`` search checkpoints once it has a plan.

    HiGHS calls the MIP-interrupt callback at fixed points of its search; counting them is
    a deterministic measure of work (docs/solver.md, "How --time-limit is spent"). PuLP 3.3
    also lacks HiGHS's "solution limit" status and reads an interrupt without a plan as a
    plan: both are read here from HiGHS's own primal solution status.
    """

    def __init__(self, work_ticks: int | None = None, warm: bool = False,
                 target: float | None = None, beat_start: bool = False,
                 on_found: Callable[[float], None] | None = None,
                 bare_ticks: int | None = None, sub_mips: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sub_mips = sub_mips
        self.on_found = on_found
        self.bare_ticks = bare_ticks
        self.work_ticks = work_ticks
        self.warm = warm
        self.target = target
        self.beat_start = beat_start
        self.start_value: float | None = None
        self.ticks = 0
        self.interrupt = interrupt.Deferred()

    def callSolver(self, lp: Any) -> None:
        self.start_from(lp)
        _run_on_own_scheduler(lp, super().callSolver)

    def start_from(self, lp: Any) -> None:
        """With ``warm``, hand HiGHS the variables' current values as its start."""
        if self.warm:
            # The previous solve's values as a start (HiGHS completes or drops a start that
            # new rows make infeasible): a re-solve starts from the plan of the round before.
            start = pulp.apis.highs_api.highspy.HighsSolution()
            start.col_value = [v.varValue or 0.0 for v in lp.variables()]
            start.value_valid = True
            lp.solverModel.setSolution(start)
            if self.beat_start and lp.sense == pulp.LpMinimize and lp.objective is not None:
                self.start_value = lp.objective.value()

    def createAndConfigureSolver(self, lp: Any) -> None:
        super().createAndConfigureSolver(lp)
        if not self.sub_mips:
            lp.solverModel.setOptionValue("mip_heuristic_run_rins", False)
            lp.solverModel.setOptionValue("mip_heuristic_run_rens", False)
        limit = self.work_ticks
        stop = self.interrupt
        target = self.target
        bare = self.bare_ticks

        def tick(event: Any) -> None:
            self.ticks += 1
            found = event.data_out.mip_primal_bound
            if self.on_found is not None and found < 1e300:  # the caller keeps the least
                self.on_found(found)
            if stop.requested or (target is not None and found <= target):
                event.interrupt()
            elif bare is not None and self.ticks >= bare and found >= 1e300:
                event.interrupt()  # no plan of its own yet, and the caller holds one
            elif limit is not None and self.ticks >= limit and found < 1e300:
                # With ``beat_start``, the start alone does not end the search before
                # tuning.BEAT_START_TICKS x the limit: only a better plan of its own does.
                first = self.start_value
                if (first is None or found < first - 1e-9 * max(1.0, abs(first))
                        or self.ticks >= tuning.BEAT_START_TICKS * limit):
                    event.interrupt()

        def lp_tick(event: Any) -> None:  # a long LP (the root node) checks for Ctrl-C too
            if stop.requested:
                event.interrupt()

        lp.solverModel.cbMipInterrupt.subscribe(tick)
        lp.solverModel.cbSimplexInterrupt.subscribe(lp_tick)
        lp.solverModel.cbIpmInterrupt.subscribe(lp_tick)

    def buildSolverModel(self, lp: Any) -> None:
        super().buildSolverModel(lp)
        # PuLP 3.3 drops the objective's constant; HiGHS needs it for its bound and its
        # relative gap (an alternative's objective carries one, alternatives.py).
        constant = lp.objective.constant if lp.objective is not None else 0.0
        if constant:
            sign = -1 if lp.sense == pulp.LpMaximize else 1
            lp.solverModel.changeObjectiveOffset(sign * constant)

    def findSolutionValues(self, lp: Any) -> tuple[int, int]:
        try:
            found = super().findSolutionValues(lp)
        except KeyError:  # a status PuLP 3.3 does not know (solution limit, memory limit)
            found = (pulp.LpStatusOptimal, pulp.LpSolutionIntegerFeasible)
        if found[1] == pulp.LpSolutionIntegerFeasible and not _has_plan(lp.solverModel):
            return pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound
        return found


class LpHighs(pulp.HiGHS):
    """PuLP's HiGHS for the LPs (one thread), run on its own thread scheduler."""

    def __init__(self, time_limit: float | None = None) -> None:
        super().__init__(mip=False, msg=False, timeLimit=time_limit, threads=1)

    def callSolver(self, lp: Any) -> None:
        _run_on_own_scheduler(lp, super().callSolver)


def _run_on_own_scheduler(lp: Any, run: Callable) -> None:
    """``run(lp)``, HiGHS's solve; when HiGHS refused to start because its thread scheduler,
    one per process, was set up by another caller for another number of threads (a plain
    ``pulp.HiGHS()`` solve earlier in the process: every solve here then returned no plan,
    which read as a numerical failure), the scheduler is set up again and the solve run
    once more."""
    run(lp)
    if lp.solverModel.getModelStatus() == highspy_status("kNotset"):
        pulp.apis.highs_api.highspy.Highs.resetGlobalScheduler(True)
        run(lp)


def _has_plan(highs: Any) -> bool:
    """HiGHS holds a feasible primal solution (primal solution status 2, 'feasible')."""
    return highs.getInfo().primal_solution_status == 2


def make_engine(name: str, time_limit: float | None, gap: float,
                work_ticks: int | None = None, warm: bool = False, target: float | None = None,
                beat_start: bool = False, on_found: Callable[[float], None] | None = None,
                bare_ticks: int | None = None, sub_mips: bool = True) -> Any:
    """The back-end ``name`` for one solve to ``gap`` within ``time_limit`` seconds (the
    other arguments are HiGHS's: ``solve.solve`` says what each does).

    Raises:
        SolverError: ``name`` is unknown or cannot run here.
    """
    solver: Any
    if name == "highs":
        solver = HighsEngine(work_ticks=work_ticks, warm=warm, target=target, beat_start=beat_start,
                        on_found=on_found, bare_ticks=bare_ticks, sub_mips=sub_mips, msg=False,
                        timeLimit=time_limit, gapRel=gap, threads=1, random_seed=SEED)
    elif name == "cbc":
        # CBC has no work count reachable through PuLP: with one thread and a fixed seed it
        # is reproducible only when the time limit does not bind.
        solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit, gapRel=gap, threads=1,
                                   options=[f"randomSeed {SEED}", f"randomCbcSeed {SEED}"])
    else:
        raise SolverError(f"unknown solver '{name}'. To fix: use one of {', '.join(SOLVERS)}")
    if not solver.available():
        others = [s for s in available_solvers() if s != name]
        hint = f"use --solver {others[0]}" if others else "install highspy"
        raise SolverError(f"solver '{name}' is not available here. To fix: {hint}")
    return solver


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """HiGHS prints a banner from C++ even with output off: keep stdout clean for --json."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        yield  # stdout is not a real file (e.g. under a test runner): nothing to guard
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)


def deferring(deferred: interrupt.Deferred | None) -> contextlib.AbstractContextManager:
    """Ctrl-C reaches a HiGHS solve through its callbacks (``interrupt.Deferred``); CBC runs
    as a child process and is stopped by the usual interrupt path."""
    return deferred.deferring() if deferred is not None else contextlib.nullcontext()



def highspy_status(name: str) -> Any:
    """A HiGHS model status by name (highspy is imported by PuLP only when installed)."""
    return getattr(pulp.apis.highs_api.highspy.HighsModelStatus, name)

