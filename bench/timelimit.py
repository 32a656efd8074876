"""Does ``--time-limit`` hold, and is a time-limited run reproducible?

    .venv/bin/python bench/timelimit.py                       # N = 200, 10 s, 5 runs
    .venv/bin/python bench/timelimit.py --n 1000 --limit 30 --runs 1
    .venv/bin/python bench/timelimit.py --n 60 --limit 2 --runs 3 --no-workbook

Each run is the real command line (``cli.py plan --json``, workbook included unless
``--no-workbook``) in its own process, timed from the outside, so the figure is what a user
waits for, interpreter start-up and imports included. Printed side by side: every run's
wall time against the limit, its rank-1 cost, status, gap and option count; then the median
and worst wall/limit ratio and the spread of rank-1 costs over the runs (distinct values,
(max - min) / min, median). Nothing is asserted: the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


def one_run(workloads: Path, limit: float, out_dir: Path, workbook: bool, extra: list[str]) -> dict:
    """One ``plan`` run through the CLI: wall seconds and what it reported."""
    cmd = [sys.executable, str(ROOT / "cli.py"), "plan", str(workloads), "--json",
           "--time-limit", f"{limit:g}", "--out", str(out_dir), *extra]
    if not workbook:
        cmd.append("--no-workbook")
    t = time.perf_counter()
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t
    row: dict = {"wall_s": wall, "exit": proc.returncode}
    if proc.returncode:
        row["error"] = (proc.stderr.strip().splitlines() or ["no output"])[-1][:160]
        return row
    doc = json.loads(proc.stdout)
    row.update(
        status=doc["status"], gap=doc.get("gap"), options=len(doc["options"]),
        costs=[o["total_cost"] for o in doc["options"]], notes=doc.get("notes", []),
    )
    return row


def summarise(rows: list[dict], limit: float) -> list[str]:
    """Median/worst wall-over-limit and the spread of rank-1 costs (no assertion)."""
    ratios = [r["wall_s"] / limit for r in rows]
    lines = [f"wall/limit: median {statistics.median(ratios):.3f}, worst {max(ratios):.3f}"]
    costs = [r["costs"][0] for r in rows if r.get("costs")]
    if costs:
        spread = (max(costs) - min(costs)) / min(costs) if min(costs) else 0.0
        lines.append(
            f"rank-1 cost over {len(costs)} runs: {len(set(costs))} distinct, median "
            f"{statistics.median(costs):,.2f}, min {min(costs):,.2f}, max {max(costs):,.2f}, "
            f"spread {spread:.2%}"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200, help="generated workloads (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=float, default=10.0, help="--time-limit seconds (default 10)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--solver", default=None, help="highs or cbc (default: the CLI's)")
    ap.add_argument("--no-workbook", action="store_true")
    args = ap.parse_args(argv)

    from bench.generate import generate_data, write_yaml

    extra = ["--top", str(args.top)] + (["--solver", args.solver] if args.solver else [])
    with tempfile.TemporaryDirectory(prefix="plan-buy-limit-") as tmp:
        tmp = Path(tmp)
        wpath = write_yaml(generate_data(args.n, args.seed), tmp / "workloads.yaml")
        print(f"N={args.n} seed={args.seed} --time-limit {args.limit:g} s, "
              f"{'no workbook' if args.no_workbook else 'workbook included'}, {args.runs} runs")
        print("| run | wall s | wall/limit | rank-1 cost | status | gap | options | notes |")
        print("|---:|---:|---:|---:|---|---:|---:|---|")
        rows = []
        for i in range(args.runs):
            r = one_run(wpath, args.limit, tmp, not args.no_workbook, extra)
            rows.append(r)
            if "error" in r:
                print(f"| {i + 1} | {r['wall_s']:.2f} | {r['wall_s'] / args.limit:.3f} "
                      f"| exit {r['exit']}: {r['error']} | | | | |", flush=True)
                continue
            gap = "–" if r["gap"] is None else f"{100 * r['gap']:.3f}%"
            print(f"| {i + 1} | {r['wall_s']:.2f} | {r['wall_s'] / args.limit:.3f} "
                  f"| {r['costs'][0]:,.2f} | {r['status']} | {gap} | {r['options']} "
                  f"| {'; '.join(r['notes'])[:120]} |", flush=True)
        print()
        for line in summarise(rows, args.limit):
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
