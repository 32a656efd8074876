"""A Monte Carlo sweep, as one pipeline: plan once → estimate once → draw scenarios →
evaluate each (``evaluate.evaluate_scenario``, through ``sweep.engine.run_tasks``) → summarise.

Each scenario's row is written to a temporary rows file the moment it arrives (one JSON
object a line), so nothing but numbers is held however many scenarios run; the statistics
are read back from it at the end. The rows file and the workbook are renamed into place
only once both are complete: Ctrl-C, or any error, leaves neither (nor any temporary file).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlanBuyError
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..optimize.pipeline import plan
from ..optimize.runs.plan import plan_over_time
from ..optimize.solve import DEFAULT_GAP
from ..report.files import replacing_together
from ..result import PlanResult
from ..sweep.engine import TaskFailure, run_tasks
from .draws import draw
from .evaluate import Context, Task, evaluate_scenario
from .run import UncertaintyRun
from .scenario import Cells
from .spec import Uncertainty
from .stats import summarise

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Settings:
    """How the scenarios run."""

    solver: str | None = None
    time_limit: float | None = None
    """Seconds for each plan: the base plan and each scenario's re-solve."""
    gap: float = DEFAULT_GAP
    resolve: bool = True
    """Re-solve the plan in each scenario (rank 1)."""
    scheduler: str | None = None
    workers: int | None = None


def base_plan(wf: WorkloadFile, catalog: Catalog, unc: Uncertainty,
              settings: Settings) -> PlanResult:
    """The file's own plan and its alternatives, as ``plan-buy plan`` finds them.

    Raises:
        PlanBuyError: no plan (infeasible, the solver failed).
    """
    planner = plan if wf.policy.horizon is None else plan_over_time
    return planner(wf, catalog, top=unc.options, solver=settings.solver,
                   time_limit=settings.time_limit, gap=settings.gap, with_baseline=False)


def run_uncertainty(wf: WorkloadFile, catalog: Catalog, unc: Uncertainty, out: Path,
                    stem: str, settings: Settings = Settings(),
                    on_progress: ProgressFn | None = None,
                    workbook: bool = True) -> UncertaintyRun:
    """Plan, draw ``unc.samples`` scenarios, evaluate them, write ``<stem>.jsonl`` (one row
    a scenario) and, with ``workbook``, ``<stem>.xlsx`` in ``out``.

    Raises:
        PlanBuyError: the base plan failed, or a file could not be written.
        KeyboardInterrupt: Ctrl-C; nothing is left behind.
    """
    base = base_plan(wf, catalog, unc, settings)
    if not base.options:
        raise PlanBuyError("the file's own plan has no option to evaluate")
    ctx = Context(wf=wf, catalog=catalog, options=base.options, cells=Cells.of(wf, catalog),
                  unc=unc, solver=settings.solver, time_limit=settings.time_limit,
                  gap=settings.gap, resolve=settings.resolve)
    paths = [out / f"{stem}.jsonl"] + ([out / f"{stem}.xlsx"] if workbook else [])
    with replacing_together(paths) as tmps:
        with tmps[0].open("w", encoding="utf-8") as fh:
            def write(index: int, result: object) -> None:
                row = ({"scenario": index, "failed": result.error}
                       if isinstance(result, TaskFailure) else result)
                fh.write(json.dumps(row, separators=(",", ":")) + "\n")
                fh.flush()

            run_tasks(evaluate_scenario, (Task(ctx, draw(unc, wf, i)) for i in range(unc.samples)),
                      on_result=write, on_progress=on_progress,
                      scheduler=settings.scheduler, workers=settings.workers)
        summary = summarise(tmps[0])
        run = UncertaintyRun(wf, unc, base, summary, catalog.currency, tuple(paths))
        if workbook:
            from .workbook import write_uncertainty_book

            write_uncertainty_book(tmps[1], run)
    return run
