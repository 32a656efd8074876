"""Alternatives within a cost slack (--alternatives kinds) on instances solved by hand.

Catalog: GPUs "cheap" (consumer, 24 GB, $1000, 450 W) and "dc" (48 GB, $1080, 300 W);
platforms box2 (2 slots, $2000, 500 W) and box4 (4 slots, $4600, 600 W), each with two
32 GB DIMMs ($100 each) at least. Four replicas of 15 GB and 10 GB of host RAM each:

    A  2 x box2 + 4 cheap   8,400  (cheapest)        2 servers, 2,800 W, spare 36 GB
    B  1 x box4 + 4 cheap   8,800  (+4.8%)           1 server,  2,400 W
    C  2 x box2 + 4 dc      8,720  (+3.8%)           2 servers, 2,200 W, spare 132 GB
    D  1 x box4 + 4 dc      9,120  (+8.6%: beyond a 5% slack)
"""

from __future__ import annotations

import pytest
import solver_fixtures as fx

from solver.check import check_plan
from solver.optimize import near_optimal, pipeline, tuning, wording
from solver.optimize.alternatives import DIRECTIONS

GPUS = [
    {"sku": "cheap", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100, "power_w": 450,
     "form_factor": "pcie", "nvlink_gbps": 0, "price": 1000, "consumer": True},
    {"sku": "dc", "vram_gb": 48, "mem_bw_gbps": 1000, "bf16_tflops": 100, "power_w": 300,
     "form_factor": "pcie", "nvlink_gbps": 0, "price": 1080},
]
PLATFORMS = [
    {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 4,
     "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000, "power_w": 500},
    {"sku": "box4", "gpu_slots": 4, "form_factors": ["pcie"], "dimm_slots": 4,
     "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 4600, "power_w": 600},
]
CHEAPEST = 8400


def run(wf, cat, only: str | None = None, monkeypatch=None, **kw):
    if only is not None:
        chosen = tuple(d for d in DIRECTIONS if d.key == only)
        monkeypatch.setattr(near_optimal, "directions", lambda policy=None: chosen)
    kw.setdefault("with_baseline", False)
    result = pipeline.plan(wf, cat, **kw)
    slack = kw.get("slack", 0.05)
    for option in result.options:
        assert check_plan(option, wf, cat) == []
        assert option.total_cost <= (1 + slack) * result.options[0].total_cost + 0.01
    return result


@pytest.fixture
def four(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    return fx.workloads({"name": "a", "replicas": 4, "shareable": False}), \
        fx.catalog(gpus=GPUS, platforms=PLATFORMS)


def _shape(option):
    return sorted((s.platform, s.gpu, s.gpu_count) for s in option.servers)


@pytest.mark.parametrize("direction, cost, shape", [
    ("servers", 8800, [("box4", "cheap", 4)]),
    ("consumer", 8720, [("box2", "dc", 2), ("box2", "dc", 2)]),
    ("power", 8720, [("box2", "dc", 2), ("box2", "dc", 2)]),
    ("vram", 8720, [("box2", "dc", 2), ("box2", "dc", 2)]),
])
def test_each_direction_picks_its_plan(four, monkeypatch, direction, cost, shape):
    wf, cat = four
    r = run(wf, cat, only=direction, monkeypatch=monkeypatch, top=2)
    assert r.options[0].total_cost == CHEAPEST and r.options[0].label == "cheapest"
    assert len(r.options) == 2
    alt = r.options[1]
    assert (alt.total_cost, _shape(alt)) == (cost, shape)
    assert alt.over_cheapest == pytest.approx(cost / CHEAPEST - 1)


# (direction, its figure, the best possible by hand, proven best). The bound of each solve,
# optimal, is its plan's value: f / step + (cost − 8,400) / 421 with S = 1.05 · 8,400 −
# 8,400 + 1 = 421. Counts round f ≥ step · (B − 1 + 1/421) up; W and GB keep its 1e-6 · B.
# The cheapest plan A's figure beside it: 2 servers, 4 consumer GPUs, 2,800 W, 36 GB spare.
@pytest.mark.parametrize("direction, value, best, proven, cheapest", [
    ("servers", 1, 1, True, 2),            # B = 1 + 400/421: ⌈0.952 + 0.002⌉ = 1
    ("consumer", 0, 0, True, 4),           # B = 320/421: ⌈−0.240 + 0.002⌉ = 0
    ("power", 2200, 100 * (22 + 320 / 421 - 1 + 1 / 421 - 1e-6 * (22 + 320 / 421)), False,
     2800),
    ("vram", 132, -10 * (-13.2 + 320 / 421 - 1 + 1 / 421 - 1e-6 * (13.2 - 320 / 421)),
     False, 36),                           # spare 4 · 48 − 4 · 15 GB; the most is sought
])
def test_each_alternative_says_the_best_possible_in_its_direction(four, monkeypatch,
                                                                  direction, value, best,
                                                                  proven, cheapest):
    """Each option's JSON ``direction``: its figure, the cheapest plan's, and the best
    figure any plan within the slack can reach there, from its search's bound
    (``least_in_direction``). Power and spare VRAM trade with the cost inside one step, so
    their bound leaves room (2,176 W against 2,200 W; the true best within 5% is this
    plan), counts do not."""
    r = run(*four, only=direction, monkeypatch=monkeypatch, top=2)
    assert r.options[0].direction is None and r.options[0].to_json()["direction"] is None
    fig = r.options[1].to_json()["direction"]
    assert fig["key"] == direction and fig["value"] == value
    assert fig["cheapest_value"] == cheapest
    assert fig["best_possible"] == pytest.approx(best, abs=1e-3)
    assert fig["proven_best"] is proven
    assert fig["better"] == ("higher" if direction == "vram" else "lower")


def test_the_terminal_says_what_each_alternative_gains_over_the_cheapest(four, monkeypatch):
    """B (one box4) beside A's two servers: the table shows the cost, this line the gain."""
    from solver.report.summary import render_plan_summary

    wf, cat = four
    text = render_plan_summary(run(wf, cat, only="servers", monkeypatch=monkeypatch, top=2),
                               cat, "t", width=100)
    assert ("In the direction each alternative pushes:\n"
            "  - option 2, fewest servers: 1 server against 2 servers for option 1 (the best "
            "possible)") in text


def test_a_plan_without_gpus_is_not_pushed_to_spare_vram(tmp_path, default_catalog):
    """A mix of preprocessing jobs: most spare VRAM would buy idle GPUs for it alone."""
    from solver.inputs.loading import load_workloads

    path = tmp_path / "etl.yaml"
    path.write_text("name: etl\nworkloads:\n  - {name: dedup, kind: preprocess, replicas: 3, "
                    "data: {in_memory_gb: 400}}\n")
    r = pipeline.plan(load_workloads(path), default_catalog, top=6, with_baseline=False)
    assert not any(s.gpu_count for o in r.options for s in o.servers)
    assert "most spare VRAM (the cheapest plan has no GPU)" in " ".join(r.notes)


def test_fewest_skus_drops_to_one_gpu_sku(monkeypatch):
    """small (24 GB, $1000) for a and big (80 GB, $10000) for b is cheapest (4 SKUs: box2,
    d32, small, big); within a 70% slack two bigs in the same box need 3 SKUs."""
    fx.install(monkeypatch, {"a": (15, 10), "b": (60, 10)})
    wf = fx.workloads({"name": "a", "shareable": False}, {"name": "b", "shareable": False})
    r = run(wf, fx.catalog(), only="skus", monkeypatch=monkeypatch, top=2, slack=0.7)
    assert r.options[0].gpus_by_sku() == {"small": 1, "big": 1}
    assert r.options[1].gpus_by_sku() == {"big": 2}
    assert (r.options[1].label, r.options[1].total_cost) == ("fewest SKUs", 22200)


def test_repeats_and_directions_without_gain_are_left_out_with_a_reason(four):
    wf, cat = four
    r = run(wf, cat, top=6)
    labels = [o.label for o in r.options]
    assert labels == ["cheapest", "no consumer GPUs", "fewest servers"]
    note = next(n for n in r.notes if n.startswith("alternatives within 5%"))
    assert f"fewest SKUs ({wording.AS_GOOD})" in note
    assert "lowest power, most spare VRAM (the same servers as the no consumer GPUs plan)" in note
    assert "3 of 6 options: every direction within 5% of the cheapest was tried" in r.notes


def test_slack_bounds_every_alternative(four):
    """With a 4% slack box4 + 4 cheap (+4.8%) is out of reach: fewest servers finds nothing
    better than the cheapest plan."""
    wf, cat = four
    r = run(wf, cat, top=6, slack=0.04)
    assert [o.label for o in r.options] == ["cheapest", "no consumer GPUs"]
    assert all(o.total_cost <= 1.04 * CHEAPEST for o in r.options)


def test_no_consumer_is_skipped_when_the_cheapest_has_none(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(fx.workloads({"name": "a"}), fx.catalog(), top=3)
    note = next(n for n in r.notes if n.startswith("alternatives within"))
    assert "no consumer GPUs (the cheapest plan has none)" in note


def test_gpu_mix_mode_keeps_the_ranked_mixes(four):
    wf, cat = four
    r = run(wf, cat, top=3, alternatives="gpu-mix", slack=1.0)
    assert [o.label for o in r.options] == ["cheapest", "next GPU mix", "next GPU mix"]
    mixes = {tuple(sorted(o.gpus_by_sku().items())) for o in r.options}
    assert len(mixes) == 3


def test_progress_is_told_each_stage_and_the_best_cost(four):
    wf, cat = four
    told = []
    run(wf, cat, top=2, progress=lambda stage, best: told.append((stage, best)))
    assert told[0] == ("candidates", None)
    assert ("the cheapest plan", None) in told
    assert ("option 2: fewest servers", CHEAPEST) in told


# Owning over one year at 876 per kW (0.10 per kWh, PUE 1, fully used): TCO = capex + 0.876 W.
#   A 8,400 + 2,452.8 = 10,852.8    B 8,800 + 2,102.4 = 10,902.4
#   C 8,720 + 1,927.2 = 10,647.2    D 9,120 + 1,576.8 = 10,696.8
TCO = {"kwh_price": 0.1, "years": 1, "pue": 1.0, "utilisation": 1.0}


def _owning(objective: str):
    return fx.workloads({"name": "a", "replicas": 4, "shareable": False}, tco=TCO,
                        objective=objective)


def test_lowest_tco_comes_first_under_the_capex_objective(monkeypatch):
    """With policy.tco, capex minimised: A is cheapest; within 5% of its capex C has the
    lowest TCO (D, lower still, costs 8.6% more to buy)."""
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(_owning("capex"), fx.catalog(gpus=GPUS, platforms=PLATFORMS), top=2)
    first, alt = r.options
    assert (first.label, first.total_cost) == ("cheapest", CHEAPEST)
    assert (alt.label, alt.total_cost) == ("lowest TCO", 8720)
    assert alt.own.tco == pytest.approx(10647.2)
    assert alt.over_cheapest == pytest.approx(8720 / CHEAPEST - 1)


def test_tco_objective_ranks_and_slacks_on_tco(monkeypatch):
    """Objective tco: rank 1 is C, labelled lowest TCO; the slack and over_cheapest are on
    TCO, so fewest servers is D (one server, TCO 0.5% over C) although it buys for 4.6% more;
    no lowest-TCO alternative is offered (rank 1 has it)."""
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(_owning("tco"), fx.catalog(gpus=GPUS, platforms=PLATFORMS), top=2)
    first, alt = r.options
    assert (first.label, first.total_cost) == ("lowest TCO", 8720)
    assert r.status == "optimal"
    assert (alt.label, alt.total_cost, _shape(alt)) == ("fewest servers", 9120,
                                                        [("box4", "dc", 4)])
    assert alt.over_cheapest == pytest.approx(10696.8 / 10647.2 - 1)


def test_notes_under_the_tco_objective_measure_the_slack_from_option_1s_tco(monkeypatch):
    """Under objective tco option 1 (C) is not the cheapest to buy (A is), so the notes say
    "within 5% of option 1's TCO" and "option 1 has none", never "the cheapest"."""
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(_owning("tco"), fx.catalog(gpus=GPUS, platforms=PLATFORMS), top=6)
    notes = " ".join(r.notes)
    assert "within 5% of option 1's TCO" in notes
    assert "no consumer GPUs (option 1 has none)" in notes
    assert "cheapest" not in notes


def test_each_alternative_searches_at_most_rank_1s_work(q3, default_catalog, monkeypatch):
    """Each direction's solves are capped at rank 1's ticks (deterministic work, not the
    clock): the plans stay checked and within the slack, rank 1 is unchanged, and a rerun
    returns the same alternatives."""
    from solver.optimize import bounds, rounded, rounds

    calls: list[tuple[int | None, int]] = []
    real = rounds.solve

    def counting(m, solver, *args, **kwargs):
        out = real(m, solver, *args, **kwargs)
        calls.append((kwargs.get("work_ticks"), out.ticks))
        return out

    for module in (rounds, rounded, bounds):  # every solve of an option's search
        monkeypatch.setattr(module, "solve", counting)
    first = run(q3, default_catalog, top=3)
    rank1 = sum(ticks for cap, ticks in calls if cap is None)
    capped = [cap for cap, _ in calls if cap is not None]
    assert first.options[0].total_cost == 604640  # 557,440 before the fabric had a price, N3
    # (562,190 before issue 37, memory modes)
    assert capped, "the alternatives' solves carry a work cap"
    assert all(cap <= max(tuning.MIN_ALTERNATIVE_TICKS, rank1) for cap in capped)
    again = run(q3, default_catalog, top=3)
    assert [(o.label, o.total_cost) for o in again.options] == \
        [(o.label, o.total_cost) for o in first.options]


def test_a_direction_beaten_by_another_plan_says_so(four):
    """A capped search that found nothing better than the cheapest plan (A, 2,800 W) is
    "no better plan found", and when another direction's plan is better in its direction
    the reason names it: the no-consumer-GPUs plan (C, 2,200 W) for lowest power."""
    from types import SimpleNamespace

    wf, cat = four
    r = run(wf, cat, top=3)
    assert [o.label for o in r.options] == ["cheapest", "no consumer GPUs", "fewest servers"]
    power = next(d for d in DIRECTIONS if d.key == "power")
    left_out = {wording.NOT_FOUND: ["lowest power"], wording.AS_GOOD: ["fewest SKUs"]}
    near_optimal.better_elsewhere(SimpleNamespace(options=list(r.options), catalog=cat),
                               [power], left_out, r.options[0])
    assert left_out == {
        wording.AS_GOOD: ["fewest SKUs"],
        "no better plan found within its share of the search; the no consumer GPUs plan is "
        "better in that direction": ["lowest power"]}


def test_rank_1s_lp_bound_does_not_bound_a_direction(monkeypatch):
    """A type left to column generation leaves rank 1's LP bound on the program (12,500, a
    cost). A direction's search must not read it as a bound on its own objective (a few
    servers plus a fraction): it would end on its first plan as if proven. Every bound a
    direction's search reports is at most its plan's value in that direction."""
    from test_pipeline import _gpu_and_ram_block_together, _patterns_only

    from solver.optimize import rounds

    cat, wf = _gpu_and_ram_block_together(monkeypatch)
    _patterns_only(monkeypatch)
    real_split = rounds.disaggregate
    monkeypatch.setattr(rounds, "disaggregate",
                        lambda m, key, h: real_split(m, key, h, limit=1))
    searches: list[tuple[float, float]] = []
    real = rounds.solve_and_expand

    def recording(m, *args):
        found = real(m, *args)
        out, exp, proven, _ = found
        value_of = args[-1].value_of
        if m.priced and exp is not None and proven is not None and value_of is not None \
                and m.prob.objective.constant:  # a direction's objective carries -L/S
            searches.append((proven, value_of(out, exp)))
        return found

    monkeypatch.setattr(near_optimal, "solve_and_expand", recording)
    run(wf, cat, top=3)
    assert searches, "the directions' searches ran on the priced program"
    assert all(proven <= value + 1e-6 for proven, value in searches), searches


@pytest.mark.parametrize("bound, least", [
    (5.13, 5),   # f + cost term ≥ 5.13 and the term is below 1: f > 4.13
    (5.0, 5),    # the term is at most 1 − 1/S, so f ≥ 4 + 1/S: f ≥ 5
    (4.99, 4),
    (-0.4, 0),   # counts are never negative
    (None, 0),   # without a bound, still f ≥ 0
])
def test_a_search_bound_proves_the_least_count(bound, least):
    """C* = 562,190 = L and a 5% slack: S = 28,110.5, so 1/S ≈ 3.6e-5 (by hand)."""
    from solver.optimize.alternatives import least_in_direction

    servers = next(d for d in DIRECTIONS if d.key == "servers")
    assert least_in_direction(servers, bound, 562190, 562190, 0.05) == least


def test_a_search_bound_proves_the_least_power_within_a_step():
    """Power is not counted whole: W ≥ 100 · (B − 1 + 1/S − ε), S = 28,110.5 (by hand:
    B = 239.5 gives 23,850 W less 2.4 W of tolerance, plus 1/S of a step); no bound, no
    claim."""
    from solver.optimize.alternatives import least_in_direction

    power = next(d for d in DIRECTIONS if d.key == "power")
    least = least_in_direction(power, 239.5, 562190, 562190, 0.05)
    assert least == pytest.approx(100 * (238.5 + 1 / 28110.5 - 239.5e-6))
    assert least_in_direction(power, None, 562190, 562190, 0.05) is None
    assert power.amount(2248.4, "USD") == "2,248 W"
    servers = next(d for d in DIRECTIONS if d.key == "servers")
    assert servers.amount(1, "USD") == "1 server" and servers.amount(2, "USD") == "2 servers"


def test_q3s_most_spare_vram_note_bounds_the_best_possible(q3, default_catalog,
                                                           monkeypatch):
    """Most spare VRAM alone on q3, with the full-board rows in its program (there only on
    programs of over 2,000 rows; they move the search): the capped search ends on 1,005.5 GB
    spare and its bound says no plan within 5% has more than 329 GB more (990.0 and 146 GB
    before the fabric had a price, N3). Uncapped, the solve's plan has RTX 4090
    workstations whose GPUs the shared replicas do not all fill, and expansion buys only
    the GPUs they fill (two 2-GPU ones shown): the plan shown has 990.0 GB, within 144 GB
    of its bound (120 GB before N3; figures since issue 37's estimates, 1,106.9 and
    1,130.9 GB before). So the uncapped option, too, says how far it is from the best
    possible instead of standing as its search's optimum (``near_optimal.Within.solved``
    measures the plan shown, not the solve's status)."""
    import re

    from solver.optimize.alternatives import spare_vram_gb
    from solver.optimize.program import assemble as building

    monkeypatch.setattr(building, "FULL_BOARD_MIN_ROWS", 0)  # its rows on, as at N >= 200
    r = run(q3, default_catalog, only="vram", monkeypatch=monkeypatch, top=2)
    capped = r.options[1]
    note = next(n for n in r.notes if n.startswith("most spare VRAM (within "))
    short = float(re.match(r"most spare VRAM \(within ([\d,]+) GB", note)[1].replace(",", ""))
    assert note.endswith("how far the best possible within 5% of the cheapest can be is "
                         "proven by its search's bound")
    assert spare_vram_gb(capped, default_catalog) == pytest.approx(1005.51, abs=0.01)
    assert short == 329
    fig = capped.direction
    assert fig is not None and not fig.proven_best
    assert fig.value == pytest.approx(spare_vram_gb(capped, default_catalog))
    assert fig.best_possible == pytest.approx(fig.value + short, abs=0.5)
    assert fig.best_possible >= 1086.01  # the solve's optimum below

    monkeypatch.setattr(tuning, "ALTERNATIVE_WORK", 1e6)
    monkeypatch.setattr(tuning, "ALTERNATIVE_GAP", 1e-6)
    uncapped = run(q3, default_catalog, top=2)
    shown = uncapped.options[1]
    assert shown.label == "most spare VRAM"
    assert spare_vram_gb(shown, default_catalog) == pytest.approx(990.01, abs=0.01)
    assert any(n.startswith("most spare VRAM (within 144 GB of the best possible)")
               for n in uncapped.notes)
    assert shown.direction is not None and not shown.direction.proven_best
    assert shown.direction.best_possible >= 1086.01  # as before N3
    rtx = [s for s in shown.servers if s.gpu == "rtx-4090"]
    assert sorted(s.gpu_count for s in rtx) == [2, 2]  # only the GPUs the replicas fill


def test_a_capped_fewest_servers_search_is_proven_in_its_direction(default_catalog, monkeypatch):
    """A capped fewest-servers search that ends on 5 servers: its bound says no plan within
    5% has fewer, which an uncapped min Σ n over the same slack confirms, so the note claims
    the count and not the cost (the no-consumer-GPUs option is its search's optimum, with
    no note). With the full-board rows on, as in the test above.

    On a generated 8-workload mix, seed 95: its capped search ends on 7 servers (the
    cheapest plan has 14). q3 showed this until issue 37's estimates moved its plans, then
    workloads/deadlines.yaml (5 servers, the cheapest 14) until the fabric had a price
    (N3): deadlines' capped search now ends "within 3 servers of the best possible"."""
    import math

    import pulp

    from bench.generate import generate
    from solver.optimize.alternatives import define_cost_slack
    from solver.optimize.candidates import enumerate_candidates
    from solver.optimize.program import assemble as building
    from solver.optimize.program import build
    from solver.optimize.solve import solve

    wf = generate(8, 95)
    monkeypatch.setattr(building, "FULL_BOARD_MIN_ROWS", 0)  # as in the test above
    r = run(wf, default_catalog, top=3)
    assert [o.label for o in r.options] == ["cheapest", "no consumer GPUs", "fewest servers"]
    fewest = next(o for o in r.options if o.label == "fewest servers")
    proven = next(n for n in r.notes if "proven by its search's bound" in n)
    assert proven.startswith("fewest servers: no plan within 5% of the cheapest does "
                             "better in that direction")
    assert not any("a better one in that direction may exist" in n for n in r.notes)
    assert not any(n.startswith("no consumer GPUs") for n in r.notes)

    m = build(wf, default_catalog, enumerate_candidates(wf, default_catalog), None)
    define_cost_slack(m, r.options[0].total_cost, 0.05)
    m.prob.setObjective(pulp.lpSum(m.n.values()))
    out = solve(m, "highs", None, 1e-6)
    assert out.bound is not None
    assert math.ceil(out.bound - 1e-6) == len(fewest.servers) == 7
    assert fewest.to_json()["direction"] == {
        "key": "servers", "value": 7, "unit": "server", "better": "lower",
        "best_possible": 7, "proven_best": True, "cheapest_value": 14}


@pytest.mark.parametrize("bound, short", [
    (None, None),        # no bound: "within 6 servers" would only say there is a plan
    (0.5, None),         # proves at least ⌈−0.5 + 1/S − ε⌉ = 0 servers: nothing
    (1.5, 5.0),          # at least ⌈0.5 + 1/S − ε⌉ = 1: within 5 servers
    (5.5, 1.0),          # at least ⌈4.5⌉ = 5: within 1 server
    (6.5, 0.0),          # at least 6: the best there is
])
def test_a_count_claims_a_distance_only_when_its_bound_proves_more_than_none(bound, short):
    """A 6-server option: its search's bound B proves at least ⌈B − 1 + 1/S − ε⌉ servers
    (S = 1.05 · 1,000 − 1,000 + 1 = 51). A floor of 0 proves nothing of the plan: no
    distance is claimed (a generated 8-workload mix said "within 6 servers of the best
    possible" on a 6-server plan)."""
    from solver.plan_types import PlanOption, Server

    servers = tuple(Server(f"s{i}", "box", None, 0, "d32", 2, None, 0) for i in range(6))
    option = PlanOption(rank=2, total_cost=1000.0, servers=servers, lines=(), placements=())
    within = near_optimal.Within(1000.0, 1000.0, 0.05, 60, 1e-3)
    fewest = next(d for d in DIRECTIONS if d.key == "servers")
    assert within.short_of_best(fewest, option, None, bound) == short


def test_a_repaired_optimum_claims_nothing_and_a_beaten_option_is_left_out(default_catalog,
                                                                          monkeypatch):
    """Generated 8-workload mixes, where ``bench/claims.py`` found notes the plans
    contradict (seed 6 showed both until issue 37's estimates moved its plans; now seed 98
    shows the first, seed 90 the second: seed 92 showed it until the fabric had a price,
    N3, and now leaves fewest servers out as beaten by its fewest SKUs plan). Seed 98: the
    no-consumer search proves its optimum, a plan that does not pack; repaired, it is no better than the cheapest plan,
    and the note must not say "the cheapest plan is already as good" (from the solve's
    status) while the fewest-servers plan shown beside it has fewer consumer GPUs. Seed 90:
    the capped fewest-servers search ends on more servers than the lowest-power plan has."""
    from bench.generate import generate

    judged = []
    real = near_optimal._judge
    monkeypatch.setattr(near_optimal, "_judge", lambda run, within, d, out, exp, *rest:
                        judged.append((d.key, out.status, exp and exp.repaired))
                        or real(run, within, d, out, exp, *rest))
    by_key = {d.key: d for d in DIRECTIONS}

    def shown_unbeaten(r):
        for option in r.options[1:]:  # none is beaten in its own direction by another shown
            d = by_key[option.direction.key]
            assert all(d.measure(other, default_catalog) >= d.measure(option, default_catalog)
                       for other in r.options[1:])

    r = run(generate(8, 98), default_catalog, top=6)
    assert ("consumer", "optimal", 1) in judged  # proven, then repaired
    assert [o.label for o in r.options] == ["cheapest", "fewest SKUs", "fewest servers",
                                            "lowest power", "most spare VRAM"]
    left_out = next(n for n in r.notes if n.startswith("alternatives within 5%"))
    assert wording.AS_GOOD not in left_out
    assert ("no consumer GPUs (no better plan found within its share of the search; the "
            "fewest servers plan is better in that direction)") in left_out
    shown_unbeaten(r)

    r = run(generate(8, 90), default_catalog, top=6)
    assert [o.label for o in r.options] == ["cheapest", "fewest SKUs", "no consumer GPUs",
                                            "most spare VRAM", "lowest power"]
    left_out = next(n for n in r.notes if n.startswith("alternatives within 5%"))
    assert ("fewest servers (the lowest power plan is better in that direction than its "
            "own search's plan)") in left_out
    fewest = by_key["servers"]
    power = next(o for o in r.options if o.label == "lowest power")
    assert fewest.measure(power, default_catalog) < fewest.measure(r.options[0],
                                                                   default_catalog)
    shown_unbeaten(r)


def test_drives_moved_between_the_same_servers_are_one_purchase():
    """Two options whose servers differ only in which of them carries the drives buy the
    same bill of materials: one purchase, shown once (a TCO mix under a budget showed
    "fewest consumer GPUs" and "lowest power" at USD 45,940 each, a CPU node's 3 or 4
    drives and a workstation's 2 or 0). Another drive count, another GPU or an owned server
    in place of a bought one is another plan."""
    from dataclasses import replace

    from solver.optimize.alternatives import server_key
    from solver.plan_types import PlanOption, Server

    def option(*servers: Server) -> PlanOption:
        return PlanOption(rank=2, total_cost=1000.0, servers=servers, lines=(), placements=())

    node = Server("s1", "cpu-node-ddr5", None, 0, "ddr5-4800-128g", 24, "nvme-m2-2t", 3)
    ws = Server("s2", "ws-2gpu-ddr4", "a100-40g", 1, "ddr4-3200-32g", 8, "nvme-m2-2t", 2)
    moved = (replace(node, drive_count=5), replace(ws, storage=None, drive_count=0))
    assert server_key(option(node, ws)) == server_key(option(*moved))
    assert server_key(option(node, ws)) == server_key(option(ws, node))
    for other in (replace(ws, drive_count=1), replace(ws, gpu="l40s"), replace(ws, owned=True),
                  replace(ws, storage="nvme-u2-3.84t")):
        assert server_key(option(node, ws)) != server_key(option(node, other))
