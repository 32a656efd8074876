"""The terminal summary of ``plan-buy plan``: ranked options in a few readable lines.

Laid out for the reader's width (``text.py``): the options table, then what a budget leaves
out and what serving everything would cost, demand after growth, throughput targets, what
platform prices include, the rule-of-thumb comparison and notes. The phrases it shares with the
workbook are ``wording.py``'s; throughput, serving and cost-of-owning lines ``running.py``'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..inputs.catalog import Catalog
from ..inputs.policy import Policy
from ..inputs.workload import WorkloadFile
from ..optimize.full import FullPlan
from ..plan_types import PlanOption
from ..result import PlanResult
from .measured_cells import measured_lines
from .metrics import USE_TARGET, option_metrics
from .network import fabric_cost, fabric_text, unit_prices
from .quote import fabric_quote_lines, quote_lines, quote_text
from .running import own_cost_lines, serving_section, throughput_lines
from .text import DEFAULT_WIDTH, Column, bullets, table, wrap
from .timeline_text import headline_lines, schedule_lines
from .wording import (
    counted,
    direction_text,
    gpu_list,
    money,
    reference_name,
    status_sentence,
    target_text,
    use_cell,
    use_rule_lines,
)


def render_plan_summary(result: PlanResult, catalog: Catalog, name: str,
                        workbook: Path | None = None, *, wf: WorkloadFile | None = None,
                        full: FullPlan | None = None, budget: float | None = None,
                        width: int = DEFAULT_WIDTH, quotes: Sequence[Path] = ()) -> str:
    """The report of ``plan``, no line wider than ``width``.

    Args:
        result: the plan.
        catalog: the catalog it was priced from.
        name: the workload file's name.
        workbook: the workbook written, if any.
        wf: the workload file (enables the demand and left-out details).
        full: the cheapest full plan, when a budget left work out (``optimize.full``).
        budget: the spending cap that applied, if any.
        width: characters per line.
        quotes: the per-option quote CSVs written, if any.
    """
    budget = budget if budget is not None else (wf.policy.budget if wf is not None else None)
    cur = result.currency
    buys_nothing = all(not o.servers for o in result.options)
    n = len(result.options)
    head = f"{name}: {n} ranked option{'s' if n != 1 else ''}. " if not buys_nothing else ""
    by_tco = wf is not None and wf.policy.objective == "tco" and wf.policy.tco is not None
    lines = wrap(head + (status_sentence(result, budget is not None, by_tco)
                         if not buys_nothing else
                         f"{name}: nothing to buy."), width)
    lines += headline_lines(result, catalog, width)
    lines += wrap(f"Prices as of {catalog.prices_as_of}: "
                  f"{catalog.price_note or 'catalog prices'}.", width)
    lines.append("")
    if not buys_nothing:
        lines += _options_table(result, catalog, width, by_tco,
                                wf.policy if wf is not None else Policy()) + [""]
        lines += _direction_lines(result, width)
        lines += _quote_lines(result, catalog, width, quotes)
    lines += schedule_lines(result, width, catalog, (wf.policy if wf is not None else
                                                     Policy()).data_parallel_efficiency)
    if budget is not None:
        lines += _budget_lines(result, wf, full, budget, cur, width)
    if wf is not None:
        lines += _demand_lines(wf, width)
    lines += throughput_lines(result, width)
    lines += measured_lines(result, width)  # E2
    if wf is not None and result.options:
        lines += serving_section(result.options[0], wf, catalog, width)
    lines += own_cost_lines(result, width)
    lines += _drive_only_lines(result, width)
    lines += _includes_lines(result, catalog, width)
    lines += _reference_lines(result, width, buys_nothing)
    if workbook:
        lines += wrap(f"Workbook: {workbook}", width)
    if quotes:
        lines += wrap("Servers to quote, one CSV per option: "
                      + ", ".join(str(q) for q in quotes), width)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def _quote_lines(result: PlanResult, catalog: Catalog, width: int,
                 quotes: Sequence[Path] = ()) -> list[str]:
    """Option 1's servers to buy, grouped by configuration, each with its price and the
    total (the bill of materials as a vendor quotes it); owned servers it uses are counted
    apart."""
    best = result.options[0]
    mine = quote_lines(best, catalog)
    if not mine:
        return []
    cur = result.currency
    net = fabric_quote_lines(best, catalog)
    where = " (every option's: its workbook sheet and CSV)" if quotes else ""
    out = wrap(f"Servers option 1 buys, by configuration{where}:", width)
    out += bullets([quote_text(q, cur) for q in mine], width)
    prices = unit_prices(best)  # N3: what cables them together (its parts: the CSV's)
    out += bullets([f"{fabric_text(p)}: {money(fabric_cost(p, catalog, prices), cur)}"
                    for p in best.fabric], width)
    owned = sum(1 for s in best.servers if s.owned)
    also = f", and it uses {counted(owned, 'server')} already owned" if owned else ""
    out += wrap(f"  In all {counted(sum(q.qty for q in mine), 'server')}"
                f"{' and their network' if net else ''}, "
                f"{money(sum(q.extended for q in (*mine, *net)), cur)}{also}.", width,
                hang="  ")
    return out + [""]


def _options_table(result: PlanResult, catalog: Catalog, width: int,
                   by_tco: bool = False, policy: Policy | None = None) -> list[str]:
    """One row per option: what it optimises and how much over option 1, cost (and TCO,
    what the options are ranked by, under objective tco), GPUs, ..."""
    tcos = [o.own.tco for o in result.options if o.own is not None and o.own.tco is not None]
    tco = by_tco and len(tcos) == len(result.options)
    costs = [o.time.horizon_cost for o in result.options if o.time is not None]
    horizon = result.horizon is not None and len(costs) == len(result.options)
    tco = tco and not horizon  # over a horizon the options are ranked by its cost
    columns = [
        Column("#"),
        Column("option", justify="left", wrap=True, comfort=16),
        Column("capex" if tco or horizon else "total cost"),
        *([Column("TCO")] if tco else []),
        *([Column("horizon cost")] if horizon else []),
        Column("GPUs", justify="left", wrap=True),
        Column("servers"),
        Column("most GPUs on one job", keep=3),
        Column(f"VRAM use ({target_text('vram')})"),
        Column(f"host RAM use ({target_text('ram')})", keep=1),
        Column("host memory GB/s per GPU", keep=2),
    ]
    policy = policy or Policy()
    rows = []
    for i, o in enumerate(result.options):
        m = option_metrics(o, catalog, policy)
        bw = f"{m.host_bw_gbps_per_gpu:.0f}" if m.host_bw_gbps_per_gpu else "-"
        owning = ([money(costs[i], result.currency)] if horizon
                  else [money(tcos[i], result.currency)] if tco else [])
        rows.append([str(o.rank), _aim(o), money(o.total_cost, result.currency), *owning,
                     gpu_list(o), str(m.servers), str(m.max_degree),
                     use_cell(m.vram_util, m.vram_status),
                     use_cell(m.ram_util, m.ram_status,
                              None if m.ram_target == USE_TARGET else m.ram_target),
                     bw])
    out = table(columns, rows, width)
    out += use_rule_lines(policy, width)
    over = ", the percentages over option 1's" if len(result.options) > 1 else ""
    if horizon:
        out += wrap(f"Options are ranked by their cost over the horizon (capex charged + rent"
                    f"{' + running costs' if by_tco else ''}){over}; capex is what buying "
                    "them costs.", width)
    if tco:
        out += wrap(f"Options are ranked by total cost of ownership (TCO; see Cost of "
                    f"owning){over}; capex is what buying them costs.", width)
    if any(o.unserved for o in result.options[1:]):
        for o in result.options[1:]:
            if o.unserved and o.unserved != result.options[0].unserved:
                out += wrap(f"Option {o.rank} leaves out: {', '.join(o.unserved)}.", width)
    return out


def _direction_lines(result: PlanResult, width: int) -> list[str]:
    """What each alternative buys for its extra cost, in the direction it pushes, beside
    the cheapest plan's figure ("fewest SKUs +0.8%" shows the same GPUs and servers as
    option 1 in the table on q3 with --top 7: its 7 SKUs against 8 are the difference)."""
    shown = [f"option {o.rank}, {o.label}: {direction_text(o.direction)}"
             for o in result.options if o.direction is not None]
    if not shown:
        return []
    return ["In the direction each alternative pushes:"] + bullets(shown, width) + [""]


def _drive_only_lines(result: PlanResult, width: int) -> list[str]:
    """Servers bought only for their drives (no replica on them: the pool's shared datasets
    and checkpoints), per option, so "13 servers" for 8 GPUs is not a puzzle."""
    out = []
    for o in result.options:
        used = {p.server for p in o.placements} | set(o.time.run_servers if o.time else ())
        alone = Counter(s.platform for s in o.servers
                        if s.id not in used and not s.owned and s.drive_count)
        if alone:
            parts = ", ".join(f"{n} x {sku}" for sku, n in sorted(alone.items()))
            out += wrap(f"Option {o.rank} buys {counted(sum(alone.values()), 'server')} only for their "
                        f"drives (shared datasets and checkpoints): {parts}.", width)
    return out + ([""] if out else [])


def _aim(o: PlanOption) -> str:
    """What an option optimises and how much more it costs than option 1 ("fewest servers
    +2.9%"; by TCO under objective tco, as ``over_cheapest`` is)."""
    if o.rank == 1 or o.over_cheapest <= 0:
        return o.label
    return f"{o.label} +{o.over_cheapest:.1%}"


def _budget_lines(result: PlanResult, wf: WorkloadFile | None, full: FullPlan | None,
                  budget: float, cur: str, width: int) -> list[str]:
    """What the budget buys, what it leaves out and what serving everything costs."""
    best = result.options[0]
    out: list[str] = []
    if not best.unserved:
        return wrap(f"Budget {money(budget, cur)}: option 1 serves every workload and spends "
                    f"{money(best.total_cost, cur)} of it.", width) + [""]
    by_name = {w.name: w for w in wf.workloads} if wf is not None else {}
    left = []
    for name in best.unserved:
        w = by_name.get(name)
        left.append(name if w is None else
                    f"{name} ({w.kind}, priority {w.priority:g}, "
                    f"{wf.planned_replicas(w)} replica(s))")  # type: ignore[union-attr]
    if not best.servers:
        out += wrap(f"Nothing fits in the budget of {money(budget, cur)}: no workload can be "
                    "served for that, so this plan buys nothing.", width)
    else:
        served = sorted({p.workload for p in best.placements} - set(best.unserved))
        total = len(by_name) or len(best.unserved) + len(served)
        out += wrap(f"Budget {money(budget, cur)}: option 1 spends "
                    f"{money(best.total_cost, cur)} and serves {len(served)} of {total} "
                    f"workloads ({', '.join(served)}). Left out:", width)
    out += bullets(left, width)
    if full is None:
        pass
    elif full.total_cost is None:
        out += wrap(f"What serving every workload costs could not be found: {full.why_not}.",
                    width)
    else:
        exact = "" if full.status == "optimal" else " (best found, not proven cheapest)"
        more = full.total_cost - best.total_cost
        over = full.total_cost - budget
        than = f", {money(more, cur)} more than option 1" if best.servers else ""
        out += wrap(f"Serving every workload costs {money(full.total_cost, cur)}{exact}: "
                    f"{money(over, cur)} over the budget{than}.", width)
    return out + [""]


def _demand_lines(wf: WorkloadFile, width: int) -> list[str]:
    """Replicas asked and planned: growth rounds each workload up on its own."""
    growth = wf.policy.growth
    if growth == 1:
        return []
    items = [f"{w.name} {w.replicas}->{wf.planned_replicas(w)}" for w in wf.workloads]
    return wrap(f"Replicas asked -> planned (growth x{growth:g}, each workload rounded up): "
                + ", ".join(items) + ".", width) + [""]


def _includes_lines(result: PlanResult, catalog: Catalog, width: int) -> list[str]:
    """What the price of each platform the options buy covers (data drives are extra)."""
    used = sorted({s.platform for o in result.options for s in o.servers})
    if not used:
        return []
    out = wrap("Platform prices include (GPUs, DIMMs, data drives and NICs added are separate "
               "lines):", width)
    for sku in used:
        p = catalog.platform(sku)
        out += wrap(f"{sku}: {'; '.join(p.includes) or '(not stated in the catalog)'}", width,
                    indent="  ", hang="      ")
    return out + [""]


def _reference_lines(result: PlanResult, width: int, buys_nothing: bool = False
                     ) -> list[str]:
    """The rule-of-thumb pool only where it tells something: it runs the mix and costs
    differently; notes and warnings."""
    out: list[str] = []
    b = result.baseline
    if b and result.options and abs(b.saving or 0.0) >= 0.5:
        cur = result.currency
        than = "less" if (b.saving or 0.0) > 0 else "more"
        out += wrap(
            f"Bought by rule of thumb, {reference_name(b)}, the mix would cost "
            f"{money(b.total_cost, cur)}: option 1 costs {money(abs(b.saving or 0.0), cur)} "
            f"({abs(b.saving_pct or 0.0):.0%}) {than}.", width)
    for note in result.notes:
        if buys_nothing and "no other distinct purchase list" in note:
            continue  # nothing bought: "1 of 3 options" would only confuse
        if note in result.reference_notes:
            continue  # why no rule-of-thumb pool applies tells nothing to act on (--json has it)
        out += wrap(f"Note: {note}.", width, hang="  ")
    for warning in result.warnings:
        out += wrap(f"Warning: {warning}.", width, hang="  ")
    return out + ([""] if out else [])
