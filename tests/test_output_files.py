"""Output files are written whole or not at all; a failed write is a clear exit 2."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import xlsxwriter
from test_report import CATALOG, WORKLOADS, sample_plan

from solver.errors import InputError
from solver.report.files import replacing
from solver.report.workbook import write_workbook
from solver.sweep.report import write_sweep_files
from solver.sweep.rows import SweepRun

ROOT = Path(__file__).resolve().parents[1]
PREVIOUS = b"previous file, still whole"


def _full_disk(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _only(folder: Path, name: str) -> None:
    """``name`` is the one entry of ``folder``, holding the previous content."""
    assert sorted(p.name for p in folder.iterdir()) == [name]
    assert (folder / name).read_bytes() == PREVIOUS


def _assert_full_disk_error(err: pytest.ExceptionInfo, path: Path) -> None:
    msg = str(err.value)
    assert msg.startswith(f"cannot write {path}: No space left on device") and "To fix:" in msg
    assert err.value.exit_code == 2


def test_csv_that_fails_midway_keeps_the_previous_one(tmp_path, monkeypatch):
    (tmp_path / "s-sweep.csv").write_bytes(PREVIOUS)

    def half_then_full(self, path, **kwargs):
        Path(path).write_text("scenario,budget\n1,", encoding="utf-8")
        _full_disk()

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full)
    run = SweepRun([], None, False, 0, 0.0, 1, 0)
    sweep = SimpleNamespace(wf=SimpleNamespace(name="s"), price_targets=())
    with pytest.raises(InputError) as err:
        write_sweep_files(run, sweep, tmp_path, {}, workbook=False)
    _assert_full_disk_error(err, tmp_path / "s-sweep.csv")
    _only(tmp_path, "s-sweep.csv")


@pytest.fixture(scope="module")
def plan():
    return sample_plan()


def test_xlsx_on_a_full_disk_keeps_the_previous_one(plan, tmp_path, monkeypatch):
    """XlsxWriter raises FileCreateError (not an OSError) when its zip cannot be written."""
    result, wf, catalog = plan
    out = tmp_path / "q3.xlsx"
    out.write_bytes(PREVIOUS)

    def half_then_full(self):
        Path(self.filename).write_bytes(b"PK\x03\x04 half a zip")
        _full_disk()

    monkeypatch.setattr(xlsxwriter.Workbook, "_store_workbook", half_then_full)
    with pytest.raises(InputError) as err:
        write_workbook(out, result, wf, catalog, {"workloads": WORKLOADS, "catalog": CATALOG})
    _assert_full_disk_error(err, out)
    _only(tmp_path, "q3.xlsx")


def test_json_that_fails_midway_keeps_the_previous_one(tmp_path, monkeypatch):
    out = tmp_path / "doc.json"
    out.write_bytes(PREVIOUS)
    real_write = json.dump

    def half_then_full(obj, f, **kwargs):
        f.write('{"rows": [')
        _full_disk()

    monkeypatch.setattr(json, "dump", half_then_full)
    with pytest.raises(InputError) as err, replacing(out) as tmp, open(tmp, "w") as f:
        json.dump({"rows": []}, f)
    _assert_full_disk_error(err, out)
    _only(tmp_path, "doc.json")
    monkeypatch.setattr(json, "dump", real_write)
    with replacing(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump({"rows": []}, f)
    assert json.loads(out.read_text()) == {"rows": []}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_an_interrupt_midway_keeps_the_previous_file(plan, tmp_path, monkeypatch):
    result, wf, catalog = plan
    out = tmp_path / "q3.xlsx"
    out.write_bytes(PREVIOUS)

    def interrupted(self):
        Path(self.filename).write_bytes(b"PK\x03\x04")
        raise KeyboardInterrupt

    monkeypatch.setattr(xlsxwriter.Workbook, "_store_workbook", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_workbook(out, result, wf, catalog, {"workloads": WORKLOADS, "catalog": CATALOG})
    _only(tmp_path, "q3.xlsx")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_json_to_a_full_stdout_is_a_clear_error():
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "cli.py", "estimate", "workloads/q3.yaml", "--json"],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert res.returncode == 2, res.stderr
    assert "cannot write to standard output: No space left on device" in res.stderr
    assert "Traceback" not in res.stderr and "Exception ignored" not in res.stderr
