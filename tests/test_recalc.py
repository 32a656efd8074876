"""Every formula cell of every workbook plan-buy writes stores what its formula computes.

The workbooks of every shipped workload, an owned-server mix (expand-pool) and two sweeps
with a kWh-price and a budget axis are recalculated in LibreOffice, all in one run (its
start-up is most of the cost), and every formula cell's stored value is compared with the
recalculated one: previewers, pandas and ``soffice --convert-to pdf`` show the stored value.

Without LibreOffice the tests skip, saying so, on a developer's machine, and fail under CI
(``CI`` set, as .ci/run and CI services do, which install it): a check that silently skips
where it is meant to run checks nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import xlsxwriter
from click.testing import CliRunner
from conftest import WORKLOADS
from recalc import recalculate, report, soffice, stored_vs_recalculated

from cli import main

SHIPPED = sorted(p.stem for p in WORKLOADS.glob("*.yaml"))
SWEEPS = {
    # The owned-server mix over two kWh prices and two budgets (one above its knee).
    "expand-pool-sweep": ["sweep", str(WORKLOADS / "expand-pool.yaml"), "--kwh-price",
                          "0.1,0.3", "--budget", "300000,500000"],
    # A mix without owned servers (no policy.tco: the kWh axis adds it).
    "medium-sweep": ["sweep", str(WORKLOADS / "medium.yaml"), "--kwh-price", "0.1,0.3",
                     "--budget", "100000,250000"],
}


def _under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _need_soffice() -> None:
    if soffice() is not None:
        return
    why = ("LibreOffice (soffice) is not installed: the workbooks' stored values are NOT "
           "checked against their formulas. Install it (Debian/Ubuntu: apt-get install "
           "libreoffice-calc) to run these tests.")
    if _under_ci():
        pytest.fail(why + " CI is set: .ci/run installs it, so its absence is an error.")
    pytest.skip(why)


def _wrong_on_purpose(path: Path) -> Path:
    """A workbook whose one formula (=1+1) stores 3: the comparison must catch it."""
    wb = xlsxwriter.Workbook(str(path))
    wb.add_worksheet("Check").write_formula(0, 0, "=1+1", None, 3)
    wb.close()
    return path


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """Every workbook written and recalculated once: name -> (as written, recalculated)."""
    _need_soffice()
    root = tmp_path_factory.mktemp("recalc")
    books = [_wrong_on_purpose(root / "wrong-on-purpose.xlsx")]
    runner = CliRunner()
    for stem in SHIPPED:
        out = root / "plan" / stem
        res = runner.invoke(main, ["plan", str(WORKLOADS / f"{stem}.yaml"), "--out", str(out)])
        assert res.exit_code == 0, res.output
        books += sorted(out.glob("*.xlsx"))
    for name, args in SWEEPS.items():
        out = root / name
        res = runner.invoke(main, [*args, "--jobs", "1", "--out", str(out)])
        assert res.exit_code == 0, res.output
        books.append(out / f"{name}.xlsx")
    copies = recalculate(books, root / "recalculated")
    return {src.stem: (src, copy) for src, copy in copies.items()}


def test_the_comparison_catches_a_stored_value_the_formula_does_not_compute(recalculated):
    count, diffs = stored_vs_recalculated(*recalculated["wrong-on-purpose"])
    assert count == 1
    assert [(d.cell, d.stored, d.recalculated) for d in diffs] == [("A1", 3, 2)]


@pytest.mark.parametrize("stem", SHIPPED)
def test_a_shipped_workloads_plan_workbook_stores_what_its_formulas_compute(recalculated,
                                                                           stem):
    src, copy = recalculated[stem]
    count, diffs = stored_vs_recalculated(src, copy)
    assert count > 0
    assert not diffs, report(src.name, count, diffs)


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_a_kwh_and_budget_sweeps_workbook_stores_what_its_formulas_compute(recalculated, name):
    src, copy = recalculated[name]
    count, diffs = stored_vs_recalculated(src, copy)
    assert count > 0
    assert not diffs, report(src.name, count, diffs)
