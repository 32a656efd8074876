"""Sweep speed: a 24-scenario sweep of workloads/q3.yaml against 24 x one plan's time.

    .venv/bin/python bench/sweep.py [--repeats 3] [--jobs N]

Target (issue: budget and scenario sweeps): the sweep's wall time is at most
24 x (one plan's time) / (cores used), measured on the same machine in the same run.
Two readings of "one plan" are reported: the plain plan (``plan(top=3)`` with the R20
baseline, what ``plan-buy q3.yaml`` solves) and the call each scenario makes
(``plan(top=1, with_baseline=False)``), the stricter one.
Prints a markdown table (medians of the repeats); timings never go into tests.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize.pipeline import plan
from solver.sweep.run import default_jobs, run_sweep
from solver.sweep.scenarios import build_sweep

BUDGETS = "200000:900000:8"
GROWTHS = "1,1.25,1.5"  # 8 budgets x 3 growths = 24 scenarios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()
    wf = load_workloads(ROOT / "workloads" / "q3.yaml")
    cat = load_catalog(ROOT / "catalogs" / "default.yaml")
    sweep = build_sweep(wf, cat, budget=BUDGETS, growth=GROWTHS)
    n = len(sweep.scenarios)
    jobs = args.jobs or default_jobs()

    plains, singles, sweeps, solves = [], [], [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        plan(wf, cat)
        plains.append(time.perf_counter() - t)
        t = time.perf_counter()
        plan(wf, cat, top=1, with_baseline=False)
        singles.append(time.perf_counter() - t)
        t = time.perf_counter()
        run = run_sweep(sweep, jobs=jobs)
        sweeps.append(time.perf_counter() - t)
        solves.append(run.solves)
    wall = statistics.median(sweeps)
    print(f"Sweep benchmark, {dt.date.today()}, {os.cpu_count()} cores ({platform.machine()}), "
          f"{args.repeats} repeats (medians); {n} scenarios on {jobs} jobs, "
          f"{statistics.median(solves):.0f} solves (budgets at or above a knee reuse it)\n")
    print("| one plan = | one plan (s) | 24 x one plan (s) | sweep wall (s) | "
          "target: wall <= 24 x plan / jobs | ratio wall / (24 x plan) |")
    print("|---|---:|---:|---:|---|---:|")
    for label, times in (("plain plan (top 3 + R20 baseline)", plains),
                         ("scenario call (top 1, no baseline)", singles)):
        one = statistics.median(times)
        limit = n * one / jobs
        verdict = "holds" if wall <= limit else "MISSED"
        print(f"| {label} | {one:.2f} | {n * one:.2f} | {wall:.2f} | "
              f"{verdict} ({wall:.2f} <= {limit:.2f}) | {wall / (n * one):.3f} |")


if __name__ == "__main__":
    main()
