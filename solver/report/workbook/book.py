"""The workbook as a whole: which sheets it has, in which order they are created and
filled (a sheet's formulas refer to cells other sheets wrote first), its properties, and
``write_workbook``, which writes it atomically."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from xlsxwriter.exceptions import FileCreateError

from ... import __version__
from ...inputs.catalog import Catalog
from ...inputs.workload import WorkloadFile
from ...result import PlanResult
from ..files import replacing
from .assumptions import AssumptionsSheet
from .option import OptionSheets
from .plan_sheets import PlanSheets
from .sheet import Sheet
from .summary import SummarySheet
from .sweep import SweepSheets
from .tco import TcoSheet
from .throughput import ThroughputSheet
from .timeline import TimelineSheet

if TYPE_CHECKING:
    import pandas as pd

    from ...optimize.full import FullPlan


def write_workbook(
    path: Path,
    result: PlanResult,
    wf: WorkloadFile,
    catalog: Catalog,
    sources: dict[str, Path],
    sweep: pd.DataFrame | None = None,
    sweep_bom: pd.DataFrame | None = None,
    full: FullPlan | None = None,
) -> Path:
    """Write the finance workbook atomically and return its path.

    The file is written to a temp file in the same folder and renamed over ``path``
    (``files.replacing``); on any failure or interrupt the previous workbook stays intact
    and the temp file is removed.

    Args:
        path: where the .xlsx goes (its folder is created if missing).
        result: the solver's ranked options.
        wf: the workload file planned (names, teams, policy).
        catalog: the priced catalog the plan used (currency, price date, unit prices).
        sources: label -> input file, listed with SHA-256 on the Assumptions sheet.
        sweep: optional scenario table for a Sweep sheet.
        sweep_bom: optional long table of every scenario's bill of materials (a Sweep BOM
            sheet: extended and per-scenario subtotals are live formulas).
        full: under a budget that leaves work out, the cheapest plan serving everything
            (the Summary says what it costs).

    Raises:
        InputError: the folder or file cannot be written.
    """
    path = Path(path)
    with replacing(path) as tmp:
        try:
            Book(tmp, result, wf, catalog, sources, sweep, sweep_bom, full).write()
        except FileCreateError as exc:  # XlsxWriter wraps the OSError of a failed write
            cause = exc.args[0] if exc.args else None
            raise cause if isinstance(cause, OSError) else OSError(str(exc)) from None
    return path



class Book(AssumptionsSheet, OptionSheets, TcoSheet, SummarySheet, PlanSheets, ThroughputSheet,
           SweepSheets, TimelineSheet):
    """One workbook being written: every sheet group together."""

    def write(self) -> None:
        """Create every sheet, fill them in dependency order, set the properties, save."""
        sheets = self._sheets()
        self._fill(sheets)
        self._properties()
        self.wb.close()

    def _sheets(self) -> dict[str | int, Sheet]:
        """Every sheet the plan needs, titled and noted, in the order the tabs show."""
        cur, date = self.catalog.currency, self.catalog.prices_as_of.isoformat()
        sheets: dict[str | int, Sheet] = {
            "Summary": self._sheet(
                "Summary",
                f"plan-buy: purchase options for {self.wf.name}",
                f"Ranked {self._ranked_by()}. Prices in {cur} as of {date}.",
            )
        }
        for opt in self.result.options:
            sheets[opt.rank] = self._sheet(
                f"Option {opt.rank}",
                f"Option {opt.rank}: bill of materials",
                f"Unit prices ({cur}, as of {date}) come from the Assumptions sheet: edit them "
                "there and every option updates.",
            )
        if self.result.horizon is not None:
            sheets["Timeline"] = self._timeline_sheet()
        for name, note in (
            ("Demand", ("Every workload as asked and as option 1 plans it: replicas planned = "
                       "replicas asked x growth, rounded up per workload; memory per replica "
                       "on the GPU it runs on (GB = 10^9 bytes); cost charged to it in option "
                       "1 (idle capacity shared by the workloads on each server).")),
            ("Placement", "Which replica runs on which server and GPUs (GB = 10^9 bytes)."),
            ("Memory", "The estimator's VRAM breakdown per GPU for the GPU and degree placed on."),
            (
                "Teams",
                (
                    "Chargeback (R17) of what each option buys: each team's share of the "
                    "GPUs, host RAM and storage its jobs use on the servers bought (their "
                    "network like their platforms); idle capacity is shared by the teams on "
                    "that server. "
                    + ("Servers already owned cost nothing and are not charged: what each "
                       "team runs on them is shown in its own columns."
                       if self.wf.inventory else "")
                ).strip(),
            ),
            (
                "Assumptions",
                (
                    "Inputs of this run. Edit a unit price in the Catalog table: every "
                    "option, the Summary and Teams recalculate."
                ),
            ),
        ):
            sheets[name] = self._sheet(name, name, note)
        if any(opt.throughput for opt in self.result.options):
            sheets["Throughput"] = self._sheet(
                "Throughput", "Throughput against targets",
                "Per option and workload with a target: replicas by GPU and degree, tokens/s "
                "per replica (the estimator's), and live totals, days to finish and GPU-hours.")
        if self.sweep is not None:
            sheets["Sweep"] = self._sheet(
                "Sweep", "Scenario sweep",
                f"Each row is one scenario; money in {cur}. The knee is the smallest budget "
                "that serves every workload (the cheapest full plan); the chart marks it."
            )
        if self.sweep_bom is not None:
            sheets["Sweep BOM"] = self._sheet(
                "Sweep BOM", "Every scenario's bill of materials",
                f"One row per line of each scenario's plan, money in {cur}; extended = "
                "quantity x unit price and each scenario's subtotal are live formulas. "
                "Scenarios without a plan have no lines.")
        if self.wf.policy.tco is not None:
            sheets["TCO"] = self._sheet(
                "TCO", "Total cost of ownership, year by year",
                f"Capex in year 0, then energy, support and racks each year ({cur}); live "
                "formulas on the kWh price, PUE, utilisation and years of the Assumptions "
                "sheet.")
        return sheets

    def _fill(self, sheets: dict[str | int, Sheet]) -> None:
        """Each sheet's content: Assumptions first (the prices every formula reads), the
        options and TCO before the Summary and Teams that refer to their totals."""
        self._assumptions(sheets["Assumptions"])
        for opt in self.result.options:
            self._option(sheets[opt.rank], opt)
        if "Timeline" in sheets:
            self._timeline(sheets["Timeline"])
        if "TCO" in sheets:
            self._tco(sheets["TCO"])
        self._summary(sheets["Summary"])
        self._demand(sheets["Demand"])
        self._placement(sheets["Placement"])
        self._memory(sheets["Memory"])
        self._teams(sheets["Teams"])
        if "Throughput" in sheets:
            self._throughput(sheets["Throughput"])
        if self.sweep is not None:
            self._sweep(sheets["Sweep"], self.sweep)
        if self.sweep_bom is not None:
            self._sweep_bom(sheets["Sweep BOM"], self.sweep_bom)

    def _properties(self) -> None:
        """The file's document properties (title, version, price date)."""
        cur, date = self.catalog.currency, self.catalog.prices_as_of.isoformat()
        self.wb.set_properties(
            {
                "title": f"plan-buy purchase options: {self.wf.name}",
                "subject": "GPU compute pool bill of materials",
                "author": "plan-buy",
                "company": "plan-buy",
                "comments": f"plan-buy {__version__}; prices as of {date} ({cur})",
                "created": self.now.replace(tzinfo=None),
            }
        )
