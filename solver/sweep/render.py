"""The sweep's terminal text (``render_sweep``): the scenario table laid out for the
reader's width, each group's knee, the plans preferred by TCO, and how the sweep ran."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..report.text import DEFAULT_WIDTH, Column, bullets, table, wrap
from ..report.wording import counted
from .report import (
    dearer_preferred,
    gpu_mix,
    group_label,
    marginal_scale,
    num_text,
    replica_share,
)
from .rows import ScenarioRow, SweepRun
from .scenarios import Scenario, Sweep
from .timing import axis_header


def _money(v: float | None) -> str:
    return "-" if v is None else f"{v:,.0f}"


STATUS_WORDS = {
    "optimal": "optimal",
    "feasible": "best found",
    "infeasible": "no plan",
    "timeout": "timed out",
    "failed": "failed",
}
"""What a scenario's status says in the terminal table (the legend explains each)."""


TCO_AXES = ("kwh_price", "years", "objective")
"""Sweep axes whose scenarios differ in TCO, not (only) in what they buy."""


def _axes(run: SweepRun, price_targets: Sequence[str]) -> tuple[list[str], list[str]]:
    """The axes that vary between scenarios (table columns) and those that do not (said
    once above the table)."""
    rows = [r.scenario for r in run.rows]
    values: dict[str, set[float | str | None]] = {
        "growth": {s.growth for s in rows},
        "headroom": {s.headroom for s in rows},
        **{f"{t} price x": {dict(s.prices).get(t) for s in rows} for t in price_targets},
        **{name: {dict(s.owning).get(name) for s in rows}
           for name in (dict(rows[0].owning) if rows else {})},
        **{axis_header(name): {dict(s.timing).get(name) for s in rows}
           for name in (dict(rows[0].timing) if rows else {})},
    }
    varying = [k for k, v in values.items() if len(v) > 1]
    fixed = [f"{k} {one if isinstance(one, str) else num_text(one)}" for k, v in values.items()
             if len(v) == 1 and (one := next(iter(v))) is not None]
    return varying, fixed


def _axis_value(s: Scenario, axis: str) -> str:
    if axis == "growth":
        return num_text(s.growth)
    if axis == "headroom":
        return num_text(s.headroom)
    owning = dict(s.owning)
    if axis in owning:  # kWh price, years, objective (the cost-of-owning axes)
        v = owning[axis]
        return num_text(v) if isinstance(v, (int, float)) else str(v)
    timing = {axis_header(n): v for n, v in s.timing}
    if axis in timing:  # rent price, horizon months, a job's runs (the time axes)
        return num_text(timing[axis])
    m = dict(s.prices).get(axis.removesuffix(" price x"))
    return "-" if m is None else num_text(m)


def render_sweep(
    run: SweepRun,
    name: str,
    currency: str,
    price_targets: Sequence[str] = (),
    files: Sequence[Path] = (),
    notes: Sequence[str] = (),
    *,
    sweep: Sweep | None = None,
    width: int = DEFAULT_WIDTH,
) -> str:
    """The scenario table, the smallest budget serving everything, and what was written;
    no line wider than ``width``."""
    scale = marginal_scale(run)
    has_budget = any(r.scenario.budget is not None for r in run.rows)
    varying, fixed = _axes(run, price_targets)
    columns = [Column("#")]
    columns += [Column(f"budget {currency}")] if has_budget else []
    columns += [Column(a) for a in varying]
    has_tco = any(r.tco is not None for r in run.rows)
    columns += [Column(f"cost {currency}")]
    # TCO answers a sweep over what it depends on (kWh price, years, objective) or one that
    # ranks by it: that column stays, the GPUs go first (their mix rarely changes there).
    by_tco = (any(a in TCO_AXES for a in varying)
              or (sweep is not None and sweep.wf.policy.objective == "tco"))
    columns += [Column(f"TCO {currency}", keep=0 if by_tco else 2)] if has_tco else []
    timed = any(r.time is not None for r in run.rows)
    columns += _time_columns(currency) if timed else []
    columns += [Column("status", justify="left", wrap=True, comfort=10)]
    columns += [Column("planned replicas served", keep=2)] if sweep is not None else []
    columns += [Column(f"priority gained per {scale:,.0f} more", keep=3)] if has_budget else []
    columns += [Column("GPUs", justify="left", wrap=True, keep=1, comfort=16),
                Column("leaves out", justify="left", wrap=True, comfort=16)]
    rows = []
    for r in run.rows:
        s = r.scenario
        cells = [str(s.id)]
        cells += [_money(s.budget)] if has_budget else []
        cells += [_axis_value(s, a) for a in varying]
        cells += [_money(r.total_cost)]
        cells += [_money(r.tco)] if has_tco else []
        cells += _time_cells(r) if timed else []
        word = STATUS_WORDS.get(r.status, r.status)
        if r.status_note:
            word += f" ({r.status_note})"
        cells += [word + (" *" if r.reused_knee else "")]
        if sweep is not None:
            share = replica_share(r, sweep)
            cells.append("-" if share is None else f"{share:.0%}")
        if has_budget:
            m = r.marginal_priority_per_dollar
            cells.append("-" if m is None else f"{m * scale:.1f}")
        if r.total_cost is None:
            left = _short(r.error)
        else:
            left = ", ".join(r.unserved) or "nothing"
        cells += [gpu_mix(r.gpus, ", ") if r.total_cost is not None else "-", left]
        rows.append(cells)
    out = wrap(f"plan-buy sweep: {name}, {counted(len(run.rows), 'scenario')}"
               + (f"; {', '.join(fixed)} in every one" if fixed else ""), width)
    out.append("")
    out += table(columns, rows, width)
    out += _legend(run, has_budget, scale, width)
    out += _knee_lines(run, currency, width)
    out += _preferred(run, currency, width)
    out += _run_lines(run, files, notes, width)
    return "\n".join(out)


TIMED_KNEE = ("Capital cost of the plan of least cost over the horizon (every budget at or "
              "above it buys that plan; a smaller one may still serve every workload by "
              "renting more):")
"""The knee's heading over a horizon, where renting can stand in for buying."""


def _time_columns(currency: str) -> list[Column]:
    """Over a horizon (H6): what each plan costs there and rents; the capital cost stays in
    the cost column."""
    return [Column(f"rent {currency}"), Column(f"over horizon {currency}"),
            Column("rented GPU-h", keep=2), Column("runs rented", keep=2)]


def _time_cells(r: ScenarioRow) -> list[str]:
    t = r.time
    if t is None or t.horizon_cost is None:
        return ["-"] * 4
    hours = "-" if t.rented_gpu_hours is None else f"{t.rented_gpu_hours:,.0f}"
    return [_money(t.rent_cost), _money(t.horizon_cost), hours, f"{t.runs_rented} of {t.runs}"]


def _knee_lines(run: SweepRun, currency: str, width: int) -> list[str]:
    """Each scenario group's smallest budget serving everything (its knee), or why none."""
    timed = any(k.time is not None for k in run.knees.values())
    out = [""] + wrap("Smallest budget that serves every workload (the cheapest full plan):"
                      if not timed else TIMED_KNEE, width)
    for k in run.knees.values():
        label = group_label(k.scenario)
        if k.total_cost is None:
            out += bullets([f"{label}: no full plan ({k.status}: {_short(k.error)})"], width)
        else:
            exact = ("proven cheapest" if k.status == "optimal"
                     else "best found, not proven cheapest")
            if timed:
                exact = ("proven least over the horizon" if k.status == "optimal"
                         else "best found, not proven least over the horizon")
            out += bullets([(f"{label}: {currency} {_money(k.total_cost)} ({exact}); "
                            f"{gpu_mix(k.gpus, ', ')}")], width)
    return out


def _run_lines(run: SweepRun, files: Sequence[Path], notes: Sequence[str],
               width: int) -> list[str]:
    """How the sweep ran (interrupted or not, solves, workers, seconds, knees reused), the
    files written and the caller's notes."""
    out = [""]
    if run.interrupted:
        out.append(f"Interrupted: {counted(len(run.rows), 'scenario')} finished, {run.not_run} not run.")
    reused = sum(r.reused_knee for r in run.rows)
    out += wrap(
        f"{counted(run.solves, 'solve')} on {counted(run.jobs, 'worker')} in {run.seconds:.1f} s"
        + (f"; {counted(reused, 'budget')} at or above the full plan's cost reused it" if reused else ""),
        width)
    for path in files:
        out += wrap(f"Wrote {path}", width)
    for note in notes:
        out += wrap(note, width)
    return out


def _preferred(run: SweepRun, currency: str, width: int) -> list[str]:
    """Under ``objective: tco``: the full plan of lowest TCO, which budgets at or above its
    cost buy, where it is not the cheapest full plan."""
    dearer = dearer_preferred(run)
    if not dearer:
        return []
    out = wrap("The full plan of lowest TCO (objective tco), which every budget at or above "
               "its cost buys:", width)
    for p in dearer.values():
        exact = "proven lowest TCO" if p.status == "optimal" else "best found, not proven"
        out += bullets([(f"{group_label(p.scenario)}: {currency} {_money(p.total_cost)}, TCO "
                         f"{currency} {_money(p.tco)} ({exact}); {gpu_mix(p.gpus, ', ')}")],
                       width)
    return out


def _legend(run: SweepRun, has_budget: bool, scale: float, width: int) -> list[str]:
    """One line per mark or word the table uses."""
    items = []
    statuses = {r.status for r in run.rows}
    if any(r.reused_knee for r in run.rows):
        which = ("its group's full plan (the cheapest, or under objective tco the one of "
                 "lowest TCO)" if dearer_preferred(run) else "the cheapest full plan")
        items.append(f"*: the budget covers {which}, so that plan is the answer "
                     "(not solved again).")
    if has_budget:
        items.append(f"priority gained: served priority (priority x planned replicas) added "
                     f"since the budget before, per {scale:,.0f} of budget.")
    if "optimal" in statuses and has_budget:
        items.append("optimal: under a budget, the most priority the budget allows, at the "
                     "lowest cost for it.")
    if "feasible" in statuses:
        items.append("best found: not proven that no cheaper plan (or one serving more) "
                     "exists. In brackets, why: the time limit ended the solve (raise "
                     "--time-limit), and the gap, how far above the lowest cost the solver "
                     "proved possible the plan may be, or no proven bound at all.")
    return bullets(items, width, indent="") if items else []


def _short(text: str | None, n: int = 90) -> str:
    if not text:
        return "-"
    first = text.splitlines()[0]
    return first if len(first) <= n else first[: n - 3] + "..."
