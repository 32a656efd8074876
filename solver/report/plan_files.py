"""A plan's output files: the finance workbook and one quote CSV per option, written
together (``files.replacing_together``: all of them, or none replaced)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .cells import csv_frame
from .files import replacing_together
from .quote import quote_frame
from .workbook import write_workbook

if TYPE_CHECKING:
    from ..inputs.catalog import Catalog
    from ..inputs.workload import WorkloadFile
    from ..optimize.full import FullPlan
    from ..result import PlanResult


def quote_paths(book: Path, ranks: Sequence[int]) -> list[Path]:
    """The per-option quote CSVs beside a plan's workbook: ``<stem>-option-<rank>.csv``."""
    book = Path(book)
    return [book.with_name(f"{book.stem}-option-{r}.csv") for r in ranks]


def write_plan_files(book: Path, result: PlanResult, wf: WorkloadFile, catalog: Catalog,
                     sources: dict[str, Path], full: FullPlan | None = None
                     ) -> tuple[Path, list[Path]]:
    """Write ``plan``'s workbook and one quote CSV per option (``quote.quote_frame``)
    together: all of them, or none replaced. Quote CSVs of options a previous run ranked
    and this one does not are removed, so every CSV beside the workbook is this run's.

    Returns:
        The workbook's path and the CSVs' paths, by rank.

    Raises:
        InputError: a folder or a file cannot be written.
    """
    book = Path(book)
    csvs = quote_paths(book, [o.rank for o in result.options])
    with replacing_together([book, *csvs]) as tmps:
        write_workbook(tmps[0], result, wf, catalog, sources, full=full)
        for option, tmp in zip(result.options, tmps[1:], strict=True):
            csv_frame(quote_frame(option, catalog)).to_csv(tmp, index=False)
    for stale in book.parent.glob(f"{book.stem}-option-*.csv"):
        rank = stale.stem.removeprefix(f"{book.stem}-option-")
        if rank.isdigit() and stale not in csvs:
            stale.unlink(missing_ok=True)
    return book, csvs
