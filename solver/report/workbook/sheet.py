"""The sheet writer: typed cells (text never becomes a formula), column widths,
wrapped notes and a legible print layout."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import xlsxwriter
from xlsxwriter.utility import quote_sheetname, xl_rowcol_to_cell

from ..cells import starts_like_formula
from .labels import header_label
from .styles import FONT, Formats

if TYPE_CHECKING:
    import pandas as pd

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
DEFAULT_COL_PX = 64
"""Pixels of a column whose width is not set (Excel's default 8.43 characters)."""


class Sheet:
    """A worksheet that writes typed values, never turns text into formulas, tracks widths."""

    def __init__(self, wb: xlsxwriter.Workbook, name: str, fmt: Formats, title: str, note: str):
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

    def widen(self, col: int, n: float) -> None:
        self.widths[col] = max(self.widths.get(col, 0), min(n, self.max_width))

    def put(self, row: int, col: int, value: Any, fmt: Any = None) -> None:
        """Write one value by its type; text is literal text whatever it starts with."""
        ws = self.ws
        if value is None or (isinstance(value, float) and math.isnan(value)):
            ws.write_blank(row, col, None, fmt)
        elif isinstance(value, bool):
            ws.write_boolean(row, col, value, fmt)
            self.widen(col, 6)
        elif isinstance(value, (int, float)):
            ws.write_number(row, col, value, fmt or self.fmt.plain_num)
            self.widen(col, len(f"{value:,.2f}") + 3)
        else:
            text = str(value)
            if starts_like_formula(text):
                fmt = self.fmt.literal
            elif fmt is None and len(text) > self.max_width:
                fmt = self.fmt.text_wrap  # wraps in its column instead of spilling right
                self.lines[row] = max(self.lines.get(row, 1),
                                      len(wrap_lines(text, self.max_width - 4)))
            ws.write_string(row, col, text, fmt or self.fmt.text)
            self.widen(col, len(text) + 1)

    def formula(self, row: int, col: int, formula: str, value: float | str, fmt: Any = None) -> None:
        """A live formula stored with its computed value (read without recalculation)."""
        self.ws.write_formula(row, col, formula, fmt, value)
        shown = f"{value:,.2f}" if isinstance(value, (int, float)) else str(value)
        self.widen(col, len(shown) + 4)

    def header(self, row: int, labels: list[str], col: int = 0,
               numeric: Collection[int] = ()) -> None:
        """A header row; labels of numeric columns (indices in ``numeric``) align right."""
        for i, label in enumerate(labels):
            fmt = self.fmt.header_num if i in numeric else self.fmt.header
            self.ws.write_string(row, col + i, label, fmt)
            # A header wraps between words: its column needs its longest word (+ the
            # indent), never the whole label, so a short number keeps a narrow column.
            self.widen(col + i, _header_width(label) + 2)
            self.headers.setdefault(row, {})[col + i] = label

    def _header_heights(self) -> None:
        """Each header row tall enough for its labels wrapped at their columns' widths."""
        for row, labels in self.headers.items():
            lines = max(len(wrap_lines(label, int(self._col_width(c)) - 2))
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
        self.header(row, [header_label(c) for c in cols], numeric=numeric_columns(df))
        for r, rec in enumerate(df.itertuples(index=False), start=row + 1):
            for c, (name, value) in enumerate(zip(cols, rec)):
                self.put(r, c, plain(value), self.fmt.for_column(name))
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
        if len(wrap_lines(label, width)) <= 3:
            return width
    return max(longest, HEADER_WRAP)


def wrap_lines(text: str, width: int) -> list[str]:
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


def numeric_columns(df: pd.DataFrame) -> set[int]:
    import pandas as pd

    return {
        i
        for i, c in enumerate(df.columns)
        if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
    }


def plain(value: Any) -> Any:
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


def missing(value: Any) -> bool:
    """None or NaN (pandas turns a missing integer into NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))
