"""The checker of plans over time (H3–H6) on a hand-built schedule.

A one-month horizon (744 h) from 2027-01-01; table estimates (``solver_fixtures``):
- ``serve``, always on: 10 GB on one ``small`` GPU (24 GB, usable 19.2 at 20% headroom);
- ``pre``, one run of 360M tokens within 10 days ([0, 240] h): on ``small`` 1,000 tokens/s a
  replica (alone, so no data-parallel loss: N2) × 100 h × 3,600 s = 360M tokens exactly;
- ``tune``, weekly until 2027-01-08, 36M tokens within 2 days: runs at [0, 48] and
  [168, 216] h; 2,000 tokens/s on a rented ``big`` (5 h), 500 on ``small`` (20 h).

The valid plan: s1 (2 small GPUs) holds serve on GPU 0, and pre on GPU 1 over [0, 100] h;
tune run 1 rents one big GPU at 2.0 a GPU-hour, billed its min_hours 10 h (20.0); tune run
2 runs on the run server s2 over [168, 188] h. Each broken plan below changes one thing and
is caught with its rule id.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest
import solver_fixtures as fx

from solver.check import check_plan, check_rule, check_time
from solver.check.windows import horizon_hours, windows
from solver.horizon.runs import runs_of
from solver.inputs.catalog import Catalog
from solver.inputs.workload import WorkloadFile
from solver.plan_types import BomLine, Placement, PlanOption, Server
from solver.run_types import Rented, RunEntry, TimeCost

MODEL = {"params_b": 1, "hidden": 1024, "layers": 2, "heads": 8, "vocab": 1000}
NEEDS = {"serve": (10.0, 8.0), "pre": (16.0, 16.0), "tune": (16.0, 16.0)}
RATES = {"pre": {"small": 1000.0}, "tune": {"small": 500.0, "big": 2000.0}}
CAPEX = 2 * 2000 + 4 * 1000 + 8 * 100


def workload_file(policy: dict | None = None, pre: dict | None = None,
                  site: dict | None = None, tune: dict | None = None) -> WorkloadFile:
    return WorkloadFile.model_validate({
        "name": "t",
        "policy": {"horizon": {"start": dt.date(2027, 1, 1), "months": 1}, **(policy or {})},
        "workloads": [
            {"name": "serve", "kind": "inference", "model": MODEL, "context": 16, "batch": 1},
            {"name": "pre", "kind": "train", "model": MODEL, "seq_len": 128,
             "global_batch": 8, "tokens": 3.6e8, "deadline_days": 10, **(pre or {})},
            {"name": "tune", "kind": "lora", "lora_rank": 8, "model": MODEL, "seq_len": 128,
             "global_batch": 8, "tokens": 3.6e7, "deadline_days": 2,
             "repeat": {"every": "weekly", "until": dt.date(2027, 1, 8)}, **(tune or {})},
        ],
        **({"site": site} if site else {}),
    })


@pytest.fixture
def cat() -> Catalog:
    """The fixtures' catalog, renting big GPUs at 2.0 an hour, at most 4, 10 h at least."""
    return Catalog.model_validate({
        **fx.catalog().model_dump(),
        "cloud": [{"gpu": "big", "per_gpu_hour": 2.0, "max_gpus": 4, "min_hours": 10}]})


@pytest.fixture(autouse=True)
def tables(monkeypatch):
    fx.install(monkeypatch, NEEDS)
    fx.RATES.clear()
    fx.RATES.update(RATES)
    monkeypatch.setattr("solver.check.time.replica_throughput", fx.fake_throughput)


def run(workload: str, n: int, begin: float, end: float, window: tuple[float, float],
        gpu: str = "small", servers: tuple[str, ...] | None = ("s1",),
        rented: Rented | None = None, replicas: int = 1) -> RunEntry:
    tokens = 3.6e8 if workload == "pre" else 3.6e7
    return RunEntry(workload, n, begin, end, replicas, gpu, 1, servers, rented, window[0],
                    window[1], tokens, RATES[workload][gpu])


def server(sid: str) -> Server:
    return Server(sid, "box2", "small", 2, "d32", 4, None, 0)


RENT = Rented(gpus=1, hours=10.0, cost=20.0, per_gpu_hour=2.0)


def plan(**changes) -> PlanOption:
    option = PlanOption(
        rank=1, total_cost=CAPEX, servers=(server("s1"), server("s2")),
        lines=(BomLine("box2", "platform", 2, 2000), BomLine("small", "gpu", 4, 1000),
               BomLine("d32", "memory", 8, 100)),
        placements=(Placement("serve", 1, "s1", "small", 1, 10.0, 8.0, (0,)),),
        runs=(run("pre", 1, 0, 100, (0, 240)),
              run("tune", 1, 0, 5, (0, 48), gpu="big", servers=None, rented=RENT),
              run("tune", 2, 168, 188, (168, 216), servers=("s2",))),
        time=TimeCost(capex_charged=CAPEX / 36, rent=20.0, running=0.0, run_servers=("s2",)))
    return replace(option, **changes)


def with_run(option: PlanOption, i: int, **changes) -> PlanOption:
    runs = list(option.runs)
    runs[i] = replace(runs[i], **changes)
    return replace(option, runs=tuple(runs))


def errors(option: PlanOption, cat: Catalog, wf: WorkloadFile | None = None) -> list[str]:
    return check_time(option, wf or workload_file(), cat)


def test_the_runs_of_the_file():
    """H2: 10 days from the start, and a weekly run until 2027-01-08: two repetitions."""
    wf = workload_file()
    assert horizon_hours(wf) == (744.0, pytest.approx(1 / 36))
    assert {k: (w.start_h, w.deadline_h) for k, w in windows(wf).items()} == {
        ("pre", 1): (0.0, 240.0), ("tune", 1): (0.0, 48.0), ("tune", 2): (168.0, 216.0)}


@pytest.mark.parametrize("pre", [
    {"deadline_days": None, "deadline": dt.date(2027, 1, 3), "start": dt.date(2027, 1, 2),
     "repeat": "weekly"},
    {"deadline_days": 3.5, "repeat": "monthly"},
    {"deadline_days": 6, "repeat": {"every_days": 9}},
])
def test_the_checker_reads_the_dates_as_the_planner_does(pre):
    """Two expansions of one file, written apart (the checker's and solver.horizon's): the
    same runs, the same windows, the same ones left out past the horizon's end."""
    wf = workload_file(policy={"horizon": {"start": dt.date(2027, 1, 1), "months": 2}},
                       pre=pre)
    mine = {k: (w.start_h, w.deadline_h) for k, w in windows(wf).items()}
    runs = runs_of(wf)
    assert runs is not None
    assert mine == {(r.workload, r.run): (r.start_h, r.deadline_h) for r in runs.runs}


def test_a_valid_schedule_passes_every_check(cat):
    wf = workload_file()
    assert errors(plan(), cat) == []
    assert check_plan(plan(), wf, cat) == []


def test_one_gpu_shared_in_time_by_two_runs(cat):
    """s1's GPU 1 runs pre over [0, 100] h and tune run 2 over [168, 188] h: no overlap."""
    option = with_run(plan(), 2, servers=("s1",))
    assert errors(option, cat) == []


def test_without_a_horizon_nothing_is_checked(cat):
    wf = fx.workloads({"name": "serve"})
    option = plan(runs=(), time=None)
    assert check_time(option, wf, cat) == []
    assert check_time(plan(), wf, cat)[0].endswith("(H3)")


def test_window_past_the_deadline(cat):
    errs = errors(with_run(plan(), 0, begin_h=150.0, end_h=250.0), cat)
    assert any("outside its window 0–240 h (H3)" in e for e in errs), errs


def test_too_few_replicas(cat):
    errs = errors(plan(), cat, workload_file(pre={"replicas": 2}))
    assert any("pre run 1: 1 replicas, at least 2" in e and e.endswith("(H3)")
               for e in errs), errs


def test_too_few_tokens_in_the_window(cat):
    """99 h instead of 100 h: 356.4M tokens < 360M."""
    errs = errors(with_run(plan(), 0, end_h=99.0), cat)
    assert any("trains 356,400,000 tokens < 360,000,000 (H3)" in e for e in errs), errs


def test_a_run_left_out_or_scheduled_twice(cat):
    option = plan()
    assert "tune run 2 (hours 168 to 216): not scheduled (H3)" in errors(
        replace(option, runs=option.runs[:2]), cat)
    assert "pre run 1: scheduled 2 times (H3)" in errors(
        replace(option, runs=(*option.runs, option.runs[0])), cat)


def test_where_a_run_runs(cat):
    assert any("not a server of the plan (H3)" in e
               for e in errors(with_run(plan(), 0, servers=("s9",)), cat))
    assert any("runs on both servers and rented GPUs (H3)" in e
               for e in errors(with_run(plan(), 1, servers=("s1",)), cat))


def test_two_runs_overlapping_on_a_server_beyond_its_gpus(cat):
    """pre moved to [140, 240] h overlaps tune run 2 on s1, whose GPU 0 serve holds."""
    option = with_run(with_run(plan(), 0, begin_h=140.0, end_h=240.0), 2, servers=("s1",))
    errs = errors(option, cat)
    assert ("at 168.00 h: s1: pre run 1, tune run 2 need 2 GPUs, 1 of its 2 are free of "
            "always-on replicas (H4)") in errs, errs
    assert check_rule("H4", option, workload_file(), cat) == [
        e for e in errs if e.endswith("(H4)")]


def test_host_ram_at_one_instant(cat, monkeypatch):
    """48 GB of host RAM a run replica: pre moved to s2 over [140, 240] h meets tune run 2
    there at 168 h, 96 GB. s2's 128 GB (102.4 usable) hold both; 64 GB (51.2) hold one."""
    fx.install(monkeypatch, {**NEEDS, "pre": (16.0, 48.0), "tune": (16.0, 48.0)})
    option = with_run(plan(), 0, servers=("s2",), begin_h=140.0, end_h=240.0)
    assert errors(option, cat) == []
    option = replace(option, servers=(server("s1"), replace(server("s2"), dimm_count=2)))
    line = "s2: host RAM 96.0 GB over the headroom line of 64 GB (R11, R12, R15)"
    assert errors(option, cat) == [f"at 168.00 h: {line} (H4)"]


def test_local_disk_while_a_run_reads_there(cat):
    """tune reads a 3 TB dataset locally: s1's one 4 TB drive holds it under 20% headroom
    (3.2 TB), but not the 1 TB of checkpoints in the pool besides while it runs."""
    wf = workload_file(tune={"data": {"dataset_tb": 3, "storage": "local"}})
    s1 = replace(server("s1"), storage="ssd4", drive_count=1, disk_tb=4.0)
    option = with_run(replace(plan(), servers=(s1, server("s2"))), 2, servers=("s1",))
    assert errors(option, cat, wf) == []
    assert errors(with_run(option, 2, servers=("s2",)), cat, wf) == [
        ("at 168.00 h: s2: local datasets 3.00 TB over the headroom line of its 0.00 TB of "
        "drives (O4, R15) (H4)")]
    wf = workload_file(tune={"data": {"dataset_tb": 3, "checkpoints_tb": 1,
                                      "storage": "local"}})
    assert errors(option, cat, wf) == [
        ("at 168.00 h: storage 4.00 TB over the headroom line of the pool's 4.00 TB "
        "(O4, R15) (H4)")]


def test_site_power_counts_a_run_server_while_it_runs(cat):
    """One 1 kW rack: s1 draws 0.6 kW all the time, s2 another 0.6 kW over [168, 188] h."""
    wf = workload_file(site={"racks": 1, "rack_kw": 1.0, "rack_units": 42})
    errs = errors(plan(), cat, wf)
    assert errs == ["at 168.00 h: servers draw 1.2 kW, over 1 racks x 1 kW (P3) (H4)"]
    assert check_plan(plan(), wf, cat) == errs
    idle = replace(plan(), runs=plan().runs[:2] + (replace(plan().runs[2], servers=("s1",)),))
    assert errors(idle, cat, wf) == []


def test_rented_over_max_gpus(cat):
    """Five big GPUs at once; the cloud rents at most four."""
    bill = Rented(gpus=5, hours=10.0, cost=100.0, per_gpu_hour=2.0)
    option = with_run(replace(plan(), time=replace(plan().time, rent=100.0)), 1, replicas=5,
                      rented=bill, efficiency=0.9)
    errs = errors(option, cat)
    assert errs == ["big: 5 GPUs rented at 0.00 h, the cloud has at most 4 (H5)"]


def test_wrong_rent_cost(cat):
    option = with_run(plan(), 1, rented=replace(RENT, cost=10.0))
    errs = errors(option, cat)
    assert "tune run 1: rent 10.00 != 2 x 1 GPUs x 10 h = 20.00 (H5)" in errs
    assert "reports rent 20.00, its rented runs cost 10.00 (H6)" in errs


def test_billed_less_than_min_hours(cat):
    option = with_run(replace(plan(), time=replace(plan().time, rent=10.0)), 1,
                      rented=Rented(gpus=1, hours=5.0, cost=10.0, per_gpu_hour=2.0))
    assert errors(option, cat) == [
        "tune run 1: billed 5 h, runs 5 h (billed at least 10 h) (H5)"]


def test_renting_where_the_file_or_catalog_forbids_it(cat):
    assert "tune run 1: rents big, but policy.rent is never (H5)" in errors(
        plan(), cat, workload_file(policy={"rent": "never"}))
    no_cloud = cat.model_copy(update={"cloud": []})
    assert "tune run 1: rents big, which has no cloud price (H5)" in errors(plan(), no_cloud)


def test_capex_charged_is_its_share_of_the_life(cat):
    option = replace(plan(), time=replace(plan().time, capex_charged=CAPEX))
    assert errors(option, cat) == [
        "reports capex charged 8,800.00, capex 8,800.00 x 0.0277778 is 244.44 as H1 asks (H6)"]
