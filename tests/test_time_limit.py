"""--time-limit: a run that ends on its work budget is reproducible, says why options are
missing, and solver errors name a time limit only when one was set (no timing asserted)."""

from __future__ import annotations

import pytest

from bench.generate import generate
from solver.errors import SolverError
from solver.optimize import budget, pipeline
from solver.optimize.solve import available_solvers

pytestmark = pytest.mark.skipif("highs" not in available_solvers(), reason="needs HiGHS")


@pytest.fixture
def tiny_work(monkeypatch):
    """A work budget of a few search checkpoints and a clock that never binds, so the work
    budget, not the machine's speed, ends every solve."""
    monkeypatch.setattr(budget, "TICKS_PER_SECOND_AT_1000_ROWS", 0.05)


def _plan(wf, catalog):
    return pipeline.plan(wf, catalog, top=3, solver="highs", time_limit=600)


def test_work_limited_run_is_reproducible(tiny_work, default_catalog):
    wf = generate(60, 1)
    first, second = _plan(wf, default_catalog), _plan(wf, default_catalog)
    assert not any("wall clock" in n for n in first.notes), first.notes
    assert [o.total_cost for o in first.options] == [o.total_cost for o in second.options]
    assert first.options[0].servers == second.options[0].servers


def test_fewer_options_say_why(tiny_work, default_catalog):
    result = _plan(generate(60, 1), default_catalog)
    assert len(result.options) < 3
    assert f"{len(result.options)} of 3 options: the time limit ran out" in result.notes
    assert "no R20 reference configuration priced: the time limit ran out" in result.notes


def test_budget_without_limit_is_unlimited():
    clock = budget.Budget.start(None, rows=1000, replicas=100, top=3)
    assert clock.limits() == (None, None)
    assert clock.can_start("anything")


def test_absurd_prices_are_named_and_no_time_limit_is_invented(q3, default_catalog):
    def huge(items):
        return [i.model_copy(update={"price": 1e300}) for i in items]

    catalog = default_catalog.model_copy(update={
        "gpus": huge(default_catalog.gpus), "platforms": huge(default_catalog.platforms),
        "memory": huge(default_catalog.memory), "storage": huge(default_catalog.storage),
    })
    with pytest.raises(SolverError) as err:
        pipeline.plan(q3, catalog, top=1, solver="highs", with_baseline=False)
    message = str(err.value)
    assert "too large" in message and "1e+300" in message
    assert "time limit" not in message and "None" not in message


def test_no_plan_message_mentions_the_limit_only_when_set(default_catalog):
    without = pipeline._no_plan_message("highs", None, default_catalog)
    assert "time limit" not in without.replace("without a time limit", "")
    assert "None" not in without
    assert "within the time limit of 7 s" in pipeline._no_plan_message("cbc", 7.0,
                                                                       default_catalog)
