"""The stage boundaries hold: each stage loads only the libraries it needs.

Only ``solver.optimize`` imports PuLP, only the workbook module imports XlsxWriter and only
``cli.py`` imports click. Each import runs in a fresh interpreter, so what one test loaded
cannot hide what another loads.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

STAGES = [
    "solver.inputs.loading",
    "solver.inputs.scenario",
    "solver.estimate.replica",
    "solver.report.tables",
    "solver.report.chargeback",
    "solver.report.placement_tables",
    "solver.report.run_tables",
    "solver.report.summary",
    "solver.report.wording",
    "solver.report.running",
    "solver.report.estimate_table",
    "solver.check",
    "solver.optimize.expand",
    "solver.plan_types",
    "solver.result",
    "solver.optimize.outcome",
]


def loaded(module: str) -> set[str]:
    code = (f"import sys, {module}; "
            "print(' '.join(k for k in ('pulp', 'xlsxwriter', 'click', 'highspy') "
            "if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("module", STAGES)
def test_stage_loads_no_solver_writer_or_cli_library(module):
    assert loaded(module) == set()


def test_workbook_loads_the_writer_but_not_the_solver():
    assert loaded("solver.report.workbook") == {"xlsxwriter"}


def test_optimize_loads_pulp_but_not_click():
    assert loaded("solver.optimize.pipeline") >= {"pulp"}
    assert "click" not in loaded("solver.optimize.pipeline")


def test_nothing_imports_pulp_outside_optimize():
    offenders = [
        str(p.relative_to(ROOT)) for p in (ROOT / "solver").rglob("*.py")
        if "optimize" not in p.parts and "import pulp" in p.read_text()
    ]
    assert offenders == []



def test_no_product_file_reads_outside_the_repository():
    """Tests, benchmarks and the product never reach for a folder beside the checkout."""
    files = [ROOT / "cli.py", *(ROOT / d for d in ("solver", "tests", "bench"))]
    offenders = []
    for f in files:
        for p in ([f] if f.is_file() else f.rglob("*.py")):
            text = p.read_text()
            if "shared/" in text or '/ "shared"' in text or "parents[2]" in text:
                offenders.append(str(p.relative_to(ROOT)))
    offenders.remove("tests/test_layout.py")
    assert offenders == []
