"""Bills of materials a vendor can quote: allowed SKUs and O1 GPU counts (hand-solved).

Catalog (tests/solver_fixtures.py): GPUs small 24 GB $1000, big 80 GB $10000; platform box2
(2 PCIe slots, 2 channels, 4 DIMM slots, 2 bays) $2000; CPU node $500 (4 channels); DIMMs
32 GB $100, 64 GB $300; 4 TB drive $400. Headroom 20%. Each test names the constraint it
catches if that constraint is removed.
"""

from __future__ import annotations

import math

import pytest
import solver_fixtures as fx
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bench import bruteforce
from solver.check import check_plan
from solver.errors import InfeasibleError, InputError
from solver.optimize.pipeline import plan
from solver.rules.cores import replica_cores

CHEAPEST_BOX = 2000 + 2 * 100  # box2 with 2 x 32 GB
SMALL = {"sku": "small", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100,
         "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0, "price": 1000}


def box(sku: str, slots: int, price: float, **extra) -> dict:
    return {"sku": sku, "gpu_slots": slots, "form_factors": ["pcie"], "dimm_slots": 4,
            "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": price,
            **extra}


def assert_rank1_is_bruteforce(r, wf, expected):
    """Rank 1 against the exhaustive optimum: equal whenever it says ``optimal``, and it
    must say so unless a shareable job is involved (a shared GPU's RAM and cores are then
    reserved conservatively once the type is modelled by patterns, so the plan may only be
    'feasible'); never cheaper than the optimum."""
    cost = r.options[0].total_cost
    assert cost >= expected - 1e-6
    if not any(w.shareable for w in wf.workloads):
        assert r.status == "optimal"
    if r.status == "optimal":
        assert cost == pytest.approx(expected)


def run(wf, cat, **kw):
    kw.setdefault("with_baseline", False)
    kw.setdefault("top", 1)
    result = plan(wf, cat, **kw)
    for option in result.options:
        assert check_plan(option, wf, cat) == []
    return result


# --- allowed SKUs ------------------------------------------------------------------------


def test_excluded_dimm_is_never_bought(monkeypatch):
    """Allowed SKUs (candidate filter): without 32 GB DIMMs the box takes 2 x 64 GB."""
    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog()
    r = run(fx.workloads({"name": "a"}, exclude=["d32"]), cat)
    assert r.status == "optimal"
    assert r.options[0].total_cost == 2000 + 2 * 300 + 1000
    assert {s.memory for s in r.options[0].servers} == {"d64"}


def test_excluded_gpu_and_platform(monkeypatch):
    """Allowed SKUs: with 'small' excluded the job runs on 'big'; without box2, nowhere."""
    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog()
    r = run(fx.workloads({"name": "a"}, exclude=["small"]), cat)
    assert r.options[0].gpus_by_sku() == {"big": 1}
    with pytest.raises(InfeasibleError):
        run(fx.workloads({"name": "a"}, exclude=["box2"]), cat)


def test_excluded_drive_is_never_bought(monkeypatch):
    """Allowed SKUs (define_storage): the 4 TB drive excluded, 2 TB drives carry the data."""
    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog(storage=[{"sku": "ssd4", "size_tb": 4, "price": 400},
                              {"sku": "ssd2", "size_tb": 2, "price": 300}])
    r = run(fx.workloads({"name": "a", "data": {"dataset_tb": 3}}, exclude=["ssd4"]), cat)
    assert {s.storage for s in r.options[0].servers if s.drive_count} == {"ssd2"}
    assert r.options[0].total_cost == CHEAPEST_BOX + 1000 + 2 * 300


def test_checker_rejects_an_excluded_sku(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog()
    wf = fx.workloads({"name": "a"})
    option = run(wf, cat).options[0]
    banned = fx.workloads({"name": "a"}, exclude=["small"])
    assert any("excludes" in p for p in check_plan(option, banned, cat))


def test_exclude_written_as_one_sku_asks_for_a_list():
    """policy.exclude is a list; a lone SKU is refused with the list to write instead."""
    with pytest.raises(ValidationError, match=r"not a list.*\[small\]"):
        fx.workloads({"name": "a"}, exclude="small")


def test_unknown_excluded_sku_names_the_closest(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    with pytest.raises(InputError) as err:
        run(fx.workloads({"name": "a"}, exclude=["smal"]), fx.catalog())
    assert "did you mean small" in str(err.value)


def test_cli_exclude_adds_to_the_policy_and_unknown_exits_2(root):
    from cli import main

    q3 = str(root / "workloads" / "q3.yaml")
    bad = CliRunner().invoke(main, [q3, "--no-workbook", "--exclude", "rtx-4091"])
    assert bad.exit_code == 2
    assert "did you mean rtx-4090" in bad.output
    ok = CliRunner().invoke(main, [q3, "--no-workbook", "--json", "--top", "1",
                                   "--exclude", "rtx-4090", "--exclude", "ddr4-3200-32g"])
    assert ok.exit_code == 0, ok.output
    import json

    skus = {ln["sku"] for ln in json.loads(ok.stdout)["options"][0]["lines"]}
    assert not skus & {"rtx-4090", "ddr4-3200-32g"}


# --- O1 GPU counts -----------------------------------------------------------------------


def test_whole_board_is_paid_so_a_one_slot_box_wins(monkeypatch):
    """O1 (define_fixed_gpu_counts): box2 is sold only with 2 GPUs, so one 1-GPU replica
    costs 2200 + 2 x 1000 there; a 1-slot box at 2600 + 1000 is cheaper. Without the
    constraint the program would price box2 with one GPU (3200) and pick it."""
    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog(gpus=[SMALL], platforms=[box("box2", 2, 2000, gpu_counts=[2]),
                                              box("box1", 1, 2400)])
    r = run(fx.workloads({"name": "a"}), cat)
    assert r.status == "optimal"
    assert [s.platform for s in r.options[0].servers] == ["box1"]
    assert r.options[0].total_cost == 2400 + 200 + 1000


def test_idle_gpus_are_bought_with_the_board(monkeypatch):
    """O1 (expansion): three 1-GPU replicas on a 4-slot board sold with 4 GPUs buy 4."""
    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog(gpus=[SMALL], platforms=[box("box4", 4, 2000, gpu_counts=[4])])
    r = run(fx.workloads({"name": "a", "replicas": 3}), cat)
    assert r.status == "optimal"
    assert [s.gpu_count for s in r.options[0].servers] == [4]
    assert r.options[0].total_cost == 2000 + 200 + 4 * 1000


def test_counts_split_into_types(monkeypatch):
    """O1 with counts {2, 4} on a 4-slot box: 3 GPUs in use buy one box of 4 (6200), not a
    box of 2 plus a box of 2 (8400), and a replica of 4 GPUs needs the 4-GPU type."""
    fx.install(monkeypatch, {"a": (15, 10), "b": (60, 10)})
    cat = fx.catalog(gpus=[SMALL], platforms=[box("box4", 4, 2000, gpu_counts=[2, 4])])
    r = run(fx.workloads({"name": "a", "replicas": 3}), cat)
    assert [s.gpu_count for s in r.options[0].servers] == [4]
    assert r.options[0].total_cost == 2200 + 4 * 1000
    r = run(fx.workloads({"name": "b"}, max_pcie_parallel_degree=4), cat)
    assert [s.gpu_count for s in r.options[0].servers] == [4]


def test_board_without_zero_count_is_no_cpu_node(monkeypatch):
    """O1: a preprocess job may not use box2 as a GPU-less node when box2 is sold with 2
    GPUs: the CPU node (500 + 4 x 100) or box2 with 2 idle GPUs, whichever is cheaper."""
    fx.install(monkeypatch, {"prep": (0, 40)})
    cat = fx.catalog(gpus=[SMALL], platforms=[box("box2", 2, 100, gpu_counts=[2]),
                                              fx.catalog().platforms[1].model_dump()])
    r = run(fx.workloads({"name": "prep", "kind": "preprocess"}), cat)
    assert [s.platform for s in r.options[0].servers] == ["cpu"]
    assert r.options[0].total_cost == 500 + 4 * 100


def test_checker_rejects_a_count_not_sold(monkeypatch):
    from dataclasses import replace

    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog(gpus=[SMALL], platforms=[box("box4", 4, 2000, gpu_counts=[4])])
    wf = fx.workloads({"name": "a"})
    option = run(wf, cat).options[0]
    s = replace(option.servers[0], gpu_count=1)
    bad = replace(option, servers=(s,))
    assert any("(O1)" in p for p in check_plan(bad, wf, cat))


def test_gpu_counts_above_the_slots_are_refused():
    with pytest.raises(ValidationError, match="gpu_counts"):
        fx.catalog(platforms=[box("box2", 2, 2000, gpu_counts=[4])])


def test_old_catalog_without_counts_sells_any_count(default_catalog):
    data = default_catalog.model_dump(mode="json")
    for p in data["platforms"]:
        for field in ("gpu_counts", "cpu_cores", "rack_units", "includes"):
            p.pop(field, None)
    from solver.inputs.catalog import Catalog

    cat = Catalog.model_validate(data)
    assert cat.platform("hgx-a100-8gpu-ddr4").allowed_gpu_counts() == list(range(9))
    assert default_catalog.platform("hgx-a100-8gpu-ddr4").allowed_gpu_counts() == [8]


# --- exhaustive cross-checks -------------------------------------------------------------


def test_bruteforce_crosscheck_on_the_default_catalog():
    """bench/bruteforce.py (its own O1 and SKU rules) agrees with rank 1 on seeded tiny
    instances drawn from the default catalog, HGX boards of 8 GPUs included."""
    res = bruteforce.crosscheck(80)
    assert res["mismatches"] == []


job = st.tuples(
    st.sampled_from([5.0, 12.0, 18.0, 30.0]),  # VRAM need at degree 1, GB
    st.sampled_from([4.0, 20.0, 45.0]),  # host RAM per GPU, GB
    st.integers(1, 2),  # replicas
    st.sampled_from(["inference", "preprocess"]),
    st.booleans(),  # shareable
)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs=st.lists(job, min_size=1, max_size=2),
       counts=st.sampled_from([None, [2], [0, 2], [1]]),
       exclude=st.sampled_from([[], ["d32"], ["small"]]))
def test_rank1_equals_bruteforce_with_counts_and_exclusions(monkeypatch, jobs, counts, exclude):
    """O1 and allowed SKUs on the fixture catalog: rank 1 is bench/bruteforce.py's optimum."""
    if sum(r for _, _, r, _, _ in jobs) > 3:
        jobs = jobs[:1]
    fx.install(monkeypatch, {f"j{i}": (v, r) for i, (v, r, _, _, _) in enumerate(jobs)})
    monkeypatch.setattr(bruteforce, "estimate", fx.fake_estimate)
    base = fx.catalog()
    plats = [p.model_dump() for p in base.platforms]
    plats[0]["gpu_counts"] = counts
    cat = fx.catalog(platforms=plats)
    wf = fx.workloads(*({"name": f"j{i}", "replicas": n, "kind": k, "shareable": sh}
                        for i, (_, _, n, k, sh) in enumerate(jobs)), exclude=exclude)
    expected = bruteforce.optimum(wf, cat)
    if expected is None:
        with pytest.raises(InfeasibleError):
            run(wf, cat)
        return
    r = run(wf, cat)
    assert_rank1_is_bruteforce(r, wf, expected)
    assert not math.isnan(expected)


# --- O2 what the platform includes -------------------------------------------------------


def test_summary_and_workbook_say_what_each_platform_includes(root, default_catalog, q3,
                                                              tmp_path):
    """O2: the summary and each option sheet list what the platform price covers."""
    import openpyxl

    from solver.report.summary import render_plan_summary
    from solver.report.tables import includes_table
    from solver.report.workbook import write_workbook

    result = plan(q3, default_catalog, top=1, with_baseline=False)
    text = render_plan_summary(result, default_catalog, q3.name)
    assert "Platform prices include" in text
    assert "hgx-a100-8gpu-ddr4: 2 CPUs, 128 cores" in text
    table = includes_table(result.options[0], default_catalog)
    assert set(table["platform"]) == {s.platform for s in result.options[0].servers}
    book = write_workbook(tmp_path / "q3.xlsx", result, q3, default_catalog, {})
    ws = openpyxl.load_workbook(book)["Option 1"]
    cells = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert any("boot SSD" in c for c in cells)
    assert any(c.startswith("What each platform's price includes") for c in cells)


# --- O3 CPU cores ------------------------------------------------------------------------


def _program_servers(wf, cat):
    """Servers the integer program itself buys on its first solve (before any repair)."""
    from solver.optimize.candidates import enumerate_candidates
    from solver.optimize.program import build
    from solver.optimize.solve import solve

    out = solve(build(wf, cat, enumerate_candidates(wf, cat), None), "highs")
    return sum(out.n.values())


def test_cores_of_big_replicas_sit_apart(monkeypatch):
    """O3 (define_cpu_cores, one replica over half the cores sits alone): two replicas of
    6 cores on an 8-core box2 need two boxes, though their GPUs and RAM fit one."""
    fx.install(monkeypatch, {"a": (15, 10)})
    plats = [p.model_dump() for p in fx.catalog().platforms]
    plats[0]["cpu_cores"] = 8
    cat = fx.catalog(platforms=plats)
    wf = fx.workloads({"name": "a", "replicas": 2, "data": {"cpu_cores": 6}})
    assert _program_servers(wf, cat) == 2
    r = run(wf, cat)
    assert r.status == "optimal"
    assert r.options[0].total_cost == 2 * (CHEAPEST_BOX + 1000)


def test_cores_add_up_on_a_cpu_node(monkeypatch):
    """O3 (define_cpu_cores, the sum): three preprocess replicas of max(1, 3 workers) = 3
    cores need 9 > 8 cores, so two CPU nodes (2 x 900) rather than one."""
    fx.install(monkeypatch, {"prep": (0, 10)})
    plats = [p.model_dump() for p in fx.catalog().platforms]
    plats[1]["cpu_cores"] = 8
    cat = fx.catalog(platforms=plats)
    wf = fx.workloads({"name": "prep", "kind": "preprocess", "replicas": 3,
                       "data": {"workers": 3}})
    assert _program_servers(wf, cat) == 2
    r = run(wf, cat)
    assert r.status == "optimal"
    assert r.options[0].total_cost == 2 * (500 + 4 * 100)


def test_core_needs_by_kind():
    """O3: training d (workers + 1), inference 2d, preprocess max(1, workers), or the
    workload's data.cpu_cores."""
    wf = fx.workloads({"name": "i"}, {"name": "p", "kind": "preprocess", "data": {"workers": 0}},
                      {"name": "c", "data": {"cpu_cores": 5}})
    i, p, c = wf.workloads
    assert (replica_cores(i, 4), replica_cores(p, 0), replica_cores(c, 8)) \
        == (8, 1, 5)


def test_checker_counts_cores(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    cat = fx.catalog()
    wf = fx.workloads({"name": "a", "replicas": 2, "data": {"cpu_cores": 6}})
    option = run(wf, cat).options[0]  # no cores in this catalog: one box holds both
    plats = [p.model_dump() for p in cat.platforms]
    plats[0]["cpu_cores"] = 8
    assert any("(O3)" in e for e in check_plan(option, wf, fx.catalog(platforms=plats)))


def test_catalog_without_cores_is_said_once(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10), "b": (15, 10)})
    r = run(fx.workloads({"name": "a"}, {"name": "b"}), fx.catalog(), top=2)
    said = [n for n in r.notes if "cpu_cores" in n]
    assert len(said) == 1 and "box2" in said[0] and "cpu" in said[0]


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs=st.lists(job, min_size=1, max_size=2),
       cores=st.sampled_from([None, 2, 4, 6]),
       node_cores=st.sampled_from([None, 4]),
       need=st.sampled_from([None, 1, 3]))
def test_rank1_equals_bruteforce_with_cores(monkeypatch, jobs, cores, node_cores, need):
    """O3 on the fixture catalog: rank 1 is bench/bruteforce.py's optimum."""
    if sum(r for _, _, r, _, _ in jobs) > 3:
        jobs = jobs[:1]
    fx.install(monkeypatch, {f"j{i}": (v, r) for i, (v, r, _, _, _) in enumerate(jobs)})
    monkeypatch.setattr(bruteforce, "estimate", fx.fake_estimate)
    plats = [p.model_dump() for p in fx.catalog().platforms]
    plats[0]["cpu_cores"], plats[1]["cpu_cores"] = cores, node_cores
    cat = fx.catalog(platforms=plats)
    wf = fx.workloads(*({"name": f"j{i}", "replicas": n, "kind": k, "shareable": sh,
                         "data": {"cpu_cores": need, "workers": 2}}
                        for i, (_, _, n, k, sh) in enumerate(jobs)))
    expected = bruteforce.optimum(wf, cat)
    if expected is None:
        with pytest.raises(InfeasibleError):
            run(wf, cat)
        return
    r = run(wf, cat)
    assert_rank1_is_bruteforce(r, wf, expected)


def test_placement_table_shows_cores_per_server(default_catalog, q3):
    """O3 in the workbook: each replica's cores, its server's cores used and installed."""
    from solver.report.placement_tables import placement_table

    result = plan(q3, default_catalog, top=1, with_baseline=False)
    df = placement_table(result, q3, default_catalog)
    assert {"cpu_cores", "server_cores_used", "server_cpu_cores"} <= set(df.columns)
    assert (df["server_cores_used"] <= df["server_cpu_cores"]).all()
    sums = df.groupby("server")["cpu_cores"].sum()
    assert (df["server_cores_used"] == df["server"].map(sums)).all()


def test_shared_replicas_share_one_servers_cores(monkeypatch):
    """Found by the brute-force comparison: two shareable inference jobs (2 cores each) fit
    one big GPU by VRAM, but a box2 with 2 cores runs only one of them. Without
    Σ_shared c_o x ≤ cores_p s_t the program put both on one shared GPU, expansion had to
    add a second big GPU (24,400, 'feasible'); the optimum puts the small job on a small GPU
    in a second box: 2 x 2,200 + 10,000 + 1,000 = 15,400."""
    fx.install(monkeypatch, {"j0": (5.0, 4.0), "j1": (30.0, 4.0)})
    plats = [p.model_dump() for p in fx.catalog().platforms]
    plats[0]["cpu_cores"] = 2
    cat = fx.catalog(platforms=plats)
    wf = fx.workloads(*({"name": n, "kind": "inference", "shareable": True,
                         "data": {"workers": 2}} for n in ("j0", "j1")))
    r = run(wf, cat)
    assert r.status == "optimal"
    assert r.options[0].total_cost == 2 * CHEAPEST_BOX + 10_000 + 1_000


def test_two_shareable_jobs_on_one_gpu_never_break_the_servers_ram(monkeypatch):
    """Found by the brute-force comparison: a 12 GB job needing 45 GB of host RAM and a 5 GB
    one needing 20 GB share one small GPU (17 of 19.2 GB). A pattern reserved the RAM of a
    GPU full of either job alone (45 GB), but the mix needs 65 GB: the expanded plan broke
    the RAM line and the run stopped with exit 5. The reservation is now the knapsack over
    every mix that fits the GPU's VRAM and the server's cores."""
    fx.install(monkeypatch, {"j0": (12.0, 45.0), "j1": (5.0, 20.0)})
    plats = [p.model_dump() for p in fx.catalog().platforms]
    plats[0]["cpu_cores"], plats[1]["cpu_cores"] = 4, 4
    cat = fx.catalog(platforms=plats)
    wf = fx.workloads({"name": "j0", "kind": "inference", "shareable": True,
                       "data": {"workers": 2}},
                      {"name": "j1", "kind": "inference", "shareable": True, "replicas": 2,
                       "data": {"workers": 2}})
    r = run(wf, cat)  # checks every option
    assert r.options[0].total_cost >= bruteforce.optimum(wf, cat)
