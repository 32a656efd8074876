"""Every cell style and number format of the workbook, in one place, and the
fonts and money formats they use."""

from __future__ import annotations

from typing import Any

import xlsxwriter

FONT = "Arial"
"""Every cell's font: on Windows and macOS, and metric-compatible Liberation Sans on Linux,
so a sheet prints the same wherever it opens (Calibri is missing where Office is, and
LibreOffice's stand-ins for it are wider)."""
CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥"}


def currency_format(currency: str) -> str:
    """Excel number format for money: symbol, thousands separators, 2 decimals."""
    code = "".join(ch for ch in currency if ch.isalnum())[:8] or "?"
    sym = CURRENCY_SYMBOLS.get(code.upper())
    if sym:
        return f'"{sym}"#,##0.00;-"{sym}"#,##0.00'
    return f'#,##0.00 "{code}";-#,##0.00 "{code}"'


class Formats:
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
        self.datetime = add({"num_format": "yyyy-mm-dd hh:mm", "valign": "top"})

    def for_column(self, name: str) -> Any:
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

