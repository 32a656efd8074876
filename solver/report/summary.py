"""The terminal summary of ``plan-buy plan``: ranked options in a few readable lines."""

from __future__ import annotations

from pathlib import Path

from ..inputs.catalog import Catalog
from ..optimize.plan import PlanOption, PlanResult
from .metrics import option_metrics, target_label


def money(value: float, currency: str) -> str:
    """12345.6 -> 'USD 12,346'."""
    return f"{currency} {value:,.0f}"


def _pct(value: float | None, status: str | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0%} {status}" if status and status != "within" else f"{value:.0%}"


def target_lines(option: PlanOption) -> list[str]:
    """Per workload with a target: delivered vs target tokens/s, then days to finish
    (training) or TPOT/TTFT (inference)."""
    out = []
    for f in option.throughput:
        head = (f"{f.workload}: {f.tokens_per_s:,.0f} tokens/s of {f.target_tokens_per_s:,.0f} "
                f"needed, {f.replicas} replica(s) on {f.gpus} GPU(s)")
        if f.days_to_finish is not None:
            head += f", done in {f.days_to_finish:.1f} days"
        if f.tpot_ms is not None:
            head += f", TPOT {f.tpot_ms:.1f} ms"
        if f.ttft_ms is not None:
            head += f", TTFT {f.ttft_ms:.0f} ms"
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
    head += f"; {own.power_kw:,.1f} kW"
    if own.racks is not None:
        head += f" in {own.racks} rack(s)"
    out = [head]
    used = sum(1 for s in option.servers if s.owned)
    if used or option.idle:
        out.append(f"owned servers: {used} used, {len(option.idle)} idle (idle ones draw "
                   "nothing)")
    if own.cloud is not None:
        line = f"renting the same GPUs for {own.years} years: {money(own.cloud, currency)}"
        month = own.break_even_month
        line += (f"; buying breaks even after {month:.0f} months" if month is not None
                 else "; renting stays cheaper over the horizon")
        out.append(line)
    return out


def render_plan_summary(result: PlanResult, catalog: Catalog, name: str,
                        workbook: Path | None = None) -> str:
    """A short report: status, one row per option, the R20 comparison, unserved work."""
    if result.status == "optimal":
        gap = ""
    elif result.gap is None:
        gap = ", no proven bound"
    else:
        gap = f", within {result.gap:.2%} of the proven bound"
    lines = [
        (f"{name}: {len(result.options)} option(s), {result.status} ({result.solver}{gap}); "
         f"prices as of {catalog.prices_as_of} ({catalog.price_note or 'catalog prices'})"),
        "",
    ]
    mixes = {
        o.rank: ", ".join(f"{n}x {sku}" for sku, n in sorted(o.gpus_by_sku().items())) or "none"
        for o in result.options
    }
    width = max([34, *map(len, mixes.values())])
    aims = {o.rank: _aim(o) for o in result.options}
    aim_w = max([8, *map(len, aims.values())])
    header = (f"{'#':>2}  {'option':<{aim_w}}  {'total cost':>14}  {'GPUs':<{width}} {'servers':>7} {'max deg':>7}  "
              f"{'VRAM use ' + target_label('vram'):>17}  {'RAM use ' + target_label('ram'):>17}  "
              f"{'host GB/s/GPU':>13}")
    lines += [header, "-" * len(header)]
    for o in result.options:
        m = option_metrics(o, catalog)
        gpus = mixes[o.rank]
        bw = f"{m.host_bw_gbps_per_gpu:.0f}" if m.host_bw_gbps_per_gpu else "-"
        lines.append(
            f"{o.rank:>2}  {aims[o.rank]:<{aim_w}}  {money(o.total_cost, result.currency):>14}  "
            f"{gpus:<{width}} "
            f"{m.servers:>7} {m.max_degree:>7}  {_pct(m.vram_util, m.vram_status):>17}  "
            f"{_pct(m.ram_util, m.ram_status):>17}  {bw:>13}"
        )
        if o.unserved:
            lines.append(f"    left out under the budget: {', '.join(o.unserved)}")
        lines += [f"    {line}" for line in target_lines(o)]
        lines += [f"    {line}" for line in own_lines(o, result.currency)]
    lines.append("")
    lines += _includes_lines(result, catalog)
    b = result.baseline
    if b:
        lines.append(
            f"Rule-of-thumb reference ({b.name}): {b.servers} server(s), "
            f"{money(b.total_cost, result.currency)}; option 1 saves "
            f"{money(b.saving or 0.0, result.currency)} ({b.saving_pct or 0.0:.0%})."
        )
    for note in result.notes:
        lines.append(f"Rule-of-thumb reference: {note}." if note.startswith("R20") else f"Note: {note}.")
    for warning in result.warnings:
        lines.append(f"Warning: {warning}.")
    if workbook:
        lines.append(f"Workbook: {workbook}")
    return "\n".join(lines)


def _aim(o: PlanOption) -> str:
    """What an option optimises and what it costs over the cheapest ("fewest servers +2.9%")."""
    if o.rank == 1 or o.over_cheapest <= 0:
        return o.label
    return f"{o.label} +{o.over_cheapest:.1%}"


def _includes_lines(result: PlanResult, catalog: Catalog) -> list[str]:
    """O2: what the price of each platform the options buy covers (data drives are extra)."""
    used = sorted({s.platform for o in result.options for s in o.servers})
    if not used:
        return []
    out = ["Platform prices include (GPUs, DIMMs and data drives are separate lines):"]
    for sku in used:
        p = catalog.platform(sku)
        out.append(f"  {sku}: {'; '.join(p.includes) or '(not stated in the catalog)'}")
    return out + [""]
