"""The state of a workbook being written that every sheet group reads: the plan and its
inputs, the formats, and the cells one sheet's formulas take from another (prices,
cost-of-owning inputs, option totals, TCO rows)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xlsxwriter

from ...inputs.catalog import Catalog
from ...inputs.workload import WorkloadFile
from ...result import PlanResult
from .sheet import DEFAULT_COL_PX, Sheet
from .styles import FONT, Formats

if TYPE_CHECKING:
    import pandas as pd

    from ...optimize.full import FullPlan


class BookBase:
    """One workbook being written: its inputs, formats and the cells sheets refer to
    across sheets. Each sheet group's class (``summary.SummarySheet``...) extends it."""

    def __init__(
        self,
        path: str | Path,
        result: PlanResult,
        wf: WorkloadFile,
        catalog: Catalog,
        sources: dict[str, Path],
        sweep: pd.DataFrame | None,
        sweep_bom: pd.DataFrame | None = None,
        full: FullPlan | None = None,
    ) -> None:
        self.result, self.wf, self.catalog, self.sources, self.sweep = (
            result,
            wf,
            catalog,
            sources,
            sweep,
        )
        self.sweep_bom, self.full = sweep_bom, full
        self.now = dt.datetime.now(dt.UTC)
        self.wb = xlsxwriter.Workbook(
            str(path),
            {
                "in_memory": True,
                # Arial 10 lays columns out as Calibri 11 does (7-pixel digits) and, unlike
                # Calibri, has a metric twin (Liberation Sans) where Office is not installed.
                "default_format_properties": {"font_name": FONT, "font_size": 10},
                "default_row_height": 17,
                "default_column_width": DEFAULT_COL_PX,
                "strings_to_formulas": False,
                "strings_to_urls": False,
                "strings_to_numbers": False,
            },
        )
        self.fmt = Formats(self.wb, catalog.currency)
        self.price_cell: dict[str, str] = {}
        self.own_cell: dict[str, str] = {}
        """Assumptions cells of the cost-of-owning inputs (kwh_price, pue, ...; cloud:SKU)."""
        self.totals: dict[int, dict[str, tuple[str, float]]] = {}
        """rank -> 'platform'/'gpu'/'memory'/'storage'/'network'/'total' -> (cell ref,
        value)."""
        self.own_refs: dict[int, dict[str, Any]] = {}
        """rank -> 'energy'/'rent': (TCO sheet, row of its yearly figures); 'break_even':
        (cell ref, value) -- what the Summary's cost-of-owning rows refer to."""

    def _sheet(self, name: str, title: str, note: str) -> Sheet:
        return Sheet(self.wb, name, self.fmt, title, note)

    @property
    def ranked_key(self) -> str:
        """The option total the options are ranked by: ``horizon_cost`` over a horizon,
        ``tco`` under objective tco, else ``total`` (capex)."""
        return ("horizon_cost" if self.result.horizon is not None
                else "tco" if self.by_tco else "total")

    @property
    def by_tco(self) -> bool:
        """The options are ranked by TCO (``objective: tco``), not by capital cost: a later
        option may cost less to buy."""
        return self.wf.policy.objective == "tco"

    def _ranked_by(self) -> str:
        """How the options are ordered: by what the program minimised."""
        if self.result.horizon is not None:
            return "by cost over the horizon (capex charged + rent), lowest first"
        return "by total cost of ownership, lowest first" if self.by_tco else "cheapest first"

