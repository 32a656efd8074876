"""Every shipped workload file plans to proven optimality and beats the seed's reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from solver.check import check_plan
from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize.pipeline import plan

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("q3", "small", "medium", "large", "deadlines")
FILES = [ROOT / "workloads" / f"{n}.yaml" for n in SHIPPED]
FILES.append(ROOT / "tests" / "data" / "customer-q3.yaml")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(ROOT / "catalogs" / "default.yaml")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_plans_optimal_and_beats_reference(path, catalog):
    wf = load_workloads(path)
    result = plan(wf, catalog, top=1)
    assert result.status == "optimal"  # no repair: the expansion met the program's bound
    option = result.options[0]
    assert check_plan(option, wf, catalog) == []
    # The bound shown beside an optimal plan is the one its status rests on (within the gap).
    assert option.lower_bound is not None
    assert option.total_cost * (1 - 1e-4) - 0.01 <= option.lower_bound <= option.total_cost
    if result.baseline is not None:
        assert option.total_cost <= result.baseline.total_cost + 0.01


def test_small_and_large_have_a_reference(catalog):
    for name in ("small", "large"):
        wf = load_workloads(ROOT / "workloads" / f"{name}.yaml")
        assert plan(wf, catalog, top=1).baseline is not None


def test_budget_with_packing_cuts_still_finds_a_plan(catalog):
    """Regression: cuts added after the priority phase once left the cost phase infeasible."""
    from solver.inputs.scenario import with_policy

    wf = with_policy(load_workloads(ROOT / "workloads" / "q3.yaml"), growth=2.0,
                     budget=274137.9310344828)
    result = plan(wf, catalog, top=1, with_baseline=False)
    option = result.options[0]
    assert option.total_cost <= 274137.94
    assert option.unserved
    assert check_plan(option, wf, catalog) == []


def test_deadlines_meets_every_target(catalog):
    """workloads/deadlines.yaml: every target met, every run finishes by its deadline."""
    wf = load_workloads(ROOT / "workloads" / "deadlines.yaml")
    option = plan(wf, catalog, top=1, with_baseline=False).options[0]
    figures = {f.workload: f for f in option.throughput}
    assert set(figures) == {w.name for w in wf.workloads}
    for w in wf.workloads:
        f = figures[w.name]
        assert f.tokens_per_s >= f.target_tokens_per_s - 1e-6
        if w.deadline_days is not None:
            assert f.days_to_finish is not None and f.days_to_finish <= w.deadline_days
        if w.max_tpot_ms is not None:
            assert f.tpot_ms is not None and f.tpot_ms <= w.max_tpot_ms
