"""Alternatives begun ahead of their turn, and repairs that cost nothing.

The next direction's first solve is built before the current direction's rounds and runs
on a spare core meanwhile (``solve.Started``). On a machine without one it runs at its
turn: the same program, start and work limit, so the same plan. A packing repair that
leaves what the program minimises unchanged ends the rounds (``plan_value.repaired_free``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize import bounds, near_optimal, pipeline, plan_value, rounded, rounds, tighten
from solver.optimize.alternatives import server_key
from solver.optimize.budget import Budget
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.engines import available_solvers, make_engine
from solver.optimize.outcome import Outcome
from solver.optimize.program import build
from solver.optimize.search_options import SearchOptions
from solver.result import SolveStatus

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "catalogs" / "default.yaml"


def _plan(name: str, monkeypatch, spare: bool):
    monkeypatch.setattr(near_optimal, "spare_core", lambda: spare)
    wf = load_workloads(ROOT / "workloads" / f"{name}.yaml")
    return pipeline.plan(wf, load_catalog(CATALOG), top=3, with_baseline=False)


# How many options each file gives at top 3: since issue 37's estimates q3's fewest-servers
# search (9 servers) is beaten by its no-consumer-GPUs plan (8) and left out, so 2; every
# direction is still tried, each begun ahead of its turn while two options are wanted.
@pytest.mark.parametrize("name, options", [("q3", 2), ("deadlines", 3)])
def test_the_same_options_with_or_without_a_spare_core(name, options, monkeypatch):
    one = _plan(name, monkeypatch, spare=False)
    two = _plan(name, monkeypatch, spare=True)
    assert len(one.options) == options
    assert [(o.label, o.total_cost, server_key(o)) for o in one.options] == \
        [(o.label, o.total_cost, server_key(o)) for o in two.options]
    assert one.notes == two.notes


def test_q3_second_option_has_no_consumer_gpus(monkeypatch):
    """The no-consumer direction, begun from the cheapest plan, still reaches zero consumer
    GPUs (at half its work it stopped at 'fewest consumer GPUs', USD 582,830). USD 609,400
    (563,940 before the fabric had a price, N3; 568,690 before issue 37's estimates);
    fewest servers, beaten by this plan's 7 servers, is left out."""
    result = _plan("q3", monkeypatch, spare=True)
    labels = [o.label for o in result.options]
    assert labels == ["cheapest", "no consumer GPUs"]
    assert result.options[1].total_cost == 609_400
    assert result.options[1].to_json()["direction"]["value"] == 0


def _small_program():
    wf = load_workloads(ROOT / "workloads" / "small.yaml")
    catalog = load_catalog(CATALOG)
    cand = enumerate_candidates(wf, catalog)
    return wf, catalog, cand, build(wf, catalog, cand, None)


SEARCH = (rounds, rounded, bounds)
"""The modules whose solves and expansions are an option's search."""


def _patch_search(monkeypatch, name: str, wrapped) -> None:
    """``name`` (solve or expand) replaced by ``wrapped(real)`` wherever the search calls it."""
    real = getattr(rounds, name)
    for module in SEARCH:
        monkeypatch.setattr(module, name, wrapped(real))


def _count_solves(monkeypatch) -> list[Outcome]:
    seen: list[Outcome] = []

    def counting(real):
        return lambda *args, **kwargs: seen.append(real(*args, **kwargs)) or seen[-1]

    _patch_search(monkeypatch, "solve", counting)
    return seen


def _failing_expand(monkeypatch, extra: float) -> None:
    """Every expansion reports a type that needed repair, at ``extra`` over the program."""
    def failing(real):
        def expand(out, cand, wf, catalog):
            exp = real(out, cand, wf, catalog)
            return replace(exp, failed_types=(min(k for k, v in out.n.items() if v),),
                           cost=exp.cost + extra)
        return expand

    _patch_search(monkeypatch, "expand", failing)


def test_a_repair_that_costs_nothing_ends_the_rounds(monkeypatch):
    """small.yaml's plan, every expansion made to report a type repaired at no extra cost:
    one solve, and its plan (USD 17,790, one server; 16,940 on two before the fabric had a
    price, N3) kept."""
    wf, catalog, cand, m = _small_program()
    solves = _count_solves(monkeypatch)
    _failing_expand(monkeypatch, extra=0.0)
    out, exp, _, _ = rounds.solve_and_expand(
        m, cand, wf, catalog, "highs", Budget.start(None, m.size, 1, 1),
        SearchOptions(1e-4, value_of=lambda o, e: e.cost - e.drive_extra))
    assert len(solves) == 1
    assert out.status == SolveStatus.OPTIMAL
    assert exp.failed_types and exp.cost == 17_790


def test_a_repair_that_costs_more_goes_on_to_a_round_of_cuts(monkeypatch):
    wf, catalog, cand, m = _small_program()
    _failing_expand(monkeypatch, extra=100.0)
    cuts = []
    monkeypatch.setattr(tighten, "_cuts_off_plan",
                        lambda m, key, wf: cuts.append(key) or False)
    rounds.solve_and_expand(
        m, cand, wf, catalog, "highs", Budget.start(None, m.size, 1, 1),
        SearchOptions(1e-4, value_of=lambda o, e: e.cost - e.drive_extra))
    assert cuts, "a repair that costs more than the program said must tighten the program"


def test_repaired_free_compares_with_the_solves_own_objective():
    out = Outcome(SolveStatus.OPTIMAL, 1000.0, 1000.0, 0.0, 0.1, {}, {}, {}, {}, {})
    assert plan_value.repaired_free(out, None, lambda o, e: 1000.0)
    assert not plan_value.repaired_free(out, None, lambda o, e: 1000.01)
    assert not plan_value.repaired_free(out, None, lambda o, e: None)  # objective tco
    assert not plan_value.repaired_free(out, None, None)


@pytest.mark.skipif("cbc" not in available_solvers(), reason="needs CBC")
@pytest.mark.parametrize(("name", "labels"), [
    # medium since the fabric had a price (N3; "lowest power" third before): no consumer
    # GPUs left out (the cheapest plan has none), fewest SKUs not proven (still aimed at
    # more than once: begun ahead of its turn, then at it)
    ("medium", ["cheapest", "fewest SKUs", "fewest servers"]),
    ("q3", ["cheapest", "no consumer GPUs", "fewest servers"]),
])
def test_cbc_plans_three_options(name, labels):
    """CBC reads the program from an MPS file, where a column no row holds any more is an
    error: the fewest-SKUs flags, made again each time that direction was aimed at (its
    first solve begun ahead, then its turn), and the binaries of dropped disk-choice cuts
    (q3's rank 1) had been left behind."""
    wf = load_workloads(ROOT / "workloads" / f"{name}.yaml")
    result = pipeline.plan(wf, load_catalog(CATALOG), top=3, solver="cbc", with_baseline=False)
    assert [o.label for o in result.options] == labels
    assert result.status == "optimal"


def _market_split(seed: int = 3, n: int = 18):
    """Three random equality rows over binaries, feasible by construction: HiGHS searches a
    few hundred checkpoints before it finds any plan."""
    import random

    import pulp

    rng = random.Random(seed)
    chosen = [rng.random() < 0.5 for _ in range(n)]
    prob = pulp.LpProblem("market_split", pulp.LpMinimize)
    x = [pulp.LpVariable(f"x{i}", cat="Binary") for i in range(n)]
    for j in range(3):
        a = [rng.randint(0, 99) for _ in range(n)]
        prob += pulp.lpSum(ai * xi for ai, xi in zip(a, x, strict=True)) == sum(
            ai for ai, c in zip(a, chosen, strict=True) if c), f"row_{j}"
    prob += pulp.lpSum(x)
    return prob


@pytest.mark.skipif("highs" not in available_solvers(), reason="needs HiGHS")
def test_a_held_plan_lets_the_work_limit_end_a_search_that_has_none():
    """The work limit waits for the search's first plan; ``bare_ticks`` (the caller holds a
    plan) ends a search that has none by then."""
    searching = make_engine("highs", 60, 1e-4, work_ticks=1)
    prob = _market_split()
    prob.solve(searching)
    assert searching.ticks > 20 and prob.sol_status > 0  # searched on to a plan

    holding = make_engine("highs", 60, 1e-4, work_ticks=1, bare_ticks=5)
    prob = _market_split()
    prob.solve(holding)
    assert holding.ticks == 5 and prob.sol_status <= 0  # stopped with no plan of its own


@pytest.mark.parametrize("shown", [True, False])
def test_a_round_after_a_plan_that_could_be_shown_ends_with_the_options_work(shown,
                                                                              monkeypatch):
    """An alternative's later rounds searched on for any plan when cuts had cut off the
    last one: on a generated 10-workload mix 99 and 83 checkpoints past a share of 1, the
    option's cap long spent, with a repaired plan within the slack in hand. They now end
    when the option's work is spent if the plan in hand could be shown (``shown``), and
    search on as before when not."""
    wf, catalog, cand, m = _small_program()
    bare: list[int | None] = []
    spent: list[int] = []
    def recording(real):
        def solve(*args, **kwargs):
            bare.append(kwargs.get("bare_ticks"))
            out = real(*args, **kwargs)
            spent.append(out.ticks)
            return out
        return solve

    _patch_search(monkeypatch, "solve", recording)
    _failing_expand(monkeypatch, extra=100.0)
    monkeypatch.setattr(tighten, "_cuts_off_plan", lambda m, key, wf: True)
    rounds.solve_and_expand(
        m, cand, wf, catalog, "highs", Budget.start(None, m.size, 1, 1),
        SearchOptions(1e-4, loose=False, cap=1000,
                             value_of=lambda o, e: e.cost - e.drive_extra,
                             shown=lambda o, e: shown))
    assert len(bare) >= 2 and bare[0] is None  # no plan in hand before the first round
    for i in range(1, len(bare)):
        assert bare[i] == (1000 - sum(spent[:i]) if shown else None)


@pytest.mark.skipif("highs" not in available_solvers(), reason="needs HiGHS")
def test_a_direction_over_the_slack_once_packed_searches_again_below_it(monkeypatch):
    """Generated 10-workload mix, seed 5: the fewest-servers direction, pushed to the edge
    of the 5% slack, found a plan that cost USD 976.5 over the slack once packed, and was
    left out. Searched again with that room kept below the slack, it finds one of
    1,200,660 (8 servers, the cheapest 16) within it. (Seed 9's lowest-power direction
    showed this, USD 348 over, until the fabric had a price, N3, and seed 8's
    fewest-servers direction before issue 37's estimates; both now stay within the slack
    at once.)"""
    from bench.generate import generate

    over = []
    real = near_optimal.Within.over
    monkeypatch.setattr(near_optimal.Within, "over",
                        lambda self, *args: over.append(real(self, *args)) or over[-1])
    wf = generate(10, 5)
    result = pipeline.plan(wf, load_catalog(CATALOG), top=3, with_baseline=False)
    cheapest = result.options[0].total_cost
    fewest = [o for o in result.options if o.label == "fewest servers"]
    assert cheapest == 1_162_070
    assert [round(x) for x in over if x > 0] == [976]  # the first search; the second is within
    assert len(fewest) == 1 and fewest[0].total_cost == 1_200_660 <= 1.05 * cheapest
    assert len(fewest[0].servers) < len(result.options[0].servers)
