"""Benchmark runner: time every pipeline stage on seeded instances and print the figures.

    .venv/bin/python bench/run.py                      # full run (long: N up to 1000)
    .venv/bin/python bench/run.py --quick              # N = 10, 50; HiGHS; a few minutes
    .venv/bin/python bench/run.py --sizes 10,50,200 --solvers highs,cbc --catalogs default
    .venv/bin/python bench/run.py --crosscheck 50 --q3 5   # also the exact cross-check and q3

Each (N, catalog, solver) runs in its own subprocess so that its peak memory is its own.
The stages are the library's own, called directly:
    load      loading.load_workloads + loading.load_catalog (YAML -> validated models)
    estimate  candidates.enumerate_candidates (the estimator over every GPU and degree)
    build     build.build (the PuLP model)
    solve     solve.solve (one solve to the gap, or to the time limit)
    top-3     pipeline.plan(top=3) end to end (its own build, 3+ solves, expansion, checks,
              R20 baseline): what `plan-buy` does before the workbook
    workbook  workbook.write_workbook
The figures go to stdout as a markdown table and to out/bench/results.md and results.json
(``--results-dir DIR`` to choose), so a run leaves the checkout clean. To refresh the
committed figures, pass ``--results-dir bench``: the block between the markers in
bench/results.md is replaced and the hand-written analysis around it is kept.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

DEFAULT_RESULTS_DIR = ROOT / "out" / "bench"
"""Where a run writes results.md and results.json unless --results-dir says otherwise."""
COMMITTED_JSON = HERE / "results.json"
"""The committed figures; --append starts from them when the results folder has none."""
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
DEFAULT_SIZES = (10, 50, 200, 1000)
DEFAULT_SEED = 1


def default_time_limit(n: int) -> float:
    """The issue's targets: N <= 200 proven optimal within 30 s, N = 1000 within 120 s."""
    return 30.0 if n <= 200 else 120.0


# --- one measurement (runs in a child process) ------------------------------------------------


def measure(
    n: int,
    seed: int,
    catalog_name: str,
    solver_name: str,
    time_limit: float,
    top_limit: float,
    gap: float,
    top: int,
    do_top: bool,
) -> dict:
    """Every stage's wall time for one instance, with model size and peak memory."""
    import yaml

    from bench.generate import catalog_by_name, generate_data, write_yaml
    from solver.inputs.loading import load_catalog, load_workloads
    from solver.optimize.candidates import enumerate_candidates
    from solver.optimize.pipeline import plan
    from solver.optimize.program import build
    from solver.optimize.solve import solve
    from solver.report.workbook import write_workbook

    row: dict = {
        "top_limit": top_limit,
        "n": n,
        "seed": seed,
        "catalog": catalog_name,
        "solver": solver_name,
        "time_limit": time_limit,
    }
    with tempfile.TemporaryDirectory(prefix="plan-buy-bench-") as tmp:
        tmp = Path(tmp)
        # Draw the same workloads for both catalogs (feasibility against the default one).
        data = generate_data(n, seed, catalog_by_name("default"))
        wpath = write_yaml(data, tmp / "workloads.yaml")
        cpath = tmp / "catalog.yaml"
        cpath.write_text(
            yaml.safe_dump(catalog_by_name(catalog_name).model_dump(mode="json"), sort_keys=False),
            encoding="utf-8",
        )

        t = time.perf_counter()
        wf = load_workloads(wpath)
        cat = load_catalog(cpath)
        row["load_s"] = time.perf_counter() - t
        row["replicas"] = sum(wf.planned_replicas(w) for w in wf.workloads)

        t = time.perf_counter()
        cand = enumerate_candidates(wf, cat)
        row["estimate_s"] = time.perf_counter() - t
        row["types"] = len(cand.types)
        row["options"] = sum(len(v) for v in cand.options.values())

        t = time.perf_counter()
        m = build(wf, cat, cand, wf.policy.budget)
        row["build_s"] = time.perf_counter() - t
        row["vars"] = len(m.prob.variables())
        row["int_vars"] = sum(1 for v in m.prob.variables() if v.cat == "Integer")
        row["cons"] = len(m.prob.constraints)
        row["nonzeros"] = sum(len(c) for c in m.prob.constraints.values())

        out = solve(m, solver_name, time_limit, gap)
        row["solve_s"] = out.seconds
        engine = getattr(m.prob, "solverModel", None)
        if solver_name == "highs" and engine is not None:
            row["engine_s"] = engine.getRunTime()  # HiGHS itself; the rest is PuLP's transfer
        row["status"] = out.status
        row["gap"] = out.gap
        row["objective"] = out.objective

        if do_top:
            t = time.perf_counter()
            result = plan(wf, cat, top=top, solver=solver_name, time_limit=top_limit, gap=gap)
            row["top_s"] = time.perf_counter() - t
            row["top_status"] = result.status
            row["top_gap"] = result.gap
            row["top_options"] = len(result.options)
            row["rank1_cost"] = result.options[0].total_cost

            t = time.perf_counter()
            write_workbook(
                tmp / "bench.xlsx", result, wf, cat, {"workloads": wpath, "catalog": cpath}
            )
            row["workbook_s"] = time.perf_counter() - t

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the CBC binary
    row["peak_mb"] = max(own, kids) / 1024  # Linux reports KiB
    return row


def _child(spec: str) -> None:
    args = json.loads(spec)
    row = measure(**args)
    print("BENCH-ROW " + json.dumps(row), flush=True)


def run_one(
    n: int,
    seed: int,
    catalog: str,
    solver: str,
    time_limit: float,
    top_limit: float,
    gap: float,
    top: int,
    do_top: bool,
    wall_limit: float,
) -> dict:
    spec = json.dumps(
        {
            "n": n,
            "seed": seed,
            "catalog_name": catalog,
            "solver_name": solver,
            "time_limit": time_limit,
            "top_limit": top_limit,
            "gap": gap,
            "top": top,
            "do_top": do_top,
        }
    )
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", spec]
    base = {
        "n": n,
        "seed": seed,
        "catalog": catalog,
        "solver": solver,
        "time_limit": time_limit,
        "top_limit": top_limit,
    }
    try:
        proc = subprocess.run(
            cmd, check=False, capture_output=True, text=True, timeout=wall_limit, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return {**base, "error": f"killed after {wall_limit:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH-ROW "):
            return json.loads(line[len("BENCH-ROW ") :])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    return {**base, "error": tail[0][:200]}


# --- q3 end to end -------------------------------------------------------------------------


def time_q3(runs: int) -> dict:
    """Median wall time of `plan-buy workloads/q3.yaml` (the CLI, workbook included)."""
    exe = ROOT / ".venv" / "bin" / "plan-buy"
    cmd = [str(exe) if exe.exists() else "plan-buy", "workloads/q3.yaml"]
    times = []
    with tempfile.TemporaryDirectory(prefix="plan-buy-q3-") as tmp:
        for _ in range(runs):
            t = time.perf_counter()
            proc = subprocess.run(
                [*cmd, "--out", tmp], check=False, capture_output=True, text=True, cwd=ROOT
            )
            times.append(time.perf_counter() - t)
            if proc.returncode:
                return {"error": proc.stderr.strip()[-200:], "runs": times}
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "runs": len(times),
    }


# --- rendering ----------------------------------------------------------------------------


def _f(v, fmt="{:.2f}") -> str:
    return "–" if v is None else fmt.format(v)


def _gap(v) -> str:
    return "–" if v is None else f"{100 * v:.3f}%"


def render(rows: list[dict], q3: dict | None, cross: dict | None, args) -> str:
    now = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = [
        (
            f"Run {now} on {platform.node() or 'this machine'}: {os.cpu_count()} cores "
            f"({platform.processor() or platform.machine()}), Python {platform.python_version()}, "
            f"seed {args.seed}, gap {args.gap:g}; times in seconds (wall), memory in MB (peak RSS "
            "of the measuring process, the CBC binary included)."
        ),
        "",
        (
            "| N | catalog | solver | replicas | types | options | vars (int) | cons | nonzeros "
            "| load | estimate | build | solve (HiGHS) | status | gap | top-3 | top-3 gap "
            "| workbook | peak MB |"
        ),
        (
            "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:"
            "|---:|---:|"
        ),
    ]
    for r in rows:
        if "error" in r:
            lines.append(
                f"| {r['n']} | {r['catalog']} | {r['solver']} | " + " | " * 15 + f"{r['error']} |"
            )
            continue
        solve = _f(r.get("solve_s"))
        if r.get("engine_s") is not None:
            solve += f" ({r['engine_s']:.2f})"
        lines.append(
            f"| {r['n']} | {r['catalog']} | {r['solver']} | {r['replicas']} | {r['types']} "
            f"| {r['options']} | {r['vars']} ({r['int_vars']}) | {r['cons']} | {r['nonzeros']} "
            f"| {_f(r['load_s'])} | {_f(r['estimate_s'])} | {_f(r['build_s'])} | {solve} "
            f"| {r['status']} | {_gap(r.get('gap'))} | {_f(r.get('top_s'))} "
            f"| {_gap(r.get('top_gap'))} | {_f(r.get('workbook_s'))} | {r['peak_mb']:.0f} |"
        )
    lines.append("")
    lines.append(
        "Time limits (single solve; top-3 = the whole `plan(top=3)` run, whose time limit "
        "bounds every solve in it together): "
        + ", ".join(
            sorted(
                {
                    f"N={r['n']}: {r['time_limit']:g} s (top-3: {r.get('top_limit', r['time_limit']):g} s)"
                    for r in rows
                },
                key=lambda s: int(s.split("=")[1].split(":")[0]),
            )
        )
        + "."
    )
    if q3:
        lines.append("")
        if "error" in q3:
            lines.append(f"`plan-buy workloads/q3.yaml`: failed ({q3['error']})")
        else:
            lines.append(
                f"`plan-buy workloads/q3.yaml` end to end (CLI, workbook included): median "
                f"{q3['median_s']:.2f} s of {q3['runs']} runs (min {q3['min_s']:.2f}, max "
                f"{q3['max_s']:.2f})."
            )
    if cross:
        lines.append("")
        lines.append(
            f"Exact cross-check: rank-1 cost equals exhaustive enumeration on "
            f"**{cross['match']} of {cross['total']}** seeded tiny instances "
            f"({cross['infeasible']} infeasible for both; seconds: {cross['seconds']:.1f})."
        )
        for m in cross["mismatches"]:
            lines.append(f"- mismatch: {m}")
    return "\n".join(lines) + "\n"


def write_results(block: str, path: Path) -> None:
    """Replace the generated block of ``path`` (create the file when it does not exist)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    new = f"{BEGIN}\n{block}{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = head + new + tail
    else:
        text = (text.rstrip() + "\n\n" if text else "# plan-buy benchmark results\n\n") + new + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument(
        "--sizes",
        default=",".join(map(str, DEFAULT_SIZES)),
        help="comma-separated workload counts (default 10,50,200,1000)",
    )
    ap.add_argument(
        "--solvers", default=None, help="comma-separated: highs,cbc (default: every available one)"
    )
    ap.add_argument(
        "--catalogs",
        default="default,double",
        help="comma-separated: default,double (default both)",
    )
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds per solve (default 30 for N <= 200, 120 above)",
    )
    ap.add_argument(
        "--top-time-limit",
        type=float,
        default=None,
        help="seconds for the whole top-K run, as plan's --time-limit (default: --time-limit)",
    )
    ap.add_argument(
        "--append",
        action="store_true",
        help="merge with the rows already in the results folder's results.json, else "
        "bench/results.json (other sizes/solvers)",
    )
    ap.add_argument("--gap", type=float, default=1e-4, help="relative MIP gap (default 1e-4)")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--no-top", action="store_true", help="skip top-K and the workbook")
    ap.add_argument(
        "--crosscheck",
        type=int,
        default=None,
        metavar="K",
        help="also compare rank-1 with brute force on K tiny instances (50 in full)",
    )
    ap.add_argument(
        "--q3",
        type=int,
        default=None,
        metavar="RUNS",
        help="also time `plan-buy workloads/q3.yaml` RUNS times (5 in full)",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="N = 10, 50 on the default catalog with HiGHS, 10 cross-checks, q3 x3",
    )
    ap.add_argument(
        "--results-dir",
        type=Path,
        default=DEFAULT_RESULTS_DIR,
        help="folder for results.md and results.json (default out/bench; 'bench' updates "
        "the committed figures)",
    )
    ap.add_argument("--no-write", action="store_true", help="write no results files")
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child)
        return

    from solver.optimize.engines import available_solvers

    if args.quick:
        args.sizes, args.catalogs = "10,50", "default"
        args.solvers = args.solvers or "highs"
        args.crosscheck = 10 if args.crosscheck is None else args.crosscheck
        args.q3 = 3 if args.q3 is None else args.q3
    sizes = [int(s) for s in args.sizes.split(",") if s]
    solvers = args.solvers.split(",") if args.solvers else available_solvers()
    catalogs = args.catalogs.split(",")

    previous = {}
    results_json = args.results_dir / "results.json"
    if args.append:
        source = results_json if results_json.exists() else COMMITTED_JSON
        previous = json.loads(source.read_text(encoding="utf-8"))
    # q3 first, on a quiet machine; then the exact cross-check; then the sizes.
    q3 = time_q3(args.q3) if args.q3 else previous.get("q3")
    cross = previous.get("cross")
    if args.crosscheck:
        from bench.bruteforce import crosscheck

        cross = crosscheck(args.crosscheck)

    rows = []
    for n in sizes:
        limit = args.time_limit or default_time_limit(n)
        top_limit = args.top_time_limit or limit
        for cat in catalogs:
            for solver in solvers:
                # top-K solves up to ~4 x (top + baseline) times; leave it room, then stop it.
                wall = 60 + limit + top_limit * (6 + 4 * args.top)
                print(
                    f"# N={n} catalog={cat} solver={solver} (limit {limit:g} s/solve)...",
                    file=sys.stderr,
                    flush=True,
                )
                r = run_one(
                    n,
                    args.seed,
                    cat,
                    solver,
                    limit,
                    top_limit,
                    args.gap,
                    args.top,
                    not args.no_top,
                    wall,
                )
                print("#   " + json.dumps(r), file=sys.stderr, flush=True)
                rows.append(r)

    key = lambda r: (r["n"], r["catalog"], r["solver"])
    merged = {key(r): r for r in previous.get("rows", [])}
    merged.update({key(r): r for r in rows})
    rows = [merged[k] for k in sorted(merged, key=lambda k: (k[0], k[1], k[2]))]
    block = render(rows, q3, cross, args)
    print(block)
    if not args.no_write:
        write_results(block, args.results_dir / "results.md")
        results_json.write_text(
            json.dumps({"rows": rows, "q3": q3, "cross": cross}, indent=1), encoding="utf-8"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
