"""The finance workbook: ranked options, bills of materials with live formulas, chargeback.

``write_workbook`` lays the tables of ``solver/report/tables.py`` out as an .xlsx file a
finance analyst can open, audit and edit. Sheets: Summary, Option 1..K, Demand, Placement,
Memory, Teams, Assumptions (run facts, input hashes, catalog prices, policy, R-rules) and,
when given, Throughput, TCO, Sweep and Sweep BOM. One module per group of sheets
(``summary``, ``option``, ``tco``, ``plan_sheets``, ``throughput``, ``sweep``,
``assumptions``), over the sheet writer (``sheet``), the styles (``styles``) and the
headers' words (``labels``); ``book`` puts them together.

Why XlsxWriter (not openpyxl): every formula is stored *with its computed value*, so the
file reads correctly where nothing recalculates (mail previewers, ``pandas.read_excel``),
while Excel and LibreOffice still recalculate on open. openpyxl writes formulas without
cached values, which such readers see as empty. This package is the only one that imports
the writer; styles and number formats live in ``styles.Formats``.

Live formulas: extended = quantity × unit price; unit prices point at the one price cell
of their SKU on the Assumptions sheet; subtotals are SUMIF by kind, totals SUM; Summary
and Teams refer to the option sheets' totals. Text from the input is always written as a
string (never a formula), with Excel's quote prefix when it starts like one.
"""

from .book import write_workbook

__all__ = ["write_workbook"]
