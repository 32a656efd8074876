"""What an option sheet adds over a horizon (H6): the rented GPU-hours as their own
section of the bill of materials, the option's cost over the horizon (capex charged, rent,
running costs: live on the bill of materials' totals) and the table of its runs.

Nothing is written without a horizon: a file without one keeps its option sheets."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from ...plan_types import PlanOption
from ..timeline_data import rent_lines
from .base import BookBase
from .sheet import Sheet


class OptionTimeSections(BookBase):
    """The horizon sections of the Option 1..K sheets."""

    def _rent_bom(self, sh: Sheet, opt: PlanOption, row: int) -> int:
        """Below the bill of materials' grand total (row ``row``): the rented GPU-hours per
        GPU SKU (cost = GPU-hours x price per GPU-hour, live) and the cost over the horizon.
        Registers the cells the Summary reads in ``totals``. Returns the last row written
        (``row`` itself without a horizon)."""
        info, t = self.result.horizon, opt.time
        if info is None or t is None:
            return row
        f, cur = self.fmt, self.catalog.currency
        row += 3
        sh.section(row - 1, "Rented GPU-hours (hours billed: each rental's at least its "
                            "cloud's min_hours)")
        sh.header(row, ["GPU SKU", "Rented for", "", "GPU-hours",
                        f"Price per GPU-hour ({cur})", f"Cost ({cur})"], numeric={3, 4, 5})
        lines = rent_lines(opt)
        first = row + 1
        for r, ln in enumerate(lines, start=first):
            sh.put(r, 0, ln.gpu)
            sh.put(r, 1, ln.who())
            sh.put(r, 3, ln.gpu_hours, f.num)
            ref = self.own_cell.get(f"cloud:{ln.gpu}")
            if ref and abs((self.catalog.cloud_price(ln.gpu) or 0.0) - ln.per_gpu_hour) < 1e-9:
                sh.formula(r, 4, f"={ref}", ln.per_gpu_hour, f.money_rate)
            else:
                sh.put(r, 4, ln.per_gpu_hour, f.money_rate)
            sh.formula(r, 5, f"={xl_rowcol_to_cell(r, 3)}*{xl_rowcol_to_cell(r, 4)}", ln.cost,
                       f.money)
        if not lines:
            sh.put(first, 0, "Nothing rented.")
        last = first + max(len(lines), 1) - 1
        rent = sum(ln.cost for ln in lines)
        sh.put(last + 1, 0, "Rent total", f.bold_top)
        for c in range(1, 5):
            sh.ws.write_blank(last + 1, c, None, f.bold_top)
        if lines:
            sh.formula(last + 1, 5, f"=SUM({xl_rowcol_to_cell(first, 5)}:"
                                    f"{xl_rowcol_to_cell(last, 5)})", rent, f.money_total)
        else:
            sh.put(last + 1, 5, 0.0, f.money_total)
        self.totals[opt.rank]["rent"] = (sh.ref(last + 1, 5), rent)
        return self._horizon_cost(sh, opt, last + 4)

    def _horizon_cost(self, sh: Sheet, opt: PlanOption, row: int) -> int:
        """The option's cost over the horizon from ``row``: capex x the share of the
        hardware's life charged, + rent, + running costs. Returns its last row."""
        info, t = self.result.horizon, opt.time
        assert info is not None and t is not None
        f, cur = self.fmt, self.catalog.currency
        cells = self.totals[opt.rank]
        sh.section(row - 1, f"Cost over the horizon: {info.months} months from "
                            f"{info.start.isoformat()} ({cur})")
        total_ref, capex = cells["total"]
        charged = capex * info.capex_share
        items = [
            ("horizon_months", "Horizon (months)", "", float(info.months), f.int),
            ("life_share", "Share of the capex charged",
             f"{info.months} of the hardware's {info.life_months} months of life (at most all)",
             info.capex_share, f.pct),
        ]
        for r, (key, label, why, value, fmt) in enumerate(items, start=row):
            sh.put(r, 0, label)
            sh.put(r, 1, why)
            sh.put(r, 5, value, fmt)
            cells[key] = (sh.ref(r, 5), value)
        share_ref = cells["life_share"][0]
        r = row + len(items)
        sh.put(r, 0, "Capex charged")
        sh.put(r, 1, "grand total x share")
        sh.formula(r, 5, f"={total_ref}*{share_ref}", charged, f.money)
        cells["capex_charged"] = (sh.ref(r, 5), charged)
        sh.put(r + 1, 0, "Rent")
        sh.put(r + 1, 1, "rent total, above")
        sh.formula(r + 1, 5, f"={cells['rent'][0]}", cells["rent"][1], f.money)
        sh.put(r + 2, 0, "Running costs")
        sh.put(r + 2, 1, "energy, support and racks over the horizon (objective tco)"
                         if t.running else "not counted (objective capex)")
        sh.put(r + 2, 5, t.running, f.money)
        cells["running"] = (sh.ref(r + 2, 5), t.running)
        horizon = charged + cells["rent"][1] + t.running
        sh.put(r + 3, 0, "Cost over the horizon", f.bold_top)
        for c in range(1, 5):
            sh.ws.write_blank(r + 3, c, None, f.bold_top)
        sh.formula(r + 3, 5, f"=SUM({xl_rowcol_to_cell(r, 5)}:{xl_rowcol_to_cell(r + 2, 5)})",
                   horizon, f.money_total)
        cells["horizon_cost"] = (sh.ref(r + 3, 5), horizon)
        return r + 3

    def _runs_table(self, sh: Sheet, opt: PlanOption, row: int) -> None:
        """Every run of the option from ``row`` (its section title the row above): when it
        begins and ends, its replicas, GPU and GPUs per replica, and where it runs."""
        info = self.result.horizon
        if info is None or not opt.runs:
            return
        f = self.fmt
        sh.section(row - 1, f"Runs: {len(opt.runs)} (begin and end in the horizon's time, "
                            f"from {info.start.isoformat()} 00:00)")
        sh.header(row, ["Workload", "Where", "Run", "Begins", "Ends", "Replicas",
                        "GPUs per replica"], numeric={2, 3, 4, 5})
        for r, run in enumerate(sorted(opt.runs, key=lambda x: (x.begin_h, x.workload, x.run)),
                                start=row + 1):
            sh.put(r, 0, run.workload)
            where = (f"rented: {run.rented.gpus} GPUs for {run.rented.hours:,.1f} h billed"
                     if run.rented is not None
                     else "servers " + ", ".join(dict.fromkeys(run.servers or ())))
            sh.put(r, 1, where)
            sh.put(r, 2, run.run, f.int)
            sh.ws.write_datetime(r, 3, info.at(run.begin_h), f.datetime)
            sh.ws.write_datetime(r, 4, info.at(run.end_h), f.datetime)
            sh.put(r, 5, run.replicas, f.int)
            sh.put(r, 6, f"{run.gpus} x {run.gpu}")
        sh.widen(3, 16)
        sh.widen(4, 16)
