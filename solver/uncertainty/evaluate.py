"""One scenario, end to end: each option of the plan checked in it, its costs at its
prices, and the plan re-solved in it (``evaluate_scenario``, the task every worker runs).

An option holds in a scenario when the plan checker (``solver/check``) finds nothing wrong
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
from dataclasses import dataclass, replace

from ..check import CHECKS, RULES
from ..check.subject import Skus, Subject, estimate_once
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..plan_types import PlanOption
from ..sweep.run import solve_one
from .draws import Draw
from .scenario import Cells, scenario_catalog, scenario_file, world
from .spec import Uncertainty

RULE_LABELS = {
    "check_servers": "servers", "check_r8_r10": "VRAM", "check_r17": "VRAM",
    "check_r11_r12": "host RAM", "check_r19": "demand", "check_o4": "VRAM",
    "check_t3_t4": "throughput", "check_bom": "budget", "check_exclude": "excluded SKU",
    "check_o1": "orderable", "check_o3": "storage", "check_p4": "owned servers",
    "check_p3": "site", "check_p1_p2": "power", "check_h3": "deadline",
    "check_h4": "deadline", "check_h5": "rent", "check_h6": "horizon cost",
    "check_u1": "chance",
}
"""What each check of the checker tests, as a finance reader would name it."""


def rule_ids(check_name: str) -> str:
    """``R11, R12, R15``: the rule ids a check verifies (``check.RULES``)."""
    return ", ".join(r for r, checks in RULES.items()
                     if any(c.__name__ == check_name for c in checks))


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


def verdict(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> dict:
    """``holds`` and, when not, each break as {workload, rule, ids, message}, checker order."""
    sub = replace(Subject.of(reserved_as_needed(option, wf, catalog), wf, catalog), spare=True)
    breaks = []
    for check in CHECKS:
        for msg in check(sub):
            if "reports " in msg:
                continue  # the plan's stale figure beside the recomputed one, not a break
            breaks.append({"workload": culprit(msg, option, wf), "rule":
                           RULE_LABELS.get(check.__name__, check.__name__.removeprefix("check_")),
                           "ids": rule_ids(check.__name__), "message": msg})
    return {"holds": not breaks, "breaks": breaks[:5], "break_count": len(breaks)}


def reserved_as_needed(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> PlanOption:
    """``option`` whose replicas reserve what they need in ``wf`` (never less than they
    did) and report no tokens/s (the checker recomputes it)."""
    skus = Skus.of(catalog)
    by_name = {w.name: w for w in wf.workloads}
    placements = []
    for pl in option.placements:
        w, g = by_name.get(pl.workload), skus.gpu(pl.gpu)
        vram, ram = pl.vram_gb_per_gpu, pl.host_ram_gb
        if w is not None and (g is not None or w.kind == "preprocess") and pl.gpus >= 0:
            try:
                e = estimate_once(w, g, pl.gpus if g is not None else 0, wf.policy)
                vram, ram = max(vram, e.vram_gb_per_gpu if g else 0.0), max(ram, e.host_ram_gb)
            except ValueError:
                pass  # a placement too broken to estimate: the checker says so
        placements.append(replace(pl, vram_gb_per_gpu=vram, host_ram_gb=ram, tokens_per_s=None))
    return replace(option, placements=tuple(placements))


def culprit(message: str, option: PlanOption, wf: WorkloadFile) -> str:
    """The workload a checker line is about: the one it names, else the first placed on
    the server (or GPU) it names, else ``pool``."""
    head = message.split(":", 1)[0].strip()
    names = {w.name for w in wf.workloads}
    for cut in ("#", " run ", " on "):
        head_name = head.split(cut, 1)[0]
        if head_name in names:
            return head_name
    server = head.split(" GPU ", 1)[0]
    on = sorted(p.workload for p in option.placements if p.server == server)
    return on[0] if on else "pool"


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
    got = solve_one(wf, catalog, ctx.solver, ctx.time_limit, ctx.gap, say_why=True)
    out: dict = {"seconds": round(time.perf_counter() - start, 3)}
    result = got.result
    if result is None or not result.options:
        return {**out, "planned": False, "error": (got.error or "no plan").splitlines()[0][:300]}
    best = result.options[0]
    own, t = best.own, best.time
    return {**out, "planned": True, "capex": round(best.capex, 2),
            "tco": _r(own.tco if own else None),
            "rent": _r(t.rent if t else (own.cloud if own else None)),
            "horizon_cost": _r(t.horizon_cost if t else None),
            "unserved": list(best.unserved)}


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 2)
