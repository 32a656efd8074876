"""bench/bruteforce_time.py on tiny files whose least horizon cost is solved by hand.

One GPU SKU ("small": 24 GB, USD 1,000) on one platform (box2: 2 slots, 2 memory channels,
USD 2,000) with 32 GB DIMMs at USD 100, headroom 0.2. The table estimator (``solver_fixtures``)
gives every job 10 GB of VRAM and 10 GB of host RAM per GPU at degree 1 and 100 tokens/s per
GPU; data-parallel efficiency 1. So one box2 with 2 GPUs and 2 DIMMs (USD 4,200; 64 GB x 0.8 =
51.2 GB >= 2 x 10 GB) runs 2 replicas of degree 1 (or 1 of degree 2) = 200 tokens/s, and one
box2 with 1 GPU (USD 3,200) runs 1. A run of T = 172.8 M tokens in a 10-day window (240 h)
needs 480 GPU-hours: 2 GPUs for the whole window (n = 2 replicas, D = 480 / n h).
"""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
import solver_fixtures as fx

from bench import bruteforce, bruteforce_servers, bruteforce_time
from bench.bruteforce_time import brute_force_time
from bench.tiny_horizon import tiny_horizon_instance
from solver.inputs.catalog import Catalog
from solver.inputs.loading import load_workloads
from solver.inputs.workload import WorkloadFile

SMALL = {"sku": "small", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100,
         "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0, "price": 1000}
BOX2 = {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 4,
        "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000}
D32 = {"sku": "d32", "type": "ddr4", "speed_mts": 3200, "size_gb": 32, "price": 100}
MODEL = {"params_b": 1, "hidden": 1024, "layers": 2, "heads": 8, "vocab": 1000}
T = 100 * 2 * 240 * 3600  # 172.8 M tokens: 2 GPUs x 100 tokens/s x 240 h
SERVER = 2000 + 2 * 1000 + 2 * 100  # 4,200: box2, 2 small, 2 x d32


@pytest.fixture(autouse=True)
def table_estimator(monkeypatch):
    fx.NEEDS.clear()
    fx.RATES.clear()
    fx.TPOT.clear()
    for module in (bruteforce, bruteforce_servers):
        monkeypatch.setattr(module, "estimate", fx.fake_estimate)
        monkeypatch.setattr(module, "replica_throughput", fx.fake_throughput)


def catalog(cloud: dict | None = None, **box) -> Catalog:
    """The catalog above; ``cloud``: the small GPU's rental terms, if any; ``box``: fields
    of box2 to change."""
    cat = fx.catalog(gpus=[SMALL], platforms=[{**BOX2, **box}], memory=[D32])
    data = cat.model_dump(mode="json")
    data["cloud"] = [{"gpu": "small", **cloud}] if cloud else []
    return Catalog.model_validate(data)


def run(name: str, **time) -> dict:
    """A training job of ``T`` tokens in 10 days (unless ``time`` says otherwise)."""
    fx.NEEDS[name] = (10, 10)
    fx.RATES[name] = {"small": 100.0}
    return {"name": name, "kind": "train", "model": MODEL, "seq_len": 1024,
            "global_batch": 8, "tokens": T, "deadline_days": 10, **time}


def wfile(*jobs: dict, months: int = 12, **policy) -> WorkloadFile:
    return WorkloadFile.model_validate({
        "name": "t", "workloads": list(jobs),
        "policy": {"horizon": {"start": "2027-01-01", "months": months},
                   "data_parallel_efficiency": 1.0, **policy}})


@pytest.mark.parametrize(("price", "expected"), [(2.5, 1200.0), (3.5, 1400.0)])
def test_one_run_rents_below_the_break_even_and_buys_above(price, expected):
    """12 months of a 36-month life: capex x 1/3. Buying: one 2-GPU box2 finishes in the
    window (s = 1, n = 2, D = 240 h): 4,200 / 3 = 1,400 (two 1-GPU boxes: 6,400 / 3, dearer).
    Renting: n = ceil(T / (100 x 240 h x 3600)) = 2 replicas of degree 1 (or 1 of degree 2),
    2 GPUs x 240 h = 480 GPU-h x price. Break-even 1,400 / 480 = 2.917 per GPU-hour:
    at 2.5 renting costs 1,200 (< 1,400); at 3.5 it costs 1,680, so buying wins at 1,400."""
    got = brute_force_time(wfile(run("a")), catalog({"per_gpu_hour": price}))
    assert got == pytest.approx(expected)


@pytest.mark.parametrize(("objective", "price", "expected"), [
    ("capex", 3.8, 1400.0),  # 1,400 < 480 x 3.8 = 1,824: bought
    ("tco", 3.8, 1824.0),    # 1,892 (below) > 1,824: rented
    ("tco", 4.0, 1892.0),    # 1,892 < 480 x 4.0 = 1,920: bought
])
def test_tco_adds_support_and_the_energy_of_the_hours_a_run_server_runs(objective, price,
                                                                       expected):
    """Under objective tco (support 10%/year over a 3-year life, 0.5 per kWh, PUE 1,
    utilisation 1), 12 months: the server costs 1/3 x 4,200 x (1 + 0.3) = 1,820, plus its
    energy while the run runs: 0.6 kW (box2 0 W + 2 x 300 W) x 240 h x 0.5 = 72: 1,892."""
    tco = {"kwh_price": 0.5, "years": 3, "pue": 1.0, "utilisation": 1.0,
           "support_pct_per_year": 0.1}
    wf = wfile(run("a"), objective=objective, tco=tco)
    assert brute_force_time(wf, catalog({"per_gpu_hour": price})) == pytest.approx(expected)


@pytest.mark.parametrize(("rent_excluded", "expected"), [(True, 1200.0), (False, None)])
def test_an_excluded_gpu_is_not_bought_and_rented_only_where_asked(rent_excluded, expected):
    """policy.exclude names the only GPU: no server can be bought; renting it (480 GPU-h at
    2.5) is 1,200 in SPEC's reading (exclude names what not to buy), no plan in the run
    program's (an excluded GPU is not used at all)."""
    wf = wfile(run("a"), exclude=["small"])
    got = brute_force_time(wf, catalog({"per_gpu_hour": 2.5}), rent_excluded=rent_excluded)
    assert got == (pytest.approx(expected) if expected else None)


def test_rent_never_buys():
    """policy.rent: never leaves only buying: 1,400 even at 2.5 per GPU-hour."""
    got = brute_force_time(wfile(run("a"), rent="never"), catalog({"per_gpu_hour": 2.5}))
    assert got == pytest.approx(SERVER / 3)


def test_min_hours_bills_the_shortest_rental():
    """min_hours 300 > D = 240 h: renting bills 2 GPUs x 300 h x 2.5 = 1,500 > 1,400, so the
    run is bought (1,400); without min_hours it was rented at 1,200 (test above)."""
    cat = catalog({"per_gpu_hour": 2.5, "min_hours": 300})
    assert brute_force_time(wfile(run("a")), cat) == pytest.approx(1400.0)


@pytest.mark.parametrize(("b_start", "expected"), [
    # b in [336, 576] h: after a's [0, 240]; one server runs a, then b: 4,200.
    ("2027-01-15", SERVER),
    # b in [96, 336] h overlaps a's [0, 240]. Periods [0,96] [96,240] [240,336]; a on one
    # server needs [0,240] (in [0,96] alone: n >= 480 / 96 = 5, 3 servers), b on one server
    # needs [96,336] (in [96,240]: n >= 480 / 144, 2 servers; in [240,336]: 3). Every
    # schedule has 2 servers in [96,240] or 3 somewhere: 2 x 4,200 = 8,400.
    ("2027-01-05", 2 * SERVER),
])
def test_two_runs_share_one_server_when_their_windows_do_not_overlap(b_start, expected):
    """36 months: capex x 1. No cloud: both runs are bought."""
    wf = wfile(run("a"), run("b", start=b_start), months=36)
    assert brute_force_time(wf, catalog()) == pytest.approx(expected)


@pytest.mark.parametrize(("b_start", "cap", "expected"), [
    (None, None, 2 * 480.0),            # no limit: both rented at 1.0, 480 each
    (None, 2, 480.0 + SERVER),          # 4 GPUs at once > 2: one rented, one bought
    ("2027-01-15", 2, 2 * 480.0),       # b after a: never more than 2 at once, both rented
])
def test_max_gpus_puts_part_of_the_work_on_bought_servers(b_start, cap, expected):
    """Two runs of 480 GPU-h each, 1.0 per GPU-hour, 36 months (capex x 1). Each rental
    holds 2 GPUs over [start, start + 240 h). Buying both in the same window takes 2 servers
    (8,400), dearer than renting one (480) and buying one (4,200) = 4,680."""
    b = run("b", start=b_start) if b_start else run("b")
    cloud = {"per_gpu_hour": 1.0, **({"max_gpus": cap} if cap else {})}
    assert brute_force_time(wfile(run("a"), b, months=36), catalog(cloud)) == pytest.approx(
        expected)


def test_a_capped_rental_may_begin_at_a_later_cut_to_take_turns():
    """Cap 2 GPUs, 1.0 per GPU-hour, 36 months. a: T in [0, 240] h, rented on 2 GPUs over
    [0, 240). b: T in [0, 480] h (grid 0, 240, 480). From its start b would rent 1 GPU for
    480 h (or 2 for 240 h): 3 or 4 GPUs at once with a's; from the cut at 240 h it rents
    n = 480 / 240 = 2 replicas over [240, 480), after a: 480 + 480 = 960 (without turns, the
    cheapest is renting a and buying b a 1-GPU box for 480 h: 480 + 3,200)."""
    cloud = {"per_gpu_hour": 1.0, "max_gpus": 2}
    wf = wfile(run("a"), run("b", deadline_days=20), months=36)
    assert brute_force_time(wf, catalog(cloud)) == pytest.approx(960.0)


@pytest.mark.parametrize(("a", "cap", "expected"), [
    # a rents 2 GPUs over [0, 480) (2T in 20 days); b can take 1 GPU for 480 h or 2 GPUs
    # for 240 h from 0 (480 each): with a cap of 3 only the 1-GPU rental fits beside a:
    # 960 + 480 = 1,440.
    ({"tokens": 2 * T, "deadline_days": 20}, 3, 1440.0),
    # a rents 2 GPUs over [240, 480) (start on day 10); with a cap of 2 only b's 2-GPU
    # rental over [0, 240) fits before it: 480 + 480 = 960.
    ({"start": "2027-01-11"}, 2, 960.0),
])
def test_a_capped_rental_on_fewer_gpus_or_ending_sooner_is_kept(a, cap, expected):
    """b: T in [0, 480] h, 1.0 per GPU-hour, 36 months. Each case needs the one rental of b
    that the other does not beat; buying b instead would cost 3,200 more."""
    cloud = {"per_gpu_hour": 1.0, "max_gpus": cap}
    wf = wfile(run("a", **a), run("b", deadline_days=20), months=36)
    assert brute_force_time(wf, catalog(cloud)) == pytest.approx(expected)


@pytest.mark.parametrize(("full", "ram_gb", "expected"), [
    (False, 10, 3200.0),  # any server: box2 with 1 GPU and 2 DIMMs
    (True, 10, 4200.0),   # bought full: 2 GPUs (2 DIMMs hold 2 replicas already)
    # 30 GB per GPU: 2 DIMMs (51.2 GB) hold 1 replica of degree 1, none of degree 2; 4 DIMMs
    # hold 2 and 1: the full server takes 4 DIMMs, 4,400 (any server: 1 GPU, 2 DIMMs, 3,200).
    (False, 30, 3200.0),
    (True, 30, 4400.0),
])
def test_full_servers_is_the_run_programs_restriction(full, ram_gb, expected):
    """A run of T / 2 tokens (240 GPU-h: one replica for 240 h), 36 months, bought."""
    job = run("a", tokens=T / 2)
    fx.NEEDS["a"] = (10, ram_gb)
    got = brute_force_time(wfile(job, months=36), catalog(), full_servers=full)
    assert got == pytest.approx(expected)


@pytest.mark.parametrize(("repeat", "expected_runs"), [(None, 336.0), ("weekly", 1400.0)])
def test_a_repeated_run_is_bought_beside_an_always_on_service(repeat, expected_runs):
    """An always-on service (1 replica on 1 GPU) is planned as today on its own server: box2
    with 1 GPU and 2 DIMMs, 3,200, x 1/3 over 12 months = 1,066.67. A 2-day run (T / 5 tokens,
    96 GPU-h) at 3.5 per GPU-hour rents for 336 once. Weekly until 2027-01-29 it runs 5 times
    (starts Jan 1, 8, 15, 22, 29): renting 5 x 336 = 1,680 > one run server shared by all five,
    4,200 / 3 = 1,400 (the service's server is never shared with runs)."""
    fx.NEEDS["chat"] = (10, 10)
    chat = {"name": "chat", "kind": "inference", "model": MODEL, "context": 16, "batch": 1}
    time = {"deadline_days": 2, "tokens": T / 5}
    if repeat:
        time["repeat"] = {"every": repeat, "until": "2027-01-29"}
    wf = wfile(chat, run("a", **time))
    got = brute_force_time(wf, catalog({"per_gpu_hour": 3.5}))
    assert got == pytest.approx(3200 / 3 + expected_runs)


@pytest.mark.parametrize(("ram_gb", "data", "box", "expected"), [
    # 30 GB of host RAM per replica: 2 DIMMs (51.2 GB usable) hold 1, 4 DIMMs (102.4 GB)
    # hold 2: one box2 with 2 GPUs and 4 DIMMs, 2,000 + 2,000 + 400 = 4,400 (two 1-GPU
    # boxes with 2 DIMMs: 6,400).
    (30, {}, {}, 4400.0),
    # A 3 TB dataset read locally: 4 TB drives hold 3.2 TB each under the line, so the
    # server carries 1 (400): 4,200 + 400 = 4,600; with 1 TB of checkpoints (on the server
    # of the run: its servers are all of one configuration) 4 TB need 2: 5,000.
    (10, {"dataset_tb": 3.0}, {}, 4600.0),
    (10, {"dataset_tb": 3.0, "checkpoints_tb": 1.0}, {}, 5000.0),
    # 8 CPU cores, 5 per replica (1 GPU x (4 workers + 1)): 1 replica per server, so the run
    # would need two boxes, and these have no network to share a run over (N2): no plan.
    (10, {}, {"cpu_cores": 8}, None),
    # 4 channels on 4 slots: every server takes 4 DIMMs (R14), 4,200 + 200 = 4,400.
    (10, {}, {"memory_channels": 4}, 4400.0),
])
def test_run_servers_follow_the_server_rules(ram_gb, data, box, expected):
    """One run bought over 36 months (capex x 1); T needs 2 replicas of degree 1 in its
    window (degree 2 needs twice the host RAM and cores, the same GPUs: never cheaper)."""
    job = run("a")
    fx.NEEDS["a"] = (10, ram_gb)
    if data:
        job["data"] = data
    got = brute_force_time(wfile(job, months=36), catalog(**box))
    assert got == (pytest.approx(expected) if expected is not None else None)


def test_no_plan_when_no_gpu_holds_a_replica():
    """A job needing 100 GB per replica fits no small GPU (19.2 GB usable at degree 1, 50 GB
    per GPU at degree 2): neither bought nor rented."""
    job = run("a")
    fx.NEEDS["a"] = (100, 10)
    assert brute_force_time(wfile(job), catalog({"per_gpu_hour": 1.0})) is None


def test_cli_prints_the_least_cost_and_refuses_bad_input(tmp_path, root, monkeypatch,
                                                         default_catalog):
    """The script prints the same cost as the function (real estimator, default catalog);
    a file it cannot read exits 2 with a message."""
    good = tmp_path / "t.yaml"
    good.write_text(
        "name: t\npolicy: {horizon: {start: 2027-01-01, months: 12}}\nworkloads:\n"
        "  - {name: pre, kind: train, model: gpt2-xl, seq_len: 1024, global_batch: 32,\n"
        "     tokens: 2.0e9, deadline_days: 7}\n")
    script = str(root / "bench" / "bruteforce_time.py")
    out = subprocess.run([sys.executable, script, str(good)], capture_output=True, text=True,
                         check=True)
    monkeypatch.undo()  # the real estimator, as the script uses
    assert float(out.stdout) == pytest.approx(
        brute_force_time(load_workloads(good), default_catalog), abs=0.01)
    bad = subprocess.run([sys.executable, script, str(tmp_path / "missing.yaml")],
                         check=False, capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.yaml" in bad.stderr


# --- seeded tiny files (real estimator, default catalog's parts) ----------------------------

SEEDS = range(12)


def _every_choice(run, ways, local_tb, configs, cuts, line, kwh=0.0, policy=None,
                  network=None):
    """pool_choices without its pruning: every config, degree, range and 1..6 servers, at
    the data-parallel efficiency their links give (N2)."""
    out = []
    for ci, cfg in enumerate(configs):
        for way in ways:
            m = bruteforce_servers.per_server(cfg, way, local_tb, line)
            for a, b in itertools.combinations_with_replacement(range(len(cuts) - 1), 2):
                if not m or cuts[a] < run.start_h - 1e-6 or cuts[b + 1] > run.deadline_h + 1e-6:
                    continue
                for s in range(1, 7):
                    eff = bruteforce_servers.efficiency(
                        way, m, s, bruteforce_servers.usable_net(cfg, network), policy)
                    if eff <= 0:
                        continue
                    hours = run.tokens / (s * m * way.rate * eff * 3600)
                    if s * m >= run.min_replicas and hours <= cuts[b + 1] - cuts[a] + 1e-9:
                        out.append(bruteforce_time.Choice(
                            ci, servers=s, first=a, last=b,
                            energy=s * cfg.power_w / 1000 * hours * kwh))
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_pruning_loses_nothing(seed, monkeypatch, default_catalog):
    """With every config that holds a replica (none dropped as beaten), every choice of 1..6
    servers over every range and every rental, the least cost is the same: what the search
    prunes is never better than what it keeps."""
    monkeypatch.undo()
    wf, cat = tiny_horizon_instance(seed, default_catalog)
    fast = brute_force_time(wf, cat)
    monkeypatch.setattr(bruteforce_time, "useful_configs", lambda configs, fits, line, energy: [
        c for c in configs if any(bruteforce_servers.per_server(c, w, tb, line) for w, tb in fits)])
    monkeypatch.setattr(bruteforce_time, "pool_choices", _every_choice)
    monkeypatch.setattr(bruteforce_time, "_unbeaten_rentals", lambda out, uncapped: out)
    assert brute_force_time(wf, cat) == pytest.approx(fast, abs=0.01)


@pytest.mark.parametrize("seed", SEEDS)
def test_fewer_options_never_cost_less(seed, monkeypatch, default_catalog):
    """Forbidding rent, capping every cloud GPU at 1 at a time or billing at least 500 h, and
    dropping the last workload, each move the least cost the right way."""
    monkeypatch.undo()
    wf, cat = tiny_horizon_instance(seed, default_catalog)
    cost = brute_force_time(wf, cat)
    assert cost is not None
    policy = wf.policy.model_copy(update={"rent": "never"})
    never = brute_force_time(wf.model_copy(update={"policy": policy}), cat)
    assert never is None or never >= cost - 0.01
    for terms in ({"max_gpus": 1}, {"min_hours": 500.0}):
        cloud = [c.model_copy(update=terms) for c in cat.cloud]
        harder = brute_force_time(wf, cat.model_copy(update={"cloud": cloud}))
        assert harder is None or harder >= cost - 0.01
    if len(wf.workloads) > 1:
        fewer = wf.model_copy(update={"workloads": wf.workloads[:-1]})
        assert brute_force_time(fewer, cat) <= cost + 0.01
