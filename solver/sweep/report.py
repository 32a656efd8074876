"""The sweep's results as data and text: the table, the JSON document, files, terminal text.

``sweep_frame`` is the one flat table (CSV and the workbook's Sweep sheet),
``sweep_document`` the ``--json`` document, ``render_sweep`` the terminal text.
Money in the catalog's currency; priority is Σ priority × ⌈replicas × growth⌉.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ..report.files import write_csv
from .run import Scenario, Sweep, SweepRun


def _money(v: float | None) -> str:
    return "-" if v is None else f"{v:,.0f}"


def _num(v: float) -> str:
    return f"{v:g}"


def marginal_scale(run: SweepRun) -> float:
    """A round amount of money to quote marginal priority per (10^k near the budget step)."""
    budgets = sorted({r.scenario.budget for r in run.rows if r.scenario.budget is not None})
    if not budgets:
        return 1.0
    gaps = [b - a for a, b in zip([0.0, *budgets], budgets) if b > a]
    return 10.0 ** math.floor(math.log10(min(gaps)))


def group_label(s: Scenario) -> str:
    """``growth 1.5, headroom 0.2, h100-sxm x0.8``."""
    parts = [f"growth {_num(s.growth)}", f"headroom {_num(s.headroom)}"]
    parts += [f"{t} x{_num(m)}" for t, m in s.prices]
    parts += [f"{n} {_num(v) if isinstance(v, (int, float)) else v}" for n, v in s.owning]
    return ", ".join(parts)


def _table(header: list[str], lines: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
    out = []
    for r in [header, *lines]:
        cells = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def render_sweep(
    run: SweepRun,
    name: str,
    currency: str,
    price_targets=(),
    files: Sequence[Path] = (),
    notes: Sequence[str] = (),
) -> str:
    """The scenario table, the knees and what was written."""
    scale = marginal_scale(run)
    has_budget = any(r.scenario.budget is not None for r in run.rows)
    owning = [n for n, _ in run.rows[0].scenario.owning] if run.rows else []
    has_tco = any(r.tco is not None for r in run.rows)
    header = ["#"]
    header += [f"budget {currency}"] if has_budget else []
    header += [
        "growth",
        "headroom",
        *[f"{t} x" for t in price_targets],
        *owning,
        "status",
        "served priority",
        f"cost {currency}",
        *([f"TCO {currency}"] if has_tco else []),
    ]
    header += [f"priority per {scale:,.0f} more"] if has_budget else []
    header += ["GPUs", "unserved"]
    lines = []
    for r in run.rows:
        s = r.scenario
        served = (
            "-"
            if r.served_priority is None
            else f"{r.served_priority:g}/{r.total_priority:g} "
            f"({r.served_priority / r.total_priority:.0%})"
        )
        cells = [str(s.id)]
        cells += [_money(s.budget)] if has_budget else []
        cells += [
            _num(s.growth),
            _num(s.headroom),
            *[_num(m) for _, m in s.prices],
            *[_num(v) if isinstance(v, (int, float)) else str(v) for _, v in s.owning],
            r.status + ("*" if r.reused_knee else ""),
            served,
            _money(r.total_cost),
            *([_money(r.tco)] if has_tco else []),
        ]
        if has_budget:
            m = r.marginal_priority_per_dollar
            cells.append("-" if m is None else f"{m * scale:.2f}")
        unserved = ", ".join(r.unserved) if r.total_cost is not None else _short(r.error)
        cells += [gpu_mix(r.gpus) if r.total_cost is not None else "-", unserved or "-"]
        lines.append(cells)
    n_right = 1 + has_budget + 2 + len(price_targets) + len(owning)
    right = set(range(n_right)) | {n_right + 1, n_right + 2, n_right + 3 + has_tco}
    if has_tco:
        right.add(n_right + 3)
    out = [f"plan-buy sweep: {name}, {len(run.rows)} scenario(s)", ""]
    out += _table(header, lines, right)
    if any(r.reused_knee for r in run.rows):
        out.append("  * budget at or above the knee: the cheapest full plan, not solved again")
    out += ["", "Knee: the smallest budget that serves every workload (the cheapest full plan)"]
    for k in run.knees.values():
        label = group_label(k.scenario)
        if k.total_cost is None:
            out.append(f"  {label}: no full plan ({k.status}: {_short(k.error)})")
        else:
            exact = "exact" if k.status == "optimal" else "best found, not proven optimal"
            out.append(f"  {label}: {_money(k.total_cost)} {currency} ({exact}); {gpu_mix(k.gpus)}")
    out.append("")
    if run.interrupted:
        out.append(f"Interrupted: {len(run.rows)} scenario(s) finished, {run.not_run} not run.")
    reused = sum(r.reused_knee for r in run.rows)
    out.append(
        f"{run.solves} solve(s) on {run.jobs} worker(s) in {run.seconds:.1f} s"
        + (f"; {reused} budget(s) at or above the knee reused its plan" if reused else "")
    )
    out += [f"Wrote {path}" for path in files]
    out += list(notes)
    return "\n".join(out)


def _short(text: str | None, n: int = 90) -> str:
    if not text:
        return "-"
    first = text.splitlines()[0]
    return first if len(first) <= n else first[: n - 3] + "..."


# -- The table ----------------------------------------------------------------------------
def sweep_frame(run: SweepRun, price_targets: Sequence[str] = ()):
    """One row per scenario, flat (lists joined), for the CSV and the workbook's Sweep sheet."""
    import pandas as pd

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
                "total_cost": j["total_cost"],
                "served_priority": j["served_priority"],
                "total_priority": j["total_priority"],
                "served_share": (
                    None
                    if row.served_priority is None
                    else round(row.served_priority / row.total_priority, 4)
                ),
                "knee_budget": j["knee_budget"],
                "marginal_priority_per_dollar": j["marginal_priority_per_dollar"],
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


def gpu_mix(gpus: dict[str, int]) -> str:
    """``8x h100-sxm + 2x l40s`` (most GPUs first)."""
    items = sorted(gpus.items(), key=lambda kv: (-kv[1], kv[0]))
    return " + ".join(f"{n}x {sku}" for sku, n in items) if items else "-"


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
            }
            for k in run.knees.values()
        ],
        "rows": [r.to_json() for r in run.rows],
        "files": [str(f) for f in files],
    }


def write_sweep_files(
    run: SweepRun, sweep: Sweep, out_dir: Path, sources: dict[str, Path], workbook: bool = True
) -> tuple[list[Path], str | None]:
    """Write ``<name>-sweep.csv`` and (with a base plan) ``<name>-sweep.xlsx``.

    The workbook's options are the unswept input's plan; its Sweep sheet is the table.

    Returns:
        The files written, and why the workbook was skipped (None when written or not asked).

    Raises:
        InputError: the folder or a file cannot be written.
    """
    out_dir = Path(out_dir)
    name = sweep.wf.name
    frame = sweep_frame(run, sweep.price_targets)
    csv = write_csv(out_dir / f"{name}-sweep.csv", frame)
    files, skipped = [csv], None
    if workbook:
        base = run.base
        if base is None or base.result is None or not base.result.options:
            why = "interrupted" if base is None else (base.error or "no plan").splitlines()[0]
            skipped = f"no workbook: the unswept plan did not finish ({why})"
        else:
            from ..report.workbook import write_workbook

            files.append(
                write_workbook(
                    out_dir / f"{name}-sweep.xlsx",
                    base.result,
                    sweep.wf,
                    sweep.catalog,
                    sources,
                    sweep=frame,
                )
            )
    return files, skipped
