"""A plan over a horizon (H1–H6): the always-on workloads planned by the purchase pipeline
as before, the finite runs by the run program, joined into one option per always-on plan.

The two programs share nothing but the budget and the site. Each is solved alone first: the
sum of their optima is a lower bound of the joint program, so when the joined plan keeps
the budget and the site it is optimal (for the stated time model, docs/solver.md); when it
does not, the run program is solved again with what the always-on plan leaves, and the plan
is reported as feasible, with that bound.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from ...check import check_plan
from ...errors import CheckError, InfeasibleError
from ...horizon.runs import RunSet, is_run, runs_of
from ...inputs.catalog import Catalog
from ...inputs.ownership import TcoPolicy
from ...inputs.workload import WorkloadFile
from ...plan_types import DirectionFigure, PlanOption
from ...result import PlanResult, SolveStatus, Termination
from ...rules.fabric import fabric_of
from ...rules.power import plan_power_w, plan_units
from ...run_types import HorizonInfo, TimeCost
from .. import pipeline
from ..alternatives import TCO, directions
from ..expand.servers import bom_lines
from ..owning import own_cost
from .options import PoolWay
from .program import Room
from .schedule import entries, run_servers
from .solve import RunSolution, solve_runs
from .ways import RunInputs, run_inputs

RUNS_SHARE = 0.6
"""Share of --time-limit the run program keeps (the always-on plan has the rest)."""
MAIN_SHARE = 0.6
"""Share of what is left for the runs that their cheapest plan may take (the rest goes to
the rent-nothing and rent-everything alternatives)."""
MIN_SOLVE_S = 1.0


class _Clock:
    """--time-limit over a plan over time, counted from the command line's start."""

    def __init__(self, started: float | None, limit: float | None) -> None:
        self.started = time.perf_counter() if started is None else started
        self.limit = limit

    def left(self) -> float | None:
        if self.limit is None:
            return None
        return max(0.0, self.limit - (time.perf_counter() - self.started))

    def share(self, part: float) -> float | None:
        """``part`` of the seconds left (at least MIN_SOLVE_S); None without a limit."""
        left = self.left()
        return None if left is None else max(MIN_SOLVE_S, part * left)


ALTERNATIVES = (("rent nothing", False, True), ("rent every run", True, False))
"""The A1 directions a plan over time adds: (label, rent allowed, buy allowed)."""


def plan_over_time(wf: WorkloadFile, catalog: Catalog, **kwargs: Any) -> PlanResult:
    """What to buy, what to rent and when each run runs (arguments as ``pipeline.plan``)."""
    runs = runs_of(wf)
    assert runs is not None, "plan_over_time needs policy.horizon"
    always = [w for w in wf.workloads if not is_run(w, wf)]
    clock = _Clock(kwargs.get("started"), kwargs.get("time_limit"))
    tell = kwargs.get("progress") or (lambda stage, best: None)
    if always:
        # The always-on part is planned (and checked) as a file without a horizon; it
        # leaves the runs their share of --time-limit.
        policy = wf.policy.model_copy(update={"horizon": None})
        wf_a = wf.model_copy(update={"workloads": always, "policy": policy})
        more = dict(kwargs)
        if clock.limit is not None and runs.runs:
            more["reserve_s"] = kwargs.get("reserve_s", 0.0) + RUNS_SHARE * clock.limit
            more["started"] = clock.started
        base = pipeline.plan(wf_a, catalog, **more)
    else:
        base = _nothing_always_on(catalog)
    if not runs.runs:
        return replace(base, horizon=_info(wf, runs))
    solver = base.solver or kwargs.get("solver") or "highs"
    gap = kwargs.get("gap", 1e-4)
    tell("the runs' schedule", None)
    limit = clock.share(MAIN_SHARE)
    share = runs.frame.capex_share
    tco = wf.policy.tco if wf.policy.objective == "tco" else None
    inputs = run_inputs(wf, catalog, runs)
    alone = solve_runs(inputs, catalog, share, tco, Room(), solver, limit, gap)
    if alone is None:
        raise InfeasibleError("no plan exists for the runs", ["the run program has no plan"])
    options, coupled = [], False
    for opt in base.options:
        joined, bound_ok = _join(wf, catalog, runs, inputs, opt, alone, share, tco, solver,
                                 limit, gap, "")
        coupled |= not bound_ok
        options.append(joined)
    notes: tuple[str, ...] = ()
    if clock.left() is None or (clock.left() or 0.0) >= MIN_SOLVE_S:
        tell("the rent-nothing and rent-everything plans", None)
        options += _alternatives(wf, catalog, runs, base.options[0], share, tco, solver,
                                 clock.share(0.5), gap)
    else:
        notes = (("the rent-nothing and rent-everything alternatives were not planned: the "
                 "time limit ran out"),)
    limited = clock.limit is not None and not alone.optimal
    result = _ranked(wf, runs, base, options, alone, share, coupled, limited)
    result = replace(result, notes=result.notes + notes)
    for opt in result.options:
        problems = check_plan(opt, wf, catalog)
        if problems:
            raise CheckError(f"plan-buy produced an invalid plan (a bug; please report it) "
                             f"for option {opt.rank}", problems)
    return result


def _join(wf: WorkloadFile, catalog: Catalog, runs: RunSet, inputs: RunInputs,
          opt: PlanOption, sol: RunSolution, share: float, tco: TcoPolicy | None, solver: str,
          limit: float | None, gap: float, label: str) -> tuple[PlanOption, bool]:
    """The always-on option with the runs' servers and schedule added; False when the
    budget or site made the runs take what was left (then not proven)."""
    room = _room_left(wf, catalog, opt)
    fits = _fits(inputs, sol, room)
    if not fits:
        again = solve_runs(inputs, catalog, share, tco, room, solver, limit, gap)
        if again is None:
            raise InfeasibleError("no plan exists for the runs within the budget and site",
                                  [(f"the runs need {catalog.currency} {sol.capex:,.0f} of servers; the "
                                   "budget or site leaves too little. To fix: raise the "
                                   "budget, allow renting, or add racks")])
        sol = again
    servers, ids = run_servers(inputs.configs, list(sol.counts))
    schedule = entries(list(sol.chosen), ids)
    all_servers = (*opt.servers, *servers)
    fabric = fabric_of(all_servers, catalog)
    capex = opt.total_cost + sol.capex
    own = own_cost(all_servers, capex, wf.policy.tco, wf.site, catalog)
    support = wf.policy.tco.support_rate() if tco is not None and wf.policy.tco else 0.0
    running = 0.0
    if tco is not None:  # runs alone (no always-on option's own cost) still pay these
        on = opt.own.tco - opt.own.capex if opt.own is not None and opt.own.tco else 0.0
        running = share * on + share * support * sol.capex + sol.energy
    time_cost = TimeCost(share * capex, sol.rent, running, tuple(s.id for s in servers))
    joined = replace(opt, total_cost=round(capex, 2), servers=all_servers,
                     lines=bom_lines(all_servers, catalog, fabric), own=own,
                     runs=tuple(schedule), fabric=fabric,
                     time=time_cost, label=label or opt.label)
    return replace(joined, direction=_direction_with_runs(opt, joined, catalog)), fits


ADDITIVE = ("servers", "consumer", "power", "vram")
"""Directions whose figure is a sum over servers: the run servers, the same in every
always-on alternative, add the same amount to an option's figure and to what its search
proved possible; for the others (distinct SKUs, TCO's racks) the proof is not carried over."""


def _direction_with_runs(opt: PlanOption, joined: PlanOption,
                         catalog: Catalog) -> DirectionFigure | None:
    """An always-on alternative's figure in its direction, measured on the whole plan (its
    run servers included), as the terminal and the workbook read it beside the options."""
    d = opt.direction
    if d is None:
        return None
    direction = next((x for x in directions() if x.key == d.key), TCO if d.key == "tco" else None)
    if direction is None:
        return d
    sign = -1.0 if direction.more_is_better else 1.0
    shift = sign * (direction.measure(joined, catalog) - direction.measure(opt, catalog))
    best = (d.best_possible + shift if d.best_possible is not None and d.key in ADDITIVE
            else None)
    cheapest = None if d.cheapest is None else d.cheapest + shift
    return replace(d, value=d.value + shift, best_possible=best, cheapest=cheapest)


def _fits(inputs: RunInputs, sol: RunSolution, room: Room) -> bool:
    """Whether the runs' own optimum keeps the budget and site the always-on plan leaves."""
    if room.capex is not None and sol.capex > room.capex + 1e-6:
        return False
    if room.units is not None:
        units = sum(c.units * n for c, n in zip(inputs.configs, sol.counts)) + sol.switch_units
        if units > room.units:
            return False
    if room.watts is not None:
        peak: dict[int, float] = {}
        for w in sol.chosen:
            if isinstance(w, PoolWay):
                for p in range(w.periods[0], w.periods[1] + 1):
                    peak[p] = peak.get(p, 0.0) + w.servers * inputs.configs[w.config].power_w
        if max(peak.values(), default=0.0) + sol.switch_w > room.watts + 1e-6:
            return False
    return True


def _room_left(wf: WorkloadFile, catalog: Catalog, opt: PlanOption) -> Room:
    """The budget and site an always-on option leaves the run servers."""
    budget = wf.policy.budget
    capex = None if budget is None else max(0.0, float(budget) - opt.total_cost)
    site = wf.site
    if site is None:
        return Room(capex=capex)
    units = site.racks * site.rack_units - plan_units(opt.servers, catalog)
    watts = site.racks * site.rack_kw * 1000 - plan_power_w(opt.servers, catalog)
    return Room(capex=capex, units=max(0, units), watts=max(0.0, watts))


def _alternatives(wf: WorkloadFile, catalog: Catalog, runs: RunSet, first: PlanOption,
                  share: float, tco: TcoPolicy | None, solver: str, limit: float | None,
                  gap: float) -> list[PlanOption]:
    """A1 over a horizon: the cheapest always-on plan with no run rented, and with every run
    rented, where renting is possible and the direction gives another plan."""
    if wf.policy.rent == "never" or not catalog.cloud:
        return []
    out = []
    for label, rent, buy in ALTERNATIVES:
        try:
            inputs = run_inputs(wf, catalog, runs, rent=rent, buy=buy)
        except InfeasibleError:
            continue
        sol = solve_runs(inputs, catalog, share, tco, Room(), solver, limit, gap)
        if sol is None:
            continue
        try:
            opt, _ = _join(wf, catalog, runs, inputs, first, sol, share, tco, solver, limit,
                           gap, label)
        except InfeasibleError:
            continue  # the budget or site rules this direction out
        out.append(opt)
    return out


def _ranked(wf: WorkloadFile, runs: RunSet, base: PlanResult, options: list[PlanOption],
            alone: RunSolution, share: float, coupled: bool, limited: bool) -> PlanResult:
    """Options by horizon cost, the same plan offered twice left out, the status proven
    only when both programs were and nothing coupled them."""
    seen, kept = set(), []
    for o in sorted(options, key=lambda o: o.time.horizon_cost if o.time else 0.0):
        sig = (tuple(ln for ln in o.lines), tuple((r.workload, r.run, r.gpu, r.replicas,
                                                  r.servers is None) for r in o.runs))
        if sig in seen:
            continue
        seen.add(sig)
        kept.append(o)
    cheapest = kept[0].time.horizon_cost if kept[0].time else 0.0
    kept = [replace(o, rank=i + 1, over_cheapest=(o.time.horizon_cost / cheapest - 1
                                                  if cheapest and o.time else 0.0))
            for i, o in enumerate(kept)]
    proven = base.status == SolveStatus.OPTIMAL and alone.optimal and not coupled
    first = base.options[0]
    always_bound = share * (first.lower_bound if first.lower_bound is not None
                            else first.objective_value(wf.policy.objective))
    value = kept[0].time.horizon_cost if kept[0].time else 0.0
    bound = always_bound + alone.bound
    gap = max(0.0, (value - bound) / value) if value else 0.0
    kept[0] = replace(kept[0], lower_bound=round(min(bound, value), 2))
    notes = base.notes + _notes(runs, alone, coupled)
    # The rule-of-thumb reference prices the always-on workloads only: beside a plan that
    # also buys and rents for runs it would compare unlike things, so it is left out.
    termination = base.termination
    if not proven and base.status == SolveStatus.OPTIMAL:
        termination = Termination.TIME_LIMIT_WITH_PLAN if limited else Termination.NOT_PROVEN
    return replace(base, status=SolveStatus.OPTIMAL if proven else SolveStatus.FEASIBLE,
                   baseline=None, termination=termination, gap=round(gap, 6),
                   options=tuple(kept), horizon=_info(wf, runs), notes=notes)


def _notes(runs: RunSet, sol: RunSolution, coupled: bool) -> tuple[str, ...]:
    # Repetitions left out at the horizon's end are the schedule's to say (and JSON's
    # horizon.dropped_runs), not a note.
    out = []
    if coupled:
        out.append("the budget or the site bound the runs: they were planned with what the "
                   "always-on servers leave, so the plan is not proven optimal")
    return tuple(out)


def _info(wf: WorkloadFile, runs: RunSet) -> HorizonInfo:
    f = runs.frame
    return HorizonInfo(f.start, f.months, f.hours, f.life_months, f.capex_share,
                       wf.policy.rent, dict(runs.dropped))


def _nothing_always_on(catalog: Catalog) -> PlanResult:
    """The always-on part of a file whose every workload is a run: nothing bought."""
    empty = PlanOption(rank=1, total_cost=0.0, servers=(), lines=(), placements=(),
                       label="cheapest")
    return PlanResult(status=SolveStatus.OPTIMAL, currency=catalog.currency, options=(empty,),
                      termination=Termination.OPTIMAL)


