"""``plan-buy sweep FILE --samples N --scheduler ADDRESS``: a small Monte Carlo sweep sent to
a real two-worker ``distributed.LocalCluster`` by its address, as a user sends one to a
running cluster; its rows are the same as those the sweep computes in this process.
(tests/test_runner.py kills a worker mid-run on the same engine path.)"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from cli import main
from tests.test_uncertainty import MEMORY_ONLY, tiny_catalog, tiny_file

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def address():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as cluster:
        yield cluster.scheduler_address


def _files(tmp_path: Path) -> tuple[Path, Path]:
    wf = tiny_file(MEMORY_ONLY)
    wpath, cpath = tmp_path / "tiny.yaml", tmp_path / "cat.yaml"
    wpath.write_text(yaml.safe_dump(wf.model_dump(mode="json", exclude_none=True,
                                                  exclude_defaults=True)))
    cpath.write_text(yaml.safe_dump(tiny_catalog(wf).model_dump(mode="json",
                                                                exclude_none=True)))
    return wpath, cpath


def _rows(out: Path) -> list[dict]:
    rows = [json.loads(line) for line in (out / "tiny-uncertainty.jsonl").open()]
    for row in rows:
        row.get("resolved", {}).pop("seconds", None)
    return sorted(rows, key=lambda r: r["scenario"])


def test_a_sweep_sent_to_a_cluster_by_its_address(tmp_path: Path, address: str):
    wpath, cpath = _files(tmp_path)
    args = ["sweep", str(wpath), "--catalog", str(cpath), "--samples", "6", "--seed", "7",
            "--json"]
    got = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a"),
                                    "--scheduler", address])
    assert got.exit_code == 0, got.output
    doc = json.loads(got.stdout)
    assert doc["scenarios"] == 6 and not doc.get("failed")
    alone = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "b"), "--jobs", "1"])
    assert alone.exit_code == 0, alone.output
    assert _rows(tmp_path / "a") == _rows(tmp_path / "b")


def _grid(doc: dict) -> tuple[list, list]:
    drop = ("seconds", "solve_seconds")
    rows = [{k: v for k, v in r.items() if k not in drop} for r in doc["rows"]]
    return rows, doc["knees"]


def test_a_grid_sweep_sent_to_a_cluster_by_its_address(tmp_path: Path, address: str):
    """The grid (budgets below each knee wait on its full plan) runs on the cluster's
    workers through the same address: the same rows, knees and solves as on this machine."""
    wpath, cpath = _files(tmp_path)
    args = ["sweep", str(wpath), "--catalog", str(cpath), "--growth", "1,2",
            "--budget", "1000,4000,40000", "--no-workbook", "--json"]
    got = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a"),
                                    "--scheduler", address])
    assert got.exit_code == 0, got.output
    there = json.loads(got.stdout)
    alone = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "b"), "--jobs", "1"])
    assert alone.exit_code == 0, alone.output
    here = json.loads(alone.stdout)
    assert _grid(there) == _grid(here) and there["solves"] == here["solves"]
    assert there["jobs"] == 2 and there["scenarios"] == 6 and there["status"] == "complete"


def test_a_grid_sweep_to_a_scheduler_that_is_not_there_exits_2(tmp_path: Path):
    wpath, cpath = _files(tmp_path)
    got = CliRunner().invoke(main, ["sweep", str(wpath), "--catalog", str(cpath),
                                    "--growth", "1,2", "--no-workbook",
                                    "--scheduler", "tcp://127.0.0.1:9"])
    assert got.exit_code == 2 and "scheduler" in got.output.lower()
