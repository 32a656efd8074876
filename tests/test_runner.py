"""The Dask engine behind ``run_tasks``, on a real ``distributed.LocalCluster`` of two worker
processes whose address is passed as ``scheduler=``: the path a user takes with
``--scheduler tcp://HOST:8786``. The tasks are tiny functions of this module (the cluster's
workers are spawned from this process, so they import it as this process does)."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.errors import InputError
from solver.sweep import engine as runner
from solver.sweep.engine import TaskFailure, run_serial, run_tasks

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
psutil = pytest.importorskip("psutil")  # installed with distributed


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes, silent, on this machine only, one task each at
    a time (as run_tasks' own local cluster)."""
    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
        local = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=":0", silence_logs=logging.CRITICAL)
    with local:
        yield local


@pytest.fixture
def observer(cluster):
    """A client of the test cluster of its own, to look at its workers."""
    with distributed.Client(cluster.scheduler_address) as client:
        yield client


def square_slowly(x: int) -> tuple[int, int]:
    """x², after a pause long enough that both workers get tasks; and the worker's pid."""
    time.sleep(0.05)
    return x * x, os.getpid()


def fail_on_three(x: int) -> int:
    if x == 3:
        raise ValueError("no plan for scenario three")
    return x


def die_once(task: tuple[int, str]) -> int:
    """Task 2 kills its worker process the first time it runs (the marker file says so)."""
    x, marker = task
    if x == 2 and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)
    time.sleep(0.05)
    return x


def always_die(x: int) -> int:
    if x == 1:
        os._exit(1)
    return x


def sleep_a_while(x: int) -> int:
    time.sleep(0.3)
    return x


def collect(fn, tasks, **kwargs) -> tuple[dict, list]:
    """Run ``fn`` over ``tasks``; the results by index and every progress call."""
    got: dict = {}
    progress: list = []

    def keep(i, result):
        assert i not in got, "each task is reported once"
        got[i] = result

    ran = run_tasks(fn, tasks, on_result=keep,
                    on_progress=lambda done, total: progress.append((done, total)), **kwargs)
    assert ran == len(got)
    return got, progress


def test_every_result_arrives_on_both_workers(cluster):
    got, progress = collect(square_slowly, range(24), scheduler=cluster.scheduler_address)
    assert {i: r[0] for i, r in got.items()} == {i: i * i for i in range(24)}
    assert len({pid for _, pid in got.values()}) == 2  # the work went to both workers
    assert progress == [(n, 24) for n in range(1, 25)]


def test_tasks_go_in_bounded_batches(cluster, monkeypatch):
    monkeypatch.setattr(runner, "MIN_IN_FLIGHT", 4)  # the window: max(4, 2 x 2 threads)
    batches: list[int] = []
    real_map = distributed.Client.map

    def spy(self, fn, tasks, **kwargs):
        batches.append(len(tasks))
        return real_map(self, fn, tasks, **kwargs)

    monkeypatch.setattr(distributed.Client, "map", spy)
    most_held = []
    got: dict = {}

    def keep(i, result):
        most_held.append(sum(batches) - len(got) - 1)  # submitted, not this one, not done
        got[i] = result

    run_tasks(fail_on_three, range(30), on_result=keep, scheduler=cluster.scheduler_address)
    assert len(got) == 30 and sum(batches) == 30
    assert batches[0] == 4 and max(batches) <= 4 and max(most_held) <= 4


def test_a_raising_task_is_a_failure_and_the_others_complete(cluster):
    got, _ = collect(fail_on_three, range(8), scheduler=cluster.scheduler_address)
    assert got[3] == TaskFailure(3, "ValueError: no plan for scenario three")
    assert {i: r for i, r in got.items() if i != 3} == {i: i for i in range(8) if i != 3}


def test_a_worker_killed_mid_run_is_retried_and_the_run_completes(cluster, observer, tmp_path,
                                                                   capfd):
    before = set(observer.run(os.getpid).values())
    marker = str(tmp_path / "died-once")
    got, _ = collect(die_once, [(i, marker) for i in range(12)],
                     scheduler=cluster.scheduler_address)
    assert Path(marker).exists()  # a worker did die running task 2 ...
    assert got == {i: i for i in range(12)}  # ... and task 2 ran again elsewhere
    observer.wait_for_workers(2, timeout=30)  # the nanny restarted the worker
    assert set(observer.run(os.getpid).values()) != before
    assert capfd.readouterr() == ("", "")  # the client and the nannies said nothing


def test_a_task_that_keeps_killing_workers_is_a_failure_after_the_allowed_deaths(
        cluster, observer, monkeypatch):
    monkeypatch.setattr(cluster.scheduler, "allowed_failures", 1)  # 3 by default: 2 here
    got, _ = collect(always_die, range(4), scheduler=cluster.scheduler_address)
    assert {i: r for i, r in got.items() if i != 1} == {0: 0, 2: 2, 3: 3}
    assert isinstance(got[1], TaskFailure) and got[1].error.startswith("KilledWorker")
    observer.wait_for_workers(2, timeout=30)


def test_ctrl_c_cancels_the_run_and_leaves_the_cluster_usable(cluster):
    seen = []

    def interrupt_after_first(i, result):
        seen.append(i)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tasks(sleep_a_while, range(40), on_result=interrupt_after_first,
                  scheduler=cluster.scheduler_address)
    assert len(seen) == 1
    # Cancelled, not run to the end: the scheduler forgets the run's tasks at once.
    deadline = time.monotonic() + 10
    while cluster.scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not cluster.scheduler.tasks
    got, _ = collect(fail_on_three, range(4), scheduler=cluster.scheduler_address)
    assert len(got) == 4


def test_the_environment_variable_names_the_scheduler(cluster, observer, monkeypatch):
    monkeypatch.setenv(runner.SCHEDULER_ENV, cluster.scheduler_address)
    got, _ = collect(square_slowly, range(6))
    assert {pid for _, pid in got.values()} <= set(observer.run(os.getpid).values())


def test_a_worker_that_cannot_import_the_function_is_an_input_error(cluster, tmp_path,
                                                                    monkeypatch):
    # A module only this client can import: as for a worker machine without plan-buy.
    (tmp_path / "only_here.py").write_text("def task(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import only_here

    with pytest.raises(InputError) as err:
        run_tasks(only_here.task, range(2), on_result=lambda i, r: None,
                  scheduler=cluster.scheduler_address)
    text = str(err.value)
    assert err.value.exit_code == 2
    assert "2 of 2 workers of the cluster cannot import only_here.task" in text
    assert "ModuleNotFoundError: No module named 'only_here'" in text
    assert "To fix: install plan-buy on every worker" in text


def test_a_local_cluster_by_default_and_nothing_on_the_terminal(monkeypatch, capfd):
    monkeypatch.delenv(runner.SCHEDULER_ENV, raising=False)
    got, progress = collect(fail_on_three, range(6), workers=2)
    assert got[3] == TaskFailure(3, "ValueError: no plan for scenario three")
    assert len(got) == 6 and progress[-1] == (6, 6)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def _worker_processes() -> set[int]:
    """This process's children that are Dask worker processes (spawned by a nanny)."""
    return {p.pid for p in psutil.Process().children(recursive=True)
            if "spawn_main" in " ".join(p.cmdline())}


def test_ctrl_c_closes_the_local_cluster_and_its_workers(monkeypatch):
    monkeypatch.delenv(runner.SCHEDULER_ENV, raising=False)
    before = _worker_processes()

    def interrupt(i, result):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tasks(sleep_a_while, range(20), on_result=interrupt, workers=2)
    assert _worker_processes() <= before


def test_an_unreachable_scheduler_is_an_input_error(monkeypatch):
    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", 1.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(InputError) as err:
        run_tasks(fail_on_three, range(2), on_result=lambda i, r: None, scheduler=address)
    assert err.value.exit_code == 2
    assert address in str(err.value) and "To fix: start one with `dask scheduler`" in str(
        err.value)


def test_too_few_workers_is_an_input_error():
    with pytest.raises(InputError, match="0 worker processes is too few. To fix"):
        run_tasks(fail_on_three, range(2), on_result=lambda i, r: None, workers=0)


def test_no_tasks_start_no_cluster():
    assert run_tasks(fail_on_three, [], on_result=lambda i, r: None) == 0


def test_importing_the_runner_loads_no_dask():
    """distributed is imported when a run starts: `plan-buy plan` does not pay for it."""
    code = ("import sys, solver.sweep.engine; "
            "print(sorted(k for k in ('distributed', 'dask') if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_run_serial_keeps_the_contract():
    got: dict = {}
    assert run_serial(fail_on_three, iter(range(5)), on_result=got.__setitem__) == 5
    assert got[3] == TaskFailure(3, "ValueError: no plan for scenario three")
    assert got[4] == 4
