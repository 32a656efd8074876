"""Where the scenarios of an uncertainty sweep run (issue 38): the contract every caller
uses, whatever runs the tasks.

``run_tasks(fn, tasks, ...)`` calls ``fn(task)`` for every task and hands each result to
``on_result`` as it arrives (in any order), so the caller writes it out at once and holds
nothing: the client's memory stays flat in the number of scenarios. ``fn`` must be a
module-level function and a task picklable (they may travel to other processes or
machines). A task whose ``fn`` raises is reported as a ``TaskFailure`` (not lost); the others
go on. Ctrl-C (KeyboardInterrupt) cancels the work not done and propagates once nothing is
running any more.

This first implementation runs every task in this process, one after the other; the Dask
engine (a ``distributed.LocalCluster`` by default, or a running cluster named by
``scheduler`` or ``DASK_SCHEDULER_ADDRESS``) replaces it behind the same signature.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TaskFailure:
    """A task that raised: its index in ``tasks`` and what went wrong, in one line."""

    index: int
    error: str


def run_tasks(fn: Callable[[Any], Any], tasks: Iterable[Any], *,
              on_result: Callable[[int, Any], None],
              on_progress: Callable[[int, int], None] | None = None,
              scheduler: str | None = None, workers: int | None = None) -> int:
    """Run ``fn(task)`` for every task; ``on_result(index, result_or_TaskFailure)`` gets each
    as it arrives; ``on_progress(done, total)`` after each. Returns how many tasks ran.

    Args:
        scheduler: address of a running Dask scheduler (``tcp://host:8786``); None: the
            ``DASK_SCHEDULER_ADDRESS`` environment variable, else a local cluster.
        workers: worker processes of the local cluster (default: the CPUs this process may
            use); ignored with a scheduler.
    """
    items = list(tasks)
    done = 0
    for i, task in enumerate(items):
        try:
            result: Any = fn(task)
        except Exception as exc:  # noqa: BLE001 - one failed scenario must not sink the rest
            result = TaskFailure(i, f"{type(exc).__name__}: {exc}")
        on_result(i, result)
        done += 1
        if on_progress is not None:
            on_progress(done, len(items))
    return done
