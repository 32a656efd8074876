"""Terminal text that fits the reader's width: tables, wrapped paragraphs, bullet lists.

Every ``render_*`` of the terminal reports lays out through here, so they follow the same
width rule: no line longer than ``width`` characters. Tables drop their least important
columns first (and say which) when even wrapped cells cannot fit, then wrap long cells.
The output is plain text (no colour, no box-drawing characters), so it reads the same in a
terminal, a pipe, a file or an e-mail.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TextIO

DEFAULT_WIDTH = 100
"""Width used when none is given and standard output is not a terminal (a file, a pipe)."""
MIN_WIDTH = 40
"""Narrower requests are raised to this: below it no table of ours reads at all."""
GAP = 2
"""Spaces between two table columns."""


def terminal_width(stream: TextIO | None = None) -> int:
    """The width to lay text out in: ``COLUMNS`` when set, else the terminal's, else 100.

    Args:
        stream: the stream the text goes to (default standard output); a stream that is
            not a terminal gets ``DEFAULT_WIDTH`` unless ``COLUMNS`` says otherwise.
    """
    cols = os.environ.get("COLUMNS", "").strip()
    if cols.isdigit() and int(cols) > 0:
        return max(MIN_WIDTH, int(cols))
    isatty = getattr(stream, "isatty", None)
    if stream is not None and isatty is not None and isatty():
        return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
    return DEFAULT_WIDTH


def wrap(text: str, width: int, indent: str = "", hang: str | None = None) -> list[str]:
    """One paragraph wrapped to ``width``; ``hang`` indents the lines after the first.

    Long words (paths, SKU lists without spaces) are broken rather than left overlong.
    """
    hang = indent if hang is None else hang
    return textwrap.wrap(text, width=max(MIN_WIDTH // 2, width), initial_indent=indent,
                         subsequent_indent=hang, break_on_hyphens=False) or [indent.rstrip()]


def wrap_message(text: str, width: int) -> str:
    """A message of lines and ``- item`` lines, each line wrapped to ``width`` under its own
    text; words are never broken, so a path or an SKU stays whole (and copyable)."""
    out: list[str] = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        lead = line[:len(line) - len(body)]
        hang = lead + ("  " if body.startswith("- ") else "    " if not lead else "")
        out += textwrap.wrap(line, width=max(MIN_WIDTH // 2, width), subsequent_indent=hang,
                             break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(out)


def bullets(items: Sequence[str], width: int, indent: str = "  ") -> list[str]:
    """``- item`` lines, each wrapped under its own text."""
    out: list[str] = []
    for item in items:
        out += wrap(item, width, indent=f"{indent}- ", hang=f"{indent}  ")
    return out


@dataclass(frozen=True)
class Column:
    """One column of a terminal table."""

    header: str
    justify: Literal["left", "right"] = "right"
    keep: int = 0
    """Drop order when the table cannot fit: higher numbers go first; 0 is never dropped."""
    wrap: bool = False
    """Long cells may wrap onto more lines (lists of names); otherwise the column keeps its
    widest cell, since a number broken over two lines misleads."""
    min_width: int = 0
    comfort: int = 24
    """A wrapping column is not squeezed below this (or its natural width) while another
    column can be dropped instead."""


def table(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> list[str]:
    """Rows laid out in at most ``width`` characters: dropped columns, then wrapped cells.

    Returns the lines, followed by one that names any columns left out for lack of width.
    """
    keep = list(range(len(columns)))
    dropped: list[str] = []
    while _natural_width([columns[i] for i in keep], rows, keep) > width:
        droppable = [i for i in keep if columns[i].keep > 0]
        if not droppable:
            break
        worst = max(droppable, key=lambda i: (columns[i].keep, i))
        keep.remove(worst)
        dropped.append(columns[worst].header)
    lines = _render([columns[i] for i in keep], [[r[i] for i in keep] for r in rows], width)
    if dropped:
        dropped.sort(key=[c.header for c in columns].index)
        lines += wrap(f"(Not shown at this width: {', '.join(dropped)}; a wider terminal or "
                      "--json shows them.)", width)
    return lines


def _items(cell: str) -> list[str]:
    """A list cell's items as they wrap ("a," "b," "c"); a plain cell is one item."""
    parts = cell.split(", ")
    return [p + "," for p in parts[:-1]] + parts[-1:]


def _shortest(col: Column, cells: list[str], words: bool = False) -> int:
    """Narrowest the column should go: its longest list item (or word, with ``words``) for
    wrapping columns, else its widest cell; headers wrap at spaces in both."""
    if col.wrap:
        pieces = [w for c in cells for w in (c.split() if words else _items(c))]
        body = max((len(w) for w in pieces), default=0)
    else:
        body = max((len(c) for c in cells), default=0)
    head = max((len(w) for w in col.header.split()), default=0)
    return max(body, head, col.min_width)


def _natural(col: Column, cells: list[str]) -> int:
    return max([len(col.header), col.min_width, *(len(c) for c in cells)])


def _comfortable(col: Column, cells: list[str]) -> int:
    low = _shortest(col, cells)
    return max(low, min(_natural(col, cells), col.comfort)) if col.wrap else low


def _natural_width(cols: list[Column], rows: Sequence[Sequence[str]], keep: list[int]) -> int:
    widths = [_comfortable(c, [r[i] for r in rows]) for c, i in zip(cols, keep, strict=True)]
    return sum(widths) + GAP * (len(widths) - 1)


def _widths(cols: list[Column], rows: list[list[str]], width: int) -> list[int]:
    """Natural widths, narrowed one character at a time where the most can be given up:
    first headers wider than their cells, then wrapping cells."""
    cells = [[r[i] for r in rows] for i in range(len(cols))]
    lows = [_shortest(c, cells[i]) for i, c in enumerate(cols)]
    # A header is cheaper to wrap than a cell: narrow to the widest cell first, and keep a
    # list column readable while anything else can give.
    soft = [max(lows[i], *(len(x) for x in cells[i])) if cells[i] else lows[i]
            for i in range(len(cols))]
    soft = [min(soft[i], _comfortable(c, cells[i])) if c.wrap else soft[i]
            for i, c in enumerate(cols)]
    out = [_natural(c, cells[i]) for i, c in enumerate(cols)]
    total = sum(out) + GAP * (len(out) - 1)
    # Last resorts, so no line is ever wider than asked: wrap between words, then break
    # words.
    words = [_shortest(c, cells[i], words=True) for i, c in enumerate(cols)]
    for floor in (soft, lows, words, [1] * len(cols)):
        while total > width:
            slack = [out[i] - floor[i] for i in range(len(out))]
            i = max(range(len(out)), key=lambda k: (slack[k], -k))
            if slack[i] <= 0:
                break
            out[i] -= 1
            total -= 1
    return out


def _cell_lines(text: str, width: int) -> list[str]:
    """A cell's lines; a list ("a, b, c") breaks between its items where they fit whole."""
    if len(text) <= width:
        return [text]
    lines: list[str] = []
    for item in _items(text):
        if lines and len(lines[-1]) + 1 + len(item) <= width:
            lines[-1] += " " + item
        else:
            lines += textwrap.wrap(item, width=width, break_on_hyphens=False) or [""]
    return lines


def _render(cols: list[Column], rows: list[list[str]], width: int) -> list[str]:
    widths = _widths(cols, rows, width)

    def block(cells: list[list[str]], bottom: bool) -> list[str]:
        height = max(len(c) for c in cells)
        pad = [[""] * (height - len(c)) for c in cells]
        cells = [p + c if bottom else c + p for p, c in zip(pad, cells, strict=True)]
        lines = []
        for k in range(height):
            parts = [c[k].rjust(w) if col.justify == "right" else c[k].ljust(w)
                     for c, w, col in zip(cells, widths, cols, strict=True)]
            lines.append((" " * GAP).join(parts).rstrip())
        return lines

    out = block([_cell_lines(c.header, w) for c, w in zip(cols, widths, strict=True)], True)
    out.append("-" * min(width, sum(widths) + GAP * (len(widths) - 1)))
    for r in rows:
        out += block([_cell_lines(x, w) for x, w in zip(r, widths, strict=True)], False)
    return out
