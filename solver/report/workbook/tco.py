"""The TCO sheet (P2, P5): capex, energy, support and racks year by year per option,
renting the GPUs bought against buying them, the break-even month and a chart."""

from __future__ import annotations

from typing import Any

from xlsxwriter.utility import xl_rowcol_to_cell

from ...optimize.owning import kw_text
from ...plan_types import PlanOption
from .. import tables as report
from ..wording import counted
from .base import BookBase
from .sheet import HEADER_ROW, Sheet

STAYS_CHEAPER = "renting stays cheaper"
"""The break-even cell when renting the GPUs bought never costs more than buying them."""


class TcoSheet(BookBase):
    """Tco sheet(s) of the workbook."""

    def _tco(self, sh: Sheet) -> None:
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

    def _tco_option(self, sh: Sheet, opt: PlanOption, year_row: int, row: int,
                    series: list[tuple[str, int, bool]]) -> int:
        """One option's block of the TCO sheet from ``row``; returns the row after it."""
        f, c, own = self.fmt, self.own_cell, opt.own
        assert own is not None  # _tco skips the options without a cost of owning
        years = self.wf.policy.tco.years  # type: ignore[union-attr]
        cell = xl_rowcol_to_cell
        has_rent = own.cloud is not None
        sh.section(row, f"Option {opt.rank}: {kw_text(own.power_kw)} kW"
                        + (f", {counted(own.racks, 'rack')}" if own.racks is not None else ""))
        fact = self._tco_facts(sh, own, row + 1)
        kw, racks = fact["Power drawn (kW)"], fact["Racks used"]
        first = row + 1 + len(fact)
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

    def _tco_facts(self, sh: Sheet, own: Any, row: int) -> dict[str, str]:
        """An option's power and racks (and, with a rent known, those of the servers
        bought) from ``row``, one a row; the cell of each, by its label."""
        f = self.fmt
        facts = [("Power drawn (kW)", float(own.power_kw), f.num),
                 ("Racks used", int(own.racks or 0), f.int)]
        if own.cloud is not None:
            facts += [("Power of the servers bought (kW)", float(own.bought_power_kw or 0.0),
                       f.num),
                      ("Racks they add", int(own.racks_added or 0), f.int)]
        fact = {}
        for i, (label, value, fmt) in enumerate(facts, start=row):
            sh.put(i, 0, label)
            sh.put(i, 1, value, fmt)
            fact[label] = xl_rowcol_to_cell(i, 1, True, True)
        return fact

    def _break_even(self, sh: Sheet, opt: PlanOption, at: dict[str, int], row: int) -> tuple[str, Any]:
        """P5: months after which buying has cost less than renting the GPUs bought:
        capex ÷ (monthly rent − monthly running cost of what is bought), from year 1's
        figures (every year's are the same); the cell and its value."""
        cell = xl_rowcol_to_cell
        rent, running = cell(at["rent"], 2), cell(at["running"], 2)
        capex = cell(at["capex"], 1)
        month = opt.own.break_even_month if opt.own is not None else None
        value: Any = month if month is not None else STAYS_CHEAPER
        sh.put(row, 0, "Buying breaks even after (months)", self.fmt.bold)
        sh.formula(row, 1, f'=IF({rent}-{running}>0,ROUND({capex}/(({rent}-{running})/12),1),'
                           f'"{STAYS_CHEAPER}")', value, self.fmt.num_right)
        return sh.ref(row, 1), value

    def _tco_chart(self, sh: Sheet, series: list[tuple[str, int, bool]], year_row: int,
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
