"""The Demand, Placement, Memory and Teams sheets: what option 1 places where, and each
team's live share of what every option buys (R17)."""

from __future__ import annotations

from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from .. import chargeback, placement_tables
from .. import tables as report
from .base import BookBase
from .labels import header_label
from .sheet import HEADER_ROW, Sheet, numeric_columns, plain


class PlanSheets(BookBase):
    """Plans sheet(s) of the workbook."""

    # -- Placement, Memory ----------------------------------------------------------------
    def _demand(self, sh: Sheet) -> None:
        sh.table(placement_tables.demand_table(self.result, self.wf, self.catalog))
        sh.finish(freeze_col=1)

    def _placement(self, sh: Sheet) -> None:
        sh.table(placement_tables.placement_table(self.result, self.wf, self.catalog))
        sh.finish(freeze_col=2)

    def _memory(self, sh: Sheet) -> None:
        sh.table(placement_tables.memory_table(self.result, self.wf, self.catalog))
        sh.finish(freeze_col=2)

    # -- Teams ----------------------------------------------------------------------------
    def _teams(self, sh: Sheet) -> None:
        """Each team's share of each kind of what an option buys, times the option sheet's
        subtotal of that kind (live), and a check that the teams add up to the option total.
        Every stored value is what its formula computes from the stored values it reads."""
        f = self.fmt
        df = chargeback.teams_table(self.result, self.wf, self.catalog)
        if df.empty:
            sh.finish()
            return
        cols = list(df.columns)
        c_of = {c: i for i, c in enumerate(cols)}
        owned = "owned_gpu_equivalents" in cols
        labels = {"gpu_equivalents": "GPUs used on servers bought",
                  "host_ram_gb": "Host RAM on servers bought (GB)"} if owned else {}
        sh.header(HEADER_ROW, [labels.get(c) or header_label(c) for c in cols],
                  numeric=numeric_columns(df))
        first = HEADER_ROW + 1
        last = first + len(df) - 1
        sums: dict[tuple[int, str], float] = {}
        for r, rec in enumerate(df.to_dict("records"), start=first):
            rank = int(rec["option"].split()[-1])
            row_total = 0.0
            for c, name in enumerate(cols):
                value = plain(rec[name])
                kind = name.removesuffix("_cost")
                if name.endswith("_cost") and kind in report.KINDS:
                    share = xl_rowcol_to_cell(r, c_of[f"{kind}_share"])
                    subtotal, amount = self.totals[rank][kind]
                    value = float(rec[f"{kind}_share"]) * amount
                    row_total += value
                    sh.formula(r, c, f"={share}*{subtotal}", value, f.money)
                elif name == "total_cost":
                    a = xl_rowcol_to_cell(r, c_of["platform_cost"])
                    b = xl_rowcol_to_cell(r, c_of[f"{report.KINDS[-1]}_cost"])
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
        names = [*(f"{k}_cost" for k in report.KINDS), "total_cost"]
        sh.header(row, ["Option"] + [header_label(s) for s in names]
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
