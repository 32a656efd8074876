"""The sweep's results as data and text: the table, the JSON document, files, terminal text.

``sweep_frame`` is the one flat table (CSV and the workbook's Sweep sheet),
``sweep_document`` the ``--json`` document, ``render_sweep`` the terminal text.
Money in the catalog's currency; priority is Σ priority × ⌈replicas × growth⌉.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ..report.files import csv_frame, replacing_together
from ..report.text import DEFAULT_WIDTH, Column, bullets, table, wrap
from .run import Group, Scenario, ScenarioRow, Sweep, SweepRun


def _money(v: float | None) -> str:
    return "-" if v is None else f"{v:,.0f}"


def _num(v: float) -> str:
    return f"{v:g}"


def marginal_scale(run: SweepRun) -> float:
    """A round amount of money to quote marginal priority per (10^k near the budget step).

    The one scale of "priority gained per N more": the terminal table, the CSV and the
    workbook's Sweep sheet all quote it (``marginal_column``)."""
    budgets = sorted({r.scenario.budget for r in run.rows if r.scenario.budget is not None})
    if not budgets:
        return 1.0
    gaps = [b - a for a, b in zip([0.0, *budgets], budgets) if b > a]
    return 10.0 ** math.floor(math.log10(min(gaps)))


def marginal_column(scale: float) -> str:
    """The CSV column of priority gained per ``scale`` more budget: ``priority_gained_per_100000``."""
    return f"priority_gained_per_{scale:.0f}" if scale >= 1 else f"priority_gained_per_{scale:g}"


def group_label(s: Scenario) -> str:
    """``growth 1.5, headroom 0.2, h100-sxm x0.8``."""
    parts = [f"growth {_num(s.growth)}", f"headroom {_num(s.headroom)}"]
    parts += [f"{t} x{_num(m)}" for t, m in s.prices]
    parts += [f"{n} {_num(v) if isinstance(v, (int, float)) else v}" for n, v in s.owning]
    return ", ".join(parts)


STATUS_WORDS = {
    "optimal": "optimal",
    "feasible": "best found",
    "infeasible": "no plan",
    "timeout": "timed out",
    "failed": "failed",
}
"""What a scenario's status says in the terminal table (the legend explains each)."""


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
    }
    varying = [k for k, v in values.items() if len(v) > 1]
    fixed = [f"{k} {one if isinstance(one, str) else _num(one)}" for k, v in values.items()
             if len(v) == 1 and (one := next(iter(v))) is not None]
    return varying, fixed


def _axis_value(s: Scenario, axis: str) -> str:
    if axis == "growth":
        return _num(s.growth)
    if axis == "headroom":
        return _num(s.headroom)
    owning = dict(s.owning)
    if axis in owning:  # kWh price, years, objective (the cost-of-owning axes)
        v = owning[axis]
        return _num(v) if isinstance(v, (int, float)) else str(v)
    m = dict(s.prices).get(axis.removesuffix(" price x"))
    return "-" if m is None else _num(m)


def replica_share(row, sweep: Sweep | None) -> float | None:
    """Planned replicas (after growth) of the served workloads ÷ all planned replicas."""
    if sweep is None or row.total_cost is None:
        return None
    wf = sweep.groups[row.scenario.group][0]
    planned = {w.name: wf.planned_replicas(w) for w in wf.workloads}
    total = sum(planned.values())
    return sum(planned.get(n, 0) for n in row.served) / total if total else None


TCO_AXES = ("kwh_price", "years", "objective")
"""Sweep axes whose scenarios differ in TCO, not (only) in what they buy."""


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
    out = wrap(f"plan-buy sweep: {name}, {len(run.rows)} scenario(s)"
               + (f"; {', '.join(fixed)} in every one" if fixed else ""), width)
    out.append("")
    out += table(columns, rows, width)
    out += _legend(run, has_budget, scale, width)
    out += _knee_lines(run, currency, width)
    out += _preferred(run, currency, width)
    out += _run_lines(run, files, notes, width)
    return "\n".join(out)


def _knee_lines(run: SweepRun, currency: str, width: int) -> list[str]:
    """Each scenario group's smallest budget serving everything (its knee), or why none."""
    out = [""] + wrap("Smallest budget that serves every workload (the cheapest full plan):",
                      width)
    for k in run.knees.values():
        label = group_label(k.scenario)
        if k.total_cost is None:
            out += bullets([f"{label}: no full plan ({k.status}: {_short(k.error)})"], width)
        else:
            exact = ("proven cheapest" if k.status == "optimal"
                     else "best found, not proven cheapest")
            out += bullets([(f"{label}: {currency} {_money(k.total_cost)} ({exact}); "
                            f"{gpu_mix(k.gpus, ', ')}")], width)
    return out


def _run_lines(run: SweepRun, files: Sequence[Path], notes: Sequence[str],
               width: int) -> list[str]:
    """How the sweep ran (interrupted or not, solves, workers, seconds, knees reused), the
    files written and the caller's notes."""
    out = [""]
    if run.interrupted:
        out.append(f"Interrupted: {len(run.rows)} scenario(s) finished, {run.not_run} not run.")
    reused = sum(r.reused_knee for r in run.rows)
    out += wrap(
        f"{run.solves} solve(s) on {run.jobs} worker(s) in {run.seconds:.1f} s"
        + (f"; {reused} budget(s) at or above the full plan's cost reused it" if reused else ""),
        width)
    for path in files:
        out += wrap(f"Wrote {path}", width)
    for note in notes:
        out += wrap(note, width)
    return out


def dearer_preferred(run: SweepRun) -> dict[Group, ScenarioRow]:
    """Each group's full plan of lowest TCO where it costs more to buy than the group's
    knee (``objective: tco``; or its knee is unknown): budgets from the knee up to its cost
    buy other plans."""
    def dearer(group: Group, cost: float) -> bool:
        knee = run.knees[group].total_cost if group in run.knees else None
        return knee is None or cost > knee + 0.01

    return {g: p for g, p in run.preferred.items()
            if p.total_cost is not None and dearer(g, p.total_cost)}


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


# -- The table ----------------------------------------------------------------------------
def sweep_frame(run: SweepRun, price_targets: Sequence[str] = ()):
    """One row per scenario, flat (lists joined), for the CSV and the workbook's Sweep sheet.

    The marginal column is priority gained per ``marginal_scale(run)`` more budget, as the
    terminal table quotes it. A scenario's parameters other than its budget (growth,
    headroom, ``price_<target>``, then the cost-of-owning axes swept) sit between
    ``budget`` and ``status``: the workbook groups scenarios by those columns."""
    import pandas as pd

    scale = marginal_scale(run)
    records = []
    for row in run.rows:
        j = row.to_json()
        rec = {
            "scenario": j["scenario"],
            "budget": j["budget"],
            "growth": j["growth"],
            "headroom": j["headroom"],
        }
        for t in price_targets:
            rec[f"price_{t}"] = j["prices"].get(t)
        for n, v in row.scenario.owning:
            rec[n] = v
        rec.update(
            {
                "status": j["status"],
                "status_note": j["status_note"],
                "total_cost": j["total_cost"],
                "served_priority": j["served_priority"],
                "total_priority": j["total_priority"],
                "served_share": (
                    None
                    if row.served_priority is None
                    else round(row.served_priority / row.total_priority, 4)
                ),
                "knee_budget": j["knee_budget"],
                marginal_column(scale): (
                    None
                    if row.marginal_priority_per_dollar is None
                    else round(row.marginal_priority_per_dollar * scale, 4)
                ),
                "gpus": gpu_mix(row.gpus) if row.gpus else "",  # not "-": the CSV escapes a leading -
                "unserved": ", ".join(row.unserved),
                "served": ", ".join(row.served),
                "reused_knee": row.reused_knee,
                "seconds": j["seconds"],
                "error": j["error"] or "",
                "tco": j["tco"],
                "power_kw": j["power_kw"],
            }
        )
        records.append(rec)
    return pd.DataFrame.from_records(records)


BOM_COLUMNS = ("sku", "kind", "qty", "unit_price", "extended")
"""The bill-of-materials columns of ``bom_frame`` after the scenario's parameters."""


def bom_frame(run: SweepRun, price_targets: Sequence[str] = ()):
    """Every scenario's bill of materials as one long table: the scenario's id and
    parameters, then one row per line (SKU, kind, qty, unit price, extended). Scenarios
    without a plan have no rows."""
    import pandas as pd

    records = []
    for row in run.rows:
        s = row.scenario
        params: dict[str, object] = {"scenario": s.id, "budget": s.budget,
                                     "growth": s.growth, "headroom": s.headroom}
        for t in price_targets:
            params[f"price_{t}"] = dict(s.prices).get(t)
        params.update(dict(s.owning))
        params["status"] = row.status
        for ln in row.lines:
            records.append({**params, "sku": ln.sku, "kind": ln.kind, "qty": ln.qty,
                            "unit_price": ln.unit_price, "extended": ln.extended})
    if not records:
        return pd.DataFrame(columns=["scenario", "budget", "growth", "headroom", "status",
                                     *BOM_COLUMNS])
    return pd.DataFrame.from_records(records)


def gpu_mix(gpus: dict[str, int], sep: str = " + ") -> str:
    """``8x h100-sxm + 2x l40s`` (most GPUs first)."""
    items = sorted(gpus.items(), key=lambda kv: (-kv[1], kv[0]))
    return sep.join(f"{n}x {sku}" for sku, n in items) if items else "-"


def sweep_document(run: SweepRun, sweep: Sweep, files: Sequence[Path] = ()) -> dict:
    """The ``--json`` document: a row per scenario with its parameters and results."""
    return {
        "status": "interrupted" if run.interrupted else "complete",
        "name": sweep.wf.name,
        "currency": sweep.catalog.currency,
        "scenarios": len(sweep.scenarios),
        "not_run": run.not_run,
        "jobs": run.jobs,
        "solves": run.solves,
        "seconds": round(run.seconds, 3),
        "knees": [
            {
                "growth": k.scenario.growth,
                "headroom": k.scenario.headroom,
                "prices": dict(k.scenario.prices),
                "owning": dict(k.scenario.owning),
                "status": k.status,
                "knee_budget": k.total_cost,
                "gpus": k.gpus,
                "error": k.error,
                "lowest_tco_plan": _preferred_json(run.preferred.get(group)),
            }
            for group, k in run.knees.items()
        ],
        "rows": [r.to_json() for r in run.rows],
        "files": [str(f) for f in files],
    }


def _preferred_json(row: ScenarioRow | None) -> dict | None:
    """A group's full plan of lowest TCO (``objective: tco``; None otherwise)."""
    if row is None:
        return None
    return {"status": row.status, "total_cost": row.total_cost, "tco": row.tco,
            "gpus": row.gpus, "error": row.error}


def write_sweep_files(
    run: SweepRun, sweep: Sweep, out_dir: Path, sources: dict[str, Path], workbook: bool = True,
    stem: str | None = None,
) -> tuple[list[Path], str | None]:
    """Write ``<stem>.csv`` and (with a base plan) ``<stem>.xlsx`` in ``out_dir``; the stem
    is ``<name>-sweep`` unless given (``--out report.xlsx`` gives ``report``).

    The workbook's options are the unswept input's plan; its Sweep sheet is the table.
    Both are written to temporary files and renamed only once both are complete, so a
    workbook that cannot be written leaves the previous CSV too. A workbook asked for but
    not written (the unswept plan did not finish) takes a previous run's workbook of that
    name away, so that no file there is from another run.

    Returns:
        The files written, and why the workbook was skipped (None when written or not asked).

    Raises:
        InputError: the folder or a file cannot be written.
    """
    out_dir = Path(out_dir)
    stem = stem or f"{sweep.wf.name}-sweep"
    frame = sweep_frame(run, sweep.price_targets)
    csv, book = out_dir / f"{stem}.csv", out_dir / f"{stem}.xlsx"
    base = run.base
    result = base.result if base is not None else None
    planned = result is not None and bool(result.options)
    skipped = None
    if workbook and not planned:
        why = "interrupted" if base is None else (base.error or "no plan").splitlines()[0]
        skipped = f"no workbook: the unswept plan did not finish ({why})"
    files = [csv, book] if workbook and planned else [csv]
    with replacing_together(files) as tmps:
        csv_frame(frame).to_csv(tmps[0], index=False)
        if result is not None and len(files) == 2:
            from ..report.workbook import write_workbook

            write_workbook(tmps[1], result, sweep.wf, sweep.catalog, sources,
                           sweep=frame, sweep_bom=bom_frame(run, sweep.price_targets))
    if skipped is not None:
        skipped += _remove_stale(book)
    return files, skipped


def _remove_stale(book: Path) -> str:
    """Remove a previous run's workbook at ``book``; what to add to the skip note."""
    if not book.is_file():
        return ""
    try:
        book.unlink()
    except OSError as exc:
        return (f"; {book} is from an earlier run and could not be removed "
                f"({exc.strerror or exc})")
    return f"; the earlier {book.name} was removed, as it was not this run's"
