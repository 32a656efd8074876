"""The Option 1..K sheets: each option's bill of materials with live formulas, its
servers, the vendor quote by configuration and what each platform's price includes."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from ...inputs.fabric import LINK_SKU
from ...plan_types import PlanOption
from .. import network
from .. import tables as report
from ..quote import fabric_quote_lines, quote_lines
from ..timeline_data import config_label, run_servers
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
            sh.put(r, 0, s.id)
            # An owned server is in the plan but not on the bill of materials above.
            sh.put(r, 1, config_label(s) + (" (already owned: not bought)" if s.owned else "")
                   + (" (runs only: see Runs below)" if s.id in run_servers(opt) else ""))
        if opt.unserved:
            r = row + len(opt.servers) + 2
            sh.put(r, 0, "Not served:", f.bold)
            sh.put(r, 1, ", ".join(opt.unserved))
        row = self._quote(sh, opt, row + len(opt.servers) + (5 if opt.unserved else 3))
        # The fabric's layout after the quote, on its page: what its switch lines are for.
        row = self._network(sh, opt, row)
        self._runs_table(sh, opt, self._includes(sh, opt, row))
        sh.widths[1] = min(max(sh.widths.get(1, 30), 30), 80)
        sh.finish()

    def _network(self, sh: Sheet, opt: PlanOption, row: int) -> int:
        """The fabric of each pod and kind (N3): its servers and their ports, leaves, spines,
        cables, and its cost as a live formula on the Assumptions prices of its switches
        and cables (stored with what it computes). The NICs added to servers are in the
        servers' configurations above. Returns the first row free after it."""
        f, cur = self.fmt, self.catalog.currency
        df = network.fabric_table(opt, self.catalog)
        if df.empty:
            return row
        sh.section(row - 1, "Network: the switches and cables of each fabric (one NIC kind "
                            "of one pod)")
        sh.header(row, ["Pod", "Leaves", "Spines", "Kind", "Servers", "Ports", "Cables",
                        f"Cost ({cur})"], numeric={4, 5, 6, 7})
        first = row + 1
        for r, ln in enumerate(df.itertuples(index=False), start=first):
            sh.put(r, 0, ln.pod)
            sh.put(r, 1, f"{ln.leaves} x {ln.leaf}")
            sh.put(r, 2, f"{ln.spines} x {ln.spine}" if ln.spines else "-")
            sh.put(r, 3, ln.kind)
            for c, n in ((4, ln.servers), (5, ln.ports), (6, ln.cables)):
                sh.put(r, c, int(n), f.int)
            terms = [(int(ln.leaves), ln.leaf), (int(ln.spines), ln.spine),
                     (int(ln.cables), LINK_SKU)]
            self._priced(sh, r, 7, opt, [(n, sku) for n, sku in terms if n], float(ln.cost))
        last = first + len(df) - 1
        sh.put(last + 1, 0, "Fabric total", f.bold_top)
        for c in range(1, 7):
            sh.ws.write_blank(last + 1, c, None, f.bold_top)
        sh.formula(last + 1, 7, f"=SUM({xl_rowcol_to_cell(first, 7)}:"
                                f"{xl_rowcol_to_cell(last, 7)})",
                   float(df["cost"].sum()), f.money_total)
        return last + 4

    def _priced(self, sh: Sheet, r: int, c: int, opt: PlanOption, terms: list[tuple[int, str]],
                value: float) -> None:
        """Σ count × unit price of ``terms`` (count, SKU) in one cell: a live formula on the
        Assumptions prices where the solver priced every SKU as the catalog does, else the
        value alone."""
        refs = [self.price_cell.get(sku) for _, sku in terms]
        bom = network.unit_prices(opt)
        if all(ref and sku in bom and abs(self.catalog.price_of(sku) - bom[sku]) < 0.005
               for ref, (_, sku) in zip(refs, terms, strict=True)):
            sh.formula(r, c, "=" + "+".join(f"{n}*{ref}" for ref, (n, _) in
                                            zip(refs, terms, strict=True)), value,
                       self.fmt.money)
        else:
            sh.put(r, c, value, self.fmt.money)

    def _quote(self, sh: Sheet, opt: PlanOption, row: int) -> int:
        """The servers to buy grouped by configuration, as a vendor quotes them
        (``quote.quote_lines``), then the network's switches and cables
        (``quote.fabric_quote_lines``): a server's price sums its parts' Assumptions prices
        and the extended price is servers x that, live formulas where the solver priced
        every part as the catalog does. Returns the first row free after it (a blank row
        between)."""
        f, cur = self.fmt, self.catalog.currency
        lines = quote_lines(opt, self.catalog)
        if not lines:
            return row
        net = fabric_quote_lines(opt, self.catalog)  # N3: then the switches and cables
        lines += net
        # The quote goes to a vendor: it starts a printed page, so its title is never left
        # at the foot of the page before its table.
        sh.breaks.append(row - 1)
        sh.section(row - 1, "Quote: the servers to buy, by configuration"
                            + (", and their network" if net else ""))
        sh.header(row, ["Platform", "Configuration (one server)", "", "Servers",
                        f"Price per server ({cur})", f"Extended ({cur})"] if not net else
                  ["Platform or part", "Configuration (one server) or part", "", "Quantity",
                   f"Unit price ({cur})", f"Extended ({cur})"], numeric={3, 4, 5})
        first = row + 1
        for r, ln in enumerate(lines, start=first):
            sh.put(r, 0, ln.platform)
            sh.put(r, 1, ln.description)
            sh.put(r, 3, ln.qty, f.int)
            self._priced(sh, r, 4, opt, [(q, sku) for sku, q in ln.parts], ln.unit_price)
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

    def _includes(self, sh: Sheet, opt: PlanOption, row: int) -> int:
        """What each platform's price covers, so finance sees why a server has no data drive.
        Returns the first row free after it (a blank row between)."""
        sh.section(row - 1, "What each platform's price includes (GPUs, DIMMs, data drives, NICs "
                            "added are the lines above)")
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
