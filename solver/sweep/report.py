"""The sweep's results as data: the table, the JSON document and the files.

``sweep_frame`` is the one flat table (CSV and the workbook's Sweep sheet),
``sweep_document`` the ``--json`` document; ``render.render_sweep`` writes the terminal
text from the same rows.
Money in the catalog's currency; priority is Σ priority × ⌈replicas × growth⌉.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..report.files import csv_frame, replacing_together
from .rows import ScenarioRow, SweepRun
from .scenarios import Group, Scenario, Sweep
from .timing import axis_column, timing_label

if TYPE_CHECKING:
    import pandas as pd


def num_text(v: float) -> str:
    """A sweep parameter's number as labels and the terminal write it: ``1.5``, ``0.3``."""
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
    parts = [f"growth {num_text(s.growth)}", f"headroom {num_text(s.headroom)}"]
    parts += [f"{t} x{num_text(m)}" for t, m in s.prices]
    parts += [f"{n} {num_text(v) if isinstance(v, (int, float)) else v}" for n, v in s.owning]
    return ", ".join(parts + timing_label(s.timing))


def replica_share(row: ScenarioRow, sweep: Sweep | None) -> float | None:
    """Planned replicas (after growth) of the served workloads ÷ all planned replicas."""
    if sweep is None or row.total_cost is None:
        return None
    wf = sweep.groups[row.scenario.group][0]
    planned = {w.name: wf.planned_replicas(w) for w in wf.workloads}
    total = sum(planned.values())
    return sum(planned.get(n, 0) for n in row.served) / total if total else None


def dearer_preferred(run: SweepRun) -> dict[Group, ScenarioRow]:
    """Each group's full plan of lowest TCO where it costs more to buy than the group's
    knee (``objective: tco``; or its knee is unknown): budgets from the knee up to its cost
    buy other plans."""
    def dearer(group: Group, cost: float) -> bool:
        knee = run.knees[group].total_cost if group in run.knees else None
        return knee is None or cost > knee + 0.01

    return {g: p for g, p in run.preferred.items()
            if p.total_cost is not None and dearer(g, p.total_cost)}


def sweep_frame(run: SweepRun, price_targets: Sequence[str] = ()) -> pd.DataFrame:
    """One row per scenario, flat (lists joined), for the CSV and the workbook's Sweep sheet.

    The marginal column is priority gained per ``marginal_scale(run)`` more budget, as the
    terminal table quotes it. A scenario's parameters other than its budget (growth,
    headroom, ``price_<target>``, then the cost-of-owning and time axes swept) sit between
    ``budget`` and ``status``: the workbook groups scenarios by those columns. Over a
    horizon the row ends with ``TIME_COLUMNS``."""
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
        for n, v in row.scenario.timing:
            rec[axis_column(n)] = v
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
        if row.time is not None:
            rec.update({k: j[k] for k in TIME_COLUMNS})
        records.append(rec)
    return pd.DataFrame.from_records(records)


TIME_COLUMNS = ("capex_charged", "rent_cost", "horizon_cost", "gpus_bought", "rented_gpu_hours",
                "runs_rented", "runs")
"""Columns the sweep table gains over a horizon (H6), after ``power_kw``."""
BOM_COLUMNS = ("sku", "kind", "qty", "unit_price", "extended")
"""The bill-of-materials columns of ``bom_frame`` after the scenario's parameters."""


def bom_frame(run: SweepRun, price_targets: Sequence[str] = ()) -> pd.DataFrame:
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
        params.update({axis_column(n): v for n, v in s.timing})
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
                **({"timing": {axis_column(n): v for n, v in k.scenario.timing}}
                   if k.scenario.timing else {}),
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
