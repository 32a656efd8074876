"""bench/generate.py and bench/bruteforce.py: seeded, valid instances (no timings here)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from solver.inputs.catalog import Catalog
from solver.inputs.loading import load_workloads
from solver.inputs.workload import WorkloadFile
from solver.optimize.candidates import enumerate_candidates
from tests.solver_fixtures import one_workstation

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bruteforce import optimum, tiny_instance
from bench.generate import (
    KIND_WEIGHTS,
    double_catalog,
    generate,
    generate_data,
    presets_used,
    write_yaml,
)


def test_same_seed_same_instance(default_catalog):
    assert generate_data(30, 7, default_catalog) == generate_data(30, 7, default_catalog)


def test_other_seed_other_instance(default_catalog):
    assert generate_data(30, 7, default_catalog) != generate_data(30, 8, default_catalog)


@pytest.mark.parametrize("n", [1, 10, 60])
def test_valid_workload_file_of_n(default_catalog, n):
    wf = generate(n, 3, default_catalog)
    assert isinstance(wf, WorkloadFile)
    assert len(wf.workloads) == n
    assert len({w.name for w in wf.workloads}) == n


def test_every_workload_runs_somewhere(default_catalog):
    wf = generate(60, 5, default_catalog)
    cand = enumerate_candidates(wf, default_catalog)
    assert all(cand.options[w.name] for w in wf.workloads)


def test_realistic_spread(default_catalog):
    wf = generate(200, 1, default_catalog)
    kinds = Counter(w.kind for w in wf.workloads)
    assert set(kinds) == set(KIND_WEIGHTS)
    assert {w.replicas for w in wf.workloads} >= {1, 2}
    assert len({w.priority for w in wf.workloads}) > 5
    assert any(w.shareable for w in wf.workloads)


def test_written_yaml_loads_back_to_the_same_file(default_catalog, tmp_path):
    data = generate_data(20, 2, default_catalog)
    loaded = load_workloads(write_yaml(data, tmp_path / "w.yaml"))
    assert loaded == generate(20, 2, default_catalog)


def test_presets_exist():
    presets_used()


def test_double_catalog_is_twice_the_default(default_catalog):
    big = double_catalog(default_catalog)
    assert isinstance(big, Catalog)
    for kind in ("gpus", "platforms", "memory", "storage"):
        assert len(getattr(big, kind)) == 2 * len(getattr(default_catalog, kind))


def test_tiny_instances_are_seeded_and_tiny(default_catalog):
    wf, cat = tiny_instance(4, default_catalog)
    assert (wf, cat) == tiny_instance(4, default_catalog)
    assert 1 <= len(wf.workloads) <= 3 and len(cat.gpus) == 2 and len(cat.storage) == 1


def test_bruteforce_hand_solved(default_catalog):
    """One 7B inference replica on the cheapest 2-GPU workstation: known by hand."""
    cat = one_workstation(default_catalog)
    wf = WorkloadFile.model_validate(
        {
            "name": "one",
            "workloads": [
                {
                    "name": "chat",
                    "kind": "inference",
                    "model": "llama-2-7b",
                    "precision": "fp16",
                    "context": 2048,
                    "batch": 1,
                }
            ],
        }
    )
    # 4000 platform + 7500 L40S + 8 x 90 DIMMs (one per channel); no storage.
    assert optimum(wf, cat) == pytest.approx(4000 + 7500 + 8 * 90)


def test_crosscheck_with_targets_matches_the_brute_force():
    """Rank 1 equals the exhaustive optimum on seeded tiny instances with a throughput
    target (T3, T4): replica counts are decisions on both sides."""
    from bench.bruteforce import crosscheck

    res = crosscheck(20, timed=True)
    assert res["mismatches"] == [] and res["match"] == 20
