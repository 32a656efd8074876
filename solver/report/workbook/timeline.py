"""The Timeline sheet (H6): option 1's GPUs in use over the horizon, time across (a column
per month, per week for horizons of six months or less) and its capacity down (each run
server, the always-on servers per configuration, the GPUs rented per SKU), then the GPUs
in use per GPU type, bought and rented, with a stacked column chart of them.

Every cell is the average number of GPUs in use over its column's span (GPU-hours ÷ the
span's hours, ``timeline_data``): plain numbers, since they come from the schedule, not
from another cell."""

from __future__ import annotations

from ...plan_types import PlanOption
from ..timeline_data import BOUGHT, RENTED, WEEKLY_UP_TO_MONTHS, Span, gpu_use, spans, use_rows
from .base import BookBase
from .sheet import HEADER_ROW, Sheet, column_px

CONFIG_WIDTH = 20
"""Widest the labels and configurations grow (characters); longer ones wrap."""
FIRST_SPAN_COL = 3
"""Column of the first span: label, configuration and GPUs installed come before."""
BOUGHT_COLOR, RENTED_COLORS = ("#2F5597", "#8FAADC", "#A9D18E", "#548235"), (
    "#F4B183", "#C55A11", "#FFD966", "#BF9000")


class TimelineSheet(BookBase):
    """The Timeline sheet of the workbook (only with a horizon)."""

    def _timeline_sheet(self) -> Sheet:
        info = self.result.horizon
        assert info is not None
        per = "week" if info.months <= WEEKLY_UP_TO_MONTHS else "month"
        return self._sheet(
            "Timeline", "Timeline: GPUs in use over the horizon (option 1)",
            f"{info.months} months from {info.start.isoformat()}, one column per {per}"
            + (" (from the horizon's first day)" if per == "week" else "")
            + ": average GPUs in use (rented ones for the hours billed). Option 1; each "
            "option's runs are on its sheet.")

    def _timeline(self, sh: Sheet) -> None:
        info = self.result.horizon
        if info is None or not self.result.options:
            return
        f, opt = self.fmt, self.result.options[0]
        sh.max_width = CONFIG_WIDTH  # a configuration wraps rather than widen the page
        cols = spans(info)
        labels = [s.label for s in cols]
        sh.header(HEADER_ROW, ["Capacity", "Configuration", "GPUs installed", *labels],
                  numeric={2, *range(FIRST_SPAN_COL, FIRST_SPAN_COL + len(cols))})
        rows = use_rows(opt, cols)
        r = HEADER_ROW + 1
        for row in rows:
            sh.put(r, 0, row.label)
            sh.put(r, 1, row.config or f"{row.gpu}, rented (no server)")
            sh.put(r, 2, row.installed if row.installed else None, f.int)
            self._averages(sh, r, row.gpu_hours, cols)
            r += 1
        if not rows:
            sh.put(r, 0, "No GPU in use.")
            r += 1
        series, chart_row = self._use_block(sh, r + 2, opt, cols)
        for c in range(FIRST_SPAN_COL, FIRST_SPAN_COL + len(cols)):
            sh.widths[c] = max(sh.widths.get(c, 0), 9)
        if series:
            sh.breaks.append(chart_row - 1)  # the chart on a page of its own
        sh.finish(freeze_col=1)
        if series:
            self._use_chart(sh, series, len(cols), chart_row)

    def _averages(self, sh: Sheet, r: int, gpu_hours: tuple[float, ...] | list[float],
                  cols: list[Span]) -> None:
        for c, (h, span) in enumerate(zip(gpu_hours, cols, strict=True), start=FIRST_SPAN_COL):
            sh.ws.write_number(r, c, h / span.hours if span.hours else 0.0, self.fmt.num)

    def _use_block(self, sh: Sheet, row: int, opt: PlanOption, cols: list[Span]
                   ) -> tuple[list[tuple[int, str]], int]:
        """"GPUs in use" per GPU type from ``row`` (section title the row above): bought
        busy and rented, one row each. Returns (row, bought | rented) of each and the row
        the chart of them goes on."""
        f = self.fmt
        sh.section(row - 1, "GPUs in use per GPU type (average over each column)")
        sh.header(row, ["GPUs in use", "GPU", "GPUs installed", *[s.label for s in cols]],
                  numeric={2, *range(FIRST_SPAN_COL, FIRST_SPAN_COL + len(cols))})
        installed = opt.gpus_by_sku()
        use = gpu_use(opt, cols)
        r = row + 1
        series = []
        for (sku, side), hours in use.items():
            sh.put(r, 0, f"{sku} {side}")
            sh.put(r, 1, sku)
            sh.put(r, 2, installed.get(sku) if side == BOUGHT else None, f.int)
            self._averages(sh, r, hours, cols)
            series.append((r, side))
            r += 1
        return series, r + 2

    def _use_chart(self, sh: Sheet, series: list[tuple[int, str]], n: int, row: int) -> None:
        """Stacked columns: the GPUs in use per span, one series per GPU type bought and
        rented (bought in blues and greens, rented in oranges), as wide as the sheet's
        first printed page (a page break across would cut it)."""
        chart = self.wb.add_chart({"type": "column", "subtype": "stacked"})
        last = FIRST_SPAN_COL + n - 1
        k = {BOUGHT: 0, RENTED: 0}
        for r, side in series:
            palette = BOUGHT_COLOR if side == BOUGHT else RENTED_COLORS
            chart.add_series({
                "name": [sh.name, r, 0],
                "categories": [sh.name, HEADER_ROW, FIRST_SPAN_COL, HEADER_ROW, last],
                "values": [sh.name, r, FIRST_SPAN_COL, r, last],
                "fill": {"color": palette[k[side] % len(palette)]},
                "gap": 30,
            })
            k[side] += 1
        chart.set_title({"name": "GPUs in use (average per column), option 1"})
        chart.set_y_axis({"num_format": "#,##0", "major_gridlines": {"visible": True},
                          "name": "GPUs"})
        chart.set_legend({"position": "bottom"})
        first_page = sh.pages_across[0] if sh.pages_across else FIRST_SPAN_COL + n
        width = sum(column_px(sh._col_width(c)) for c in range(first_page))
        # 90%: LibreOffice lays columns out a little wider than Excel's pixels, and the
        # first page is filled to its edge.
        chart.set_size({"width": max(480, min(int(width * 0.9), 1100)), "height": 380})
        sh.ws.insert_chart(row, 0, chart)
