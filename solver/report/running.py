"""What running an option takes and gives, as terminal lines: throughput against its
targets (T5), serving latency per replica, and the cost of owning it (P1-P5: energy, TCO,
power, racks, renting instead)."""

from __future__ import annotations

from ..estimate.replica import estimate
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..optimize.owning import kw_text
from ..plan_types import OwnCost, PlanOption
from ..result import PlanResult
from .text import bullets, wrap
from .wording import counted, money


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
        head = f"{f.workload}: {rate}, {counted(f.replicas, 'replica')} on {counted(f.gpus, 'GPU')}"
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
        head += f" in {counted(own.racks, 'rack')}"
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


def serving_section(option: PlanOption, wf: WorkloadFile, catalog: Catalog,
                   width: int) -> list[str]:
    """Option 1's serving figures (``serving_lines``) under a heading; none to show: []."""
    shown = serving_lines(option, wf, catalog)
    if not shown:
        return []
    return ["Serving, option 1 (per replica, at the batch it serves):"] + bullets(
        shown, width) + [""]


def throughput_lines(result: PlanResult, width: int) -> list[str]:
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


def own_cost_lines(result: PlanResult, width: int) -> list[str]:
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
