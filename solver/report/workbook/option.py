"""The Option 1..K sheets: each option's bill of materials with live formulas, its
servers, the vendor quote by configuration and what each platform's price includes."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from ...plan_types import PlanOption
from .. import tables as report
from ..quote import quote_lines
from ..timeline_data import run_servers
from .option_time import OptionTimeSections
from .sheet import HEADER_ROW, Sheet, missing


class OptionSheets(OptionTimeSections):
    """Options sheet(s) of the workbook."""

    def _option(self, sh: Sheet, opt: PlanOption) -> None:
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
        row = self._rent_bom(sh, opt, row) + 3
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
            # An owned server is in the plan but not on the bill of materials above.
            sh.put(r, 1, " + ".join(parts) + (" (already owned: not bought)" if s.owned else "")
                   + (" (runs only: see Runs below)" if s.id in run_servers(opt) else ""))
        if opt.unserved:
            r = row + len(opt.servers) + 2
            sh.put(r, 0, "Not served:", f.bold)
            sh.put(r, 1, ", ".join(opt.unserved))
        row = self._quote(sh, opt, row + len(opt.servers) + (5 if opt.unserved else 3))
        self._runs_table(sh, opt, self._includes(sh, opt, row))
        sh.widths[1] = min(max(sh.widths.get(1, 30), 30), 80)
        sh.finish()

    def _quote(self, sh: Sheet, opt: PlanOption, row: int) -> int:
        """The servers to buy grouped by configuration, as a vendor quotes them
        (``quote.quote_lines``): a server's price sums its parts' Assumptions prices and the
        extended price is servers x that, live formulas where the solver priced every part
        as the catalog does. Returns the first row free after it (a blank row between)."""
        f, cur = self.fmt, self.catalog.currency
        lines = quote_lines(opt, self.catalog)
        if not lines:
            return row
        # The quote goes to a vendor: it starts a printed page, so its title is never left
        # at the foot of the page before its table.
        sh.breaks.append(row - 1)
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
    def _bom_price(opt: PlanOption, sku: str) -> float:
        """The unit price the option's bill of materials gives ``sku``."""
        return next(ln.unit_price for ln in opt.lines if ln.sku == sku)

    def _includes(self, sh: Sheet, opt: PlanOption, row: int) -> int:
        """What each platform's price covers, so finance sees why a server has no data drive.
        Returns the first row free after it (a blank row between)."""
        sh.section(row - 1, "What each platform's price includes (GPUs, DIMMs, data drives are "
                            "the lines above)")
        # Two text columns: numbers under the BOM's Kind/Quantity columns would read as lines.
        sh.header(row, ["Platform", "Includes"])
        for r, ln in enumerate(report.includes_table(opt, self.catalog).itertuples(index=False),
                               start=row + 1):
            facts = [f"{int(v)} {unit}" for v, unit in ((ln.cpu_cores, "CPU cores"),
                                                        (ln.rack_units, "U"))
                     if not missing(v)]
            sh.put(r, 0, ln.platform)
            sh.put(r, 1, ln.includes + (f" ({', '.join(facts)})" if facts else ""))
        return row + len(report.includes_table(opt, self.catalog)) + 3

    # -- Summary ------------------------------------------------------------------------
