"""End-to-end speed of ``plan-buy plan``, side by side with an earlier tree, in one run.

Times the whole process from outside with ``farm-bench`` (start-up, imports, solves and the
workbook included), paired run by run so a drifting machine does not move the ratios:

    q3          this tree vs BEFORE: ``plan-buy workloads/q3.yaml`` (defaults, workbook)
    top3/top1   this tree: ``--top 3`` vs ``--top 1`` (no workbook) on every shipped file and
                on a generated 10-workload mix (seed 1)

Usage (from the repository root):

    git archive <commit> | tar -x -C /tmp/plan-before
    python bench/speed.py /tmp/plan-before [--runs 5]

BEFORE is a plain copy of an earlier commit (``git archive``), run with the same Python.
Prints one line per case with farm-bench's medians; quote the medians in bench/results.md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ("small", "medium", "large", "deadlines", "expand-pool", "q3")


def farm_bench(a: list[str], b: list[str], runs: int, cwd_a: Path, cwd_b: Path) -> str:
    """farm-bench's report for A against B (each run in its own tree)."""
    def shell(cmd: list[str], cwd: Path) -> str:
        return f"cd {cwd} && exec " + " ".join(cmd) + " >/dev/null 2>&1"

    out = subprocess.run(
        ["farm-bench", "-n", str(runs), "--timeout", "900", "--vs",
         f"sh -c '{shell(b, cwd_b)}'", "--", "sh", "-c", shell(a, cwd_a)],
        capture_output=True, text=True, check=False)
    return out.stdout + out.stderr


def medians(report: str) -> str:
    """The wall-time medians and the paired ratio from a farm-bench report."""
    keep = [ln.strip() for ln in report.splitlines()
            if re.search(r"wall|ratio|A/B", ln, re.IGNORECASE)]
    return " | ".join(keep) or report.strip()[-400:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, help="a copy of the earlier tree")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    py = sys.executable
    out = Path(tempfile.mkdtemp(prefix="speed-"))
    q3 = [py, "cli.py", "workloads/q3.yaml", "--out", str(out)]
    print("q3 end to end, this tree (A) vs before (B):")
    print("  " + medians(farm_bench(q3, q3, args.runs, ROOT, args.before.resolve())))

    sys.path.insert(0, str(ROOT))
    from bench.generate import generate_data, write_yaml

    mix = write_yaml(generate_data(10, seed=1), out / "mix10.yaml")
    files = [ROOT / "workloads" / f"{name}.yaml" for name in SHIPPED] + [mix]
    for f in files:
        base = [py, "cli.py", str(f), "--no-workbook"]
        print(f"{f.name}: --top 3 (A) vs --top 1 (B), this tree:")
        print("  " + medians(farm_bench(base + ["--top", "3"], base + ["--top", "1"],
                                        args.runs, ROOT, ROOT)))


if __name__ == "__main__":
    main()
