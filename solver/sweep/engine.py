"""Where a sweep's scenarios run (issue 38): the contract every caller uses, whatever runs
the tasks. A Monte Carlo sweep streams its scenarios through ``run_tasks``; a grid sweep,
whose budgets wait on their group's full plan, takes ``dask_executor`` in place of its
process pool when a cluster is named.

``run_tasks(fn, tasks, ...)`` calls ``fn(task)`` for every task and hands each result to
``on_result`` as it arrives (in any order), so the caller writes it out at once and holds
nothing: the client's memory stays flat in the number of scenarios. ``fn`` must be a
module-level function and a task picklable (they may travel to other processes or
machines). A task whose ``fn`` raises is reported as a ``TaskFailure`` (not lost); the others
go on. Ctrl-C (KeyboardInterrupt) cancels the work not done and propagates once nothing is
running any more.

The engine is Dask's (``dask.distributed``), not a home-made pool: a maintained scheduler
with worker restarts, retries of the tasks a dead worker held and a dashboard.

- **Where**: ``scheduler`` (``tcp://host:8786``), else the ``DASK_SCHEDULER_ADDRESS``
  environment variable, names a running cluster; with neither, a ``LocalCluster`` of
  ``workers`` processes (one thread each: a solve is CPU-bound and holds the GIL) is started
  for the run and closed after it, bound to 127.0.0.1, its dashboard on a free port.
- **What travels**: ``fn`` by reference (its module and name, so every worker must be able
  to import ``solver``: install plan-buy on every worker; the workers are asked first, and a
  worker that cannot is an input error) and each task by value (pickled).
- **Bounded**: at most ``2 × the cluster's threads`` (at least ``MIN_IN_FLIGHT``) tasks are
  submitted at a time, in batches (one ``Client.map`` each time half the window has
  finished: one message to the scheduler for many tasks); each result is handed on and
  released as it arrives, so neither futures nor results pile up on the client.
- **Failures**: a task that raises comes back as a ``TaskFailure`` at once (it is not
  retried: a scenario that raises raises again). A worker that dies (killed, out of memory)
  is restarted by its nanny and the tasks it held are run again elsewhere by the
  scheduler (so a task may run twice: ``fn`` must have no effect but its result); a task
  that was on ``distributed.scheduler.allowed-failures`` workers when they died (3 by
  default) is reported as a ``TaskFailure`` (``KilledWorker``). A local cluster gives each
  worker one task at a time, so only the task a worker was running is blamed for its death.
- **Ctrl-C**: every submitted future is cancelled, the client closed (and the local
  cluster with its worker processes), then ``KeyboardInterrupt`` propagates. A running
  cluster's workers finish the task they hold and drop its result.
- **Quiet**: Dask's log handlers are raised to CRITICAL for the run (and a local cluster's
  workers are started silent), so nothing reaches stdout or stderr at normal verbosity.

``run_serial`` is the same contract run in this process, one task after the other, for
callers and tests that want no cluster.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from distributed import Client, Future

SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
"""The environment variable that names a running scheduler (Dask's own name for it)."""

CONNECT_TIMEOUT_S = 10.0
"""Seconds to reach a named scheduler before giving up with an input error."""

MIN_IN_FLIGHT = 64
"""Fewest tasks kept submitted at a time: batches of tiny tasks cost less per task than one
by one (2.4 against 3.1 ms a task on 2 cores), and a cluster may still be adding workers."""

OnResult = Callable[[int, Any], None]
OnProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class TaskFailure:
    """A task that raised: its index in ``tasks`` and what went wrong, in one line."""

    index: int
    error: str


def run_tasks(fn: Callable[[Any], Any], tasks: Iterable[Any], *,
              on_result: OnResult,
              on_progress: OnProgress | None = None,
              scheduler: str | None = None, workers: int | None = None) -> int:
    """Run ``fn(task)`` for every task; ``on_result(index, result_or_TaskFailure)`` gets each
    as it arrives; ``on_progress(done, total)`` after each. Returns how many tasks ran.

    Args:
        scheduler: address of a running Dask scheduler (``tcp://host:8786``); None: the
            ``DASK_SCHEDULER_ADDRESS`` environment variable, else a local cluster.
        workers: worker processes of the local cluster (default: the CPUs this process may
            use); ignored with a scheduler.

    Raises:
        InputError: ``workers`` below 1, a scheduler that cannot be reached, or a worker
            that cannot import ``fn`` (exit 2).
        KeyboardInterrupt: after the submitted tasks were cancelled and the client closed.
    """
    if workers is not None and workers < 1:
        raise InputError(f"workers: {workers} worker processes is too few. "
                         "To fix: give 1 or more, or leave it out to use every CPU.")
    items = tasks if isinstance(tasks, Sized) else list(tasks)
    total = len(items)
    if total == 0:
        return 0
    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    with _quiet_dask(), _client(address, workers) as client:
        _check_workers_import(client, fn)
        return _stream(client, fn, items, total, on_result, on_progress)


@contextlib.contextmanager
def dask_executor(address: str, fn: Callable[..., Any]) -> Iterator[tuple[Any, int]]:
    """A ``concurrent.futures`` executor on the running Dask cluster at ``address``, and the
    cluster's threads: for work whose next tasks depend on earlier results (the grid
    sweep's budgets wait on their group's full plan). Every worker must import ``fn``
    (else an input error, exit 2); tasks are not deduplicated (``pure=False``). On leaving
    the block the tasks not done are cancelled and the client closed.

    Raises:
        InputError: the scheduler cannot be reached, or a worker cannot import ``fn``.
    """
    with _quiet_dask(), _client(address, None) as client:
        _check_workers_import(client, fn)
        ex = client.get_executor(pure=False)
        try:
            yield ex, max(1, sum(client.nthreads().values()))
        finally:
            ex.shutdown(wait=False)


def run_serial(fn: Callable[[Any], Any], tasks: Iterable[Any], *,
               on_result: OnResult, on_progress: OnProgress | None = None) -> int:
    """``run_tasks``' contract run in this process, one task after the other (no cluster)."""
    items = tasks if isinstance(tasks, Sized) else list(tasks)
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


def _stream(client: Client, fn: Callable[[Any], Any], items: Iterable[Any], total: int,
            on_result: OnResult, on_progress: OnProgress | None) -> int:
    """Keep a bounded window of tasks submitted; hand each result on as it completes."""
    from distributed import as_completed

    prefix = f"{getattr(fn, '__name__', 'task')}-{uuid.uuid4().hex[:8]}"
    queue = enumerate(items)
    in_flight: dict[object, tuple[int, Future]] = {}
    completed = as_completed()

    def submit_batch(count: int) -> None:
        batch = list(itertools.islice(queue, count))
        if not batch:
            return
        # Keys of our own (unique per run, so runs can share a scheduler) name the tasks on
        # the dashboard and map a finished future back to its index. One map per batch:
        # one message to the scheduler for many tasks.
        futures = client.map(fn, [task for _, task in batch], pure=False,
                             key=[f"{prefix}-{i}" for i, _ in batch])
        for (i, _), future in zip(batch, futures, strict=True):
            in_flight[future.key] = (i, future)
        completed.update(futures)

    window = _window(client)
    try:
        submit_batch(window)
        done = 0
        for future in completed:
            i, _ = in_flight.pop(future.key)
            result = _outcome(i, future)
            future.release()
            if len(in_flight) <= window // 2:  # before on_result: the workers stay busy
                submit_batch(window - len(in_flight))
            on_result(i, result)
            done += 1
            if on_progress is not None:
                on_progress(done, total)
        return done
    except BaseException:
        # Ctrl-C, or on_result failing: nothing more of this run is wanted on the cluster.
        with contextlib.suppress(Exception):
            client.cancel([f for _, f in in_flight.values()], force=True)
        raise


def _outcome(index: int, future: Future) -> Any:
    """A finished future's result, or a ``TaskFailure`` saying why there is none."""
    if future.status == "finished":
        try:
            return future.result()
        except Exception as exc:  # noqa: BLE001 - e.g. a result this client cannot unpickle
            return TaskFailure(index, _describe(exc))
    if future.status == "error":
        return TaskFailure(index, _describe(future.exception()))
    return TaskFailure(index, f"the task was {future.status} on the cluster")


def _describe(exc: BaseException) -> str:
    """A task's error in one line: its type and message."""
    return f"{type(exc).__name__}: {exc}"


def _check_workers_import(client: Client, fn: Callable[[Any], Any]) -> None:
    """Every worker can import ``fn`` by its module and name, else an input error (exit 2).

    A worker that cannot unpickle a task's function does not fail the task: its link to the
    scheduler breaks and the task never ends. So the workers are asked first, once, with a
    probe that travels by value (it needs nothing but the standard library there).
    """
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or module == "__main__":  # pickled by value: nothing to import
        return

    def importable(module: str, name: str) -> str | None:
        import functools
        import importlib

        try:
            functools.reduce(getattr, name.split("."), importlib.import_module(module))
        except Exception as exc:  # noqa: BLE001 - the reason travels back as text
            return f"{type(exc).__name__}: {exc}"
        return None

    found = client.run(importable, module, name)
    missing = {w: why for w, why in sorted(found.items()) if why is not None}
    if missing:
        raise InputError(
            f"{len(missing)} of {len(found)} workers of the cluster cannot import "
            f"{module}.{name}, the function the tasks run. To fix: install plan-buy on every "
            "worker (pip install plan-buy, the same version as here) and restart them.",
            [f"{worker}: {why}" for worker, why in missing.items()],
        )


def _window(client: Client) -> int:
    """How many tasks to keep submitted: two per thread of the cluster, at least the floor."""
    return max(MIN_IN_FLIGHT, 2 * sum(client.nthreads().values()))


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform says), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def _client(address: str | None, workers: int | None) -> Iterator[Client]:
    """A client of the named scheduler, or of a local cluster started for this run; both
    closed when the block ends, however it ends."""
    import dask
    from distributed import Client, LocalCluster

    if address is not None:
        with contextlib.closing(_connect(address)) as client:
            yield client
        return
    # One task on a worker at a time (Dask sends 1.1 x threads, rounded up: two): a worker
    # that dies then takes only the task it was running down with it, not one queued behind.
    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
        cluster = LocalCluster(n_workers=workers or usable_cpus(), threads_per_worker=1,
                               processes=True, host="127.0.0.1", dashboard_address=":0",
                               silence_logs=logging.CRITICAL)
    with cluster, Client(cluster) as client:
        from .dask_workers import LocalWorkerSignals

        client.register_plugin(LocalWorkerSignals(), name="plan-buy-worker-signals")
        yield client


def _connect(address: str) -> Client:
    """A client of the scheduler at ``address``; an input error (exit 2) if it is not there."""
    from distributed import Client

    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, ValueError, TypeError) as exc:
        raise InputError(
            f"scheduler {address!r} (--scheduler or {SCHEDULER_ENV}): cannot connect "
            f"({type(exc).__name__}: {exc}). To fix: start one with `dask scheduler` and "
            "workers with `dask worker tcp://HOST:8786`, give its address as tcp://HOST:PORT, "
            f"or leave out --scheduler and unset {SCHEDULER_ENV} to run on this machine."
        ) from exc


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Raise Dask's stream handlers to CRITICAL for the block: stdout stays clean for
    ``--json`` and stderr for the progress bar (a dead worker is reported per task)."""
    import distributed  # noqa: F401 - its import installs the handlers to quieten

    changed = []
    for name in ("distributed", "dask"):
        for handler in logging.getLogger(name).handlers:
            if isinstance(handler, logging.StreamHandler) and handler.level < logging.CRITICAL:
                changed.append((handler, handler.level))
                handler.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for handler, level in changed:
            handler.setLevel(level)
