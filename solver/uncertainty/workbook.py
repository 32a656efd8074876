"""The "Uncertainty" sheet of ``out/<name>-uncertainty.xlsx``: the chance each option
holds, its costs at p10 / p50 / p90 and in the worst 10 %, what breaks first, a histogram
of the re-solved plan's cost and an exceedance curve per option.

Two steps, as every workbook of plan-buy: the tables are decided first (``*_rows``, pure,
tested without Excel), then written with XlsxWriter, the product's workbook writer, in one
place for formats. Every cell holds a plain value (no formula), so what a previewer shows
is what a recalculation gives.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .render import COST_LABELS, headline_cost, uncertainty_document
from .stats import COSTS

if TYPE_CHECKING:
    from .run import UncertaintyRun

SHEET = "Uncertainty"
BINS = 20
"""Bars of the histogram."""
LEVELS = tuple(round(i / 20, 2) for i in range(21))
"""Exceedance probabilities of the curves' points: 0, 5 %, ..., 100 %."""


def holds_rows(doc: dict) -> list[list[Any]]:
    """Option, label, share of scenarios it holds in, the 95 % interval, scenarios."""
    return [[o["rank"], o["label"] or "cheapest", o["holds"]["probability"], o["holds"]["low"],
             o["holds"]["high"], o["scenarios"]] for o in doc["options"]]


def cost_rows(doc: dict) -> list[list[Any]]:
    """Plan, cost, p10, p50, p90, worst 10 % (CVaR90), mean: each option, then re-solved."""
    plans = [(f"Option {o['rank']}", o["costs"]) for o in doc["options"]]
    plans.append(("Re-solved", doc["resolved"]["costs"]))
    return [[name, COST_LABELS[c], s["p10"], s["p50"], s["p90"], s["cvar90"], s["mean"]]
            for name, costs in plans for c in COSTS if (s := costs.get(c))]


def break_rows(doc: dict) -> list[list[Any]]:
    """Option, workload, rule, share of scenarios it breaks first in, how many."""
    return [[o["rank"], b["workload"], b["rule"], b["share"], b["count"]]
            for o in doc["options"] for b in o["breaks_first"]]


def histogram_rows(values: list[float], bins: int = BINS) -> list[list[float]]:
    """[bin from, bin to, scenarios] of ``values`` in ``bins`` equal bins (one bin when all
    are equal); the last bin includes its upper edge."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    if hi <= lo:
        return [[round(lo, 2), round(hi, 2), len(values)]]
    counts, edges = np.histogram(values, bins=bins, range=(lo, hi))
    return [[round(float(edges[i]), 2), round(float(edges[i + 1]), 2), int(counts[i])]
            for i in range(len(counts))]


def exceedance_rows(costs_by_option: dict[int, list[float]]) -> list[list[float | None]]:
    """[probability exceeded, cost of option 1, option 2, ...]: the cost an option's cost
    is above in that share of scenarios (its 1 - p quantile)."""
    rows: list[list[float | None]] = []
    for p in LEVELS:
        row: list[float | None] = [p]
        for values in costs_by_option.values():
            row.append(round(float(np.percentile(values, 100 * (1 - p))), 2) if values else None)
        rows.append(row)
    return rows


def write_uncertainty_book(path: Path, run: UncertaintyRun) -> None:
    """Write the workbook (one sheet, "Uncertainty") to ``path``."""
    import xlsxwriter

    doc = uncertainty_document(run)
    cost = headline_cost(run)
    book = xlsxwriter.Workbook(str(path))
    fmt = {"title": book.add_format({"bold": True, "font_size": 14}),
           "head": book.add_format({"bold": True, "bottom": 1, "text_wrap": True}),
           "pct": book.add_format({"num_format": "0.0%"}),
           "money": book.add_format({"num_format": "#,##0"}),
           "int": book.add_format({"num_format": "#,##0"}),
           "rank": book.add_format({"num_format": "0", "align": "left"})}
    ws = book.add_worksheet(SHEET)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)  # one page wide, the charts beside the tables
    ws.set_column(0, 0, 14)
    ws.set_column(1, 2, 22)
    ws.set_column(3, 8, 13)
    ws.write(0, 0, f"Uncertainty: {doc['name']}, {doc['scenarios']:,} scenarios "
                   f"(seed {doc['seed']}), money in {doc['currency']}", fmt["title"])
    ws.write(1, 0, "An option holds when every memory rule, target and deadline is still met "
                   "with its servers and placements; worst 10% = mean of the dearest tenth.")
    row = 3
    held = doc["planned_robust"]
    if held is not None:
        ws.write(2, 0, f"The options were planned to hold in {held['target']:.0%} of the file's "
                       f"own {held['samples']:,} scenarios (seed {held['seed']}), "
                       "uncertainty.robust.")
        row = 4
    row = _table(ws, row, ["Option", "Label", "Holds", "95% low", "95% high", "Scenarios"],
                 holds_rows(doc), ["rank", None, "pct", "pct", "pct", "int"], fmt)
    row = _table(ws, row + 1, ["Plan", "Cost", "p10", "p50", "p90", "Worst 10%", "Mean"],
                 cost_rows(doc), [None, None, *["money"] * 5], fmt)
    row = _table(ws, row + 1, ["Option", "Breaks first", "Rule", "Share", "Scenarios"],
                 break_rows(doc), ["rank", None, None, "pct", "int"], fmt)
    hist = histogram_rows(run.summary.resolved.costs[cost])
    label = COST_LABELS[cost]
    hist_at = row + 1
    row = _table(ws, hist_at, [f"Re-solved {label.lower()} from", "to", "Scenarios"], hist,
                 ["money", "money", "int"], fmt)
    options = {rank: t.costs[cost] for rank, t in sorted(run.summary.options.items())}
    exc_at = row + 1
    _table(ws, exc_at, ["Probability exceeded", *(f"Option {r} {label.lower()}" for r in options)],
           exceedance_rows(options), ["pct", *["money"] * len(options)], fmt)
    if hist:
        _histogram_chart(book, ws, hist_at, hist, label)
    if any(options.values()):
        _exceedance_chart(book, ws, exc_at, list(options), label)
    book.close()


def _table(ws, row: int, headers: list[str], rows: list[list[Any]], kinds: list[str | None],
           fmt: dict) -> int:
    """Write a header and its rows from ``row``; the first row after them."""
    for c, h in enumerate(headers):
        ws.write(row, c, h, fmt["head"])
    for r, values in enumerate(rows, start=row + 1):
        for c, v in enumerate(values):
            if v is None or (isinstance(v, float) and not math.isfinite(v)):
                ws.write_blank(r, c, None)
            elif kinds[c] is not None:
                ws.write_number(r, c, v, fmt[kinds[c]])
            else:
                ws.write(r, c, v)
    return row + 1 + len(rows)


def _histogram_chart(book, ws, at: int, rows: list[list[float]], label: str) -> None:
    n = len(rows)
    chart = book.add_chart({"type": "column"})
    chart.add_series({"name": "Scenarios", "categories": [SHEET, at + 1, 0, at + n, 0],
                      "values": [SHEET, at + 1, 2, at + n, 2], "gap": 10})
    chart.set_title({"name": f"Re-solved plan: {label.lower()} per scenario"})
    chart.set_x_axis({"name": f"{label} from", "num_format": "#,##0"})
    tallest = max((int(r[2]) for r in rows), default=1)
    chart.set_y_axis({"name": "Scenarios", "min": 0, "num_format": "0",
                      "major_unit": max(1, math.ceil(tallest / 5))})
    chart.set_legend({"none": True})
    ws.insert_chart(3, 9, chart, {"x_scale": 1.4, "y_scale": 1.2})


def _exceedance_chart(book, ws, at: int, ranks: list[int], label: str) -> None:
    chart = book.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    for i, rank in enumerate(ranks, start=1):
        chart.add_series({"name": f"Option {rank}",
                          "categories": [SHEET, at + 1, i, at + len(LEVELS), i],
                          "values": [SHEET, at + 1, 0, at + len(LEVELS), 0],
                          "marker": {"type": "circle", "size": 4}})
    chart.set_title({"name": f"Chance the {label.lower()} is exceeded"})
    chart.set_x_axis({"name": label, "num_format": "#,##0"})
    chart.set_y_axis({"name": "Probability exceeded", "num_format": "0%", "min": 0, "max": 1})
    ws.insert_chart(22, 9, chart, {"x_scale": 1.4, "y_scale": 1.2})
