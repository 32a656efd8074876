"""A finished Monte Carlo sweep, as the reports read it (``render``, ``workbook``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..inputs.workload import WorkloadFile
from ..result import PlanResult
from .spec import Uncertainty
from .stats import Summary


@dataclass(frozen=True)
class UncertaintyRun:
    """A finished sweep: the base plan, what was drawn from, the statistics, the files."""

    wf: WorkloadFile
    unc: Uncertainty
    base: PlanResult
    summary: Summary
    currency: str
    files: tuple[Path, ...]
