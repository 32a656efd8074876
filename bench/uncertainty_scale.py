"""Scaling the uncertainty sweep's task runner (issue 38): Dask against a process pool.

    .venv/bin/python bench/uncertainty_scale.py [--repeats 3] [--q3-repeats 1] [--no-q3]
    .venv/bin/python bench/uncertainty_scale.py --one dask --task spin --n 100   # one run

Prints, as markdown (medians of the repeats; a ratio is taken per repeat, then its median):

1. **Per-task overhead at 100 tasks** on 2 workers, each engine started before the clock
   (a ``LocalCluster`` reached through ``run_tasks(scheduler=...)``, the product's path; a
   ``ProcessPoolExecutor`` as ``plan-buy sweep`` runs today, every task submitted and read
   back with ``as_completed``): a tiny task (returns its argument), a CPU-bound spin of
   ``--spin`` seconds, and q3's rank-1 solve (``solve_one``, what a sweep scenario runs,
   the file and catalog travelling with each task). Overhead per task = (wall − the tasks'
   own serial time ÷ workers) × workers ÷ tasks. Then each engine's start-up: ``run_tasks``
   on its own local cluster against a pool, one tiny task each, started and closed.
2. **Throughput with 1, 2 and 4 local workers**: 40 spins of ``--spin / 2`` seconds; tasks
   per second and the ratio to one worker (the machine's cores bound it).
3. **The client's peak memory** (tracemalloc: every Python allocation of this process,
   the local cluster's scheduler included) at 100 and 1,000 tiny tasks through
   ``run_tasks``, against ``client.map`` of every task at once (futures held to the end).

``--one ENGINE --task TASK --n N`` runs one timed run in this process (for ``farm-bench``,
which times whole processes and pairs A/B: ``farm-bench -n 5 -- python bench/...
--one dask ... --vs '... --one pool ...'``). Timings never go into tests.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import gc
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.sweep.engine import run_tasks

WORKERS = 2


def tiny(x: Any) -> Any:
    """The smallest task: its cost is the engine's alone."""
    return x


def spin(seconds: float) -> float:
    """``seconds`` of CPU in this process (a pure-Python loop, as a solve holds the GIL)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


def q3_scenario(task: tuple[Any, Any, float | None]) -> tuple[str, float]:
    """One sweep scenario: q3 rank 1, no R20 baseline; its outcome and seconds, not the plan."""
    from solver.optimize.solve import DEFAULT_GAP
    from solver.sweep.run import solve_one

    wf, catalog, time_limit = task
    solved = solve_one(wf, catalog, None, time_limit, DEFAULT_GAP)
    return ("plan" if solved.result is not None else "failed"), solved.seconds


def _fns() -> dict[str, Callable[[Any], Any]]:
    """The tasks by name, imported from ``bench.uncertainty_scale`` (not ``__main__``), so
    they travel by reference as a product function does."""
    from bench import uncertainty_scale as mod  # noqa: PLW0406 - under its package's name

    return {"tiny": mod.tiny, "spin": mod.spin, "q3": mod.q3_scenario}


def _tasks(kind: str, n: int, spin_s: float) -> list[Any]:
    if kind == "tiny":
        return list(range(n))
    if kind == "spin":
        return [spin_s] * n
    from solver.inputs.loading import load_catalog, load_workloads

    wf = load_workloads(ROOT / "workloads" / "q3.yaml")
    return [(wf, load_catalog(ROOT / "catalogs" / "default.yaml"), 10.0)] * n


def pool_run(fn: Callable[[Any], Any], tasks: Sequence[Any], pool: ProcessPoolExecutor) -> int:
    """Today's sweep engine: every task submitted, each result read as it completes."""
    done = 0
    for future in as_completed([pool.submit(fn, t) for t in tasks]):
        future.result()
        done += 1
    return done


def dask_run(fn: Callable[[Any], Any], tasks: Sequence[Any], address: str) -> int:
    return run_tasks(fn, tasks, on_result=lambda i, r: None, scheduler=address)


def _warm_pool(pool: ProcessPoolExecutor, kind: str) -> None:
    """Start every worker and import what the task needs there, before the clock."""
    list(pool.map(_warm, [kind] * WORKERS * 2))


def _warm(kind: str) -> None:
    if kind == "q3":
        import solver.sweep.run  # noqa: F401 - loads the solver stack, as a first task would
    time.sleep(0.2)  # long enough that each worker takes one


def overhead(kind: str, n: int, repeats: int, spin_s: float) -> dict[str, Any]:
    """Wall of ``n`` tasks on each warm engine, paired per repeat (Dask, then the pool)."""
    from distributed import Client, LocalCluster

    fn, tasks = _fns()[kind], _tasks(kind, n, spin_s)
    t = time.perf_counter()
    fn(tasks[0])
    fn(tasks[0])  # the second call: imports and caches warm, as on a warm worker
    own = time.perf_counter() - t if kind == "tiny" else _serial_time(fn, tasks[0])
    walls: dict[str, list[float]] = {"dask": [], "pool": []}
    # The pool forks its workers (as the sweep's does) before the cluster's threads start.
    with ProcessPoolExecutor(WORKERS) as pool:
        _warm_pool(pool, kind)
        with LocalCluster(n_workers=WORKERS, threads_per_worker=1, host="127.0.0.1",
                          dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster:
            with Client(cluster) as client:
                client.run(_warm, kind)
            for _ in range(repeats):
                t = time.perf_counter()
                dask_run(fn, tasks, cluster.scheduler_address)
                walls["dask"].append(time.perf_counter() - t)
                t = time.perf_counter()
                pool_run(fn, tasks, pool)
                walls["pool"].append(time.perf_counter() - t)
    ideal = own * n / WORKERS
    return {
        "kind": kind, "n": n, "own_s": own,
        **{f"{e}_s": statistics.median(w) for e, w in walls.items()},
        **{f"{e}_per_task_ms": 1000 * (statistics.median(w) - ideal) * WORKERS / n
           for e, w in walls.items()},
        "ratios": [d / p for d, p in zip(walls["dask"], walls["pool"], strict=True)],
        "runs": repeats,
    }


def _serial_time(fn: Callable[[Any], Any], task: Any) -> float:
    times = []
    for _ in range(2):
        t = time.perf_counter()
        fn(task)
        times.append(time.perf_counter() - t)
    return min(times)


def startup(repeats: int) -> dict[str, float]:
    """One tiny task on an engine started and closed for it: the fixed cost of a run."""
    dask, pool = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        run_tasks(_fns()["tiny"], [1], on_result=lambda i, r: None, workers=WORKERS)
        dask.append(time.perf_counter() - t)
        t = time.perf_counter()
        with ProcessPoolExecutor(WORKERS) as p:
            pool_run(tiny, [1], p)
        pool.append(time.perf_counter() - t)
    return {"dask_s": statistics.median(dask), "pool_s": statistics.median(pool)}


def throughput(spin_s: float, n: int, repeats: int) -> list[tuple[int, float, float]]:
    """Spins per second with 1, 2 and 4 warm local workers, Dask and (the control: what the
    machine's free cores allow) the process pool, paired per repeat; medians."""
    from distributed import LocalCluster

    rates = []
    for workers in (1, 2, 4):
        walls: dict[str, list[float]] = {"dask": [], "pool": []}
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(_warm, ["spin"] * workers * 2))
            with LocalCluster(n_workers=workers, threads_per_worker=1, host="127.0.0.1",
                              dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster:
                dask_run(_fns()["tiny"], list(range(workers * 4)), cluster.scheduler_address)
                for _ in range(repeats):
                    t = time.perf_counter()
                    dask_run(_fns()["spin"], [spin_s] * n, cluster.scheduler_address)
                    walls["dask"].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    pool_run(spin, [spin_s] * n, pool)
                    walls["pool"].append(time.perf_counter() - t)
        rates.append((workers, n / statistics.median(walls["dask"]),
                      n / statistics.median(walls["pool"])))
    return rates


@contextlib.contextmanager
def user_cluster(workers: int) -> Iterator[str]:
    """A cluster started as a user starts one (``dask scheduler``, ``dask worker``), in
    processes of its own, so this process is the client alone; its address."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the workers import bench.uncertainty_scale
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "scheduler.json"
        quiet = {"env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        procs = [subprocess.Popen([bin_dir / "dask", "scheduler", "--host", "127.0.0.1",
                                   "--port", "0", "--dashboard-address", ":0",
                                   "--scheduler-file", file], **quiet)]
        try:
            while not file.exists():
                time.sleep(0.1)
            procs.append(subprocess.Popen([bin_dir / "dask", "worker", "--scheduler-file", file,
                                           "--nworkers", str(workers), "--nthreads", "1"],
                                          **quiet))
            address = json.loads(file.read_text())["address"]
            from distributed import Client

            with Client(address) as client:
                client.wait_for_workers(workers, timeout=60)
            yield address
        finally:
            for proc in reversed(procs):
                proc.terminate()
                proc.wait()


def peak_memory(n: int, address: str | None) -> tuple[float, float]:
    """MiB traced in this process while ``n`` tiny tasks run through ``run_tasks`` (on the
    cluster at ``address``, else on a local cluster started for them): the peak, and what
    is still held after the run and a garbage collection."""
    tracemalloc.start()
    try:
        run_tasks(_fns()["tiny"], range(n), on_result=lambda i, r: None,
                  scheduler=address, workers=WORKERS)
        peak = tracemalloc.get_traced_memory()[1]
        gc.collect()
        return peak / 2**20, tracemalloc.get_traced_memory()[0] / 2**20
    finally:
        tracemalloc.stop()


def report(args: argparse.Namespace) -> None:
    print(f"Uncertainty runner scale, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, "
          f"{os.cpu_count()} cores ({platform.machine()}), Python {platform.python_version()}, "
          f"{WORKERS} workers unless said\n")
    print("| task (100 of them) | own time | Dask wall | pool wall | Dask/pool (each pair) | "
          "overhead/task Dask | pool |")
    print("|---|---|---|---|---|---|---|")
    kinds = [("tiny", args.repeats), ("spin", args.repeats)]
    if not args.no_q3:
        kinds.append(("q3", args.q3_repeats))
    for kind, repeats in kinds:
        o = overhead(kind, 100, repeats, args.spin)
        print(f"| {kind} ({o['runs']} runs) | {o['own_s'] * 1000:.2f} ms | {o['dask_s']:.2f} s "
              f"| {o['pool_s']:.2f} s | {statistics.median(o['ratios']):.3f} "
              f"({', '.join(f'{r:.3f}' for r in o['ratios'])}) | {o['dask_per_task_ms']:.1f} ms "
              f"| {o['pool_per_task_ms']:.1f} ms |", flush=True)
    s = startup(args.repeats)
    print(f"\nStart-up, one tiny task, engine started and closed: Dask {s['dask_s']:.2f} s, "
          f"pool {s['pool_s']:.2f} s\n")
    rates = throughput(args.spin / 2, 40, args.repeats)
    print("| local workers | Dask spins/s | vs 1 worker | pool spins/s | vs 1 worker |")
    print("|---|---|---|---|---|")
    for workers, rate, pool in rates:
        print(f"| {workers} | {rate:.2f} | {rate / rates[0][1]:.2f} | {pool:.2f} "
              f"| {pool / rates[0][2]:.2f} |", flush=True)
    memory(args.memory_n)


def memory(sizes: Sequence[int]) -> None:
    print("\n| tiny tasks | client alone: peak | held after | with its local cluster: peak "
          "| held after |\n|---|---|---|---|---|")
    with user_cluster(WORKERS) as address:
        run_tasks(_fns()["tiny"], range(50), on_result=lambda i, r: None, scheduler=address)
        alone = [peak_memory(n, address) for n in sizes]
    for n, (peak, held) in zip(sizes, alone):
        local = peak_memory(n, None) if n <= 1000 else None
        cells = f"{local[0]:.2f} MiB | {local[1]:.2f} MiB" if local else "- | -"
        print(f"| {n:,} | {peak:.2f} MiB | {held:.2f} MiB | {cells} |", flush=True)


def one(args: argparse.Namespace) -> None:
    """One timed run of ``--n`` tasks on a fresh engine, start-up included (for farm-bench)."""
    fn, tasks = _fns()[args.task], _tasks(args.task, args.n, args.spin)
    if args.one == "dask":
        run_tasks(fn, tasks, on_result=lambda i, r: None, workers=WORKERS)
    else:
        with ProcessPoolExecutor(WORKERS) as pool:
            pool_run(fn, tasks, pool)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--q3-repeats", type=int, default=1)
    ap.add_argument("--no-q3", action="store_true")
    ap.add_argument("--spin", type=float, default=0.5, help="seconds of CPU per spin task")
    ap.add_argument("--memory-n", type=lambda v: [int(x) for x in v.split(",")],
                    default=[100, 1000, 5000], help="task counts for the memory table")
    ap.add_argument("--one", choices=("dask", "pool"))
    ap.add_argument("--task", choices=("tiny", "spin", "q3"), default="tiny")
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args()
    import dask

    # As run_tasks' own local cluster: one task on a worker at a time.
    dask.config.set({"distributed.scheduler.worker-saturation": 1.0})
    if args.one:
        one(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
