"""The Assumptions sheet: run facts, input files, the editable catalog prices, policy,
sizing rules and the cost-of-owning inputs every formula reads."""

from __future__ import annotations

from .. import run_tables
from .base import BookBase
from .sheet import HEADER_ROW, Sheet

ASSUMPTIONS_COL_WIDTH = 40
"""Widest a column of the Assumptions sheet grows: descriptions and hashes wrap."""


class AssumptionsSheet(BookBase):
    """Assumptions sheet(s) of the workbook."""

    # -- Assumptions --------------------------------------------------------------------
    def _assumptions(self, sh: Sheet) -> None:
        cur, date = self.catalog.currency, self.catalog.prices_as_of.isoformat()
        sh.max_width = ASSUMPTIONS_COL_WIDTH  # five columns of text: one page across
        sh.section(HEADER_ROW - 1, "Run")
        row = (
            sh.table(run_tables.run_table(self.result, self.wf, self.catalog, self.now), filter_=False)
            + 1
        )
        sh.section(row, "Input files")
        row = sh.table(run_tables.sources_table(self.sources), row + 1, filter_=False) + 1
        sh.section(row, f"Catalog: unit prices in {cur} as of {date} (edit the yellow cells)")
        cat = run_tables.catalog_table(self.catalog)
        first = row + 1
        row = sh.table(cat, first)
        price_col = list(cat.columns).index("unit_price")
        for i, (sku, price) in enumerate(zip(cat["sku"], cat["unit_price"])):
            sh.put(first + 1 + i, price_col, float(price), self.fmt.price_input)
            self.price_cell[sku] = sh.ref(first + 1 + i, price_col)
        row += 1
        sh.section(row, "Policy")
        row = sh.table(run_tables.policy_table(self.wf), row + 1, filter_=False) + 1
        sh.section(row, "Sizing rules applied")
        row = sh.table(run_tables.rules_table(), row + 1, filter_=False) + 1
        self._owning_inputs(sh, row)
        sh.widths[0] = max(sh.widths.get(0, 0), 24)
        sh.widths[price_col] = max(sh.widths.get(price_col, 0), 14)
        sh.finish(header_row=1)

    # -- Option 1..K --------------------------------------------------------------------
    # -- Cost of owning (P2, P5) ------------------------------------------------------------
    def _owning_inputs(self, sh: Sheet, row: int) -> None:
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
