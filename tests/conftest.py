"""Shared fixtures: repository paths and the shipped inputs, loaded once per test session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from solver.inputs.catalog import Catalog
from solver.inputs.loading import load_catalog, load_workloads
from solver.inputs.workload import WorkloadFile

ROOT = Path(__file__).resolve().parent.parent
# bench/ (the generator and the brute force) is imported by tests as a package of the root.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
TESTS = ROOT / "tests"
BAD_INPUTS = TESTS / "bad_inputs"
DATA = TESTS / "data"
DEFAULT_CATALOG = ROOT / "catalogs" / "default.yaml"
WORKLOADS = ROOT / "workloads"
# The customer's original file and the catalog-shape example, kept as test data.
EXAMPLES = DATA


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return ROOT


@pytest.fixture(scope="session")
def default_catalog() -> Catalog:
    """catalogs/default.yaml, validated."""
    return load_catalog(DEFAULT_CATALOG)


@pytest.fixture(scope="session")
def q3() -> WorkloadFile:
    """workloads/q3.yaml (the customer's Q3 mix), validated and resolved."""
    return load_workloads(WORKLOADS / "q3.yaml")


@pytest.fixture
def write_yaml(tmp_path: Path):
    """Write text to a YAML file under tmp_path and return its path: ``write_yaml(text, name)``."""

    def write(text: str, name: str = "input.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(autouse=True)
def default_width(monkeypatch):
    """Every test lays text out at the default width (100) unless it sets ``COLUMNS``
    itself: a shell that exports its own (60, 90) wrapped "please report" or a progress
    hint across lines and failed tests that read the text, not its layout."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def sweeps_in_process(monkeypatch):
    """Monte Carlo sweeps run in this process (tests/test_runner.py runs the Dask engine on a
    real cluster; a cluster per test would only add seconds, and a patched task function
    cannot travel to its workers)."""
    from solver.sweep import engine as runner
    from solver.uncertainty import sweep as sweep_mod

    def serial(fn, tasks, *, on_result, on_progress=None, scheduler=None, workers=None):
        return runner.run_serial(fn, tasks, on_result=on_result, on_progress=on_progress)
    monkeypatch.setattr(sweep_mod, "run_tasks", serial)
