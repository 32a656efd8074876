"""The Sweep and Sweep BOM sheets: the scenario table, each scenario group's knee, the
charts of budget against served priority and cost, and every scenario's bill of materials."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from xlsxwriter.utility import xl_rowcol_to_cell

from .base import BookBase
from .labels import header_label
from .sheet import HEADER_ROW, Sheet, numeric_columns, plain, wrap_lines

if TYPE_CHECKING:
    import pandas as pd

SWEEP_CHART_PX = 260
"""Height (pixels) of one scenario group's chart on the Sweep sheet: two, a row's gap
after each and a repeated header of four lines fit the 487 points (650 pixels) an A4
landscape page holds between its margins."""
SWEEP_CHART_TOP_PX = 6
"""Pixels between the top of a chart's first row and the chart: LibreOffice places a chart
that starts a printed page a few pixels above its row, which printed its top border alone
at the foot of the page before."""
SWEEP_COL_WIDTH = 45
"""Widest a column of the Sweep sheet grows: the lists of GPUs and workloads wrap."""
KNEE_LABEL_WIDTH = 16
"""Width the Sweep sheet's knee table gives its scenario-group labels (they wrap)."""
KNEE_SERIES = "knee: smallest budget serving everything"
"""The name of the red diamonds that mark each scenario group's knee on the Sweep charts."""
TIMED_KNEE_SERIES = "knee: capital cost of the plan of least cost over the horizon"
"""The same over a horizon, where renting may serve everything on a smaller budget."""
KNEE_MARKER = {"type": "diamond", "size": 11, "fill": {"color": "#C00000"},
               "border": {"color": "#C00000"}}
SWEEP_MONEY = ("budget", "total_cost", "knee_budget", "tco", "unit_price", "extended",
               "capex_charged", "rent_cost", "horizon_cost")
"""Columns of the sweep tables that are amounts of money (in the catalog's currency)."""
SWEEP_LABELS = {"kwh_price": "kWh price"}
"""Headers of the sweep tables that differ from their column's words."""


class SweepSheets(BookBase):
    """Sweeps sheet(s) of the workbook."""

    def _sweep(self, sh: Sheet, df: pd.DataFrame) -> None:
        """The scenario table, each group's knee under it, and the charts: one a group of
        budget against served priority and cost when the budget varies, else one chart of
        each group's cost (and TCO) with its knee."""
        sh.max_width = SWEEP_COL_WIDTH
        if "budget" in df.columns and df["budget"].isna().all():
            # No budget in any scenario: the priority gained per more budget is blank in
            # every row, and its "per 1 more" scale means nothing.
            df = df.drop(columns=[c for c in df.columns
                                  if str(c).startswith("priority_gained_per_")])
        end = self._sweep_table(sh, df)
        needed = ("budget", "served_priority", "total_cost")
        if df.empty or not all(c in df.columns for c in needed):
            sh.finish(keep=1)
            return
        runs = budget_runs(df)
        knees = self._knee_table(sh, df, runs, end + 1)
        if knees:
            end = max(knees.values())
        if all(stop - start == 1 for _, start, stop in runs):
            # One scenario a group (no budget axis): a budget chart would hold one point
            # each, so the groups are compared side by side instead.
            sh.breaks.append(end + 2)
            below = end + 3 + math.ceil(360 / sh.ws.default_row_height)  # a page of its own
            sh.breaks += [below] if "rented_gpu_hours" in df.columns else []
            sh.finish(keep=1)
            chart = self._group_chart(sh, df, runs, knees)
            chart.set_size({"width": 720, "height": 360})
            sh.ws.insert_chart(end + 2, 0, chart, {"y_offset": SWEEP_CHART_TOP_PX})
            self._rent_chart(sh, df, below, self._group_names(sh, df, runs, knees))
            return
        # The charts start a printed page and stack in the first columns, two a page, so
        # neither a page break down nor one across cuts a chart; rows of the sheet's
        # default height, a row's gap after each chart.
        step = math.ceil(SWEEP_CHART_PX / sh.ws.default_row_height) + 1
        timed = "rented_gpu_hours" in df.columns  # the buy-or-rent chart comes last
        sh.breaks += [end + 2 + n * step for n in range(0, len(runs) + timed, 2)]
        sh.finish(keep=1)
        first, last = HEADER_ROW + 1, HEADER_ROW + len(df)
        col = list(df.columns).index("scenario")
        self._rent_chart(sh, df, end + 2 + len(runs) * step,
                         [sh.name, first, col, last, col], SWEEP_CHART_PX)
        if len(runs) == 1:
            chart = self._sweep_chart(sh, df, runs, knees, "Budget vs served priority and cost")
            chart.set_size({"width": 720, "height": 360})
            sh.ws.insert_chart(end + 2, 0, chart, {"y_offset": SWEEP_CHART_TOP_PX})
            return
        # Two or more groups: one chart each, rather than every group's lines on one plot,
        # where they overlap.
        for n, run in enumerate(runs):
            label = run[0].strip(" ()") or "all scenarios"
            chart = self._sweep_chart(sh, df, [run], knees, label)
            chart.set_size({"width": 720, "height": SWEEP_CHART_PX})
            sh.ws.insert_chart(end + 2 + n * step, 0, chart,
                               {"y_offset": SWEEP_CHART_TOP_PX})

    def _sweep_format(self, name: str) -> Any:
        """Number format of a column of the sweep tables: money for every amount (the kWh
        price to four decimals), one decimal for power, else by the column's unit suffix."""
        f = self.fmt
        if name in SWEEP_MONEY:
            return f.money
        if name == "kwh_price":
            return f.money_rate
        if name in ("power_kw", "rented_gpu_hours"):
            return f.num
        if name == "rent_price":  # a multiplier, not an amount
            return f.num2
        if name == "reused_knee":
            return f.center  # TRUE/FALSE at the top of a tall row, level with its text
        return f.for_column(name)

    def _sweep_table(self, sh: Sheet, df: pd.DataFrame) -> int:
        """The scenario table under its header, filtered; returns the row after it."""
        cols = [str(c) for c in df.columns]
        sh.header(HEADER_ROW, [SWEEP_LABELS.get(c) or header_label(c) for c in cols],
                  numeric=numeric_columns(df))
        formats = [self._sweep_format(c) for c in cols]
        for r, rec in enumerate(df.itertuples(index=False), start=HEADER_ROW + 1):
            for c, value in enumerate(rec):
                sh.put(r, c, plain(value), formats[c])
        last = HEADER_ROW + len(df)
        if len(df):
            sh.ws.autofilter(HEADER_ROW, 0, last, len(cols) - 1)
        return last + 1

    def _sweep_chart(self, sh: Sheet, df: pd.DataFrame, runs: list[tuple[str, int, int]],
                     knees: dict[str, int], title: str) -> Any:
        """Served priority (left axis) and cost (right axis) against the budget for ``runs``
        (scenario groups), each group's knee marked with a red diamond."""
        col = {c: list(df.columns).index(c) for c in ("budget", "served_priority", "total_cost")}
        chart = self.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
        # One line per scenario group (same growth, headroom, prices, kWh price, years and
        # objective), so a line never jumps back from one group's largest budget to the
        # next group's smallest.
        single = len(runs) == 1
        lines = [("served_priority", "served priority"), ("total_cost", "cost")]
        if "horizon_cost" in df.columns:  # over a horizon, what the plan minimises too
            col["horizon_cost"] = list(df.columns).index("horizon_cost")
            lines.append(("horizon_cost", "cost over the horizon"))
        for label, start, stop in runs:
            first, last = HEADER_ROW + 1 + start, HEADER_ROW + stop
            for name, what in lines:
                y2 = name != "served_priority"
                chart.add_series(
                    {
                        "name": what if single else f"{what}{label}",
                        "categories": [sh.name, first, col["budget"], last, col["budget"]],
                        "values": [sh.name, first, col[name], last, col[name]],
                        "y2_axis": y2,
                        "marker": {"type": {"served_priority": "circle", "total_cost": "square"}
                                   .get(name, "triangle")},
                    }
                )
        rows = sorted(knees[label] for label, start, _ in runs
                      if label in knees and _has_knee(df, start))
        for row in rows:
            chart.add_series(
                {
                    "name": _knee_series(df),
                    "categories": [sh.name, row, 1, row, 1],
                    "values": [sh.name, row, 2, row, 2],
                    "line": {"none": True},
                    "marker": KNEE_MARKER,
                    "data_labels": {"value": False, "series_name": False,
                                    "custom": [{"value": "knee"}], "position": "above"},
                }
            )
        cur = self.catalog.currency
        chart.set_title({"name": title})
        chart.set_x_axis({"name": f"Budget ({cur})", "num_format": "#,##0"})
        chart.set_y_axis({"name": "Served priority"})
        chart.set_y2_axis({"name": f"Total cost ({cur})", "num_format": "#,##0"})
        chart.set_legend({"position": "bottom"})
        return chart

    def _group_chart(self, sh: Sheet, df: pd.DataFrame, runs: list[tuple[str, int, int]],
                     knees: dict[str, int]) -> Any:
        """Without a budget axis (one scenario a group): each group's cost to buy and TCO
        as columns side by side, its knee (cheapest full plan) as a red diamond; the groups
        are named as in the knee table."""
        cols = list(df.columns)
        first, last = HEADER_ROW + 1, HEADER_ROW + len(df)
        names = self._group_names(sh, df, runs, knees)
        chart = self.wb.add_chart({"type": "column"})
        series = [("total_cost", "cost to buy")]
        if "tco" in df.columns and df["tco"].notna().any():
            series.append(("tco", "TCO"))
        if "horizon_cost" in df.columns and df["horizon_cost"].notna().any():
            series.append(("horizon_cost", "cost over the horizon"))
        for name, what in series:
            chart.add_series({"name": what, "categories": names,
                              "values": [sh.name, first, cols.index(name), last,
                                         cols.index(name)]})
        if knees and len(knees) == len(runs):
            line = self.wb.add_chart({"type": "line"})
            line.add_series({"name": _knee_series(df), "categories": names,
                             "values": [sh.name, names[1], 1, names[3], 1],
                             "line": {"none": True}, "marker": KNEE_MARKER})
            chart.combine(line)
        cur = self.catalog.currency
        words = [w for _, w in series]  # cost to buy [, TCO] [and cost over the horizon]
        what = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
        what = what[:1].upper() + what[1:]
        chart.set_title({"name": f"{what} by scenario group"})
        chart.set_y_axis({"name": cur, "num_format": "#,##0"})
        chart.set_legend({"position": "bottom"})
        return chart

    def _group_names(self, sh: Sheet, df: pd.DataFrame, runs: list[tuple[str, int, int]],
                     knees: dict[str, int]) -> list[Any]:
        """The cells naming each group on a chart: the knee table's labels, else the
        scenario numbers."""
        if knees and len(knees) == len(runs):
            return [sh.name, min(knees.values()), 0, max(knees.values()), 0]
        col = list(df.columns).index("scenario")
        return [sh.name, HEADER_ROW + 1, col, HEADER_ROW + len(df), col]

    def _rent_chart(self, sh: Sheet, df: pd.DataFrame, row: int, names: list[Any],
                    height: int = 360) -> None:
        """Over a horizon (H5, H6): where buying starts to win. Per scenario (or group), the
        GPUs bought (columns) against the GPU-hours rented (a line on the right axis): a
        scenario that rents its runs buys fewer GPUs, one whose runs pay for servers rents
        none."""
        if "rented_gpu_hours" not in df.columns or "gpus_bought" not in df.columns:
            return
        cols = list(df.columns)
        first, last = HEADER_ROW + 1, HEADER_ROW + len(df)
        chart = self.wb.add_chart({"type": "column"})
        chart.add_series({"name": "GPUs bought", "categories": names,
                          "values": [sh.name, first, cols.index("gpus_bought"), last,
                                     cols.index("gpus_bought")]})
        line = self.wb.add_chart({"type": "line"})
        line.add_series({"name": "GPU-hours rented", "categories": names, "y2_axis": True,
                         "values": [sh.name, first, cols.index("rented_gpu_hours"), last,
                                    cols.index("rented_gpu_hours")],
                         "marker": {"type": "circle"}})
        chart.combine(line)
        chart.set_title({"name": "Buy or rent: GPUs bought and GPU-hours rented"})
        chart.set_y_axis({"name": "GPUs bought", "num_format": "#,##0"})
        line.set_y2_axis({"name": "GPU-hours rented", "num_format": "#,##0"})
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": 720, "height": height})
        sh.ws.insert_chart(row, 0, chart, {"y_offset": SWEEP_CHART_TOP_PX})

    def _knee_table(self, sh: Sheet, df: pd.DataFrame, runs: list[tuple[str, int, int]],
                    row: int) -> dict[str, int]:
        """Under the Sweep table: every scenario group's knee (its cheapest full plan's
        cost; blank where it has none) and the priority it serves (all of it); returns the
        row of each group, by its label in ``runs`` (empty without the knee columns)."""
        if "knee_budget" not in df.columns or "total_priority" not in df.columns:
            return {}
        row += 1
        sh.section(row, "Knee: the smallest budget that serves every workload"
                   if "horizon_cost" not in df.columns else
                   "Knee: the capital cost of the plan of least cost over the horizon (every "
                   "budget at or above it buys that plan)")
        sh.header(row + 1, ["Scenario group", "Knee budget", "Served priority"],
                  numeric={1, 2})
        rows = {}
        sh.widen(0, KNEE_LABEL_WIDTH)
        for i, (label, start, _) in enumerate(runs, start=row + 2):
            # Wrapped in a narrow cell: the first column repeats on every page across.
            text = label.strip(" ()") or "all scenarios"
            sh.ws.write_string(i, 0, text, self.fmt.text_wrap)
            sh.lines[i] = len(wrap_lines(text, KNEE_LABEL_WIDTH - 4))
            if _has_knee(df, start):
                sh.put(i, 1, float(plain(df.iloc[start]["knee_budget"])), self.fmt.money)
                priority = plain(df.iloc[start]["total_priority"])
                sh.put(i, 2, float(priority or 0.0), self.fmt.plain_num)
            rows[label] = i
        return rows

    # -- Sweep BOM ------------------------------------------------------------------------
    def _sweep_bom(self, sh: Sheet, df: pd.DataFrame) -> None:
        """One long table of every scenario's lines; extended = qty x unit price and a
        SUBTOTAL row per scenario (SUBTOTAL skips the other subtotals and follows filters)."""
        f = self.fmt
        cols = [str(c) for c in df.columns]
        sh.header(HEADER_ROW, [SWEEP_LABELS.get(c) or header_label(c) for c in cols],
                  numeric=numeric_columns(df))
        formats = [self._sweep_format(name) for name in cols]
        c = {name: cols.index(name) for name in ("scenario", "kind", "qty", "unit_price",
                                                  "extended")}
        r = HEADER_ROW + 1
        for _, lines in df.groupby("scenario", sort=False):
            first = r
            for rec in lines.itertuples(index=False):
                for j, (name, value) in enumerate(zip(cols, rec)):
                    if name == "extended":
                        qty = xl_rowcol_to_cell(r, c["qty"])
                        price = xl_rowcol_to_cell(r, c["unit_price"])
                        sh.formula(r, j, f"={qty}*{price}", float(plain(value)), f.money)
                    else:
                        sh.put(r, j, plain(value), formats[j])
                r += 1
            sid = plain(lines.iloc[0]["scenario"])
            sh.put(r, c["scenario"], sid, f.bold)
            sh.put(r, c["kind"], "subtotal", f.bold)
            ext = c["extended"]
            rng = f"{xl_rowcol_to_cell(first, ext)}:{xl_rowcol_to_cell(r - 1, ext)}"
            sh.formula(r, ext, f"=SUBTOTAL(9,{rng})",
                       round(float(lines["extended"].sum()), 2), f.money_bold)
            r += 1
        if r > HEADER_ROW + 1:
            sh.ws.autofilter(HEADER_ROW, 0, r - 1, len(cols) - 1)
        sh.finish(freeze_col=1)


def _sweep_parameters(df: pd.DataFrame) -> list[str]:
    """A scenario's parameters other than its budget: the columns between ``budget`` and
    ``status`` in the sweep table (growth, headroom, each ``price_<target>`` multiplier and
    the cost-of-owning axes ``kwh_price``, ``years``, ``objective``)."""
    cols = [str(c) for c in df.columns]
    if "budget" not in cols:
        return []
    after = cols[cols.index("budget") + 1:]
    return after[: after.index("status")] if "status" in after else after


def _parameter_text(value: Any) -> str:
    """A parameter's value as the terminal writes it: ``1.5``, ``0.3``, ``tco``, ``-``."""
    value = plain(value)
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def budget_runs(df: pd.DataFrame) -> list[tuple[str, int, int]]:
    """Consecutive rows of one scenario group: (label, first row, row after the last).

    A group is every sweep parameter but the budget (``_sweep_parameters``: growth,
    headroom, prices and the kWh price, years and objective); the label names the ones
    that vary between groups, `` (growth 1.5, kwh_price 0.3)``, empty when none does.
    """
    params = _sweep_parameters(df)
    keys = [tuple(plain(df.iloc[i][c]) for c in params) for i in range(len(df))]
    varying = [c for j, c in enumerate(params) if len({k[j] for k in keys}) > 1]
    runs, start = [], 0
    for i in range(1, len(df) + 1):
        if i == len(df) or keys[i] != keys[start]:
            parts = [f"{c} {_parameter_text(df.iloc[start][c])}" for c in varying]
            runs.append((f" ({', '.join(parts)})" if parts else "", start, i))
            start = i
    return runs


def _knee_series(df: pd.DataFrame) -> str:
    """What the knee's diamonds are: over a horizon a smaller budget may serve everything
    by renting more, so there the knee is the capital cost of the best plan."""
    return TIMED_KNEE_SERIES if "horizon_cost" in df.columns else KNEE_SERIES


def _has_knee(df: pd.DataFrame, start: int) -> bool:
    """The scenario group whose first row is ``start`` has a full plan (a knee)."""
    return plain(df.iloc[start]["knee_budget"]) is not None
