"""The plan over time against the time brute force (``bench/bruteforce_time.py``) on seeded
tiny horizon files (``bench/tiny_horizon.py``: 1-3 runs, one-off or weekly, at random an
always-on service, cloud caps and minimum hours, a 7-day grid or ``rent: never``).

The run program buys each run server full (one configuration per platform and GPU SKU,
docs/solver.md) and rents no GPU of ``policy.exclude``: its rank-1 horizon cost equals the
exhaustive optimum in that reading, and is never below the optimum over every server the
catalog sells and every GPU it prices (where the two differ, the difference is what that
reading costs).
"""

from __future__ import annotations

import pytest

from bench.bruteforce_time import brute_force_time
from bench.tiny_horizon import tiny_horizon_instance
from solver.errors import InfeasibleError
from solver.optimize.runs.plan import plan_over_time

SEEDS = range(20)


@pytest.mark.parametrize("seed", SEEDS)
def test_rank1_horizon_cost_is_the_exhaustive_optimum(seed, default_catalog):
    wf, cat = tiny_horizon_instance(seed, default_catalog)
    exact = brute_force_time(wf, cat, full_servers=True, rent_excluded=False)
    if exact is None:
        with pytest.raises(InfeasibleError):
            plan_over_time(wf, cat, top=1, gap=1e-9, with_baseline=False)
        return
    option = plan_over_time(wf, cat, top=1, gap=1e-9, with_baseline=False).options[0]
    assert option.time is not None
    got = option.time.horizon_cost
    assert got == pytest.approx(exact, abs=0.01)
    assert got >= (brute_force_time(wf, cat) or 0.0) - 0.01
