"""One scenario, end to end: each option of the plan checked in it, its costs at its
prices, and the plan re-solved in it (``evaluate_scenario``, the task every worker runs).

An option holds in a scenario when the plan checker (``check/verdict.py``) finds nothing wrong
with it there. It keeps its servers and its placements; each replica reserves what it
truly needs in the scenario (the larger of its reservation and its scenario need), so the
checker tests the rules themselves (the need fits the GPU's headroom line, R15; what
shares a GPU stays under it, R17; host RAM per server, R11, R12; ⌈replicas x growth⌉
replicas, R19; targets, T3; the schedule's deadlines, H3, H4) and not the plan's stale
bookkeeping: its lines that compare a figure the plan reports with the recomputed one
("reports ...") are left out, and the bill of materials is checked at catalog prices
(the scenario's prices change what it costs, not what it is). Demand is checked at the
drawn growth, and a replica more than the demand needs is spare capacity, not a break
(``Subject.spare``). With ``memory_line: vram`` the check takes the
headroom as 0: the question is then whether each job still fits the card.

Costs at the scenario's prices: capex = Σ BOM line qty x unit price x the line's factor;
TCO moves by the capex change and the support it carries (P2); rent (P5's rental
comparison, or over a horizon the rented runs) x the rent factor; horizon cost (H6) =
capex charged x capex'/capex + rent' + running.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..check.verdict import verdict
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..plan_types import PlanOption
from ..sweep.run import solve_one
from .draws import Draw
from .scenario import Cells, scenario_catalog, scenario_file, world
from .spec import Uncertainty


@dataclass(frozen=True)
class Context:
    """What every scenario shares (sent with each task; everything in it is picklable)."""

    wf: WorkloadFile
    catalog: Catalog
    options: tuple[PlanOption, ...]
    cells: Cells
    unc: Uncertainty
    solver: str | None
    time_limit: float | None
    gap: float
    resolve: bool = True


@dataclass(frozen=True)
class Task:
    """One scenario to evaluate."""

    context: Context
    draw: Draw


def evaluate_scenario(task: Task) -> dict:
    """The JSON line of one scenario (docs/json.md, "uncertainty rows"): what it drew, each
    option's verdict and costs, and the re-solved plan's costs. Module-level, so that any
    engine can send it to another process."""
    ctx, d = task.context, task.draw
    wf = scenario_file(ctx.wf, ctx.cells, ctx.unc.estimates, d)
    cat = scenario_catalog(ctx.catalog, d)
    checked = world(ctx.wf, ctx.cells, ctx.unc, d)
    row: dict = {"scenario": d.index, "growth": round(d.growth, 6), "rent": round(d.rent, 6),
                 "prices": {t: round(f, 6) for t, f in d.prices}}
    row["options"] = [
        {"rank": o.rank, **verdict(o, checked, ctx.catalog), **costs(o, d, ctx.wf)}
        for o in ctx.options
    ]
    if ctx.resolve:
        row["resolved"] = resolved(wf, cat, ctx)
    return row


def costs(option: PlanOption, d: Draw, wf: WorkloadFile) -> dict:
    """The option's capex, TCO, rent and horizon cost at the scenario's prices (None where
    the plan has no such figure)."""
    capex = sum(ln.qty * ln.unit_price * d.price_factor(ln.sku, ln.kind) for ln in option.lines)
    tco = rent = horizon = None
    own = option.own
    if own is not None and own.tco is not None and wf.policy.tco is not None:
        tco = own.tco + (capex - option.capex) * (1 + wf.policy.tco.support_rate())
    if own is not None and own.cloud is not None:
        rent = own.cloud * d.rent
    t = option.time
    if t is not None:
        scale = capex / option.capex if option.capex > 0 else 1.0
        rent = t.rent * d.rent
        horizon = t.capex_charged * scale + rent + t.running
    return {"capex": round(capex, 2), "tco": _r(tco), "rent": _r(rent), "horizon_cost": _r(horizon)}


def resolved(wf: WorkloadFile, catalog: Catalog, ctx: Context) -> dict:
    """The cheapest plan of the scenario itself (rank 1, ``--time-limit`` each)."""
    start = time.perf_counter()
    got = solve_one(wf, catalog, ctx.solver, ctx.time_limit, ctx.gap)
    out: dict = {"seconds": round(time.perf_counter() - start, 3)}
    result = got.result
    if result is None or not result.options:
        return {**out, "planned": False, "error": one_line(got.error or "no plan")[:300]}
    best = result.options[0]
    own, t = best.own, best.time
    return {**out, "planned": True, "capex": round(best.capex, 2),
            "tco": _r(own.tco if own else None),
            "rent": _r(t.rent if t else (own.cloud if own else None)),
            "horizon_cost": _r(t.horizon_cost if t else None),
            "unserved": list(best.unserved)}


def one_line(error: str) -> str:
    """An error's message and its first problem (``PlanBuyError``'s "  - " lines) on one
    line: which workload cannot run, and why."""
    lines = error.splitlines()
    first = next((ln.strip()[2:] for ln in lines[1:] if ln.startswith("  - ")), None)
    return lines[0] + (f" ({first})" if first else "")


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 2)
