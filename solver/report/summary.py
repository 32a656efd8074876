"""The terminal summary of ``plan-buy plan``: ranked options in a few readable lines.

Laid out for the reader's width (``text.py``): the options table, then what a budget leaves
out and what serving everything would cost, demand after growth, throughput targets, what
platform prices include, the rule-of-thumb comparison and notes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..estimate.memory import estimate
from ..inputs.catalog import Catalog
from ..inputs.workload import Policy, WorkloadFile
from ..optimize.full import FullPlan
from ..optimize.owning import kw_text
from ..plan_types import DirectionFigure, OwnCost, PlanOption
from ..result import Baseline, PlanResult
from .metrics import TARGETS, USE_TARGET, option_metrics
from .quote import quote_lines, quote_text
from .text import DEFAULT_WIDTH, Column, bullets, table, wrap


def money(value: float, currency: str) -> str:
    """12345.6 -> 'USD 12,346'."""
    return f"{currency} {value:,.0f}"


def target_text(metric: str) -> str:
    """The utilisation target in words: ``target 85%+``."""
    return f"target {TARGETS[metric]:.0%}+"


def use_cell(value: float | None, status: str | None, target: float | None = None) -> str:
    """``63% (under)`` the target in the header, ``60% (under 81%)`` a lower target of its
    own; a plain figure when on target; ``-`` with nothing installed."""
    if value is None:
        return "-"
    if status != "below":
        return f"{value:.0%}"
    return f"{value:.0%} (under)" if target is None else f"{value:.0%} (under {target:.0%})"


def use_rule_lines(policy: Policy, width: int) -> list[str]:
    """What the use columns measure: one rule for the headroom and the targets."""
    line = 1 - policy.headroom
    return wrap(f"Memory use is a share of usable memory ({line:.0%} of installed: the "
                f"{policy.headroom:.0%} headroom is kept free), so 100% is full to the headroom "
                f"line. Target {USE_TARGET:.0%}+; host RAM: or what the fewest DIMMs those "
                "servers take allow.", width)


def direction_text(fig: DirectionFigure | None) -> str:
    """An alternative's figure in its direction, option 1's beside it, and the best any plan
    within the slack can reach there: "5 servers against 10 servers for option 1 (the best
    possible)", "23,200 W against 29,500 W for option 1 (best possible: at least
    20,952 W)"; "" for option 1."""
    if fig is None:
        return ""
    value = fig.amount(fig.value)
    if fig.cheapest is not None:
        value += f" against {fig.amount(fig.cheapest)} for option 1"
    if fig.best_possible is None:
        return f"{value} (best possible not proven)"
    if fig.proven_best or fig.amount(fig.best_possible) == fig.amount(fig.value):
        return f"{value} (the best possible)"  # to the unit shown
    side = "at most" if fig.more_is_better else "at least"
    return f"{value} (best possible: {side} {fig.amount(fig.best_possible)})"


def gpu_list(option: PlanOption) -> str:
    """``6x a100-80g-pcie, 24x a100-80g-sxm``; ``none`` for a CPU-only plan."""
    return ", ".join(f"{n}x {sku}" for sku, n in sorted(option.gpus_by_sku().items())) or "none"


def target_lines(option: PlanOption) -> list[str]:
    """Per workload with a target: delivered vs target tokens/s, then days to finish
    (training) or TPOT/TTFT (inference)."""
    out = []
    for f in option.throughput:
        rate = f"{f.tokens_per_s:,.0f} tokens/s of {f.target_tokens_per_s:,.0f} needed"
        if f.requests_per_s is not None and f.target_requests_per_s is not None:
            # A requests_per_s target is read in its own unit; the tokens/s it means beside it.
            rate = (f"{f.requests_per_s:,.1f} requests/s of {f.target_requests_per_s:,.1f} "
                    f"needed ({f.tokens_per_s:,.0f} output tokens/s of "
                    f"{f.target_tokens_per_s:,.0f}, at {f.output_tokens:,} per request)")
        head = f"{f.workload}: {rate}, {f.replicas} replica(s) on {f.gpus} GPU(s)"
        if f.days_to_finish is not None:
            head += f", done in {f.days_to_finish:.1f} days"
        if f.tpot_ms is not None:
            head += f", {f.tpot_ms:.1f} ms per output token"
        if f.ttft_ms is not None:
            head += f", first token in {f.ttft_ms:.0f} ms"
        head += f"; uses {f.compute_utilisation:.0%} of its GPUs' throughput (target 90%)"
        out.append(head)
    return out


def own_lines(option: PlanOption, currency: str) -> list[str]:
    """P1–P5 in words: capex, TCO and its parts, power and racks, owned servers used and
    idle, and what renting the same GPUs would cost."""
    own = option.own
    if own is None:
        return []
    head = f"capex {money(own.capex, currency)}"
    if own.tco is not None:
        head += (f", {own.years}-year TCO {money(own.tco, currency)} (energy "
                 f"{money(own.energy or 0.0, currency)}")
        head += f", support {money(own.support, currency)}" if own.support else ""
        head += f", racks {money(own.rack_cost, currency)}" if own.rack_cost else ""
        head += ")"
    head += f"; {kw_text(own.power_kw)} kW"
    if own.racks is not None:
        head += f" in {own.racks} rack(s)"
    out = [head]
    used = sum(1 for s in option.servers if s.owned)
    if used or option.idle:
        out.append(f"owned servers: {used} used, {len(option.idle)} idle (idle ones draw "
                   "nothing)")
    if own.cloud is not None:
        out.append(_rent_line(option, own, currency, owned=bool(used)))
    return out


def _rent_line(option: PlanOption, own: OwnCost, currency: str, owned: bool) -> str:
    """P5 in words: renting the GPUs bought against their capex and running cost, which
    running costs are counted, and the month buying breaks even."""
    months = 12 * (own.years or 1)
    gpus = sum(s.gpu_count for s in option.servers if not s.owned and s.gpu)
    n = f"{gpus} GPU" + ("" if gpus == 1 else "s")
    what = (f"renting the {n} bought (not the owned ones)" if owned
            else f"renting the same {n}")
    racks = own.racks_added or 0
    counted = ("energy of the servers bought, support on capex"
               + (f", the {racks} rack{'' if racks == 1 else 's'} they add" if racks else ""))
    line = (f"{what} for {own.years} years: {money(own.cloud or 0.0, currency)} "
            f"({money((own.cloud or 0.0) / months, currency)} a month), against capex and a "
            f"running cost of {money((own.bought_running or 0.0) / months, currency)} a month "
            f"({counted})")
    month = own.break_even_month
    return line + (f"; buying breaks even after {month:,.1f} months" if month is not None
                   else "; renting stays cheaper over the horizon")


def status_sentence(result: PlanResult, budgeted: bool, tco: bool = False) -> str:
    """How sure the solver is of option 1, in words (``tco``: ranked by ownership cost)."""
    cost = "total cost of ownership" if tco else "cost"
    what = (f"serves the most priority the budget allows, at the lowest {cost} for that"
            if budgeted else
            "has the lowest total cost of ownership of the plans that serve every workload"
            if tco else "is the cheapest plan that serves every workload")
    solver = result.solver.upper() if result.solver == "cbc" else "HiGHS"
    if result.status == "optimal":
        return f"Option 1 {what} (proven optimal by the {solver} solver)."
    if result.gap is None:
        return (f"Option 1 is the best plan found; the {solver} solver "
                "proved no bound, so a cheaper plan may exist.")
    return (f"Option 1 is the best plan found: at most {result.gap:.2%} "
            f"dearer than the cheapest possible ({solver} solver); not proven optimal.")


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
    lines += wrap(f"Prices as of {catalog.prices_as_of}: "
                  f"{catalog.price_note or 'catalog prices'}.", width)
    lines.append("")
    if not buys_nothing:
        lines += _options_table(result, catalog, width, by_tco,
                                wf.policy if wf is not None else Policy()) + [""]
        lines += _direction_lines(result, width)
        lines += _quote_lines(result, catalog, width, quotes)
    if budget is not None:
        lines += _budget_lines(result, wf, full, budget, cur, width)
    if wf is not None:
        lines += _demand_lines(wf, width)
    lines += _throughput_lines(result, width)
    if wf is not None and result.options:
        lines += _serving_lines(result.options[0], wf, catalog, width)
    lines += _own_cost_lines(result, width)
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
    where = " (every option's: its workbook sheet and CSV)" if quotes else ""
    out = wrap(f"Servers option 1 buys, by configuration{where}:", width)
    out += bullets([quote_text(q, cur) for q in mine], width)
    owned = sum(1 for s in best.servers if s.owned)
    also = f", and it uses {owned} server(s) already owned" if owned else ""
    out += wrap(f"  In all {sum(q.qty for q in mine)} server(s), "
                f"{money(sum(q.extended for q in mine), cur)}{also}.", width, hang="  ")
    return out + [""]


def _options_table(result: PlanResult, catalog: Catalog, width: int,
                   by_tco: bool = False, policy: Policy | None = None) -> list[str]:
    """One row per option: what it optimises and how much over option 1, cost (and TCO,
    what the options are ranked by, under objective tco), GPUs, ..."""
    tcos = [o.own.tco for o in result.options if o.own is not None and o.own.tco is not None]
    tco = by_tco and len(tcos) == len(result.options)
    columns = [
        Column("#"),
        Column("option", justify="left", wrap=True, comfort=16),
        Column("capex" if tco else "total cost"),
        *([Column("TCO")] if tco else []),
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
        owning = [money(tcos[i], result.currency)] if tco else []
        rows.append([str(o.rank), _aim(o), money(o.total_cost, result.currency), *owning,
                     gpu_list(o), str(m.servers), str(m.max_degree),
                     use_cell(m.vram_util, m.vram_status),
                     use_cell(m.ram_util, m.ram_status,
                              None if m.ram_target == USE_TARGET else m.ram_target),
                     bw])
    out = table(columns, rows, width)
    out += use_rule_lines(policy, width)
    if tco:
        over = ", the percentages over option 1's" if len(result.options) > 1 else ""
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
        used = {p.server for p in o.placements}
        alone = Counter(s.platform for s in o.servers
                        if s.id not in used and not s.owned and s.drive_count)
        if alone:
            parts = ", ".join(f"{n} x {sku}" for sku, n in sorted(alone.items()))
            out += wrap(f"Option {o.rank} buys {sum(alone.values())} server(s) only for their "
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
    out = wrap("Platform prices include (GPUs, DIMMs and data drives are separate lines):",
               width)
    for sku in used:
        p = catalog.platform(sku)
        out += wrap(f"{sku}: {'; '.join(p.includes) or '(not stated in the catalog)'}", width,
                    indent="  ", hang="      ")
    return out + [""]


def _ms(value: float) -> str:
    """Milliseconds as the estimate table writes them: 168.9 -> '169', 4.25 -> '4.2'."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def serving_lines(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """Per inference workload with a latency limit or ``batch: auto``: the batch each
    replica serves (the one ``batch: auto`` chose on its GPU), its time per output token
    and to the first token, beside the limits; per GPU and degree it runs on.

    "chat: 1 replica on 1 x rtx-4090, batch 5 (chosen by batch: auto), 25.7 ms per output
    token (limit 40), first token in 169 ms (limit 800)".
    """
    by_name = {w.name: w for w in wf.workloads}
    groups: dict[str, dict[tuple[str, int], list]] = {}
    for p in option.placements:
        w = by_name.get(p.workload)
        if w is None or w.kind != "inference" or p.gpu is None or (
                w.batch != "auto" and w.max_tpot_ms is None and w.max_ttft_ms is None):
            continue
        groups.setdefault(w.name, {}).setdefault((p.gpu, p.gpus), []).append(p)
    out = []
    for name, on in groups.items():
        w = by_name[name]
        parts = []
        for (gpu, degree), ps in on.items():
            batch = estimate(w, catalog.gpu(gpu), degree, wf.policy).batch
            each = f"1 replica on {degree} x {gpu}" if len(ps) == 1 else (
                f"{len(ps)} replicas, each on {degree} x {gpu}")
            text = f"{each}, batch {batch}" + (" (chosen by batch: auto)"
                                               if w.batch == "auto" else "")
            tpots = [p.tpot_ms for p in ps if p.tpot_ms is not None]
            ttfts = [p.ttft_ms for p in ps if p.ttft_ms is not None]
            if tpots:
                limit = f" (limit {w.max_tpot_ms:g})" if w.max_tpot_ms is not None else ""
                text += f", {max(tpots):.1f} ms per output token{limit}"
            if ttfts:
                limit = f" (limit {w.max_ttft_ms:g})" if w.max_ttft_ms is not None else ""
                text += f", first token in {_ms(max(ttfts))} ms{limit}"
            parts.append(text)
        out.append(f"{name}: " + "; ".join(parts))
    return out


def _serving_lines(option: PlanOption, wf: WorkloadFile, catalog: Catalog,
                   width: int) -> list[str]:
    """Option 1's serving figures (``serving_lines``) under a heading; none to show: []."""
    shown = serving_lines(option, wf, catalog)
    if not shown:
        return []
    return ["Serving, option 1 (per replica, at the batch it serves):"] + bullets(
        shown, width) + [""]


def _throughput_lines(result: PlanResult, width: int) -> list[str]:
    """Option 1's figure per throughput target; later options only where theirs differ, in
    one line when they are an earlier option's ("Throughput targets, option 3: as option
    2.": two alternatives that serve the targets on the same replicas)."""
    out: list[str] = []
    first = target_lines(result.options[0]) if result.options else []
    earlier: dict[tuple[str, ...], int] = {}
    for o in result.options:
        mine = target_lines(o)
        shown = mine if o.rank == 1 else [t for t in mine if t not in first]
        if shown and o.rank > 1 and tuple(mine) in earlier:
            out += wrap(f"Throughput targets, option {o.rank}: as option "
                        f"{earlier[tuple(mine)]}.", width) + [""]
        elif shown:
            what = "" if o.rank == 1 or len(shown) == len(mine) else " (where it differs)"
            out.append(f"Throughput targets, option {o.rank}{what}:")
            out += bullets(shown, width) + [""]
        earlier.setdefault(tuple(mine), o.rank)
    return out


def _own_cost_lines(result: PlanResult, width: int) -> list[str]:
    """Per option: capex, TCO and its parts, power and racks, owned servers, renting."""
    out: list[str] = []
    owns = [o.own for o in result.options if o.own is not None]
    if owns and all(own.tco is None and own.cloud is None for own in owns) and not any(
            o.idle or any(s.owned for s in o.servers) for o in result.options):
        # Only power to say: one line (policy.tco adds energy, TCO and renting per option).
        power = ", ".join(f"{kw_text(o.own.power_kw)} kW (option {o.rank})"
                          for o in result.options if o.own is not None)
        return wrap(f"Power drawn at full load: {power}.", width) + [""]
    for o in result.options:
        mine = own_lines(o, result.currency)
        if mine:
            out.append(f"Cost of owning, option {o.rank}:")
            out += bullets(mine, width) + [""]
    return out


def reference_name(b: Baseline) -> str:
    """The rule-of-thumb pool in plain words: "8 servers of 4x A100 80GB, 512 GB DDR4-3200,
    8 TB NVMe (the usual server for medium models)"."""
    scenario, _, label = b.name.removeprefix("R20 ").partition(": ")
    label = label or scenario
    return (f"{b.servers} server{'s' if b.servers != 1 else ''} of {label} (the usual "
            f"server for {b.scenario} models)")


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
        if "R20" in note:
            continue  # why no rule-of-thumb pool applies tells nothing to act on (--json has it)
        else:
            out += wrap(f"Note: {note}.", width, hang="  ")
    for warning in result.warnings:
        out += wrap(f"Warning: {warning}.", width, hang="  ")
    return out + ([""] if out else [])
