"""What ``plan --robust P`` buys and costs, on the shipped files, side by side with another
checkout's answer (the tree before a change).

    .venv/bin/python bench/robust.py [--vs ../other-checkout] [--files q3,medium]
        [--targets 0.8,0.9] [--seeds 1,7] [--samples 50]
    .venv/bin/python bench/robust.py --tiny 200

Each run is ``cli.py plan FILE --robust P --samples N --seed S --json --no-workbook`` in its
own process (the tree's own code and the venv's python). Prints, as markdown, per file,
target and seed: the plain plan's cost and share held, each tree's answer (cost, share
held in its own count, method, status) and wall time. ``--tiny N`` instead compares, on
tiny instances, the U1 answer with the quantile-level sizing. Timings never go into tests.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(tree: Path, file: str, target: float, seed: int, samples: int) -> dict:
    """One ``--robust`` plan in ``tree``: its ``robust`` block, status and wall seconds."""
    cmd = [sys.executable, str(tree / "cli.py"), "plan", str(tree / "workloads" / f"{file}.yaml"),
           "--robust", str(target), "--samples", str(samples), "--seed", str(seed), "--json",
           "--no-workbook"]
    start = time.perf_counter()
    got = subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=tree)
    wall = time.perf_counter() - start
    if got.returncode != 0:
        return {"error": (got.stderr.strip().splitlines() or ["?"])[-1][:80], "wall": wall}
    doc = json.loads(got.stdout)
    return {**doc["robust"], "status": doc["status"], "wall": wall}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vs", type=Path, default=None)
    ap.add_argument("--files", default="q3,medium,large")
    ap.add_argument("--targets", default="0.9")
    ap.add_argument("--seeds", default="1,7")
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--tiny", type=int, default=0,
                    help="instead: the U1 answer against the level sizing on N tiny instances")
    a = ap.parse_args()
    if a.tiny:
        tiny(a.tiny)
        return
    trees = [("A", ROOT)] + ([("B", a.vs.resolve())] if a.vs else [])
    print(f"`plan --robust P --samples {a.samples}`; A = {ROOT}"
          + (f", B = {a.vs}" if a.vs else ""))
    print()
    head = "| file | P | seed | plain cost | plain holds |"
    for name, _ in trees:
        head += f" {name} cost | {name} holds | {name} method, status | {name} wall s |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for file in a.files.split(","):
        for target in (float(t) for t in a.targets.split(",")):
            for seed in (int(s) for s in a.seeds.split(",")):
                got = [run(tree, file, target, seed, a.samples) for _, tree in trees]
                first = got[0]
                line = (f"| {file} | {target:g} | {seed} | {first.get('plain_cost', 0):,.0f} | "
                        f"{first.get('plain_holds', 0):.0%} |")
                for g in got:
                    if "error" in g:
                        line += f" {g['error']} | | | {g['wall']:.1f} |"
                        continue
                    method = g.get("method") or ("plain" if g["level"] is None
                                                 else f"level {g['level']:g}")
                    line += (f" {g['cost']:,.0f} | {g['holds']:.0%} | {method}, {g['status']} |"
                             f" {g['wall']:.1f} |")
                print(line, flush=True)


def tiny(count: int) -> None:
    """On ``count`` tiny instances (``bench/bruteforce_chance.py``, whose optimum the program
    matches): the U1 answer against the quantile-level sizing ``--robust`` used before (and
    still uses over a horizon), counted in the same worlds."""
    sys.path.insert(0, str(ROOT))
    from bench.bruteforce_chance import tiny_chance_instance
    from bench.generate import DEFAULT_CATALOG
    from solver.check.verdict import held_in
    from solver.errors import PlanBuyError
    from solver.inputs.loading import load_catalog
    from solver.rules.chance import required
    from solver.uncertainty.robust import RobustInfo, _by_levels, default_planner
    from solver.uncertainty.worlds import worlds

    base = load_catalog(DEFAULT_CATALOG)
    rows = []
    for seed in range(count):
        wf, cat = tiny_chance_instance(seed, base)
        unc = wf.uncertainty
        planner = default_planner(cat, top=1)
        plain_wf = wf.model_copy(update={"uncertainty": unc.model_copy(update={"robust": None})})
        try:
            exact = planner(wf).options[0].total_cost
            plain = planner(plain_wf)
        except PlanBuyError:
            continue
        sample = worlds(wf, cat)
        need = required(unc.robust, unc.samples)
        held = held_in(plain.options[0], (w.wf for w in sample), cat)
        if held >= need:
            rows.append((seed, exact, exact, True))
            continue
        info = RobustInfo(unc.robust, unc.samples, unc.seed, None, held, held, 0.0, 0.0)
        try:
            lv = _by_levels(plain_wf, cat, unc, planner, plain, info, sample, need)
        except PlanBuyError:
            rows.append((seed, exact, None, False))
            continue
        rows.append((seed, exact, lv.options[0].total_cost, lv.robust.met))
    dearer = [(s, e, lv) for s, e, lv, met in rows if met and lv is not None and lv > e + 0.01]
    missed = [s for s, _, lv, met in rows if not met or lv is None]
    print(f"{len(rows)} tiny instances with a plan: the level sizing costs more than the U1 "
          f"answer on {len(dearer)}, misses the share asked on {len(missed)}")
    if dearer:
        over = sorted((lv - e) / e for _, e, lv in dearer)
        print(f"  where dearer: median +{over[len(over) // 2]:.1%}, most +{over[-1]:.1%}")


if __name__ == "__main__":
    main()
