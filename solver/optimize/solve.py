"""Run a solver on a built Model and read back a small typed result (imports PuLP).

The result carries plain numbers keyed like the model's variables, never PuLP objects,
so expansion, checking and reporting stay solver-agnostic.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

import pulp

from ..errors import SolverError
from .build import Model
from .children import contained
from .outcome import Outcome, SolveStatus

SOLVERS = ("highs", "cbc")
DEFAULT_GAP = 1e-4
"""Relative MIP gap at which a plan counts as proven optimal (0.01%)."""


def available_solvers() -> list[str]:
    """Solvers that can run here, fastest first."""
    found = []
    if pulp.HiGHS().available():
        found.append("highs")
    if pulp.PULP_CBC_CMD(msg=False).available():
        found.append("cbc")
    return found


def default_solver() -> str:
    found = available_solvers()
    if not found:
        raise SolverError(
            "no MIP solver is available. To fix: pip install highspy (HiGHS) or pulp<3.4 "
            "(which bundles CBC)"
        )
    return found[0]


def _make(name: str, time_limit: float | None, gap: float):
    if name == "highs":
        solver = pulp.HiGHS(msg=False, timeLimit=time_limit, gapRel=gap, threads=1)
    elif name == "cbc":
        solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit, gapRel=gap)
    else:
        raise SolverError(f"unknown solver '{name}'. To fix: use one of {', '.join(SOLVERS)}")
    if not solver.available():
        others = [s for s in available_solvers() if s != name]
        hint = f"use --solver {others[0]}" if others else "install highspy"
        raise SolverError(f"solver '{name}' is not available here. To fix: {hint}")
    return solver


@contextlib.contextmanager
def _quiet_stdout():
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


def _int(v) -> int:
    value = v.value() if hasattr(v, "value") else v
    return round(value or 0)


def solve(m: Model, solver: str, time_limit: float | None = None,
          gap: float = DEFAULT_GAP) -> Outcome:
    """Solve ``m`` and read back every decision as integers.

    Raises:
        SolverError: the solver is missing or crashed.
    """
    engine = _make(solver, time_limit, gap)
    start = time.perf_counter()
    try:
        with _quiet_stdout(), contained(engine):
            m.prob.solve(engine)
    except pulp.PulpSolverError as exc:
        raise SolverError(f"the {solver} solver failed: {exc}") from None
    seconds = time.perf_counter() - start
    sol = m.prob.sol_status
    if sol in (pulp.LpSolutionInfeasible, pulp.LpSolutionUnbounded) or m.prob.status == -1:
        return Outcome(SolveStatus.INFEASIBLE, None, None, None, seconds, {}, {}, {}, {}, {}, {})
    if sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return Outcome(SolveStatus.NO_SOLUTION, None, None, None, seconds, {}, {}, {}, {}, {}, {})
    objective = pulp.value(m.prob.objective)
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
        drives={k: _int(v) for k, v in m.drives.items()},
        serve={k: _int(v) for k, v in m.serve.items()},
        patterns={
            key: (members, [(pat, _int(v)) for pat, v in zip(pats, p) if _int(v)], shared_k)
            for key, (members, pats, p, shared_k) in m.patterns.items()
        },
        exact=m.exact,
    )


def lp_duals(m: Model, time_limit: float | None = None) -> dict[str, float] | None:
    """Solve the LP relaxation (HiGHS) and return each named row's dual; None if unsolved.

    Used to price new server patterns; the integer decisions are relaxed for this solve
    only, and the next ``solve`` overwrites every value read here.
    """
    if not pulp.HiGHS().available():
        return None
    engine = pulp.HiGHS(mip=False, msg=False, timeLimit=time_limit, threads=1)
    try:
        with _quiet_stdout():
            m.prob.solve(engine)
    except pulp.PulpSolverError:
        return None
    if m.prob.sol_status != pulp.LpSolutionOptimal:
        return None
    duals = {name: (c.pi or 0.0) for name, c in m.prob.constraints.items()
             if name.startswith("pat")}
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


def set_time_limit_left(deadline: float | None, share: float = 1.0) -> float | None:
    """``share`` of the seconds left before ``deadline`` (perf_counter time), at least one."""
    if deadline is None:
        return None
    return max(1.0, share * (deadline - time.perf_counter()))
