"""Solving the run program and reading back the chosen ways and servers bought."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ...errors import SolverError
from ...inputs.catalog import Catalog
from ...inputs.ownership import TcoPolicy
from ...rules.fabric import fabric_lines, fabric_of, switch_power_w, switch_units
from ..engines import make_engine, quiet_stdout
from ..lp import pulp
from .options import PoolWay, RentWay, Way
from .program import SERVER_EPSILON, Room, RunModel, build, way_cost
from .schedule import run_servers
from .ways import RunInputs


@dataclass(frozen=True)
class RunSolution:
    """What the run program chose."""

    chosen: tuple[Way, ...]
    counts: tuple[int, ...]
    """Run servers bought per configuration."""
    capex: float
    rent: float
    energy: float
    """Under objective tco: energy of the run servers for the hours they run."""
    bound: float
    """A proven lower bound on the program's objective (without its tie-break)."""
    optimal: bool
    seconds: float
    size: tuple[int, int]
    """Variables and rows of the program."""
    switch_units: int = 0
    """P3: rack units of the run servers' switches (N3)."""
    switch_w: float = 0.0
    """P1: their power, W."""

    def objective(self, capex_share: float, support: float) -> float:
        """H6 cost of this solution: capex charged (with support) + rent + energy."""
        return self.capex * capex_share * (1 + support) + self.rent + self.energy


def solve_runs(inputs: RunInputs, catalog: Catalog, capex_share: float,
               tco: TcoPolicy | None, room: Room, solver: str, time_limit: float | None,
               gap: float) -> RunSolution | None:
    """The cheapest ways and servers for every run (None when ``room`` leaves no plan).

    Raises:
        SolverError: the solver failed, or stopped without a plan for a program that has one.
    """
    m = build(inputs.configs, inputs.ways, catalog, capex_share, tco, room)
    start = time.perf_counter()
    warm = solver == "highs" and m.prob.numVariables() >= ROUNDED_START_VARIABLES \
        and _rounded_start(m, solver, time_limit, gap)
    left = None if time_limit is None else max(1.0, time_limit - (time.perf_counter() - start))
    _solve(m, make_engine(solver, left, gap, warm=warm), solver)
    seconds = time.perf_counter() - start
    sol = m.prob.sol_status
    if sol in (pulp.LpSolutionInfeasible, pulp.LpSolutionUnbounded) or m.prob.status == -1:
        return None
    if sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        raise SolverError("the run program stopped before it found a plan (time limit). "
                          "To fix: raise --time-limit, or a coarser policy.horizon.step_days")
    return _read(m, inputs, catalog, capex_share, tco, solver, sol, seconds)


ROUNDED_START_VARIABLES = 5_000
"""From this many variables the search starts from a rounded plan (``_rounded_start``):
HiGHS alone found a poor first plan on a 50-workload mix (5.35M against 3.36M)."""


def _solve(m: RunModel, engine: object, solver: str) -> None:
    try:
        with quiet_stdout():
            m.prob.solve(engine)
    except pulp.PulpSolverError as exc:
        raise SolverError(f"the {solver} solver failed on the run program: {exc}") from None


def _rounded_start(m: RunModel, solver: str, time_limit: float | None, gap: float) -> bool:
    """A first plan for a large run program: solve its LP relaxation, buy the servers it
    buys rounded up, and choose every run's way with those servers fixed (a much smaller
    search); its values are left on the variables as the full search's start. False when
    no such plan was found (the full search then starts from nothing)."""
    integers = [v for v in m.prob.variables() if v.cat == pulp.LpInteger]
    for v in integers:
        v.cat = pulp.LpContinuous
    share = None if time_limit is None else time_limit * ROUNDED_SHARE
    try:
        _solve(m, make_engine(solver, share, gap), solver)
        relaxed = [v.value() for v in m.n]
    finally:
        for v in integers:
            v.cat = pulp.LpInteger
    if m.prob.status != pulp.LpStatusOptimal or any(x is None for x in relaxed):
        return False
    bounds = [(v.lowBound, v.upBound) for v in m.n]
    for v, x in zip(m.n, relaxed):
        v.lowBound = v.upBound = math.ceil((x or 0.0) - 1e-6)
    try:
        _solve(m, make_engine(solver, share, max(gap, ROUNDED_GAP)), solver)
    finally:
        for v, (lo, up) in zip(m.n, bounds):
            v.lowBound, v.upBound = lo, up
    return m.prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)


ROUNDED_SHARE = 0.3
"""Share of the time limit each step of the rounded start may take."""
ROUNDED_GAP = 1e-3
"""Gap the rounded start's search stops at (it is only a start)."""


def _read(m: RunModel, inputs: RunInputs, catalog: Catalog, share: float,
          tco: TcoPolicy | None, solver: str, sol: int, seconds: float) -> RunSolution:
    chosen: list[Way] = []
    for key, ways in inputs.ways.items():
        picked = [w for w, v in zip(ways, m.y[key]) if (v.value() or 0) > 0.5]
        chosen.append(picked[0])
    counts = tuple(round(v.value() or 0) for v in m.n)
    # The fabric as the rule prices it for these servers (the program's optimum is the same).
    fabric = fabric_of(run_servers(inputs.configs, list(counts))[0], catalog)
    capex = (sum(c.price * n for c, n in zip(inputs.configs, counts))
             + sum(ln.extended for ln in fabric_lines(fabric, catalog)))
    rent = sum(w.cost for w in chosen if isinstance(w, RentWay))
    energy = sum(way_cost(w, inputs.configs, tco) for w in chosen if isinstance(w, PoolWay))
    if tco is not None:
        energy += share * tco.energy_per_kw() / 1000 * switch_power_w(fabric, catalog)
    objective = pulp.value(m.prob.objective) or 0.0
    ticks = SERVER_EPSILON * sum(counts)
    bound = objective
    if solver == "highs" and getattr(m.prob, "solverModel", None) is not None:
        info = m.prob.solverModel.getInfo()
        b = getattr(info, "mip_dual_bound", None)
        if b is not None and math.isfinite(b) and abs(b) < 1e30:
            bound = min(objective, b)
    optimal = sol == pulp.LpSolutionOptimal
    size = (m.prob.numVariables(), m.prob.numConstraints())
    # The tie-break ε per server is not a cost: take it off the bound (a bound of the
    # objective with ε is a bound of the cost plus at most ε·servers).
    return RunSolution(tuple(chosen), counts, capex, rent, energy, max(0.0, bound - ticks),
                       optimal, seconds, size, switch_units(fabric, catalog),
                       switch_power_w(fabric, catalog))
