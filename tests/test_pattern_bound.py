"""A bound for plans found on conservative server patterns (``bounds.pattern_bound``).

A type modelled by patterns counts each shared GPU at the most RAM a full one can need, so
its plans pack but the solve's bound proves nothing. Built afresh with each shared GPU a
kind of one GPU and no RAM (the replicas' RAM stays in the type's sum rows), the program is
a relaxation again, and its bound proves the plan.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize import pipeline
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.engines import available_solvers
from solver.optimize.program import build, disaggregate

ROOT = Path(__file__).resolve().parent.parent
MIX = ROOT / "tests" / "data" / "enterprise.yaml"
CATALOG = ROOT / "catalogs" / "default.yaml"
TYPE = "srv-4gpu-ddr4|a100-80g-pcie|ddr4-3200-32gx16"
"""The type of this mix that goes to patterns, with shared embedding replicas on it."""


def _program():
    wf, catalog = load_workloads(MIX), load_catalog(CATALOG)
    cand = enumerate_candidates(wf, catalog)
    return wf, build(wf, catalog, cand, None)


def test_optimistic_shared_gpus_keep_the_program_a_relaxation():
    wf, m = _program()
    assert disaggregate(m, TYPE, wf.policy)
    pm = m.patterns[TYPE]
    assert pm.shared_kind is not None and pm.kinds[pm.shared_kind][1] > 0
    assert not m.exact  # shared GPUs at the most RAM they can need: conservative

    wf, m = _program()
    assert disaggregate(m, TYPE, wf.policy, optimistic=True)
    pm = m.patterns[TYPE]
    assert pm.shared_kind is not None and pm.kinds[pm.shared_kind] == (1, 0.0, 0.0)  # cores
    assert m.exact


@pytest.mark.skipif("highs" not in available_solvers(), reason="needs HiGHS")
def test_a_plan_on_conservative_patterns_is_proven_afresh(monkeypatch):
    """Generated 10-workload mix, seed 7: rank 1 costs 1,276,080 and its packing rounds end
    on conservative patterns, whose solve proves nothing. The fresh program proves
    1,275,930.0: what is left of the gap, USD 150, is drives (whole per server, which only
    a program that is a relaxation could price, ``bounds.drive_bound``), and the note says
    so; without the fresh bound the plan stands further from what is proven (a gap of
    0.079% against 0.012%). enterprise.yaml showed this until the fabric had a price (N3:
    809,730 proven to 809,570.6 from 809,525); its rank 1, now 856,930, no longer ends on
    patterns. Figures before issue 37's estimates: 898,850 proven to 898,782 from 897,290
    on enterprise.yaml."""
    from bench.generate import generate

    wf, catalog = generate(10, 7), load_catalog(CATALOG)
    called: list[float | None] = []
    real = pipeline.pattern_bound
    monkeypatch.setattr(pipeline, "pattern_bound",
                        lambda *a, **k: called.append(real(*a, **k)) or called[-1])
    result = pipeline.plan(wf, catalog, top=1, with_baseline=False)
    assert called and called[-1] == pytest.approx(1_275_930.0, abs=0.1)
    assert result.options[0].total_cost == 1_276_080
    assert result.options[0].lower_bound == pytest.approx(1_275_930.0, abs=0.1)
    assert any("not proven optimal because of data drives" in n
               and "saves at most USD 150" in n for n in result.notes)

    monkeypatch.setattr(pipeline, "pattern_bound", lambda *args, **kwargs: None)
    without = pipeline.plan(wf, catalog, top=1, with_baseline=False)
    assert without.options[0].total_cost == 1_276_080
    assert without.status == "feasible" and without.gap > result.gap


def test_a_packed_plan_its_work_share_left_unproven_gets_one_more_solve(monkeypatch):
    """With the full-board rows in its program (there only on programs of over 2,000 rows;
    on this mix they spare rank 1 its patterns) and under --time-limit 60, a packed plan of
    rank 1's search whose work share (half of what is left, the rest kept for packing
    rounds) ended it 0.86% above its bound gets one more solve from that plan, with all
    the work left (``close``: 243 checkpoints where the halving gave 121; 131 and 65 before
    the fabric had a price, N3).

    Before issue 37's estimates that solve proved 898,850 (0.29% above its bound
    without it); since, rank 1's first solve already finds the cheapest plan, 856,930
    (809,730 before the fabric had a price, N3), and
    what is left of its gap is the drives (``test_a_plan_on_conservative_patterns_is_
    proven_afresh``), so the closing solve no longer changes the plan or its status. No
    shipped file or generated mix tried (10 workloads, seeds 1-17; 8, seeds 6-8, 19, 24)
    shows that effect now; this pins that the solve is made, with the work it is owed."""
    from solver.optimize import rounds
    from solver.optimize.program import assemble as building

    monkeypatch.setattr(building, "FULL_BOARD_MIN_ROWS", 0)
    wf, catalog = load_workloads(MIX), load_catalog(CATALOG)

    def run(close: bool):
        closing: list[bool] = []
        caps: list[int | None] = []
        with monkeypatch.context() as mp:
            worth = rounds._Search.worth_closing
            mp.setattr(rounds._Search, "worth_closing",
                       lambda self, *a: closing.append(worth(self, *a)) or closing[-1])
            solve = rounds.solve
            mp.setattr(rounds, "solve",
                       lambda *a, **k: caps.append(k.get("work_ticks")) or solve(*a, **k))
            if not close:
                real = rounds.solve_and_expand
                mp.setattr(pipeline, "solve_and_expand",
                           lambda *args: real(*args[:-1], replace(args[-1], close=False)))
            result = pipeline.plan(wf, catalog, top=1, time_limit=60, with_baseline=False)
        return result, closing, caps

    result, closing, caps = run(close=True)
    assert result.options[0].total_cost == 856_930
    assert closing.count(True) == 1

    without, never, plain = run(close=False)
    assert without.options[0].total_cost == 856_930 and never == []
    first = next(i for i, (a, b) in enumerate(zip(caps, plain, strict=False)) if a != b)
    assert (caps[first], plain[first]) == (243, 121)  # all the work left, not half of it
    # (131 and 65 before the fabric had a price, N3)
