"""Random realistic small mixes through the whole CLI: exit 0 or 3, never 5, no traceback.

Workloads are drawn the way bench/generate.py draws them (kinds, presets, batches, data);
the policy is random too (headroom, growth, parallel caps, an optional budget), so some
mixes are infeasible and must say why (exit 3). Every option the CLI reports is checked
again by the independent plan checker.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from unittest import mock

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import main
from solver.check import check_plan
from solver.optimize import pipeline

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.generate import _draw

DEGREES = (1, 2, 4, 8)


@st.composite
def mixes(draw) -> dict:
    """A workload file as a user would write it: 1-6 drawn workloads and a random policy."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 6))
    policy = {
        "headroom": draw(st.sampled_from((0.0, 0.1, 0.2, 0.3, 0.5))),
        "growth": draw(st.sampled_from((1.0, 1.25, 1.5, 2.0))),
        "max_parallel_degree": draw(st.sampled_from(DEGREES)),
        "max_pcie_parallel_degree": draw(st.sampled_from(DEGREES)),
    }
    budget = draw(st.none() | st.sampled_from((20_000, 100_000, 400_000, 2_000_000)))
    if budget is not None:
        policy["budget"] = budget
    return {"name": "random-mix", "policy": policy, "workloads": [_draw(rng, i) for i in range(n)]}


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mix=mixes())
def test_random_mix_plans_or_says_why(tmp_path, mix):
    path = tmp_path / "mix.yaml"
    path.write_text(yaml.safe_dump(mix, sort_keys=False), encoding="utf-8")
    seen: list = []
    real_plan = pipeline.plan

    def plan_and_keep(wf, catalog, **kw):
        result = real_plan(wf, catalog, **kw)
        seen.append((result, wf, catalog))
        return result

    with mock.patch.object(pipeline, "plan", plan_and_keep):
        result = CliRunner().invoke(main, ["plan", str(path), "--json", "--no-workbook",
                                           "--top", "1"])
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    assert "Traceback" not in output
    assert result.exit_code in (0, 3), output
    if result.exit_code == 3:
        assert "To fix:" in output or "no plan" in output, output
        return
    doc = json.loads(result.stdout)
    assert len(doc["options"]) == 1
    # The plan; under a budget that leaves work out, also the full plan (full_plan_cost).
    assert len(seen) == 1 + ("full_plan_cost" in doc)
    for plan_result, wf, catalog in seen:
        for option in plan_result.options:
            assert check_plan(option, wf, catalog) == [], option.rank
            budget = wf.policy.budget
            assert budget is None or option.total_cost <= budget + 0.01
