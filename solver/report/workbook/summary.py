"""The Summary sheet: the options side by side, one row per figure (a table of rows),
live on the option and TCO sheets, with the notes and the cost chart."""

from __future__ import annotations

from typing import Any, NamedTuple

from xlsxwriter.utility import xl_rowcol_to_cell

from ...plan_types import PlanOption
from .. import tables as report
from ..cells import starts_like_formula
from ..metrics import target_label
from ..wording import reference_name
from .base import BookBase
from .sheet import HEADER_ROW, Sheet, plain, wrap_lines

SUMMARY_TEXT_WIDTH = 34
"""Widest the Summary's label and target columns grow: longer text wraps in them."""
OPTION_COL_WIDTH = 26
"""Widest an option's column of the Summary grows: what it optimises and its figure in
that direction wrap in it."""


class Row(NamedTuple):
    """One figure of the Summary: shown ``when`` (a condition of ``SummarySheet._shows``),
    its label and target (``str.format`` templates on ``SummarySheet._words``), the key of
    its values (a column of ``tables.summary_table`` or an option total) and the name of
    its format in ``styles.Formats`` ("" for the status colours of ``*_vs_target``)."""

    when: str
    label: str
    target: str
    key: str
    fmt: str


ROWS: tuple[Row, ...] = (
    Row("always", "Total cost", "{total_target}", "total", "money_total"),
    Row("always", "  Over the cheapest", "{over_target}", "over_cheapest", "pct"),
    Row("horizon", "Horizon (months)", "from {start}", "horizon_months", "int"),
    Row("horizon", "  Capex charged", "{charged_target}", "capex_charged", "money"),
    Row("horizon", "  Rent", "rented GPU-hours x price (each option's sheet)", "rent",
        "money"),
    Row("horizon", "  Running costs", "energy, support, racks (objective tco only)",
        "running", "money"),
    Row("horizon", "Cost over the horizon", "what the options are ranked by", "horizon_cost",
        "money_bold"),
    Row("always", "Optimises", "", "label", "wrap_right"),
    Row("always", "  In that direction", "best possible within the slack, proven", "direction",
        "wrap_right"),
    *(Row("always", f"  {report.KIND_LABELS[k]}", "", k, "money") for k in report.KINDS),
    Row("always", "GPUs", "", "gpus", "int"),
    Row("always", "GPUs by SKU", "", "gpus_by_sku", "wrap_right"),
    Row("always", "Servers", "", "servers", "int"),
    Row("always", "Largest parallel degree", "most GPUs one replica spans", "max_degree", "int"),
    Row("always", "Planned VRAM use (share of usable)", "{vram_target}", "vram_util", "pct"),
    Row("always", "  VRAM vs target", "", "vram_vs_target", ""),
    Row("always", "Planned host RAM use (share of usable)",
        "{ram_target}, or what the fewest DIMMs allow", "ram_util", "pct"),
    Row("always", "  Host RAM target", "85%, or what the fewest DIMMs allow", "ram_target", "pct"),
    Row("always", "  RAM vs target", "", "ram_vs_target", ""),
    Row("always", "Installed VRAM (GB)", "", "installed_vram_gb", "num"),
    Row("always", "Installed host RAM (GB)", "", "installed_ram_gb", "num"),
    Row("always", "Host memory bandwidth per GPU (GB/s)", "the lowest of its GPU servers",
        "host_bw_gbps_per_gpu", "num"),
    Row("always", "Installed storage (TB)", "", "installed_storage_tb", "num2"),
    Row("always", "Unserved workloads", "", "unserved", "wrap_right"),
    Row("always", "Power drawn (kW)", "at full load", "power_kw", "num"),
    Row("site", "Racks used", "of {racks}", "racks", "int"),
    Row("inventory", "Owned servers used", "", "owned_used", "int"),
    Row("inventory", "Owned servers idle", "", "owned_idle", "int"),
    Row("tco", "Energy over {years} years", "", "energy_cost", "money"),
    Row("tco", "TCO over {years} years", "see the TCO sheet", "tco", "money_bold"),
    Row("rent", "Renting the GPUs bought for {years} years", "owned servers left out",
        "cloud_cost", "money"),
    Row("rent", "Buying breaks even after (months)", "capex ÷ monthly (rent − running cost)",
        "break_even_month", "num_right"),
    # A reference that could not run the mix tells nothing: no rows without one.
    Row("baseline", "Rule-of-thumb pool: {reference}", "", "reference", "money"),
    Row("baseline", "Saving vs the rule-of-thumb pool", "", "saving", "money"),
    Row("baseline", "Saving vs the rule-of-thumb pool (%)", "", "saving_pct", "pct"),
    Row("bound", "Proven lower bound on {what} (no plan of this rank costs less)",
        "as solved: does not follow edits", "lower_bound", "money"),
    Row("bound", "  {What} above the bound (%)", "", "bound_gap", "pct"),
)
"""Every row the Summary can have, in order; ``SummarySheet._rows`` keeps those that apply."""

YEARS_KEYS = ("energy_cost", "tco", "cloud_cost")
"""Rows whose label names the horizon as a formula on the Assumptions' Years cell."""


class SummarySheet(BookBase):
    """The Summary sheet of the workbook."""

    def _summary(self, sh: Sheet) -> None:
        res = self.result
        # Labels and targets wrap in narrow columns, so the options print on the page of
        # the labels that name their figures.
        sh.max_width = SUMMARY_TEXT_WIDTH
        summ = report.summary_table(res, self.catalog, self.wf.policy)
        opts = list(res.options)
        gap = "" if res.gap is None else f", {res.gap:.2%} above its proven lower bound"
        sh.long_note(2, f"Solver: {res.status} ({res.solver or 'solver not recorded'}{gap}). "
                        "Optimal means within the requested gap (--gap) of the lowest cost "
                        "the solver proved possible.")
        sh.header(
            HEADER_ROW,
            ["", "Target / reference"] + [f"Option {o.rank}" for o in opts],
            numeric=set(range(2, 2 + len(opts))),
        )
        rows = self._rows()
        # Every row's position first: a formula may refer to a row further down.
        row_of = {key: HEADER_ROW + 1 + i for i, (_, _, key, _) in enumerate(rows) if key}
        r = HEADER_ROW + 1
        for label, target, key, fmt in rows:
            self._row_head(sh, r, label, target, key)
            for c, o in enumerate(opts, start=2):
                self._figure(sh, r, c, o, summ, key, fmt, row_of)
            r += 1
        r = self._notes(sh, r + 1)
        sh.breaks.append(r + 1)  # the chart on a page of its own, never cut by a break
        self._cost_chart(sh, row_of, len(opts), r + 1)
        sh.widths[0] = max(30, sh.widths.get(0, 0))
        sh.widths[1] = max(sh.widths.get(1, 10), 20)
        for c in range(2, 2 + len(opts)):
            sh.widths[c] = min(max(sh.widths.get(c, 0), 16), OPTION_COL_WIDTH)
        sh.finish(freeze_col=1)

    def _shows(self) -> dict[str, bool]:
        """Which conditions of ``ROWS`` hold for this plan."""
        opts, tco = self.result.options, self.wf.policy.tco
        return {
            "always": True,
            "horizon": self.result.horizon is not None,
            "site": self.wf.site is not None,
            "inventory": bool(self.wf.inventory),
            "tco": tco is not None,
            "rent": tco is not None and any(o.own is not None and o.own.cloud is not None
                                            for o in opts),
            "baseline": self.result.baseline is not None,
            "bound": any(o.lower_bound is not None for o in opts),
        }

    def _words(self) -> dict[str, Any]:
        """What the templates of ``ROWS`` are filled with."""
        # Options are ranked, and "over the cheapest" measured, by what the program
        # minimised: capital cost, or TCO under objective tco (its row comes further down).
        by_tco, tco, base = self.by_tco, self.wf.policy.tco, self.result.baseline
        info = self.result.horizon
        what = "cost over the horizon" if info else "TCO" if by_tco else "cost"
        ranked = "cost over the horizon" if info else "TCO"
        return {
            "total_target": (f"capex (purchase); ranked by {ranked}, below"
                             if by_tco or info else ""),
            "over_target": f"by {ranked}" if by_tco or info else "",
            "start": info.start.isoformat() if info else "",
            "charged_target": (f"capex x {info.months} of {info.life_months} months of life"
                               if info and info.capex_share < 1 else "capex (all of it)"),
            "vram_target": target_label("vram"),
            "ram_target": target_label("ram"),
            "racks": self.wf.site.racks if self.wf.site is not None else "",
            "years": tco.years if tco is not None else "",
            "reference": reference_name(base) if base is not None else "",
            "what": what,
            "What": what[0].upper() + what[1:],
        }

    def _rows(self) -> list[tuple[str, str, str, Any]]:
        """The rows that apply: (label, target, key, format)."""
        shows, words = self._shows(), self._words()
        return [(row.label.format(**words), row.target.format(**words), row.key,
                 getattr(self.fmt, row.fmt) if row.fmt else None)
                for row in ROWS if shows[row.when]]

    def _row_head(self, sh: Sheet, r: int, label: str, target: str, key: str) -> None:
        """A row's label (column A) and target or reference input (column B)."""
        f, tco, base = self.fmt, self.wf.policy.tco, self.result.baseline
        if key in YEARS_KEYS and tco is not None:
            self._years_label(sh, r, label, tco.years)
        else:
            sh.put(r, 0, label, f.bold if key in ("total", "horizon_cost") else None)
        if key == "reference":  # one input cell; every option's saving refers to it
            sh.put(r, 1, float(base.total_cost if base else 0.0), f.price_input)
        else:
            sh.put(r, 1, target)

    def _figure(self, sh: Sheet, r: int, c: int, o: Any, summ: Any, key: str, fmt: Any,
                row_of: dict[str, int]) -> None:
        """Option ``o``'s figure of row ``key`` in column ``c``: a formula on another
        sheet's total, a formula on this sheet's rows, or the summary table's value."""
        f = self.fmt
        rec = summ.iloc[c - 2]
        if key in self.totals[o.rank]:
            cell, value = self.totals[o.rank][key]
            sh.formula(r, c, f"={cell}", value, fmt)
        elif key == "reference" or not key:
            return
        elif key in ("saving", "over_cheapest", "saving_pct"):
            self._relative(sh, r, c, rec, key, fmt, row_of)
        elif key in ("gpus_by_sku", "unserved"):  # one item a line, in a narrow column
            text = str(plain(rec[key]) or "").replace(", ", "\n")
            literal = any(starts_like_formula(t) for t in text.splitlines())
            sh.ws.write_string(r, c, text, f.wrap_literal if literal else fmt)
            lines = max(str(plain(v) or "").count(", ") + 1 for v in summ[key])
            if lines > 1:
                sh.ws.set_row(r, 15 * lines)
        elif key == "bound_gap":
            self._bound_gap(sh, r, c, o, row_of, fmt)
        elif key in ("energy_cost", "cloud_cost", "break_even_month"):
            self._own_figure(sh, r, c, o, key, fmt)
        elif key.endswith("_vs_target"):
            status = plain(rec[key])
            sh.put(r, c, status, f.below if status in ("below", "above") else f.within)
        else:
            sh.put(r, c, plain(rec[key]), fmt)
            if fmt is f.wrap_right:  # a row never grows for wrapped text by itself
                text = str(plain(rec[key]) or "")
                sh.lines[r] = max(sh.lines.get(r, 1),
                                  len(wrap_lines(text, OPTION_COL_WIDTH - 4)))

    def _relative(self, sh: Sheet, r: int, c: int, rec: Any, key: str, fmt: Any,
                  row_of: dict[str, int]) -> None:
        """The saving against the rule-of-thumb pool (amount, share) and how much more an
        option costs than the first, as formulas on the rows they compare."""
        if key == "saving":
            ref = xl_rowcol_to_cell(row_of["reference"], 1, True, True)
            total = xl_rowcol_to_cell(row_of["total"], c)
            sh.formula(r, c, f"={ref}-{total}", plain(rec["saving_vs_reference"]), fmt)
        elif key == "over_cheapest":
            ranked = row_of[self.ranked_key]
            first = xl_rowcol_to_cell(ranked, 2, True, True)
            total = xl_rowcol_to_cell(ranked, c)
            sh.formula(r, c, f"=IF({first}=0,0,{total}/{first}-1)",
                       plain(rec["over_cheapest"]), fmt)
        else:
            ref = xl_rowcol_to_cell(row_of["reference"], 1, True, True)
            saving = xl_rowcol_to_cell(row_of["saving"], c)
            sh.formula(r, c, f"=IF({ref}=0,0,{saving}/{ref})",
                       plain(rec["saving_pct"]) or 0.0, fmt)

    def _notes(self, sh: Sheet, r: int) -> int:
        """The solver's notes and warnings and what a budget leaves out, one a row from
        ``r``; returns the row after them."""
        res = self.result
        notes = [n for n in res.notes if n not in res.reference_notes]  # JSON keeps those
        for text in (*notes, *(f"Warning: {w}" for w in res.warnings)):
            sh.long_note(r, text)
            r += 1
        left_out = self._left_out()
        if left_out:
            sh.long_note(r, left_out)
            r += 1
        return r

    def _years_label(self, sh: Sheet, r: int, label: str, years: int) -> None:
        """A row label naming the horizon, as a formula on the Years cell of the
        Assumptions sheet ("Energy over 4 years"), so it follows an edit there."""
        head, _, tail = label.partition(f" {years} years")
        value = f"{head} {years} years{tail}"
        long = len(value) > sh.max_width
        sh.formula(r, 0, f'="{head} "&{self.own_cell["years"]}&" years{tail}"', value,
                   self.fmt.text_wrap if long else self.fmt.text)
        sh.widen(0, len(value) + 1)
        if long:
            sh.lines[r] = max(sh.lines.get(r, 1), len(wrap_lines(value, sh.max_width - 4)))

    def _own_figure(self, sh: Sheet, r: int, c: int, o: PlanOption, key: str,
                    fmt: Any) -> None:
        """Energy and rent over the horizon (Σ the TCO sheet's yearly row) and the
        break-even month (the TCO sheet's cell): live on the Assumptions inputs."""
        refs = self.own_refs.get(o.rank, {})
        if key == "break_even_month":
            if "break_even" in refs:
                ref, value = refs["break_even"]
                sh.formula(r, c, f"={ref}", value, fmt)
            return
        where = refs.get("energy" if key == "energy_cost" else "rent")
        value = getattr(o.own, "energy" if key == "energy_cost" else "cloud", None)
        if where is None or value is None:
            sh.put(r, c, None, fmt)
            return
        tco_sheet, row = where
        years = self.wf.policy.tco.years  # type: ignore[union-attr]
        first, last = tco_sheet.ref(row, 1), xl_rowcol_to_cell(row, years + 1, True, True)
        sh.formula(r, c, f"=SUM({first}:{last})", float(value), fmt)

    def _bound_gap(self, sh: Sheet, r: int, c: int, o: PlanOption, row_of: dict[str, int],
                   fmt: Any) -> None:
        """How far the option's cost (its TCO under objective tco) lies above the proven
        lower bound, as a formula on the two cells above it."""
        lb = o.lower_bound  # on what the program minimised (TCO: by_tco)
        key = self.ranked_key
        if lb is None or key not in self.totals[o.rank]:
            sh.put(r, c, None, fmt)
            return
        value = self.totals[o.rank][key][1]
        cost = xl_rowcol_to_cell(row_of[key], c)
        bound = xl_rowcol_to_cell(row_of["lower_bound"], c)
        sh.formula(r, c, f'=IF({cost}=0,"",MAX(0,({cost}-{bound})/{cost}))',
                   max(0.0, (value - lb) / value) if value else "", fmt)

    def _left_out(self) -> str:
        """Under a budget that leaves work out: what option 1 leaves out and what serving
        everything costs (when known); "" otherwise."""
        budget, opts = self.wf.policy.budget, self.result.options
        if budget is None or not opts or not opts[0].unserved:
            return ""
        cur = self.catalog.currency
        text = (f"The budget of {budget:,.0f} {cur} leaves out: "
                f"{', '.join(opts[0].unserved)} (option 1).")
        full = self.full
        if full is None:
            return text
        if full.total_cost is None:
            return text + f" Serving every workload: no plan found ({full.why_not})."
        how = ("proven cheapest" if full.status == "optimal"
               else "best found, not proven cheapest")
        mix = ", ".join(f"{n}x {sku}" for sku, n in sorted(full.gpus_by_sku.items(),
                                                          key=lambda kv: (-kv[1], kv[0])))
        return (text + f" Serving every workload costs {full.total_cost:,.0f} {cur} ({how}"
                + (f"; {mix}" if mix else "") + ").")

    def _cost_chart(self, sh: Sheet, kind_rows: dict[str, int], n: int, row: int) -> None:
        if not n:
            return
        chart = self.wb.add_chart({"type": "column", "subtype": "stacked"})
        colors = {
            "platform": "#8FAADC",
            "gpu": "#2F5597",
            "memory": "#A9D18E",
            "storage": "#F4B183",
            "network": "#BFBFBF",
        }
        for kind in report.KINDS:
            kr = kind_rows[kind]
            chart.add_series(
                {
                    "name": [sh.name, kr, 0],
                    "categories": [sh.name, HEADER_ROW, 2, HEADER_ROW, 1 + n],
                    "values": [sh.name, kr, 2, kr, 1 + n],
                    "fill": {"color": colors[kind]},
                }
            )
        chart.set_title({"name": f"Cost by kind per option ({self.catalog.currency})"})
        chart.set_y_axis({"num_format": "#,##0", "major_gridlines": {"visible": True}})
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": 720, "height": 360})
        sh.ws.insert_chart(row, 0, chart)
