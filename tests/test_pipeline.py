"""The integer program on tiny instances whose optimum is known by hand.

Catalog (tests/solver_fixtures.py): GPUs small 24 GB $1000 (no NVLink), big 80 GB $10000;
platform box2 (2 PCIe slots, 2 channels, 4 DIMM slots, 2 bays) $2000; CPU node $500 (4
channels); DIMMs 32 GB $100, 64 GB $300; 4 TB drive $400. Headroom 20%, so a small GPU
holds 19.2 GB and the cheapest box2 (2 x 32 GB) holds 51.2 GB of host RAM.
Each test names the constraint it would catch if it were removed.
"""

from __future__ import annotations

import itertools
import math

import pytest
import solver_fixtures as fx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.check import check_plan
from solver.errors import InfeasibleError
from solver.optimize.pipeline import plan

CHEAPEST_BOX = 2000 + 2 * 100  # box2 with 2 x 32 GB


def run(wf, cat=None, **kw):
    kw.setdefault("with_baseline", False)
    kw.setdefault("top", 1)
    result = plan(wf, cat or fx.catalog(), **kw)
    for option in result.options:
        assert check_plan(option, wf, cat or fx.catalog()) == []
    return result


def test_fits_on_one_small_gpu(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(fx.workloads({"name": "a"}))
    assert r.status == "optimal"
    assert r.options[0].total_cost == CHEAPEST_BOX + 1000
    assert r.options[0].gpus_by_sku() == {"small": 1}


def test_vram_headroom_line_forces_two_gpus(monkeypatch):
    """R15: 30 GB does not fit 24 x 0.8; two small GPUs at 15 GB each beat one big GPU."""
    fx.install(monkeypatch, {"a": (30, 10)})
    r = run(fx.workloads({"name": "a"}))
    assert r.options[0].total_cost == CHEAPEST_BOX + 2 * 1000
    assert r.options[0].placements[0].gpus == 2


def test_pcie_cap_forbids_splitting_without_nvlink(monkeypatch):
    """R10: with a PCIe cap of 1 the small GPU (no NVLink) cannot split the job."""
    fx.install(monkeypatch, {"a": (30, 10)})
    r = run(fx.workloads({"name": "a"}, max_pcie_parallel_degree=1))
    assert r.options[0].gpus_by_sku() == {"big": 1}
    assert r.options[0].total_cost == CHEAPEST_BOX + 10000


def test_gpu_slots_spread_replicas_over_servers(monkeypatch):
    """Slots: three one-GPU replicas need two 2-slot servers."""
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(fx.workloads({"name": "a", "replicas": 3}))
    assert len(r.options[0].servers) == 2
    assert r.options[0].total_cost == 2 * CHEAPEST_BOX + 3 * 1000


def test_host_ram_picks_more_memory(monkeypatch):
    """R11/R12/R15: 60 GB of host RAM needs 128 GB installed (4 x 32 GB is cheapest)."""
    fx.install(monkeypatch, {"a": (15, 60)})
    r = run(fx.workloads({"name": "a"}))
    server = r.options[0].servers[0]
    assert (server.memory, server.dimm_count) == ("d32", 4)
    assert r.options[0].total_cost == 2000 + 400 + 1000


def test_host_ram_packing_uses_cuts_when_aggregate_lies(monkeypatch):
    """Host RAM per server: RAM summed over a type can fit while no packing does.

    Two 40 GB replicas and one 20 GB need 100 GB; one box2 with 4 x 32 GB (102.4 usable)
    fits the sum but any two 40 GB replicas plus... all three fit; with 45 GB replicas
    (90 + 20 = 110 > 102.4) the plan must buy a second server or bigger DIMMs.
    """
    fx.install(monkeypatch, {"a": (5, 45), "b": (5, 20)})
    wf = fx.workloads({"name": "a", "replicas": 2, "shareable": True},
                      {"name": "b", "shareable": True})
    r = run(wf)
    assert r.status == "optimal"
    assert check_plan(r.options[0], wf, fx.catalog()) == []


def test_shareable_jobs_share_one_gpu(monkeypatch):
    """R17: three 5 GB shareable replicas fit one small GPU (15 <= 19.2)."""
    fx.install(monkeypatch, {"a": (5, 1)})
    r = run(fx.workloads({"name": "a", "replicas": 3, "shareable": True}))
    assert r.options[0].gpus_by_sku() == {"small": 1}
    assert {p.gpu_indices for p in r.options[0].placements} == {(0,)}


def test_not_shareable_jobs_get_a_gpu_each(monkeypatch):
    fx.install(monkeypatch, {"a": (5, 1)})
    r = run(fx.workloads({"name": "a", "replicas": 3}))
    assert r.options[0].gpu_count == 3


def test_shared_vram_line_holds(monkeypatch):
    """R15 on shared GPUs: four 5 GB replicas exceed 19.2 GB, so two GPUs."""
    fx.install(monkeypatch, {"a": (5, 1)})
    r = run(fx.workloads({"name": "a", "replicas": 4, "shareable": True}))
    assert r.options[0].gpu_count == 2


def test_growth_sizes_for_next_half_year(monkeypatch):
    """R19: 2 replicas x growth 1.5 = 3 replicas planned."""
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(fx.workloads({"name": "a", "replicas": 2}, growth=1.5))
    assert len(r.options[0].placements) == 3


def test_storage_needs_drives_and_bays(monkeypatch):
    """Storage (O4): a 10 TB shared dataset needs 12.5 TB under the 20% headroom line, so
    four 4 TB drives; box2 has 2 bays, so a CPU node carries the other two."""
    fx.install(monkeypatch, {"a": (15, 10)})
    r = run(fx.workloads({"name": "a", "data": {"dataset_tb": 10, "storage": "shared"}}))
    o = r.options[0]
    assert r.status == "optimal"
    assert sum(s.drive_count for s in o.servers) == 4
    assert o.total_cost == CHEAPEST_BOX + 1000 + (500 + 4 * 100) + 4 * 400


def test_local_dataset_larger_than_any_server_is_infeasible(monkeypatch):
    """O4: a 10 TB local dataset needs 12.5 TB on every server running a replica; box2's two
    4 TB bays hold 6.4 TB under the line, so no plan exists, and the message says why."""
    fx.install(monkeypatch, {"a": (15, 10)})
    with pytest.raises(InfeasibleError) as info:
        run(fx.workloads({"name": "a", "data": {"dataset_tb": 10}}))
    text = "\n".join(info.value.problems)
    assert "a reads its 10 TB dataset locally" in text
    assert "6.4 TB under the headroom line" in text and "data.storage: shared" in text


def test_preprocess_runs_on_a_cpu_node(monkeypatch):
    """Preprocess uses no GPU and goes to the cheapest node with enough RAM."""
    fx.install(monkeypatch, {"prep": (0, 100)})
    r = run(fx.workloads({"name": "prep", "kind": "preprocess"}))
    assert [s.platform for s in r.options[0].servers] == ["cpu"]
    assert r.options[0].total_cost == 500 + 4 * 100


def test_budget_serves_most_priority(monkeypatch):
    """Budget: $3500 buys one GPU server, so the higher-priority job is served."""
    fx.install(monkeypatch, {"hi": (15, 10), "lo": (15, 10)})
    wf = fx.workloads({"name": "hi", "priority": 10}, {"name": "lo", "priority": 1},
                      budget=3500)
    r = run(wf)
    assert r.status == "optimal"
    assert r.options[0].unserved == ("lo",)
    assert r.options[0].total_cost <= 3500


def test_infeasible_names_the_workload_and_the_largest_option(monkeypatch):
    fx.install(monkeypatch, {"huge": (200, 10)})
    with pytest.raises(InfeasibleError) as err:
        run(fx.workloads({"name": "huge"}))
    text = str(err.value)
    assert "huge needs 100.0 GB per GPU" in text
    assert "64.0 GB (big 80 GB x 0.8)" in text


def test_top_k_options_are_distinct_and_ranked(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10), "b": (15, 10)})
    r = run(fx.workloads({"name": "a"}, {"name": "b"}), top=3, alternatives="gpu-mix")
    mixes = [tuple(sorted(o.gpus_by_sku().items())) for o in r.options]
    assert len(r.options) == 3
    assert len(set(mixes)) == 3
    costs = [o.total_cost for o in r.options]
    assert costs == sorted(costs)
    assert [o.rank for o in r.options] == [1, 2, 3]


# --- brute force -------------------------------------------------------------------------


def brute_force_cost(wf, cat, needs) -> float:
    """Cheapest plan by enumerating every set of up to 3 servers and every placement.

    Knows only the SPEC's rules: a replica on d GPUs (power of two, NVLink/PCIe caps) of one
    server, per-GPU need under the headroom line, GPU slots, host RAM under the line,
    DIMMs filling whole channels. Storage is zero in these instances.
    """
    pol = wf.policy
    shapes = []
    for p in cat.platforms:
        for m in cat.memory:
            if m.type != p.memory_type:
                continue
            for n in range(p.memory_channels, p.dimm_slots + 1, p.memory_channels):
                base = p.price + n * m.price
                ram = n * m.size_gb * (1 - pol.headroom)
                gpus = [g for g in cat.gpus if p.takes(g)] or [None]
                for g in gpus:
                    shapes.append((base, ram, g, p.gpu_slots if g else 0))
    replicas = [w for w in wf.workloads for _ in range(math.ceil(w.replicas * pol.growth - 1e-9))]
    best = math.inf
    for k in range(1, len(replicas) + 1):
        for combo in itertools.combinations_with_replacement(range(len(shapes)), k):
            servers = [shapes[i] for i in combo]
            choices = []
            for w in replicas:
                opts = []
                for si, (_, _, g, slots) in enumerate(servers):
                    if w.kind == "preprocess":
                        opts.append((si, 0))
                        continue
                    if g is None:
                        continue
                    for d in (1, 2, 4, 8):
                        if d > slots or d > pol.max_parallel_degree:
                            continue
                        if d > g.nvlink_gpus and d > pol.max_pcie_parallel_degree:
                            continue
                        if needs[w.name][0] / d <= g.vram_gb * (1 - pol.headroom) + 1e-9:
                            opts.append((si, d))
                choices.append(opts)
            for assign in itertools.product(*choices):
                used = [0] * len(servers)
                ram = [0.0] * len(servers)
                for w, (si, d) in zip(replicas, assign):
                    used[si] += d
                    ram[si] += needs[w.name][1] * max(d, 1) if d else needs[w.name][1]
                if any(u > s[3] for u, s in zip(used, servers)):
                    continue
                if any(r > s[1] + 1e-9 for r, s in zip(ram, servers)):
                    continue
                cost = sum(s[0] + (u * s[2].price if s[2] else 0) for u, s in zip(used, servers))
                best = min(best, cost)
    return best


job = st.tuples(
    st.sampled_from([5.0, 12.0, 18.0, 30.0, 60.0]),  # VRAM need at degree 1, GB
    st.sampled_from([4.0, 20.0, 45.0]),  # host RAM per GPU, GB
    st.integers(1, 2),  # replicas
    st.sampled_from(["inference", "preprocess"]),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs=st.lists(job, min_size=1, max_size=2), pcie=st.sampled_from([1, 2]))
def test_rank1_equals_brute_force_minimum(monkeypatch, jobs, pcie):
    """On instances small enough to enumerate, rank 1 is the true minimum; every plan checks."""
    if sum(r for _, _, r, _ in jobs) > 3:
        jobs = jobs[:1]
    needs = {f"j{i}": (v, r) for i, (v, r, _, _) in enumerate(jobs)}
    fx.install(monkeypatch, needs)
    wf = fx.workloads(*({"name": f"j{i}", "replicas": n, "kind": k}
                        for i, (_, _, n, k) in enumerate(jobs)), max_pcie_parallel_degree=pcie)
    cat = fx.catalog()
    expected = brute_force_cost(wf, cat, needs)
    if expected == math.inf:
        with pytest.raises(InfeasibleError):
            run(wf, cat)
        return
    r = run(wf, cat, top=2)
    assert r.options[0].total_cost == pytest.approx(expected)
    assert all(a.total_cost <= b.total_cost for a, b in zip(r.options, r.options[1:]))


def _gpu_and_ram_block_together(monkeypatch):
    """One 4-GPU box (409.6 GB usable); 3 x (1 GPU, 200 GB) and 2 x (2 GPUs, 10 GB)."""
    fx.install(monkeypatch, {"x": (10, 200), "y": (30, 5)})
    cat = fx.catalog(
        gpus=[{"sku": "small", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100,
               "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0, "price": 1000}],
        platforms=[{"sku": "box4", "gpu_slots": 4, "form_factors": ["pcie"], "dimm_slots": 2,
                    "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2,
                    "price": 2000}],
        memory=[{"sku": "d256", "type": "ddr4", "speed_mts": 3200, "size_gb": 256,
                 "price": 100}],
    )
    wf = fx.workloads({"name": "x", "replicas": 3}, {"name": "y", "replicas": 2})
    return cat, wf


def _patterns_only(monkeypatch):
    """The older path: no pattern-LP cuts, server patterns from a type's second failure."""
    monkeypatch.setattr("solver.optimize.tighten._pattern_cut", lambda *a: False)
    monkeypatch.setattr("solver.optimize.tuning.PATTERNS_AFTER", 2)


def test_pattern_lp_cut_when_ram_and_gpus_block_together(monkeypatch):
    """The same case by default: no server holds three of the five replicas (two 200 GB ones
    and a 2-GPU one need 410 > 409.6 GB; otherwise the slots), so the pattern-LP cut weighs
    each 1/2 and n ≥ 5/2: the program buys the third server without server patterns, proven
    optimal and equal to exhaustive search."""
    cat, wf = _gpu_and_ram_block_together(monkeypatch)
    import solver.optimize.rounds

    modelled = []
    real = solver.optimize.rounds.disaggregate
    monkeypatch.setattr(solver.optimize.rounds, "disaggregate",
                        lambda m, key, h: modelled.append(key) or real(m, key, h))
    r = run(wf, cat)
    assert not modelled
    assert r.status == "optimal"
    assert r.options[0].total_cost == 3 * (2000 + 2 * 100) + 7 * 1000
    assert r.options[0].total_cost == brute_force_cost(wf, cat, fx.NEEDS)


def test_server_patterns_when_ram_and_gpus_block_together(monkeypatch):
    """Sums and RAM cuts say two 4-GPU servers hold 3 x (1 GPU, 200 GB) + 2 x (2 GPUs, 10 GB);
    no packing does (400 + 10 > 409.6 GB usable), so the type is modelled by server patterns
    and the plan buys the third server, proven optimal and equal to exhaustive search."""
    cat, wf = _gpu_and_ram_block_together(monkeypatch)
    import solver.optimize.rounds

    _patterns_only(monkeypatch)
    modelled = []
    real = solver.optimize.rounds.disaggregate
    monkeypatch.setattr(solver.optimize.rounds, "disaggregate",
                        lambda m, key, h: modelled.append(key) or real(m, key, h))
    r = run(wf, cat)
    assert modelled, "the summed model should have failed to pack and been disaggregated"
    assert r.status == "optimal"
    assert len(r.options[0].servers) == 3
    assert r.options[0].total_cost == 3 * (2000 + 2 * 100) + 7 * 1000
    assert r.options[0].total_cost == brute_force_cost(wf, cat, fx.NEEDS)


def test_priced_patterns_when_enumeration_is_cut_short(monkeypatch):
    """With pattern enumeration capped at one pattern, patterns come from LP duals (column
    generation); the plan still packs server by server and matches exhaustive search."""
    cat, wf = _gpu_and_ram_block_together(monkeypatch)
    import solver.optimize.rounds

    _patterns_only(monkeypatch)
    priced = []
    real = solver.optimize.rounds.disaggregate

    def capped(m, key, h):
        done = real(m, key, h, limit=1)
        priced.extend(m.priced)
        return done

    monkeypatch.setattr(solver.optimize.rounds, "disaggregate", capped)
    r = run(wf, cat)
    assert priced, "the type should have been left to column generation"
    assert r.options[0].total_cost == brute_force_cost(wf, cat, fx.NEEDS)


def test_priority_phase_reads_the_maximisation_bound_right(monkeypatch):
    """PuLP hands HiGHS a maximisation negated: the bound must come back positive."""
    from solver.optimize.candidates import enumerate_candidates
    from solver.optimize.program import build, set_priority_objective
    from solver.optimize.solve import solve

    fx.install(monkeypatch, {"hi": (15, 10), "lo": (15, 10)})
    wf = fx.workloads({"name": "hi", "priority": 10}, {"name": "lo", "priority": 1},
                      budget=3500)
    cat = fx.catalog()
    m = build(wf, cat, enumerate_candidates(wf, cat), 3500)
    set_priority_objective(m)
    out = solve(m, "highs")
    assert out.status == "optimal"
    assert out.bound == pytest.approx(10)


def test_a_plain_highs_solve_earlier_in_the_process_does_not_stop_plan(monkeypatch):
    """HiGHS keeps one thread scheduler per process: after a plain HiGHS solve on two
    threads (another library, a notebook cell), every one-thread solve of plan-buy's was
    refused and the run ended "the program may be numerically unstable". The scheduler is
    now set up again and the solve run once more."""
    import highspy
    import pulp

    highspy.Highs.resetGlobalScheduler(True)  # as in a fresh process: the other caller is first
    other = pulp.LpProblem("other", pulp.LpMinimize)
    x = pulp.LpVariable("x", 0, cat="Integer")
    other += x
    other += x >= 1
    other.solve(pulp.HiGHS(msg=False, threads=2))
    assert other.sol_status == pulp.LpSolutionOptimal
    fx.install(monkeypatch, {"a": (5, 1)})
    r = run(fx.workloads({"name": "a", "replicas": 3, "shareable": True}))
    assert r.status == "optimal" and r.options[0].gpus_by_sku() == {"small": 1}
