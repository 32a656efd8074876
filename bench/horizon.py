"""Plans over time at scale (issue 36): a seeded mix with finite and repeating runs over a
3-year horizon, and how the run program grows with the runs and the time grid.

    python bench/horizon.py                  # the 50-workload mix, seeds 1 and 7
    python bench/horizon.py --scaling        # runs 10 / 100 / 1,000 and step_days
    python bench/horizon.py --seeds 1 2 3 --workloads 50

Each line prints what was built (runs, periods, configurations, ways), the seconds to build
the ways, to solve the run program and end to end, the gap of option 1 to its proven bound
and the peak memory of the process. Figures go to bench/results.md, never into tests.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.generate import DEFAULT_CATALOG, ROOT, generate_data
from solver.horizon.runs import runs_of
from solver.inputs.catalog import Catalog
from solver.inputs.loading import load_catalog
from solver.inputs.workload import WorkloadFile
from solver.optimize.runs.plan import plan_over_time
from solver.optimize.runs.program import Room
from solver.optimize.runs.solve import solve_runs
from solver.optimize.runs.ways import run_inputs

REPEATS = ("weekly", "monthly", {"every_days": 14}, None)
"""How a finite job of the mix repeats (None: a one-off run)."""


def horizon_mix(n: int, seed: int, months: int = 36, step_days: float | None = None
                ) -> dict[str, Any]:
    """The seeded ``n``-workload mix of bench/generate.py with its throughput targets, over
    ``months`` from 2027-01-04: every training job with a target becomes a run (one-off,
    weekly, fortnightly or monthly, starting in the first 60 days), so about half the GPU
    workloads are finite; the rest run all the time."""
    data = generate_data(n, seed, targets=True)
    rng = random.Random(f"plan-buy-horizon/{n}/{seed}")
    horizon: dict[str, Any] = {"start": "2027-01-04", "months": months}
    if step_days:
        horizon["step_days"] = step_days
    data["policy"]["horizon"] = horizon
    for w in data["workloads"]:
        if w.get("tokens") is None:
            continue
        repeat = rng.choice(REPEATS)
        w["start"] = f"2027-{1 + rng.randrange(2):02d}-{1 + rng.randrange(28):02d}"
        if repeat is not None:
            w["repeat"] = repeat
            if repeat == "weekly":
                w["deadline_days"] = min(w["deadline_days"], 7)
    return data


def measure(data: dict[str, Any], catalog: Catalog, gap: float, limit: float) -> dict:
    """Build and solve the run program alone, then plan end to end; the figures."""
    wf = WorkloadFile.model_validate(data, context={"base_dir": ROOT})
    runs = runs_of(wf)
    assert runs is not None
    t0 = time.perf_counter()
    inputs = run_inputs(wf, catalog, runs)
    t1 = time.perf_counter()
    sol = solve_runs(inputs, catalog, runs.frame.capex_share, None, Room(), "highs", limit, gap)
    t2 = time.perf_counter()
    result = plan_over_time(wf, catalog, top=1, gap=gap, time_limit=limit, with_baseline=False)
    t3 = time.perf_counter()
    best = result.options[0]
    bound = sol.bound if sol else 0.0
    cost = sol.objective(runs.frame.capex_share, 0.0) if sol else 0.0
    return {
        "runs": len(runs.runs), "periods": len(inputs.cuts) - 1, "configs": len(inputs.configs),
        "ways": sum(len(v) for v in inputs.ways.values()),
        "vars_rows": sol.size if sol else (0, 0),
        "build_s": t1 - t0, "solve_s": t2 - t1, "plan_s": t3 - t2,
        "run_gap": (cost - bound) / cost if cost else 0.0,
        "status": str(result.status), "horizon_cost": best.time.horizon_cost if best.time else 0,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def line(label: str, f: dict) -> str:
    v, r = f["vars_rows"]
    return (f"{label:<28} runs {f['runs']:>5}  periods {f['periods']:>5}  configs "
            f"{f['configs']:>3}  ways {f['ways']:>7}  vars/rows {v}/{r}  build "
            f"{f['build_s']:.2f} s  solve {f['solve_s']:.2f} s  plan {f['plan_s']:.2f} s  "
            f"run gap {f['run_gap']:.3%}  {f['status']}  peak {f['peak_mib']:.0f} MiB")


def scaling(catalog: Catalog, gap: float, limit: float) -> None:
    """Runs 10, 100, 1,000 (weekly fine-tunes over a growing horizon), then step_days."""
    base = {"kind": "lora", "model": "llama-2-13b", "lora_rank": 16, "seq_len": 4096,
            "global_batch": 64, "tokens": 2.0e8, "deadline_days": 7}
    for runs, jobs, months in ((10, 1, 3), (100, 2, 12), (1000, 7, 36)):
        data = {"name": f"scale-{runs}", "policy": {"horizon": {"start": "2027-01-04",
                                                                "months": months}},
                "workloads": [{**base, "name": f"ft{i}", "repeat": "weekly",
                               "start": f"2027-01-{4 + i:02d}"} for i in range(jobs)]}
        if runs == 10:
            data["workloads"][0]["repeat"] = {"every": "weekly", "until": "2027-03-08"}
        print(line(f"~{runs} runs", measure(data, catalog, gap, limit)), flush=True)
    for step in (None, 7.0, 1.0):
        data = horizon_mix(50, 1, step_days=step)
        print(line(f"50 workloads, step {step or 'events'}", measure(data, catalog, gap, limit)),
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", type=int, default=50)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 7])
    ap.add_argument("--gap", type=float, default=0.01)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--scaling", action="store_true")
    args = ap.parse_args()
    catalog = load_catalog(DEFAULT_CATALOG)
    if args.scaling:
        scaling(catalog, args.gap, args.time_limit)
        return
    for seed in args.seeds:
        data = horizon_mix(args.workloads, seed)
        print(line(f"{args.workloads} workloads, seed {seed}",
                   measure(data, catalog, args.gap, args.time_limit)), flush=True)


if __name__ == "__main__":
    main()
