"""The finance workbook: ranked options, bills of materials with live formulas, chargeback.

``write_workbook`` lays the tables of ``solver/report.py`` out as an .xlsx file a finance
analyst can open, audit and edit. Sheets: Summary, Option 1..K, Placement, Memory, Teams,
Assumptions (run facts, input hashes, catalog prices, policy, R-rules) and, when given,
Sweep and Sweep BOM (every scenario's bill of materials, one long table).

Why XlsxWriter (not openpyxl): every formula is stored *with its computed value*, so the
file reads correctly where nothing recalculates (mail previewers, ``pandas.read_excel``),
while Excel and LibreOffice still recalculate on open. openpyxl writes formulas without
cached values, which such readers see as empty. This is the only module that imports the
writer; styles and number formats live in ``_Formats``.

Live formulas: extended = quantity × unit price; unit prices point at the one price cell
of their SKU on the Assumptions sheet; subtotals are SUMIF by kind, totals SUM; Summary
and Teams refer to the option sheets' totals. Text from the input is always written as a
string (never a formula), with Excel's quote prefix when it starts like one.
"""

from __future__ import annotations

import datetime as dt
import math
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xlsxwriter
from xlsxwriter.exceptions import FileCreateError
from xlsxwriter.utility import quote_sheetname, xl_col_to_name, xl_rowcol_to_cell

from .. import __version__
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..optimize.owning import kw_text
from ..result import PlanResult
from . import tables as report
from .cells import starts_like_formula
from .files import replacing
from .metrics import target_label
from .quote import quote_lines
from .summary import reference_name

if TYPE_CHECKING:
    import pandas as pd

    from ..optimize.full import FullPlan

HEADER_ROW = 3
"""0-based row of every table header (rows 0-1 hold the title and a note)."""
MAX_COL_WIDTH = 60
"""Widest a column grows (characters); longer text wraps in it."""
NOTE_WIDTH = 100
"""Characters a merged note spans at least: about a landscape page at 100%."""
HEADER_WRAP = 12
"""Characters a header line holds at most before it wraps (between words)."""
PAGE_WIDTH_PX = 900
"""Column pixels (Excel's 7 per character of width, + 5 per column) one landscape page
holds at 100%, 0.5-inch margins: Letter's width as LibreOffice prints it (A4 holds 7% more,
Excel about 7% more again), so a layout sized to it prints on either paper."""
MIN_PRINT_SCALE = 75
"""Least print scale (%): 10-point text prints at 7.5 points, still easy to read. A
sheet whose columns would need less prints on several pages across instead."""
SWEEP_CHART_PX = 260
"""Height (pixels) of one scenario group's chart on the Sweep sheet: two, a row's gap
after each and a repeated header of four lines fit the 487 points (650 pixels) an A4
landscape page holds between its margins."""
SWEEP_CHART_TOP_PX = 6
"""Pixels between the top of a chart's first row and the chart: LibreOffice places a chart
that starts a printed page a few pixels above its row, which printed its top border alone
at the foot of the page before."""
ASSUMPTIONS_COL_WIDTH = 40
"""Widest a column of the Assumptions sheet grows: descriptions and hashes wrap."""
SWEEP_COL_WIDTH = 45
"""Widest a column of the Sweep sheet grows: the lists of GPUs and workloads wrap."""
SUMMARY_TEXT_WIDTH = 34
"""Widest the Summary's label and target columns grow: longer text wraps in them."""
OPTION_COL_WIDTH = 26
"""Widest an option's column of the Summary grows: what it optimises and its figure in
that direction wrap in it."""
KNEE_LABEL_WIDTH = 16
"""Width the Sweep sheet's knee table gives its scenario-group labels (they wrap)."""
KNEE_SERIES = "knee: smallest budget serving everything"
"""The name of the red diamonds that mark each scenario group's knee on the Sweep charts."""
KNEE_MARKER = {"type": "diamond", "size": 11, "fill": {"color": "#C00000"},
               "border": {"color": "#C00000"}}
SWEEP_MONEY = ("budget", "total_cost", "knee_budget", "tco", "unit_price", "extended")
"""Columns of the sweep tables that are amounts of money (in the catalog's currency)."""
SWEEP_LABELS = {"kwh_price": "kWh price"}
"""Headers of the sweep tables that differ from their column's words."""
FONT = "Arial"
"""Every cell's font: on Windows and macOS, and metric-compatible Liberation Sans on Linux,
so a sheet prints the same wherever it opens (Calibri is missing where Office is, and
LibreOffice's stand-ins for it are wider)."""
DEFAULT_COL_PX = 64
"""Pixels of a column whose width is not set (Excel's default 8.43 characters)."""
STAYS_CHEAPER = "renting stays cheaper"
"""The break-even cell when renting the GPUs bought never costs more than buying them."""
CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥"}


def write_workbook(
    path: Path,
    result: PlanResult,
    wf: WorkloadFile,
    catalog: Catalog,
    sources: dict[str, Path],
    sweep: pd.DataFrame | None = None,
    sweep_bom: pd.DataFrame | None = None,
    full: FullPlan | None = None,
) -> Path:
    """Write the finance workbook atomically and return its path.

    The file is written to a temp file in the same folder and renamed over ``path``
    (``files.replacing``); on any failure or interrupt the previous workbook stays intact
    and the temp file is removed.

    Args:
        path: where the .xlsx goes (its folder is created if missing).
        result: the solver's ranked options.
        wf: the workload file planned (names, teams, policy).
        catalog: the priced catalog the plan used (currency, price date, unit prices).
        sources: label -> input file, listed with SHA-256 on the Assumptions sheet.
        sweep: optional scenario table for a Sweep sheet.
        sweep_bom: optional long table of every scenario's bill of materials (a Sweep BOM
            sheet: extended and per-scenario subtotals are live formulas).
        full: under a budget that leaves work out, the cheapest plan serving everything
            (the Summary says what it costs).

    Raises:
        InputError: the folder or file cannot be written.
    """
    path = Path(path)
    with replacing(path) as tmp:
        try:
            _Book(tmp, result, wf, catalog, sources, sweep, sweep_bom, full).write()
        except FileCreateError as exc:  # XlsxWriter wraps the OSError of a failed write
            cause = exc.args[0] if exc.args else None
            raise cause if isinstance(cause, OSError) else OSError(str(exc)) from None
    return path


def currency_format(currency: str) -> str:
    """Excel number format for money: symbol, thousands separators, 2 decimals."""
    code = "".join(ch for ch in currency if ch.isalnum())[:8] or "?"
    sym = CURRENCY_SYMBOLS.get(code.upper())
    if sym:
        return f'"{sym}"#,##0.00;-"{sym}"#,##0.00'
    return f'#,##0.00 "{code}";-#,##0.00 "{code}"'


def _label(name: str) -> str:
    if name.startswith("priority_gained_per_"):  # the sweep's marginal column
        amount = float(name.removeprefix("priority_gained_per_"))
        return f"Priority gained per {amount:,.0f} more" if amount >= 1 else (
            f"Priority gained per {amount:g} more")
    if name in LABELS:
        return LABELS[name]
    # Any other column: its words, acronyms upper-cased and a unit suffix in brackets
    # ("server_cpu_cores" -> "Server CPU cores", "power_kw" -> "Power (kW)").
    parts = name.split("_")
    words = [ACRONYMS.get(p, p) for p in parts]
    if len(parts) > 1 and parts[-1] in UNITS:
        words[-1] = UNITS[parts[-1]]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


ACRONYMS = {"cpu": "CPU", "gpu": "GPU", "gpus": "GPUs", "tco": "TCO", "vram": "VRAM",
            "ram": "RAM", "sku": "SKU", "bom": "BOM", "pue": "PUE"}
UNITS = {"kw": "(kW)", "gb": "(GB)", "tb": "(TB)", "ms": "(ms)", "w": "(W)"}


LABELS = {
    "sku": "SKU",
    "qty": "Quantity",
    "gpu": "GPU",
    "gpus": "GPUs",
    "gpu_indices": "GPU indices",
    "micro_batch": "Micro-batch",
    "grad_accum_steps": "x Accum. steps",
    "serving_batch": "Serving batch",
    "tpot_ms": "Time per output token (ms)",
    "ttft_ms": "Time to first token (ms)",
    "vram_gb_per_gpu": "VRAM per GPU (GB)",
    "usable_vram_gb": "Usable VRAM per GPU (GB)",
    "vram_fill": "VRAM fill",
    "host_ram_gb": "Host RAM (GB)",
    "total_gb_per_gpu": "Total per GPU (GB)",
    "weights_gb": "Weights (GB)",
    "gradients_gb": "Gradients (GB)",
    "optimizer_gb": "Optimizer (GB)",
    "master_weights_gb": "Master weights (GB)",
    "activations_gb": "Activations (GB)",
    "kv_cache_gb": "KV cache (GB)",
    "overhead_gb": "Overhead (GB)",
    "gpu_equivalents": "GPUs used",
    "owned_gpu_equivalents": "GPUs used on owned servers (not charged)",
    "owned_host_ram_gb": "Host RAM on owned servers (GB)",
    "storage_tb": "Storage (TB)",
    "server_disk_used_tb": "Server disk used (TB)",
    "server_disk_tb": "Server disk installed (TB)",
    "total_cost": "Total cost",
    "budget": "Budget",
    "served_priority": "Served priority",
    "sha256": "SHA-256",
    "replicas_asked": "Replicas asked",
    "replicas_planned": "Replicas planned (after growth)",
    "replicas_placed": "Replicas placed (option 1)",
    "gpus_per_replica": "GPUs per replica",
    "vram_per_replica_gb": "VRAM per replica (GB)",
    "host_ram_per_replica_gb": "Host RAM per replica (GB)",
    "charged_cost": "Cost charged (option 1)",
    "gpu_share": "GPU share",
    "gpu_cost": "GPU cost",
    "host_bw_gbps_per_gpu": "Host bandwidth per GPU (GB/s)",
}


class _Formats:
    """Every cell style and number format of the workbook, in one place."""

    def __init__(self, wb: xlsxwriter.Workbook, currency: str):
        money = currency_format(currency)
        add = wb.add_format
        self.title = add({"bold": True, "font_size": 14})
        self.note = add({"italic": True, "font_color": "#595959"})
        self.note_wrap = add(
            {"italic": True, "font_color": "#595959", "text_wrap": True, "valign": "top"}
        )
        # indent: left-aligned text after a right-aligned number ("0.2" "Fraction of ...")
        # keeps a gap between them.
        self.text_wrap = add({"text_wrap": True, "valign": "top", "indent": 1})
        # indent: a right-aligned header next to a left-aligned one ("Bytes" "SHA-256")
        # would otherwise read as one word.
        self.header = add(
            {"bold": True, "bg_color": "#DDEBF7", "bottom": 1, "text_wrap": True, "valign": "top",
             "align": "left", "indent": 1}
        )
        self.header_num = add(
            {
                "bold": True,
                "bg_color": "#DDEBF7",
                "bottom": 1,
                "text_wrap": True,
                "valign": "top",
                "align": "right",
                "indent": 1,
            }
        )
        self.section = add({"bold": True, "font_size": 12})
        self.text = add({"valign": "top", "indent": 1})
        self.literal = add({"valign": "top", "quote_prefix": True})
        # Top-aligned like the numbers beside it when a wrapped target makes its row tall.
        self.bold = add({"bold": True, "valign": "top"})
        self.right = add({"align": "right"})
        self.center = add({"align": "center", "valign": "top"})
        self.wrap_right = add({"align": "right", "text_wrap": True, "valign": "top"})
        self.wrap_literal = add(
            {"align": "right", "text_wrap": True, "valign": "top", "quote_prefix": True}
        )
        self.below = add({"align": "right", "font_color": "#C00000"})
        self.within = add({"align": "right", "font_color": "#375623"})
        self.price_input = add(
            {"num_format": money, "bg_color": "#FFF2CC", "font_color": "#0000FF"}
        )
        self.num_input = add(
            {"num_format": "#,##0.0###", "bg_color": "#FFF2CC", "font_color": "#0000FF"}
        )
        # Numbers top-aligned like the text beside them when a wrapped cell makes a row tall.
        self.money_row_total = add({"num_format": money, "bold": True, "valign": "top"})
        self.money = add({"num_format": money, "valign": "top"})
        # A price per kWh: 0.115 must not read 0.12.
        self.money_rate = add({"num_format": money.replace("0.00", "0.00##"),
                               "valign": "top"})
        self.money_bold = add({"num_format": money, "bold": True, "top": 1, "valign": "top"})
        self.money_total = add(
            {"num_format": money, "bold": True, "top": 1, "bottom": 6, "valign": "top"}
        )
        self.plain_num = add({"valign": "top"})
        self.int = add({"num_format": "#,##0", "valign": "top"})
        self.num = add({"num_format": "#,##0.0", "valign": "top"})
        self.num2 = add({"num_format": "#,##0.00", "valign": "top"})
        self.num_right = add({"num_format": "#,##0.0", "valign": "top", "align": "right"})
        self.pct = add({"num_format": "0.0%", "valign": "top"})
        self.pct_bold = add({"num_format": "0.0%", "bold": True, "top": 1, "valign": "top"})
        self.bold_top = add({"bold": True, "top": 1})

    def for_column(self, name: str):
        """Number format for a table column, by its name's unit suffix."""
        if name.endswith(("_cost", "price", "extended", "budget", "saving_vs_reference")):
            return self.money
        if name.endswith(("_share", "_util", "_fill", "_pct")):
            return self.pct
        if name.endswith(("_gb", "_gbps", "_per_gpu", "_gb_per_gpu", "gpu_equivalents")):
            return self.num
        if name.endswith("_tb"):
            return self.num2
        if name in ("fits", "replica", "degree"):
            return self.center
        return None


class _Sheet:
    """A worksheet that writes typed values, never turns text into formulas, tracks widths."""

    def __init__(self, wb: xlsxwriter.Workbook, name: str, fmt: _Formats, title: str, note: str):
        self.ws = wb.add_worksheet(name)
        self.name = name
        self.fmt = fmt
        self.widths: dict[int, float] = {}
        self.max_width = MAX_COL_WIDTH
        """Widest a column of this sheet grows (characters); longer text wraps in it."""
        self.notes: dict[int, str] = {}
        self.lines: dict[int, int] = {}
        self.headers: dict[int, dict[int, str]] = {}
        """row -> column -> label of each header cell (its row height is set at finish)."""
        self.breaks: list[int] = []
        """Rows that start a new printed page (before a chart, so no page cuts it)."""
        self.scale = 100
        self.pages_across: list[int] = []
        """First column of each printed page across after the first (none: one page)."""
        """row -> text lines a wrapped cell in it needs (row heights are set at finish:
        neither Excel nor LibreOffice grows a row for wrapped text in a written file)."""
        self.ws.write_string(0, 0, title, fmt.title)
        self.long_note(1, note)

    def long_note(self, row: int, text: str) -> None:
        """A note that wraps inside the sheet's used columns (merged at ``finish``), so a
        long line never widens what prints."""
        self.notes[row] = text

    def ref(self, row: int, col: int) -> str:
        """Absolute cross-sheet reference to one cell: 'Option 1'!$F$9."""
        return f"{quote_sheetname(self.name)}!{xl_rowcol_to_cell(row, col, True, True)}"

    def _width(self, col: int, n: float) -> None:
        self.widths[col] = max(self.widths.get(col, 0), min(n, self.max_width))

    def put(self, row: int, col: int, value: Any, fmt=None) -> None:
        """Write one value by its type; text is literal text whatever it starts with."""
        ws = self.ws
        if value is None or (isinstance(value, float) and math.isnan(value)):
            ws.write_blank(row, col, None, fmt)
        elif isinstance(value, bool):
            ws.write_boolean(row, col, value, fmt)
            self._width(col, 6)
        elif isinstance(value, (int, float)):
            ws.write_number(row, col, value, fmt or self.fmt.plain_num)
            self._width(col, len(f"{value:,.2f}") + 3)
        else:
            text = str(value)
            if starts_like_formula(text):
                fmt = self.fmt.literal
            elif fmt is None and len(text) > self.max_width:
                fmt = self.fmt.text_wrap  # wraps in its column instead of spilling right
                self.lines[row] = max(self.lines.get(row, 1),
                                      len(_wrap(text, self.max_width - 4)))
            ws.write_string(row, col, text, fmt or self.fmt.text)
            self._width(col, len(text) + 1)

    def formula(self, row: int, col: int, formula: str, value: float | str, fmt=None) -> None:
        """A live formula stored with its computed value (read without recalculation)."""
        self.ws.write_formula(row, col, formula, fmt, value)
        shown = f"{value:,.2f}" if isinstance(value, (int, float)) else str(value)
        self._width(col, len(shown) + 4)

    def header(self, row: int, labels: list[str], col: int = 0, numeric=()) -> None:
        """A header row; labels of numeric columns (indices in ``numeric``) align right."""
        for i, label in enumerate(labels):
            fmt = self.fmt.header_num if i in numeric else self.fmt.header
            self.ws.write_string(row, col + i, label, fmt)
            # A header wraps between words: its column needs its longest word (+ the
            # indent), never the whole label, so a short number keeps a narrow column.
            self._width(col + i, _header_width(label) + 2)
            self.headers.setdefault(row, {})[col + i] = label

    def _header_heights(self) -> None:
        """Each header row tall enough for its labels wrapped at their columns' widths."""
        for row, labels in self.headers.items():
            lines = max(len(_wrap(label, int(self._col_width(c)) - 2))
                        for c, label in labels.items())
            if lines > 1:
                self.ws.set_row(row, 15 * lines)

    def _col_width(self, col: int) -> float:
        """A column's width in characters as written (8 at least, as ``finish`` sets)."""
        return max(self.widths.get(col, 0), 8)

    def section(self, row: int, text: str) -> None:
        """A bold section title (not counted in column widths)."""
        self.ws.write_string(row, 0, text, self.fmt.section)

    def table(self, df: pd.DataFrame, row: int = HEADER_ROW, filter_: bool = True) -> int:
        """Write a DataFrame under a header row; return the row after it."""
        cols = list(df.columns)
        self.header(row, [_label(c) for c in cols], numeric=_numeric_columns(df))
        for r, rec in enumerate(df.itertuples(index=False), start=row + 1):
            for c, (name, value) in enumerate(zip(cols, rec)):
                self.put(r, c, _plain(value), self.fmt.for_column(name))
        last = row + len(df)
        if filter_ and len(df):
            self.ws.autofilter(row, 0, last, len(cols) - 1)
        return last + 1

    def finish(self, header_row: int = HEADER_ROW, freeze_col: int = 0,
               keep: int | None = None) -> None:
        """Column widths, frozen header and a legible landscape print setup.

        The sheet prints at the largest scale up to 100% at which its columns fit one page
        across (A4 and Letter); a sheet that would need less than ``MIN_PRINT_SCALE`` prints
        at that scale or a little more on several pages across instead, each page starting
        with the ``keep`` identifying columns (default: the frozen ones) and every page with
        the header row.
        """
        ws = self.ws
        for col, width in self.widths.items():
            ws.set_column(col, col, max(width, 8))
        keep = freeze_col if keep is None else keep
        last = max([*self.widths, 0])
        px = [column_px(self._col_width(c)) if c in self.widths else DEFAULT_COL_PX
              for c in range(last + 1)]
        self.scale, self.pages_across = print_layout(px, keep)
        self._merge_notes()
        self._header_heights()
        for row, lines in self.lines.items():
            if lines > 1 and row not in self.notes:
                ws.set_row(row, 15 * lines)
        ws.freeze_panes(header_row + 1, freeze_col)
        ws.set_landscape()
        ws.set_paper(9)  # A4; the layout is sized for Letter's narrower page too
        ws.set_margins(left=0.5, right=0.5, top=0.75, bottom=0.75)
        if self.pages_across:
            # A fixed scale, not fit-to-width: fit-to-width would shrink a wide table until
            # nobody can read it.
            ws.set_print_scale(self.scale)
        else:
            # One page across: at ``scale`` or more where the font is Arial (or Liberation
            # Sans), and still one page across where a wider font stands in for it, so a
            # bill of materials never prints its prices on a page after its SKUs.
            # LibreOffice keeps the manual breaks before charts under it; Excel ignores them.
            ws.fit_to_pages(1, 0)
        if self.pages_across:
            ws.set_v_pagebreaks(self.pages_across)
            if keep:
                ws.repeat_columns(0, keep - 1)
        if self.breaks:
            ws.set_h_pagebreaks(sorted(set(self.breaks)))
        ws.repeat_rows(header_row)
        ws.set_header(f'&L&"{FONT},Bold"plan-buy&R{self.name.replace("&", "&&")}')
        ws.set_footer("&LPrinted &D&RPage &P of &N")


    def _merge_notes(self) -> None:
        """Each long note merged across the used columns (at least a printed page's worth),
        wrapped, its row tall enough for its lines."""
        # Only across the first printed page: a note cut by a page break cannot be read.
        last = max([*self.widths, 3])
        if self.pages_across:
            last = self.pages_across[0] - 1
        span = [max(self.widths.get(c, 0), 8) for c in range(last + 1)]
        while sum(span) < NOTE_WIDTH and len(span) < 26:
            span.append(8.43)  # Excel's default column width
        for row, text in self.notes.items():
            lines = sum(math.ceil(max(1, len(part)) / (sum(span) * 1.1))
                        for part in text.split("\n"))
            self.ws.merge_range(row, 0, row, len(span) - 1, "", self.fmt.note_wrap)
            self.ws.write_string(row, 0, text, self.fmt.note_wrap)
            if lines > 1:
                self.ws.set_row(row, 15 * lines)


def _header_width(label: str) -> int:
    """Characters a header label's lines need: the fewest that wrap it (between words) in at
    most three lines, ``HEADER_WRAP`` at most, never less than its longest word."""
    longest = max((len(w) for w in label.split()), default=0)
    for width in range(max(longest, 5), HEADER_WRAP):
        if len(_wrap(label, width)) <= 3:
            return width
    return max(longest, HEADER_WRAP)


def _wrap(text: str, width: int) -> list[str]:
    """``text`` wrapped between words (never at hyphens) in lines of ``width`` characters."""
    return textwrap.wrap(text, max(width, 1), break_on_hyphens=False) or [""]


def column_px(width: float) -> int:
    """Pixels of a column ``width`` characters wide, as Excel lays it out (Arial 10 and
    Calibri 11 alike: 7-pixel digits)."""
    return int(width * 7 + 0.5) + 5


def print_layout(px: list[int], keep: int = 0, page: int = PAGE_WIDTH_PX,
                 least: int = MIN_PRINT_SCALE) -> tuple[int, list[int]]:
    """The print scale (%) and where each further page across starts, for columns ``px``
    pixels wide of which the first ``keep`` repeat on every page.

    One page across at the largest scale up to 100% when that is at least ``least``;
    otherwise as few pages across as ``least`` allows, at the largest scale that keeps that
    many (each page: the kept columns, then as many more as fit).
    """
    total = sum(px)
    scale = min(100, page * 100 // max(total, 1))
    if scale >= least:
        return scale, []

    def split(s: int) -> list[int]:
        room, fixed = page * 100 // s, sum(px[:keep])
        breaks, used = [], fixed
        for c in range(keep, len(px)):
            if used + px[c] > room and used > fixed:
                breaks.append(c)
                used = fixed
            used += px[c]
        return breaks

    pages = len(split(least))
    best = max(s for s in range(least, 101) if len(split(s)) == pages)
    return best, split(best)


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
    value = _plain(value)
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def _budget_runs(df: pd.DataFrame) -> list[tuple[str, int, int]]:
    """Consecutive rows of one scenario group: (label, first row, row after the last).

    A group is every sweep parameter but the budget (``_sweep_parameters``: growth,
    headroom, prices and the kWh price, years and objective); the label names the ones
    that vary between groups, `` (growth 1.5, kwh_price 0.3)``, empty when none does.
    """
    params = _sweep_parameters(df)
    keys = [tuple(_plain(df.iloc[i][c]) for c in params) for i in range(len(df))]
    varying = [c for j, c in enumerate(params) if len({k[j] for k in keys}) > 1]
    runs, start = [], 0
    for i in range(1, len(df) + 1):
        if i == len(df) or keys[i] != keys[start]:
            parts = [f"{c} {_parameter_text(df.iloc[start][c])}" for c in varying]
            runs.append((f" ({', '.join(parts)})" if parts else "", start, i))
            start = i
    return runs


def _numeric_columns(df: pd.DataFrame) -> set[int]:
    import pandas as pd

    return {
        i
        for i, c in enumerate(df.columns)
        if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
    }


def _plain(value: Any) -> Any:
    """numpy scalars and pandas NA to plain Python values."""
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return value


class _Book:
    """One workbook being written; methods write one sheet each."""

    def __init__(
        self,
        path,
        result: PlanResult,
        wf: WorkloadFile,
        catalog: Catalog,
        sources: dict[str, Path],
        sweep: pd.DataFrame | None,
        sweep_bom: pd.DataFrame | None = None,
        full: FullPlan | None = None,
    ):
        self.result, self.wf, self.catalog, self.sources, self.sweep = (
            result,
            wf,
            catalog,
            sources,
            sweep,
        )
        self.sweep_bom, self.full = sweep_bom, full
        self.now = dt.datetime.now(dt.UTC)
        self.wb = xlsxwriter.Workbook(
            str(path),
            {
                "in_memory": True,
                # Arial 10 lays columns out as Calibri 11 does (7-pixel digits) and, unlike
                # Calibri, has a metric twin (Liberation Sans) where Office is not installed.
                "default_format_properties": {"font_name": FONT, "font_size": 10},
                "default_row_height": 17,
                "default_column_width": DEFAULT_COL_PX,
                "strings_to_formulas": False,
                "strings_to_urls": False,
                "strings_to_numbers": False,
            },
        )
        self.fmt = _Formats(self.wb, catalog.currency)
        self.price_cell: dict[str, str] = {}
        self.own_cell: dict[str, str] = {}
        """Assumptions cells of the cost-of-owning inputs (kwh_price, pue, ...; cloud:SKU)."""
        self.totals: dict[int, dict[str, tuple[str, float]]] = {}
        """rank -> 'platform'/'gpu'/'memory'/'storage'/'total' -> (cell ref, value)."""
        self.own_refs: dict[int, dict[str, Any]] = {}
        """rank -> 'energy'/'rent': (TCO sheet, row of its yearly figures); 'break_even':
        (cell ref, value) -- what the Summary's cost-of-owning rows refer to."""

    def write(self) -> None:
        cur, date = self.catalog.currency, self.catalog.prices_as_of.isoformat()
        sheets: dict[str | int, _Sheet] = {
            "Summary": self._sheet(
                "Summary",
                f"plan-buy: purchase options for {self.wf.name}",
                f"Ranked {self._ranked_by()}. Prices in {cur} as of {date}.",
            )
        }
        for opt in self.result.options:
            sheets[opt.rank] = self._sheet(
                f"Option {opt.rank}",
                f"Option {opt.rank}: bill of materials",
                f"Unit prices ({cur}, as of {date}) come from the Assumptions sheet: edit them "
                "there and every option updates.",
            )
        for name, note in (
            ("Demand", ("Every workload as asked and as option 1 plans it: replicas planned = "
                       "replicas asked x growth, rounded up per workload; memory per replica "
                       "on the GPU it runs on (GB = 10^9 bytes); cost charged to it in option "
                       "1 (idle capacity shared by the workloads on each server).")),
            ("Placement", "Which replica runs on which server and GPUs (GB = 10^9 bytes)."),
            ("Memory", "The estimator's VRAM breakdown per GPU for the GPU and degree placed on."),
            (
                "Teams",
                (
                    "Chargeback (R17) of what each option buys: each team's share of the "
                    "GPUs, host RAM and storage its jobs use on the servers bought; idle "
                    "capacity is shared by the teams on that server. "
                    + ("Servers already owned cost nothing and are not charged: what each "
                       "team runs on them is shown in its own columns."
                       if self.wf.inventory else "")
                ).strip(),
            ),
            (
                "Assumptions",
                (
                    "Inputs of this run. Edit a unit price in the Catalog table: every "
                    "option, the Summary and Teams recalculate."
                ),
            ),
        ):
            sheets[name] = self._sheet(name, name, note)
        if any(opt.throughput for opt in self.result.options):
            sheets["Throughput"] = self._sheet(
                "Throughput", "Throughput against targets",
                "Per option and workload with a target: replicas by GPU and degree, tokens/s "
                "per replica (the estimator's), and live totals, days to finish and GPU-hours.")
        if self.sweep is not None:
            sheets["Sweep"] = self._sheet(
                "Sweep", "Scenario sweep",
                f"Each row is one scenario; money in {cur}. The knee is the smallest budget "
                "that serves every workload (the cheapest full plan); the chart marks it."
            )
        if self.sweep_bom is not None:
            sheets["Sweep BOM"] = self._sheet(
                "Sweep BOM", "Every scenario's bill of materials",
                f"One row per line of each scenario's plan, money in {cur}; extended = "
                "quantity x unit price and each scenario's subtotal are live formulas. "
                "Scenarios without a plan have no lines.")
        if self.wf.policy.tco is not None:
            sheets["TCO"] = self._sheet(
                "TCO", "Total cost of ownership, year by year",
                f"Capex in year 0, then energy, support and racks each year ({cur}); live "
                "formulas on the kWh price, PUE, utilisation and years of the Assumptions "
                "sheet.")
        self._assumptions(sheets["Assumptions"])
        for opt in self.result.options:
            self._option(sheets[opt.rank], opt)
        if "TCO" in sheets:
            self._tco(sheets["TCO"])
        self._summary(sheets["Summary"])
        self._demand(sheets["Demand"])
        self._placement(sheets["Placement"])
        self._memory(sheets["Memory"])
        self._teams(sheets["Teams"])
        if "Throughput" in sheets:
            self._throughput(sheets["Throughput"])
        if self.sweep is not None:
            self._sweep(sheets["Sweep"], self.sweep)
        if self.sweep_bom is not None:
            self._sweep_bom(sheets["Sweep BOM"], self.sweep_bom)
        self.wb.set_properties(
            {
                "title": f"plan-buy purchase options: {self.wf.name}",
                "subject": "GPU compute pool bill of materials",
                "author": "plan-buy",
                "company": "plan-buy",
                "comments": f"plan-buy {__version__}; prices as of {date} ({cur})",
                "created": self.now.replace(tzinfo=None),
            }
        )
        self.wb.close()

    def _sheet(self, name: str, title: str, note: str) -> _Sheet:
        return _Sheet(self.wb, name, self.fmt, title, note)

    @property
    def by_tco(self) -> bool:
        """The options are ranked by TCO (``objective: tco``), not by capital cost: a later
        option may cost less to buy."""
        return self.wf.policy.objective == "tco"

    def _ranked_by(self) -> str:
        """How the options are ordered: by what the program minimised."""
        return "by total cost of ownership, lowest first" if self.by_tco else "cheapest first"

    # -- Assumptions --------------------------------------------------------------------
    def _assumptions(self, sh: _Sheet) -> None:
        cur, date = self.catalog.currency, self.catalog.prices_as_of.isoformat()
        sh.max_width = ASSUMPTIONS_COL_WIDTH  # five columns of text: one page across
        sh.section(HEADER_ROW - 1, "Run")
        row = (
            sh.table(report.run_table(self.result, self.wf, self.catalog, self.now), filter_=False)
            + 1
        )
        sh.section(row, "Input files")
        row = sh.table(report.sources_table(self.sources), row + 1, filter_=False) + 1
        sh.section(row, f"Catalog: unit prices in {cur} as of {date} (edit the yellow cells)")
        cat = report.catalog_table(self.catalog)
        first = row + 1
        row = sh.table(cat, first)
        price_col = list(cat.columns).index("unit_price")
        for i, (sku, price) in enumerate(zip(cat["sku"], cat["unit_price"])):
            sh.put(first + 1 + i, price_col, float(price), self.fmt.price_input)
            self.price_cell[sku] = sh.ref(first + 1 + i, price_col)
        row += 1
        sh.section(row, "Policy")
        row = sh.table(report.policy_table(self.wf), row + 1, filter_=False) + 1
        sh.section(row, "Sizing rules applied")
        row = sh.table(report.rules_table(), row + 1, filter_=False) + 1
        self._owning_inputs(sh, row)
        sh.widths[0] = max(sh.widths.get(0, 0), 24)
        sh.widths[price_col] = max(sh.widths.get(price_col, 0), 14)
        sh.finish(header_row=1)

    # -- Option 1..K --------------------------------------------------------------------
    def _option(self, sh: _Sheet, opt) -> None:
        f = self.fmt
        bom = report.bom_table(opt, self.catalog)
        cur = self.catalog.currency
        cols = [
            "SKU",
            "Description",
            "Kind",
            "Quantity",
            f"Unit price ({cur})",
            f"Extended price ({cur})",
        ]
        sh.header(HEADER_ROW, cols, numeric={3, 4, 5})
        first = HEADER_ROW + 1
        last = first + len(bom) - 1
        for r, ln in enumerate(bom.itertuples(index=False), start=first):
            sh.put(r, 0, ln.sku)
            sh.put(r, 1, ln.description)
            sh.put(r, 2, ln.kind)
            sh.put(r, 3, int(ln.qty), f.int)
            price_ref = self.price_cell.get(ln.sku)
            if price_ref and abs(self.catalog.price_of(ln.sku) - ln.unit_price) < 0.005:
                sh.formula(r, 4, f"={price_ref}", float(ln.unit_price), f.money)
            else:  # the solver priced this line differently from the catalog: keep its price
                sh.put(r, 4, float(ln.unit_price), f.money)
                sh.ws.write_comment(r, 4, "Price from the solver; not the Assumptions price.")
            qty, price = xl_rowcol_to_cell(r, 3), xl_rowcol_to_cell(r, 4)
            sh.formula(r, 5, f"={qty}*{price}", float(ln.extended), f.money)
        if len(bom):
            sh.ws.autofilter(HEADER_ROW, 0, last, len(cols) - 1)
        kinds = (
            f"{xl_rowcol_to_cell(first, 2, True, True)}:{xl_rowcol_to_cell(last, 2, True, True)}"
        )
        ext = f"{xl_rowcol_to_cell(first, 5, True, True)}:{xl_rowcol_to_cell(last, 5, True, True)}"
        row = last + 2
        cells: dict[str, tuple[str, float]] = {}
        by_kind = opt.cost_by_kind()
        for kind in report.KINDS:
            sh.put(row, 0, f"Subtotal: {report.KIND_LABELS[kind]}", f.bold)
            sh.put(row, 2, kind)
            value = round(by_kind.get(kind, 0.0), 2)
            if len(bom):
                crit = xl_rowcol_to_cell(row, 2)
                sh.formula(row, 5, f"=SUMIF({kinds},{crit},{ext})", value, f.money_row_total)
            else:
                sh.put(row, 5, value, f.money_row_total)
            cells[kind] = (sh.ref(row, 5), value)
            row += 1
        total = round(sum(ln.extended for ln in opt.lines), 2)
        sh.put(row, 0, "Grand total", f.bold_top)
        for c in range(1, 5):
            sh.ws.write_blank(row, c, None, f.bold_top)
        if len(bom):
            sh.formula(row, 5, f"=SUM({ext})", total, f.money_total)
        else:
            sh.put(row, 5, total, f.money_total)
        cells["total"] = (sh.ref(row, 5), total)
        self.totals[opt.rank] = cells
        row += 3
        sh.section(row - 1, "Servers in this option (what goes in each box)")
        sh.header(row, ["Server", "Configuration"])
        for r, s in enumerate(opt.servers, start=row + 1):
            parts = [s.platform]
            if s.gpu and s.gpu_count:
                parts.append(f"{s.gpu_count} x {s.gpu}")
            parts.append(f"{s.dimm_count} x {s.memory}")
            if s.storage and s.drive_count:
                parts.append(f"{s.drive_count} x {s.storage}")
            sh.put(r, 0, s.id)
            sh.put(r, 1, " + ".join(parts))
        if opt.unserved:
            r = row + len(opt.servers) + 2
            sh.put(r, 0, "Not served:", f.bold)
            sh.put(r, 1, ", ".join(opt.unserved))
        row = self._quote(sh, opt, row + len(opt.servers) + (5 if opt.unserved else 3))
        self._includes(sh, opt, row)
        sh.widths[1] = min(max(sh.widths.get(1, 30), 30), 80)
        sh.finish()

    def _quote(self, sh: _Sheet, opt, row: int) -> int:
        """The servers to buy grouped by configuration, as a vendor quotes them
        (``quote.quote_lines``): a server's price sums its parts' Assumptions prices and the
        extended price is servers x that, live formulas where the solver priced every part
        as the catalog does. Returns the first row free after it (a blank row between)."""
        f, cur = self.fmt, self.catalog.currency
        lines = quote_lines(opt, self.catalog)
        if not lines:
            return row
        sh.section(row - 1, "Quote: the servers to buy, by configuration")
        sh.header(row, ["Platform", "Configuration (one server)", "", "Servers",
                        f"Price per server ({cur})", f"Extended ({cur})"], numeric={3, 4, 5})
        first = row + 1
        for r, ln in enumerate(lines, start=first):
            sh.put(r, 0, ln.platform)
            sh.put(r, 1, ln.description)
            sh.put(r, 3, ln.qty, f.int)
            refs = [(self.price_cell.get(sku), q) for sku, q in ln.parts]
            live = all(ref and abs(self.catalog.price_of(sku) - self._bom_price(opt, sku))
                       < 0.005 for (ref, _), (sku, _) in zip(refs, ln.parts, strict=True))
            if live:
                sh.formula(r, 4, "=" + "+".join(f"{q}*{ref}" for ref, q in refs),
                           ln.unit_price, f.money)
            else:
                sh.put(r, 4, ln.unit_price, f.money)
            sh.formula(r, 5, f"={xl_rowcol_to_cell(r, 3)}*{xl_rowcol_to_cell(r, 4)}",
                       ln.qty * ln.unit_price, f.money)
        last = first + len(lines) - 1
        total = sum(ln.qty * ln.unit_price for ln in lines)
        sh.put(last + 1, 0, "Quote total", f.bold_top)
        for c in range(1, 5):
            sh.ws.write_blank(last + 1, c, None, f.bold_top)
        sh.formula(last + 1, 5, f"=SUM({xl_rowcol_to_cell(first, 5)}:"
                                f"{xl_rowcol_to_cell(last, 5)})", total, f.money_total)
        return last + 4

    @staticmethod
    def _bom_price(opt, sku: str) -> float:
        """The unit price the option's bill of materials gives ``sku``."""
        return next(ln.unit_price for ln in opt.lines if ln.sku == sku)

    def _includes(self, sh: _Sheet, opt, row: int) -> None:
        """What each platform's price covers, so finance sees why a server has no data drive."""
        sh.section(row - 1, "What each platform's price includes (GPUs, DIMMs, data drives are "
                            "the lines above)")
        # Two text columns: numbers under the BOM's Kind/Quantity columns would read as lines.
        sh.header(row, ["Platform", "Includes"])
        for r, ln in enumerate(report.includes_table(opt, self.catalog).itertuples(index=False),
                               start=row + 1):
            facts = [f"{int(v)} {unit}" for v, unit in ((ln.cpu_cores, "CPU cores"),
                                                        (ln.rack_units, "U"))
                     if not _missing(v)]
            sh.put(r, 0, ln.platform)
            sh.put(r, 1, ln.includes + (f" ({', '.join(facts)})" if facts else ""))

    # -- Summary ------------------------------------------------------------------------
    def _summary(self, sh: _Sheet) -> None:
        f = self.fmt
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
        base = res.baseline
        # Options are ranked, and "over the cheapest" measured, by what the program
        # minimised: capital cost, or TCO under objective tco (its row comes further down).
        by_tco = self.by_tco
        rows: list[tuple[str, str, str, Any]] = [
            ("Total cost", "capex (purchase); ranked by TCO, below" if by_tco else "",
             "total", f.money_total),
            ("  Over the cheapest", "by TCO" if by_tco else "", "over_cheapest", f.pct),
            ("Optimises", "", "label", f.wrap_right),
            ("  In that direction", "best possible within the slack, proven", "direction",
             f.wrap_right),
            *[(f"  {report.KIND_LABELS[k]}", "", k, f.money) for k in report.KINDS],
            ("GPUs", "", "gpus", f.int),
            ("GPUs by SKU", "", "gpus_by_sku", f.wrap_right),
            ("Servers", "", "servers", f.int),
            ("Largest parallel degree", "most GPUs one replica spans", "max_degree", f.int),
            ("Planned VRAM use (share of usable)", target_label("vram"), "vram_util", f.pct),
            ("  VRAM vs target", "", "vram_vs_target", None),
            ("Planned host RAM use (share of usable)",
             f"{target_label('ram')}, or what the fewest DIMMs allow", "ram_util", f.pct),
            ("  Host RAM target", "85%, or what the fewest DIMMs allow", "ram_target", f.pct),
            ("  RAM vs target", "", "ram_vs_target", None),
            ("Installed VRAM (GB)", "", "installed_vram_gb", f.num),
            ("Installed host RAM (GB)", "", "installed_ram_gb", f.num),
            (
                "Host memory bandwidth per GPU (GB/s)",
                "the lowest of its GPU servers",
                "host_bw_gbps_per_gpu",
                f.num,
            ),
            ("Installed storage (TB)", "", "installed_storage_tb", f.num2),
            ("Unserved workloads", "", "unserved", f.wrap_right),
            ("Power drawn (kW)", "at full load", "power_kw", f.num),
        ]
        tco = self.wf.policy.tco
        if self.wf.site is not None:
            rows.append(("Racks used", f"of {self.wf.site.racks}", "racks", f.int))
        if self.wf.inventory:
            rows += [("Owned servers used", "", "owned_used", f.int),
                     ("Owned servers idle", "", "owned_idle", f.int)]
        if tco is not None:
            rows += [
                (f"Energy over {tco.years} years", "", "energy_cost", f.money),
                (f"TCO over {tco.years} years", "see the TCO sheet", "tco", f.money_bold),
            ]
            if any(o.own is not None and o.own.cloud is not None for o in opts):
                rows += [(f"Renting the GPUs bought for {tco.years} years",
                          "owned servers left out", "cloud_cost", f.money),
                         ("Buying breaks even after (months)",
                          "capex ÷ monthly (rent − running cost)",
                          "break_even_month", f.num_right)]
        if base is not None:  # a reference that could not run the mix tells nothing
            rows += [
                (f"Rule-of-thumb pool: {reference_name(base)}", "", "reference", f.money),
                ("Saving vs the rule-of-thumb pool", "", "saving", f.money),
                ("Saving vs the rule-of-thumb pool (%)", "", "saving_pct", f.pct),
            ]
        if any(o.lower_bound is not None for o in opts):
            what = "TCO" if by_tco else "cost"
            rows.append((f"Proven lower bound on {what} (no plan of this rank costs less)",
                         "as solved: does not follow edits", "lower_bound", f.money))
            rows.append((f"  {what[0].upper() + what[1:]} above the bound (%)", "", "bound_gap",
                         f.pct))
        r = HEADER_ROW + 1
        # Every row's position first: a formula may refer to a row further down.
        row_of = {key: HEADER_ROW + 1 + i for i, (_, _, key, _) in enumerate(rows) if key}
        for label, target, key, fmt in rows:
            if key in ("energy_cost", "tco", "cloud_cost") and tco is not None:
                self._years_label(sh, r, label, tco.years)
            else:
                sh.put(r, 0, label, f.bold if key == "total" else None)
            if key == "reference":  # one input cell; every option's saving refers to it
                sh.put(r, 1, float(base.total_cost if base else 0.0), f.price_input)
            else:
                sh.put(r, 1, target)
            for c, o in enumerate(opts, start=2):
                rec = summ.iloc[c - 2]
                if key in self.totals[o.rank]:
                    cell, value = self.totals[o.rank][key]
                    sh.formula(r, c, f"={cell}", value, fmt)
                elif key == "reference":
                    continue
                elif key == "saving":
                    ref = xl_rowcol_to_cell(row_of["reference"], 1, True, True)
                    total = xl_rowcol_to_cell(row_of["total"], c)
                    sh.formula(r, c, f"={ref}-{total}", _plain(rec["saving_vs_reference"]), fmt)
                elif key == "over_cheapest":
                    ranked = row_of["tco" if by_tco else "total"]
                    first = xl_rowcol_to_cell(ranked, 2, True, True)
                    total = xl_rowcol_to_cell(ranked, c)
                    sh.formula(r, c, f"=IF({first}=0,0,{total}/{first}-1)",
                               _plain(rec["over_cheapest"]), fmt)
                elif key == "saving_pct":
                    ref = xl_rowcol_to_cell(row_of["reference"], 1, True, True)
                    saving = xl_rowcol_to_cell(row_of["saving"], c)
                    sh.formula(
                        r,
                        c,
                        f"=IF({ref}=0,0,{saving}/{ref})",
                        _plain(rec["saving_pct"]) or 0.0,
                        fmt,
                    )
                elif key in ("gpus_by_sku", "unserved"):  # one item a line, in a narrow column
                    text = str(_plain(rec[key]) or "").replace(", ", "\n")
                    literal = any(starts_like_formula(t) for t in text.splitlines())
                    sh.ws.write_string(r, c, text, f.wrap_literal if literal else fmt)
                    lines = max(str(_plain(v) or "").count(", ") + 1 for v in summ[key])
                    if lines > 1:
                        sh.ws.set_row(r, 15 * lines)
                elif not key:
                    continue
                elif key == "bound_gap":
                    self._bound_gap(sh, r, c, o, row_of, fmt)
                elif key in ("energy_cost", "cloud_cost", "break_even_month"):
                    self._own_figure(sh, r, c, o, key, fmt)
                elif key.endswith("_vs_target"):
                    status = _plain(rec[key])
                    sh.put(r, c, status, f.below if status in ("below", "above") else f.within)
                else:
                    sh.put(r, c, _plain(rec[key]), fmt)
                    if fmt is f.wrap_right:  # a row never grows for wrapped text by itself
                        text = str(_plain(rec[key]) or "")
                        sh.lines[r] = max(sh.lines.get(r, 1),
                                          len(_wrap(text, OPTION_COL_WIDTH - 4)))
            r += 1
        r += 1
        for text in (*res.notes, *(f"Warning: {w}" for w in res.warnings)):
            if "R20" in text:  # why no rule-of-thumb pool applies: JSON keeps it
                continue
            sh.long_note(r, text)
            r += 1
        left_out = self._left_out()
        if left_out:
            sh.long_note(r, left_out)
            r += 1
        sh.breaks.append(r + 1)  # the chart on a page of its own, never cut by a break
        self._cost_chart(sh, row_of, len(opts), r + 1)
        sh.widths[0] = max(30, sh.widths.get(0, 0))
        sh.widths[1] = max(sh.widths.get(1, 10), 20)
        for c in range(2, 2 + len(opts)):
            sh.widths[c] = min(max(sh.widths.get(c, 0), 16), OPTION_COL_WIDTH)
        sh.finish(freeze_col=1)

    def _years_label(self, sh: _Sheet, r: int, label: str, years: int) -> None:
        """A row label naming the horizon, as a formula on the Years cell of the
        Assumptions sheet ("Energy over 4 years"), so it follows an edit there."""
        head, _, tail = label.partition(f" {years} years")
        value = f"{head} {years} years{tail}"
        long = len(value) > sh.max_width
        sh.formula(r, 0, f'="{head} "&{self.own_cell["years"]}&" years{tail}"', value,
                   self.fmt.text_wrap if long else self.fmt.text)
        sh._width(0, len(value) + 1)
        if long:
            sh.lines[r] = max(sh.lines.get(r, 1), len(_wrap(value, sh.max_width - 4)))

    def _own_figure(self, sh: _Sheet, r: int, c: int, o, key: str, fmt) -> None:
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

    def _bound_gap(self, sh: _Sheet, r: int, c: int, o, row_of: dict[str, int], fmt) -> None:
        """How far the option's cost (its TCO under objective tco) lies above the proven
        lower bound, as a formula on the two cells above it."""
        lb = o.lower_bound  # on what the program minimised (TCO: by_tco)
        key = "tco" if self.by_tco else "total"
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

    def _cost_chart(self, sh: _Sheet, kind_rows: dict[str, int], n: int, row: int) -> None:
        if not n:
            return
        chart = self.wb.add_chart({"type": "column", "subtype": "stacked"})
        colors = {
            "platform": "#8FAADC",
            "gpu": "#2F5597",
            "memory": "#A9D18E",
            "storage": "#F4B183",
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

    # -- Cost of owning (P2, P5) ------------------------------------------------------------
    def _owning_inputs(self, sh: _Sheet, row: int) -> None:
        """The editable inputs of the TCO sheet: kWh price, PUE, utilisation, years,
        support, rack cost, and the cloud's GPU-hour prices."""
        tco = self.wf.policy.tco
        if tco is None:
            return
        f, cur = self.fmt, self.catalog.currency
        sh.section(row, "Cost of owning (edit the yellow cells: the TCO sheet and Summary "
                        "recalculate)")
        sh.header(row + 1, ["Input", "Value", "Unit"])
        items = [
            ("kwh_price", "Electricity price", tco.kwh_price, f"{cur} per kWh", f.num_input),
            ("pue", "PUE", tco.pue, "facility ÷ IT power", f.num_input),
            ("utilisation", "Utilisation", tco.utilisation, "mean share of rated power",
             f.num_input),
            ("years", "Years", tco.years, f"horizon (the TCO sheet has {tco.years} columns)",
             f.num_input),
            ("support", "Support per year", tco.support_pct_per_year or 0.0,
             "share of capex", f.num_input),
            ("rack", "Rack cost per year", tco.rack_cost_per_year or 0.0, f"{cur} per rack",
             f.price_input),
        ]
        items += [(f"cloud:{c.gpu}", f"Rent {c.gpu}", c.per_gpu_hour,
                   f"{cur} per GPU-hour; {c.source}", f.price_input) for c in self.catalog.cloud]
        for r, (key, label, value, unit, fmt) in enumerate(items, start=row + 2):
            sh.put(r, 0, label)
            sh.put(r, 1, float(value), fmt)
            sh.put(r, 2, unit)
            self.own_cell[key] = sh.ref(r, 1)
            if key == "years":
                # The TCO sheet has a column per year of the horizon planned: a longer one
                # would leave years out of every total that reads it.
                sh.ws.data_validation(r, 1, r, 1, {
                    "validate": "integer", "criteria": "between", "minimum": 1,
                    "maximum": tco.years, "error_title": "Years",
                    "error_message": f"1 to {tco.years}: the TCO sheet has a column per year "
                                     f"of the {tco.years} planned. For a longer horizon, set "
                                     "policy.tco.years and plan again."})

    def _tco(self, sh: _Sheet) -> None:
        """Per option: capex (year 0, from its bill of materials), energy, support and racks
        per year, the total and the cumulative cost; with a rent known (P5), renting the GPUs
        bought against what is bought (capex and its running cost) and the month buying
        breaks even; a chart of cumulative cost per option, buy vs rent."""
        tco = self.wf.policy.tco
        assert tco is not None
        f, years = self.fmt, tco.years
        sh.header(HEADER_ROW, ["", *[f"Year {y}" for y in range(years + 1)]],
                  numeric=set(range(1, years + 2)))
        year_row = HEADER_ROW + 1
        sh.put(year_row, 0, "Year", f.bold)
        for y in range(years + 1):
            sh.put(year_row, y + 1, y, f.int)
        row = year_row + 2
        series: list[tuple[str, int, bool]] = []
        for opt in self.result.options:
            if opt.own is None:
                continue
            row = self._tco_option(sh, opt, year_row, row, series)
        sh.breaks.append(row + 1)  # the chart on a page of its own, never cut by a break
        self._tco_chart(sh, series, year_row, years, row + 1)
        sh.widths[0] = max(sh.widths.get(0, 0), 26)
        sh.finish(freeze_col=1)

    TCO_ROWS = ("capex", "energy", "support", "racks", "total", "cum", "rent", "cumrent",
                "running", "cumbought")
    TCO_LABELS = ("Capex", "Energy", "Support", "Racks", "Total", "Cumulative",
                  "Renting the GPUs bought", "Cumulative rent",
                  "Running cost of what is bought", "Cumulative: buying what is bought")

    def _tco_option(self, sh: _Sheet, opt, year_row: int, row: int,
                    series: list[tuple[str, int, bool]]) -> int:
        """One option's block of the TCO sheet from ``row``; returns the row after it."""
        f, c, own = self.fmt, self.own_cell, opt.own
        years = self.wf.policy.tco.years  # type: ignore[union-attr]
        cell = xl_rowcol_to_cell
        has_rent = own.cloud is not None
        sh.section(row, f"Option {opt.rank}: {kw_text(own.power_kw)} kW"
                        + (f", {own.racks} rack(s)" if own.racks is not None else ""))
        facts = [("Power drawn (kW)", float(own.power_kw), f.num),
                 ("Racks used", int(own.racks or 0), f.int)]
        if has_rent:
            facts += [("Power of the servers bought (kW)", float(own.bought_power_kw or 0.0),
                       f.num),
                      ("Racks they add", int(own.racks_added or 0), f.int)]
        fact = {}
        for i, (label, value, fmt) in enumerate(facts, start=row + 1):
            sh.put(i, 0, label)
            sh.put(i, 1, value, fmt)
            fact[label] = cell(i, 1, True, True)
        kw, racks = fact["Power drawn (kW)"], fact["Racks used"]
        first = row + 1 + len(facts)
        n = len(self.TCO_ROWS) if has_rent else 6
        at = {k: first + i for i, k in enumerate(self.TCO_ROWS[:n])}
        for i, label in enumerate(self.TCO_LABELS[:n]):
            sh.put(first + i, 0, label, f.bold if label.startswith("Cum") else None)
        df = report.tco_rows(opt, years)
        capex0 = cell(at["capex"], 1, True, True)
        gpus: dict[str, int] = {}
        for s in opt.servers:
            if s.gpu and s.gpu_count and not s.owned:
                gpus[s.gpu] = gpus.get(s.gpu, 0) + s.gpu_count
        for y, rec in enumerate(df.itertuples(index=False)):
            col = y + 1
            yr = cell(year_row, col)
            live = f"AND({yr}>=1,{yr}<={c['years']})"
            here = {k: cell(r, col) for k, r in at.items()}

            def cum(key: str, of: str, value: float, col: int = col, y: int = y) -> None:
                prev = cell(at[key], col - 1) if y else None
                sh.formula(at[key], col, f"={prev}+{of}" if prev else f"={of}", value,
                           f.money_bold)
            if y == 0:
                total_ref, total_value = self.totals[opt.rank]["total"]
                sh.formula(at["capex"], col, f"={total_ref}", total_value, f.money)
            else:
                sh.put(at["capex"], col, 0.0, f.money)
            energy = f"8760*{c['utilisation']}*{c['pue']}*{c['kwh_price']}"
            sh.formula(at["energy"], col, f"=IF({live},{kw}*{energy},0)",
                       float(rec.energy_cost), f.money)
            sh.formula(at["support"], col, f"=IF({live},{c['support']}*{capex0},0)",
                       float(rec.support_cost), f.money)
            sh.formula(at["racks"], col, f"=IF({live},{racks}*{c['rack']},0)",
                       float(rec.rack_cost), f.money)
            sh.formula(at["total"], col, f"=SUM({here['capex']}:{here['racks']})",
                       float(rec.total), f.money_bold)
            cum("cum", here["total"], float(rec.cumulative))
            if not has_rent:
                continue
            rent = "+".join(f"{n}*{c['cloud:' + sku]}" for sku, n in sorted(gpus.items()))
            sh.formula(at["rent"], col, f"=IF({live},({rent})*8760*{c['utilisation']},0)",
                       float(rec.rent), f.money)
            cum("cumrent", here["rent"], float(rec.cumulative_rent))
            sh.formula(at["running"], col,
                       f"=IF({live},{fact['Power of the servers bought (kW)']}*{energy}"
                       f"+{c['support']}*{capex0}+{fact['Racks they add']}*{c['rack']},0)",
                       float(rec.bought_running), f.money)
            cum("cumbought", f"{here['capex']}+{here['running']}",
                float(rec.cumulative_bought))
        self.totals[opt.rank]["tco"] = (sh.ref(at["cum"], years + 1),
                                        round(float(df.iloc[-1]["cumulative"]), 2))
        end = first + n
        self.own_refs[opt.rank] = {"energy": (sh, at["energy"])}
        if has_rent:
            series.append((f"Option {opt.rank}: buy", at["cumbought"], False))
            series.append((f"Option {opt.rank}: rent", at["cumrent"], True))
            self.own_refs[opt.rank].update(rent=(sh, at["rent"]),
                                           break_even=self._break_even(sh, opt, at, end))
            end += 1
        else:
            series.append((f"Option {opt.rank}: buy", at["cum"], False))
        return end + 1

    def _break_even(self, sh: _Sheet, opt, at: dict[str, int], row: int) -> tuple[str, Any]:
        """P5: months after which buying has cost less than renting the GPUs bought:
        capex ÷ (monthly rent − monthly running cost of what is bought), from year 1's
        figures (every year's are the same); the cell and its value."""
        cell = xl_rowcol_to_cell
        rent, running = cell(at["rent"], 2), cell(at["running"], 2)
        capex = cell(at["capex"], 1)
        month = opt.own.break_even_month
        value: Any = month if month is not None else STAYS_CHEAPER
        sh.put(row, 0, "Buying breaks even after (months)", self.fmt.bold)
        sh.formula(row, 1, f'=IF({rent}-{running}>0,ROUND({capex}/(({rent}-{running})/12),1),'
                           f'"{STAYS_CHEAPER}")', value, self.fmt.num_right)
        return sh.ref(row, 1), value

    def _tco_chart(self, sh: _Sheet, series: list[tuple[str, int, bool]], year_row: int,
                   years: int, row: int) -> None:
        """Cumulative cost per option over the years: buying (solid) vs renting (dashed)."""
        if not series:
            return
        chart = self.wb.add_chart({"type": "line"})
        for name, r, dashed in series:
            spec: dict[str, Any] = {
                "name": name,
                "categories": [sh.name, year_row, 1, year_row, years + 1],
                "values": [sh.name, r, 1, r, years + 1],
                "marker": {"type": "circle"},
            }
            if dashed:
                spec["line"] = {"dash_type": "dash"}
            chart.add_series(spec)
        chart.set_title({"name": f"Cumulative cost per option ({self.catalog.currency})"})
        chart.set_x_axis({"name": "Year"})
        chart.set_y_axis({"num_format": "#,##0", "major_gridlines": {"visible": True}})
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": 720, "height": 360})
        sh.ws.insert_chart(row, 0, chart)

    # -- Placement, Memory ----------------------------------------------------------------
    def _demand(self, sh: _Sheet) -> None:
        sh.table(report.demand_table(self.result, self.wf, self.catalog))
        sh.finish(freeze_col=1)

    def _placement(self, sh: _Sheet) -> None:
        sh.table(report.placement_table(self.result, self.wf, self.catalog))
        sh.finish(freeze_col=2)

    def _memory(self, sh: _Sheet) -> None:
        sh.table(report.memory_table(self.result, self.wf, self.catalog))
        sh.finish(freeze_col=2)

    # -- Teams ----------------------------------------------------------------------------
    def _teams(self, sh: _Sheet) -> None:
        """Each team's share of each kind of what an option buys, times the option sheet's
        subtotal of that kind (live), and a check that the teams add up to the option total.
        Every stored value is what its formula computes from the stored values it reads."""
        f = self.fmt
        df = report.teams_table(self.result, self.wf, self.catalog)
        if df.empty:
            sh.finish()
            return
        cols = list(df.columns)
        c_of = {c: i for i, c in enumerate(cols)}
        owned = "owned_gpu_equivalents" in cols
        labels = {"gpu_equivalents": "GPUs used on servers bought",
                  "host_ram_gb": "Host RAM on servers bought (GB)"} if owned else {}
        sh.header(HEADER_ROW, [labels.get(c) or _label(c) for c in cols],
                  numeric=_numeric_columns(df))
        first = HEADER_ROW + 1
        last = first + len(df) - 1
        sums: dict[tuple[int, str], float] = {}
        for r, rec in enumerate(df.to_dict("records"), start=first):
            rank = int(rec["option"].split()[-1])
            row_total = 0.0
            for c, name in enumerate(cols):
                value = _plain(rec[name])
                kind = name.removesuffix("_cost")
                if name.endswith("_cost") and kind in report.KINDS:
                    share = xl_rowcol_to_cell(r, c_of[f"{kind}_share"])
                    subtotal, amount = self.totals[rank][kind]
                    value = float(rec[f"{kind}_share"]) * amount
                    row_total += value
                    sh.formula(r, c, f"={share}*{subtotal}", value, f.money)
                elif name == "total_cost":
                    a = xl_rowcol_to_cell(r, c_of["platform_cost"])
                    b = xl_rowcol_to_cell(r, c_of["storage_cost"])
                    value = row_total
                    sh.formula(r, c, f"=SUM({a}:{b})", value, f.money_row_total)
                else:
                    sh.put(
                        r, c, value, f.for_column(name) or (f.int if name == "workloads" else None)
                    )
                if name.endswith("_cost"):
                    sums[(rank, name)] = sums.get((rank, name), 0.0) + value
        sh.ws.autofilter(HEADER_ROW, 0, last, len(cols) - 1)
        row = last + 3
        sh.section(row - 1, "Totals by option (check: team costs add up to the option total)")
        names = ["platform_cost", "gpu_cost", "memory_cost", "storage_cost", "total_cost"]
        sh.header(row, ["Option"] + [_label(s) for s in names]
                  + ["Option sheet total", "Difference", "Adds up"])
        opt_col = f"${xl_col_to_name(0)}${first + 1}:${xl_col_to_name(0)}${last + 1}"
        for r, opt in enumerate(self.result.options, start=row + 1):
            sh.put(r, 0, f"Option {opt.rank}")
            for c, name in enumerate(names, start=1):
                col = xl_col_to_name(c_of[name])
                rng = f"${col}${first + 1}:${col}${last + 1}"
                sh.formula(
                    r,
                    c,
                    f"=SUMIF({opt_col},{xl_rowcol_to_cell(r, 0)},{rng})",
                    sums.get((opt.rank, name), 0.0),
                    f.money_bold if name == "total_cost" else f.money,
                )
            cell, total = self.totals[opt.rank]["total"]
            sh.formula(r, len(names) + 1, f"={cell}", total, f.money)
            # Rounded to the cent: float sums of shares leave 1e-11 that would print "-$0.00".
            d = len(names) + 2
            diff = f"=ROUND({xl_rowcol_to_cell(r, d - 2)}-{xl_rowcol_to_cell(r, d - 1)},2)"
            value = round(sums.get((opt.rank, "total_cost"), 0.0) - total, 2) + 0.0
            sh.formula(r, d, diff, value, f.money)
            sh.formula(r, d + 1, f"=ABS({xl_rowcol_to_cell(r, d)})<0.01", abs(value) < 0.01,
                       f.center)
        sh.finish(freeze_col=2)

    # -- Throughput (T5) ------------------------------------------------------------------
    THROUGHPUT_COLUMNS = (
        "Option", "Workload", "GPU", "Degree", "Replicas", "GPUs", "Tokens/s per replica",
        "Tokens/s", "Efficiency", "Delivered tokens/s", "Target tokens/s", "Tokens",
        "Days to finish", "GPU-hours", "TPOT ms", "TTFT ms",
    )

    def _throughput(self, sh: _Sheet) -> None:
        """One row per (option, workload, GPU, degree) with its per-replica tokens/s, then a
        total row per workload: delivered = efficiency × Σ tokens/s, days = tokens ÷
        (delivered × 86,400), GPU-hours = GPUs × days × 24, all live formulas."""
        f = self.fmt
        cols = self.THROUGHPUT_COLUMNS
        c = {name: i for i, name in enumerate(cols)}
        sh.header(HEADER_ROW, list(cols), numeric=set(range(3, len(cols))))
        cell = xl_rowcol_to_cell
        r = HEADER_ROW + 1
        for opt in self.result.options:
            for fig in opt.throughput:
                groups: dict[tuple[str | None, int], list] = {}
                for p in opt.placements:
                    if p.workload == fig.workload:
                        groups.setdefault((p.gpu, p.gpus), []).append(p)
                first = r
                for (gpu, degree), reps in sorted(groups.items(), key=lambda kv: str(kv[0])):
                    per = reps[0].tokens_per_s or 0.0
                    sh.put(r, c["Option"], f"Option {opt.rank}")
                    sh.put(r, c["Workload"], fig.workload)
                    sh.put(r, c["GPU"], gpu)
                    sh.put(r, c["Degree"], degree, f.int)
                    sh.put(r, c["Replicas"], len(reps), f.int)
                    sh.formula(r, c["GPUs"], f"={cell(r, c['Degree'])}*{cell(r, c['Replicas'])}",
                               float(degree * len(reps)), f.int)
                    sh.put(r, c["Tokens/s per replica"], per, f.num)
                    sh.formula(r, c["Tokens/s"],
                               f"={cell(r, c['Replicas'])}*{cell(r, c['Tokens/s per replica'])}",
                               per * len(reps), f.num)
                    sh.put(r, c["TPOT ms"], reps[0].tpot_ms, f.num2)
                    sh.put(r, c["TTFT ms"], reps[0].ttft_ms, f.num)
                    r += 1
                last = r - 1
                total = sum((p.tokens_per_s or 0.0) for ps in groups.values() for p in ps)
                sh.put(r, c["Option"], f"Option {opt.rank}", f.bold)
                sh.put(r, c["Workload"], f"{fig.workload} total", f.bold)

                def col_sum(name: str, first: int = first, last: int = last) -> str:
                    return f"=SUM({cell(first, c[name])}:{cell(last, c[name])})"
                sh.formula(r, c["Replicas"], col_sum("Replicas"), float(fig.replicas), f.int)
                sh.formula(r, c["GPUs"], col_sum("GPUs"), float(fig.gpus), f.int)
                sh.formula(r, c["Tokens/s"], col_sum("Tokens/s"), total, f.num)
                sh.put(r, c["Efficiency"], fig.fraction, f.pct)
                sh.formula(r, c["Delivered tokens/s"],
                           f"={cell(r, c['Efficiency'])}*{cell(r, c['Tokens/s'])}",
                           fig.tokens_per_s, f.num)
                sh.put(r, c["Target tokens/s"], fig.target_tokens_per_s, f.num)
                if fig.tokens is not None and fig.days_to_finish is not None:
                    sh.put(r, c["Tokens"], fig.tokens, f.int)
                    sh.formula(r, c["Days to finish"],
                               f"={cell(r, c['Tokens'])}/"
                               f"({cell(r, c['Delivered tokens/s'])}*86400)",
                               fig.days_to_finish, f.num2)
                    sh.formula(r, c["GPU-hours"],
                               f"={cell(r, c['GPUs'])}*{cell(r, c['Days to finish'])}*24",
                               fig.gpu_hours or 0.0, f.num)
                sh.put(r, c["TPOT ms"], fig.tpot_ms, f.num2)
                sh.put(r, c["TTFT ms"], fig.ttft_ms, f.num)
                r += 2
        sh.finish(freeze_col=2)

    # -- Sweep ----------------------------------------------------------------------------
    def _sweep(self, sh: _Sheet, df: pd.DataFrame) -> None:
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
        runs = _budget_runs(df)
        knees = self._knee_table(sh, df, runs, end + 1)
        if knees:
            end = max(knees.values())
        if all(stop - start == 1 for _, start, stop in runs):
            # One scenario a group (no budget axis): a budget chart would hold one point
            # each, so the groups are compared side by side instead.
            sh.breaks.append(end + 2)
            sh.finish(keep=1)
            chart = self._group_chart(sh, df, runs, knees)
            chart.set_size({"width": 720, "height": 360})
            sh.ws.insert_chart(end + 2, 0, chart, {"y_offset": SWEEP_CHART_TOP_PX})
            return
        # The charts start a printed page and stack in the first columns, two a page, so
        # neither a page break down nor one across cuts a chart; rows of the sheet's
        # default height, a row's gap after each chart.
        step = math.ceil(SWEEP_CHART_PX / sh.ws.default_row_height) + 1
        sh.breaks += [end + 2 + n * step for n in range(0, len(runs), 2)]
        sh.finish(keep=1)
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

    def _sweep_format(self, name: str):
        """Number format of a column of the sweep tables: money for every amount (the kWh
        price to four decimals), one decimal for power, else by the column's unit suffix."""
        f = self.fmt
        if name in SWEEP_MONEY:
            return f.money
        if name == "kwh_price":
            return f.money_rate
        if name == "power_kw":
            return f.num
        if name == "reused_knee":
            return f.center  # TRUE/FALSE at the top of a tall row, level with its text
        return f.for_column(name)

    def _sweep_table(self, sh: _Sheet, df: pd.DataFrame) -> int:
        """The scenario table under its header, filtered; returns the row after it."""
        cols = [str(c) for c in df.columns]
        sh.header(HEADER_ROW, [SWEEP_LABELS.get(c) or _label(c) for c in cols],
                  numeric=_numeric_columns(df))
        formats = [self._sweep_format(c) for c in cols]
        for r, rec in enumerate(df.itertuples(index=False), start=HEADER_ROW + 1):
            for c, value in enumerate(rec):
                sh.put(r, c, _plain(value), formats[c])
        last = HEADER_ROW + len(df)
        if len(df):
            sh.ws.autofilter(HEADER_ROW, 0, last, len(cols) - 1)
        return last + 1

    def _sweep_chart(self, sh: _Sheet, df: pd.DataFrame, runs: list[tuple[str, int, int]],
                     knees: dict[str, int], title: str):
        """Served priority (left axis) and cost (right axis) against the budget for ``runs``
        (scenario groups), each group's knee marked with a red diamond."""
        col = {c: list(df.columns).index(c) for c in ("budget", "served_priority", "total_cost")}
        chart = self.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
        # One line per scenario group (same growth, headroom, prices, kWh price, years and
        # objective), so a line never jumps back from one group's largest budget to the
        # next group's smallest.
        single = len(runs) == 1
        for label, start, stop in runs:
            first, last = HEADER_ROW + 1 + start, HEADER_ROW + stop
            for name, y2 in (("served_priority", False), ("total_cost", True)):
                what = "served priority" if not y2 else "cost"
                chart.add_series(
                    {
                        "name": what if single else f"{what}{label}",
                        "categories": [sh.name, first, col["budget"], last, col["budget"]],
                        "values": [sh.name, first, col[name], last, col[name]],
                        "y2_axis": y2,
                        "marker": {"type": "circle" if not y2 else "square"},
                    }
                )
        rows = sorted(knees[label] for label, start, _ in runs
                      if label in knees and _has_knee(df, start))
        for row in rows:
            chart.add_series(
                {
                    "name": KNEE_SERIES,
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

    def _group_chart(self, sh: _Sheet, df: pd.DataFrame, runs: list[tuple[str, int, int]],
                     knees: dict[str, int]):
        """Without a budget axis (one scenario a group): each group's cost to buy and TCO
        as columns side by side, its knee (cheapest full plan) as a red diamond; the groups
        are named as in the knee table."""
        cols = list(df.columns)
        first, last = HEADER_ROW + 1, HEADER_ROW + len(df)
        if knees and len(knees) == len(runs):
            top, bottom = min(knees.values()), max(knees.values())
            names = [sh.name, top, 0, bottom, 0]
        else:  # no knee table: the scenario numbers
            names = [sh.name, first, cols.index("scenario"), last, cols.index("scenario")]
        chart = self.wb.add_chart({"type": "column"})
        series = [("total_cost", "cost to buy")]
        if "tco" in df.columns and df["tco"].notna().any():
            series.append(("tco", "TCO"))
        for name, what in series:
            chart.add_series({"name": what, "categories": names,
                              "values": [sh.name, first, cols.index(name), last,
                                         cols.index(name)]})
        if knees and len(knees) == len(runs):
            line = self.wb.add_chart({"type": "line"})
            line.add_series({"name": KNEE_SERIES, "categories": names,
                             "values": [sh.name, names[1], 1, names[3], 1],
                             "line": {"none": True}, "marker": KNEE_MARKER})
            chart.combine(line)
        cur = self.catalog.currency
        what = "Cost to buy and TCO" if len(series) > 1 else "Cost to buy"
        chart.set_title({"name": f"{what} by scenario group"})
        chart.set_y_axis({"name": cur, "num_format": "#,##0"})
        chart.set_legend({"position": "bottom"})
        return chart

    def _knee_table(self, sh: _Sheet, df: pd.DataFrame, runs: list[tuple[str, int, int]],
                    row: int) -> dict[str, int]:
        """Under the Sweep table: every scenario group's knee (its cheapest full plan's
        cost; blank where it has none) and the priority it serves (all of it); returns the
        row of each group, by its label in ``runs`` (empty without the knee columns)."""
        if "knee_budget" not in df.columns or "total_priority" not in df.columns:
            return {}
        row += 1
        sh.section(row, "Knee: the smallest budget that serves every workload")
        sh.header(row + 1, ["Scenario group", "Knee budget", "Served priority"],
                  numeric={1, 2})
        rows = {}
        sh._width(0, KNEE_LABEL_WIDTH)
        for i, (label, start, _) in enumerate(runs, start=row + 2):
            # Wrapped in a narrow cell: the first column repeats on every page across.
            text = label.strip(" ()") or "all scenarios"
            sh.ws.write_string(i, 0, text, self.fmt.text_wrap)
            sh.lines[i] = len(_wrap(text, KNEE_LABEL_WIDTH - 4))
            if _has_knee(df, start):
                sh.put(i, 1, float(_plain(df.iloc[start]["knee_budget"])), self.fmt.money)
                priority = _plain(df.iloc[start]["total_priority"])
                sh.put(i, 2, float(priority or 0.0), self.fmt.plain_num)
            rows[label] = i
        return rows

    # -- Sweep BOM ------------------------------------------------------------------------
    def _sweep_bom(self, sh: _Sheet, df: pd.DataFrame) -> None:
        """One long table of every scenario's lines; extended = qty x unit price and a
        SUBTOTAL row per scenario (SUBTOTAL skips the other subtotals and follows filters)."""
        f = self.fmt
        cols = [str(c) for c in df.columns]
        sh.header(HEADER_ROW, [SWEEP_LABELS.get(c) or _label(c) for c in cols],
                  numeric=_numeric_columns(df))
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
                        sh.formula(r, j, f"={qty}*{price}", float(_plain(value)), f.money)
                    else:
                        sh.put(r, j, _plain(value), formats[j])
                r += 1
            sid = _plain(lines.iloc[0]["scenario"])
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


def _has_knee(df: pd.DataFrame, start: int) -> bool:
    """The scenario group whose first row is ``start`` has a full plan (a knee)."""
    return _plain(df.iloc[start]["knee_budget"]) is not None


def _missing(value: Any) -> bool:
    """None or NaN (pandas turns a missing integer into NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))
