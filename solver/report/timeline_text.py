"""The terminal's account of a plan over time (H1–H6): what option 1 buys and what it rents
in two lines, what the horizon costs, and a compact schedule (runs summarised per
workload and where they run, never listed one by one) with the GPUs it keeps busy.

Only for a result with a horizon; ``summary.render_plan_summary`` calls it there.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Sequence

from ..inputs.catalog import Catalog
from ..plan_types import PlanOption, Server
from ..result import PlanResult
from ..rules.fabric import server_ports
from ..run_types import HorizonInfo, RunEntry
from .text import Column, table, wrap
from .timeline_data import BOUGHT, RENTED, gpu_use, whole
from .wording import counted, money


def when(info: HorizonInfo, hours: float) -> str:
    """A moment of the horizon as a date, with the time of day when it is not midnight."""
    at = info.at(hours)
    return at.date().isoformat() if at.time() == dt.time() else at.strftime("%Y-%m-%d %H:%M")


def duration(hours: float) -> str:
    """``14.2 days``, or ``30.0 h`` under two days."""
    return f"{hours / 24:,.1f} days" if hours >= 48 else f"{hours:,.1f} h"


def gpus(n: float) -> str:
    """An average number of GPUs: one decimal, two significant digits under 0.1 (0.04 is
    not 0.0)."""
    return f"{n:,.1f}" if n >= 0.1 or n == 0 else f"{n:.2g}"


def _names(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _runs_of(option: PlanOption) -> dict[str, list[RunEntry]]:
    out: dict[str, list[RunEntry]] = {}
    for r in option.runs:
        out.setdefault(r.workload, []).append(r)
    return out


def _gpus_text(servers: Sequence[Server]) -> str:
    gpus: dict[str, int] = {}
    for s in servers:
        if s.gpu and s.gpu_count:
            gpus[s.gpu] = gpus.get(s.gpu, 0) + s.gpu_count
    return ", ".join(f"{n} x {sku}" for sku, n in sorted(gpus.items()))


def buy_line(option: PlanOption, currency: str) -> str:
    """What the option buys and which workloads use it: ``Buy: 2 servers (8 x h100-sxm),
    USD 312,000, for chat-serving and finetune (51 of 52 runs).``"""
    bought = [s for s in option.servers if not s.owned]
    owned = len(option.servers) - len(bought)
    users = list(dict.fromkeys(p.workload for p in option.placements))
    for name, runs in _runs_of(option).items():
        on = sum(1 for r in runs if r.servers is not None)
        if on:
            users.append(name if on == len(runs) == 1
                         else f"{name} ({on} of {counted(len(runs), 'run')})")
    if not bought:
        head = "Buy: nothing"
    else:
        gpus = _gpus_text(bought)
        head = (f"Buy: {counted(len(bought), 'server')}" + (f" ({gpus})" if gpus else "")
                + f", {money(option.total_cost, currency)}")
    also = f", and use {counted(owned, 'server')} already owned" if owned else ""
    return head + also + (f", for {_names(users)}." if users else ".")


def _rent_piece(name: str, runs: list[RunEntry], rented: list[RunEntry],
                currency: str) -> str:
    cost = sum(r.rented.cost for r in rented if r.rented)
    gpu_hours = sum(r.rented.gpus * r.rented.hours for r in rented if r.rented)
    gpus = {(r.rented.gpus if r.rented else 0, r.gpu) for r in rented}
    on = " or ".join(f"{n} x {sku}" for n, sku in sorted(gpus))
    if len(rented) == 1:
        r = rented[0]
        hours = r.rented.hours if r.rented else 0.0
        return (f"{name} run {r.run} on {on} for {duration(hours)}, {money(cost, currency)} "
                f"({gpu_hours:,.0f} GPU-hours)")
    return (f"{name} {len(rented)} of {counted(len(runs), 'run')} on {on} each, "
            f"{money(cost, currency)} ({gpu_hours:,.0f} GPU-hours)")


def rent_line(option: PlanOption, info: HorizonInfo, catalog: Catalog) -> str:
    """What the option rents, per workload: ``Rent: pretrain run 1 on 64 x h100-sxm for
    14.2 days, USD 65,215 (21,811 GPU-hours).``"""
    pieces = []
    for name, runs in _runs_of(option).items():
        rented = [r for r in runs if r.rented is not None]
        if rented:
            pieces.append(_rent_piece(name, runs, rented, catalog.currency))
    if pieces:
        return "Rent: " + "; ".join(pieces) + "."
    if info.rent == "never":
        return "Rent: nothing (policy.rent: never)."
    if not catalog.cloud:
        return "Rent: nothing (the catalog gives no cloud prices)."
    return "Rent: nothing."


def cost_line(option: PlanOption, info: HorizonInfo, currency: str) -> str:
    """The horizon's cost: capex charged (and the share of the hardware's life when less
    than all of it), rent, running costs where counted, and their sum."""
    t = option.time
    if t is None:
        return ""
    if info.capex_share < 1:
        capex = (f"capex charged {money(t.capex_charged, currency)} ("
                 f"{money(option.total_cost, currency)} x {info.capex_share:.0%}: "
                 f"{info.months} of the hardware's {info.life_months} months of life)")
    else:
        capex = f"capex {money(t.capex_charged, currency)}"
    running = f", running costs {money(t.running, currency)}" if t.running else ""
    return (f"Over {info.months} months from {info.start.isoformat()}: {capex}, rent "
            f"{money(t.rent, currency)}{running}; horizon cost "
            f"{money(t.horizon_cost, currency)}.")


def headline_lines(result: PlanResult, catalog: Catalog, width: int) -> list[str]:
    """Under option 1's headline: what it buys, what it rents, what the horizon costs."""
    info = result.horizon
    if info is None or not result.options:
        return []
    best = result.options[0]
    out = wrap(buy_line(best, catalog.currency), width, hang="  ")
    out += wrap(rent_line(best, info, catalog), width, hang="  ")
    out += wrap(cost_line(best, info, catalog.currency), width, hang="  ")
    return out


def _where(r: RunEntry) -> str:
    return f"{'rented' if r.servers is None else 'bought'} {r.gpu}"


def schedule_rows(option: PlanOption, info: HorizonInfo) -> list[list[str]]:
    """One row per workload and way it runs: runs, where (bought or rented, which GPU),
    replicas x GPUs per replica, typical (median) duration, first begin. Always-on
    workloads say so (a CPU-only job: "CPU", 0 GPUs)."""
    rows: list[list[str]] = []
    always: dict[tuple[str, str, int], int] = {}
    for p in option.placements:
        key = (p.workload, f"bought {p.gpu}" if p.gpu else "bought CPU", p.gpus)
        always[key] = always.get(key, 0) + 1
    for (name, where, gpus), n in always.items():
        rows.append([name, "always on", where, f"{n} x {gpus}", "horizon", when(info, 0.0)])
    for name, runs in _runs_of(option).items():
        groups: dict[tuple[str, int, int], list[RunEntry]] = {}
        for r in runs:
            groups.setdefault((_where(r), r.replicas, r.gpus), []).append(r)
        for (where, n, gpus), these in groups.items():
            count = (str(len(runs)) if len(these) == len(runs)
                     else f"{len(these)} of {len(runs)}")
            typical = statistics.median(r.end_h - r.begin_h for r in these)
            rows.append([name, count, where, f"{n} x {gpus}", duration(typical),
                         when(info, min(r.begin_h for r in these))])
    return rows


def use_line(option: PlanOption, info: HorizonInfo) -> str:
    """GPUs in use averaged over the horizon, per GPU SKU: bought busy of installed, and
    rented (``timeline_data.gpu_use``)."""
    use = gpu_use(option, whole(info))
    installed = option.gpus_by_sku()
    parts = []
    for sku in sorted({k[0] for k in use} | set(installed)):
        busy = use.get((sku, BOUGHT), [0.0])[0] / info.hours
        rented = use.get((sku, RENTED), [0.0])[0] / info.hours
        bits = []
        if installed.get(sku):
            bits.append(f"{gpus(busy)} of {installed[sku]} bought busy")
        if rented:
            bits.append(f"{gpus(rented)} rented")
        parts.append(f"{sku} {', '.join(bits)}")
    return "GPUs in use, averaged over the horizon: " + "; ".join(parts) + "."


def network_lines(option: PlanOption, catalog: Catalog, cap: float,
                  width: int) -> list[str]:
    """N2 and N3 in words: per workload whose runs spread over several bought servers, over
    what network (the cards included and any the plan adds, and the switch they meet) and
    at what data-parallel efficiency its typical run trains."""
    servers = {s.id: s for s in option.servers}
    out = []
    for name, runs in _runs_of(option).items():
        spread = [r for r in runs if r.servers is not None and len(set(r.servers)) > 1]
        if not spread:
            continue
        r = sorted(spread, key=lambda r: r.end_h - r.begin_h)[len(spread) // 2]
        held = r.servers or ()
        first = servers[held[0]]
        platform = catalog.platform(first.platform)
        nics = [(catalog.network.nic(i.nic), i.count) for i in platform.included_nics]
        words = " + ".join(f"{n} x {nic.name or nic.sku}" for nic, n in nics if nic) or "none"
        added = [(catalog.network.nic(sku), n) for sku, n in first.nics]
        if added:
            words += ", and the plan adds " + " + ".join(
                f"{n} x {nic.name or nic.sku}" for nic, n in added if nic)
        ports = server_ports(first, catalog)
        kind = max(ports, key=lambda k: sum(g * n for g, n in ports[k].items()), default=None)
        leaf = next((f.leaves[0] for f in option.fabric
                     if first.id in f.servers and f.kind == kind), None)
        switch = f" through {leaf}" if leaf else ""
        why = ("the most the policy allows (data_parallel_efficiency): the network hides its "
               "all-reduce" if r.efficiency >= cap - 1e-9 else
               "each step's gradient all-reduce, the part not hidden behind the backward "
               "pass (policy.comm_overlap), costs the rest")
        out += wrap(f"{name}: {len(set(held))} servers of {platform.sku} train together over "
                    f"their network ({words}){switch}, at {r.efficiency:.0%} data-parallel "
                    f"efficiency: {why}.", width)
    return out


def schedule_lines(result: PlanResult, width: int, catalog: Catalog | None = None,
                   cap: float = 0.9) -> list[str]:
    """Option 1's schedule, summarised per workload, and its GPU use over the horizon."""
    info = result.horizon
    if info is None or not result.options:
        return []
    best = result.options[0]
    out = wrap(f"Schedule, option 1 ({info.months} months from {info.start.isoformat()}; "
               "the workbook's Timeline sheet and runs tables show every run):", width)
    columns = [Column("workload", justify="left", wrap=True, comfort=14),
               Column("runs"), Column("where", justify="left"),
               Column("replicas x GPUs"), Column("typical duration", keep=1),
               Column("first begins", justify="left", keep=2)]
    out += table(columns, schedule_rows(best, info), width)
    out += wrap(use_line(best, info), width)
    if catalog is not None:
        out += network_lines(best, catalog, cap, width)
    for name, n in sorted(info.dropped.items()):
        out += wrap(f"{name}: {counted(n, 'repetition')} left out: "
                    f"{'it' if n == 1 else 'they'} would end after the horizon.", width)
    return out + [""]
