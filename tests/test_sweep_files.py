"""A sweep's CSV and workbook are one run's: written together, or the previous ones kept.

A sweep whose workbook could not be written had already replaced the CSV, and one whose
unswept plan found nothing left an earlier run's workbook beside its new CSV, unsaid.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from solver.errors import InputError
from solver.report import workbook
from solver.sweep.report import write_sweep_files
from solver.sweep.rows import SweepRun

PREVIOUS = b"previous run's file"


def _run(base) -> tuple[SweepRun, SimpleNamespace]:
    run = SweepRun([], base, False, 0, 0.0, 1, 0)
    sweep = SimpleNamespace(wf=SimpleNamespace(name="s"), catalog=None, price_targets=())
    return run, sweep


def _previous(folder: Path) -> None:
    for name in ("s-sweep.csv", "s-sweep.xlsx"):
        (folder / name).write_bytes(PREVIOUS)


def test_a_workbook_that_cannot_be_written_keeps_the_previous_csv(tmp_path, monkeypatch):
    _previous(tmp_path)

    def fails(path, *args, **kwargs):
        Path(path).write_bytes(b"half a workbook")
        raise InputError(f"cannot write {path}: No space left on device. To fix: free space")

    monkeypatch.setattr(workbook, "write_workbook", fails)
    planned = SimpleNamespace(result=SimpleNamespace(options=["option 1"]), error=None)
    run, sweep = _run(planned)
    with pytest.raises(InputError, match="No space left"):
        write_sweep_files(run, sweep, tmp_path, {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s-sweep.csv", "s-sweep.xlsx"]
    assert all(p.read_bytes() == PREVIOUS for p in tmp_path.iterdir())


def test_without_an_unswept_plan_no_earlier_workbook_stays_beside_the_new_csv(tmp_path):
    _previous(tmp_path)
    nothing = SimpleNamespace(result=None, error="infeasible: no plan serves every workload")
    run, sweep = _run(nothing)
    files, skipped = write_sweep_files(run, sweep, tmp_path, {})
    assert files == [tmp_path / "s-sweep.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s-sweep.csv"]
    assert (tmp_path / "s-sweep.csv").read_bytes() != PREVIOUS
    assert skipped == ("no workbook: the unswept plan did not finish (infeasible: no plan "
                       "serves every workload); the earlier s-sweep.xlsx was removed, as it "
                       "was not this run's")


def test_no_workbook_asked_leaves_the_workbook_alone(tmp_path):
    _previous(tmp_path)
    run, sweep = _run(None)
    files, skipped = write_sweep_files(run, sweep, tmp_path, {}, workbook=False)
    assert files == [tmp_path / "s-sweep.csv"] and skipped is None
    assert (tmp_path / "s-sweep.xlsx").read_bytes() == PREVIOUS
