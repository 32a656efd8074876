"""A plan over a horizon (H1–H6): the always-on workloads planned by the purchase pipeline
as before, the finite runs by the run program, joined into one option per always-on plan.

The two programs share nothing but the budget and the site. Each is solved alone first: the
sum of their optima is a lower bound of the joint program, so when the joined plan keeps
the budget and the site it is optimal (for the stated time model, docs/solver.md); when it
does not, the run program is solved again with what the always-on plan leaves, and the plan
is reported as feasible, with that bound.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...check import check_plan
from ...errors import CheckError, InfeasibleError
from ...horizon.runs import RunSet, is_run, runs_of
from ...inputs.catalog import Catalog
from ...inputs.ownership import TcoPolicy
from ...inputs.workload import WorkloadFile
from ...plan_types import PlanOption
from ...result import PlanResult, SolveStatus, Termination
from ...rules.power import server_power_w, server_units
from ...run_types import HorizonInfo, TimeCost
from .. import pipeline
from ..expand.servers import bom_lines
from ..owning import own_cost
from .options import PoolWay
from .program import Room
from .schedule import entries, run_servers
from .solve import RunSolution, solve_runs
from .ways import RunInputs, run_inputs

ALTERNATIVES = (("rent nothing", False, True), ("rent every run", True, False))
"""The A1 directions a plan over time adds: (label, rent allowed, buy allowed)."""


def plan_over_time(wf: WorkloadFile, catalog: Catalog, **kwargs: Any) -> PlanResult:
    """What to buy, what to rent and when each run runs (arguments as ``pipeline.plan``)."""
    runs = runs_of(wf)
    assert runs is not None, "plan_over_time needs policy.horizon"
    always = [w for w in wf.workloads if not is_run(w, wf)]
    if always:
        # The always-on part is planned (and checked) as a file without a horizon.
        policy = wf.policy.model_copy(update={"horizon": None})
        wf_a = wf.model_copy(update={"workloads": always, "policy": policy})
        base = pipeline.plan(wf_a, catalog, **kwargs)
    else:
        base = _nothing_always_on(catalog)
    if not runs.runs:
        return replace(base, horizon=_info(wf, runs))
    solver = base.solver or kwargs.get("solver") or "highs"
    limit, gap = kwargs.get("time_limit"), kwargs.get("gap", 1e-4)
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
    options += _alternatives(wf, catalog, runs, base.options[0], share, tco, solver, limit,
                             gap)
    result = _ranked(wf, runs, base, options, alone, share, coupled)
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
                                  [(f"the runs need {_money(sol.capex)} of servers; the "
                                   "budget or site leaves too little. To fix: raise the "
                                   "budget, allow renting, or add racks")])
        sol = again
    servers, ids = run_servers(inputs.configs, list(sol.counts))
    schedule = entries(list(sol.chosen), ids)
    all_servers = (*opt.servers, *servers)
    capex = opt.total_cost + sol.capex
    own = own_cost(all_servers, capex, wf.policy.tco, wf.site, catalog) if opt.own else None
    support = wf.policy.tco.support_rate() if tco is not None and wf.policy.tco else 0.0
    running = 0.0
    if tco is not None:  # runs alone (no always-on option's own cost) still pay these
        on = opt.own.tco - opt.own.capex if opt.own is not None and opt.own.tco else 0.0
        running = share * on + share * support * sol.capex + sol.energy
    time_cost = TimeCost(share * capex, sol.rent, running, tuple(s.id for s in servers))
    joined = replace(opt, total_cost=round(capex, 2), servers=all_servers,
                     lines=bom_lines(all_servers, catalog), own=own, runs=tuple(schedule),
                     time=time_cost, label=label or opt.label)
    return joined, fits


def _fits(inputs: RunInputs, sol: RunSolution, room: Room) -> bool:
    """Whether the runs' own optimum keeps the budget and site the always-on plan leaves."""
    if room.capex is not None and sol.capex > room.capex + 1e-6:
        return False
    if room.units is not None:
        units = sum(c.units * n for c, n in zip(inputs.configs, sol.counts))
        if units > room.units:
            return False
    if room.watts is not None:
        peak: dict[int, float] = {}
        for w in sol.chosen:
            if isinstance(w, PoolWay):
                for p in range(w.periods[0], w.periods[1] + 1):
                    peak[p] = peak.get(p, 0.0) + w.servers * inputs.configs[w.config].power_w
        if max(peak.values(), default=0.0) > room.watts + 1e-6:
            return False
    return True


def _room_left(wf: WorkloadFile, catalog: Catalog, opt: PlanOption) -> Room:
    """The budget and site an always-on option leaves the run servers."""
    budget = wf.policy.budget
    capex = None if budget is None else max(0.0, float(budget) - opt.total_cost)
    site = wf.site
    if site is None:
        return Room(capex=capex)
    running = [s for s in opt.servers]
    units = site.racks * site.rack_units - sum(server_units(s, catalog) for s in running)
    watts = site.racks * site.rack_kw * 1000 - sum(server_power_w(s, catalog)
                                                   for s in running)
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


def _ranked(wf: WorkloadFile, runs: RunSet, base: PlanResult, options: list[PlanOption], alone: RunSolution,
            share: float, coupled: bool) -> PlanResult:
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
    notes = base.notes + _notes(runs, alone, coupled)
    # The rule-of-thumb reference prices the always-on workloads only: beside a plan that
    # also buys and rents for runs it would compare unlike things, so it is left out.
    return replace(base, status=SolveStatus.OPTIMAL if proven else SolveStatus.FEASIBLE,
                   baseline=None,
                   termination=base.termination if proven or base.status != "optimal"
                   else Termination.NOT_PROVEN,
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


def _money(x: float) -> str:
    return f"{x:,.0f}"


