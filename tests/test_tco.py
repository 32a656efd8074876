"""Power, cost of ownership, site and what is owned (P1–P5) on tiny hand-solved instances.

Catalog (tests/solver_fixtures.py): GPUs small 24 GB $1000 300 W, big 80 GB $10000 400 W;
a box2 server (2 GPU slots, platform power 0 W) with 2 x 32 GB costs $2200. Job "a" needs
15 GB at degree 1 and 10 GB of host RAM per GPU; table throughput small 100 tokens/s,
big 1000. Each test names the rule it would catch if it were removed.
"""

from __future__ import annotations

import json

import pytest
import solver_fixtures as fx
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pipeline import run

from bench import bruteforce
from cli import main
from solver.check import check_plan
from solver.errors import InfeasibleError, InputError
from solver.rules.power import racks_used

BOX = 2200
TCO = {"kwh_price": 0.5, "years": 3, "pue": 1.0, "utilisation": 1.0}
E = 8760 * 3 * 0.5  # currency per kW over the horizon: 13,140
OWNED_BIG = {"platform": "box2", "gpu": "big", "gpu_count": 1, "memory": "d32",
             "dimm_count": 2}


def setup(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    fx.install_rates(monkeypatch, {"a": {"small": 100.0, "big": 1000.0}})
    monkeypatch.setattr(bruteforce, "estimate", fx.fake_estimate)
    monkeypatch.setattr(bruteforce, "replica_throughput", fx.fake_throughput)


def wfile(job: dict, site=None, inventory=None, tco=None, objective="capex", **policy):
    wf = fx.workloads(job, **policy)
    data = wf.model_dump(mode="json", exclude_none=True)
    data["policy"].update(objective=objective, **({"tco": tco} if tco else {}))
    if site:
        data["site"] = site
    if inventory:
        data["inventory"] = inventory
    return type(wf).model_validate(data)


def test_power_and_tco_are_reported_under_capex(monkeypatch):
    """P1, P2: 250 tokens/s on 3 small GPUs (2 boxes, $7400) draw 0.9 kW; TCO = $7400 +
    0.9 x 13,140 = $19,226, reported although the objective is capex."""
    setup(monkeypatch)
    o = run(wfile({"name": "a", "tokens_per_s": 250}, tco=TCO)).options[0]
    assert o.total_cost == 2 * BOX + 3000
    assert o.own.power_kw == pytest.approx(0.9)
    assert o.own.energy == pytest.approx(0.9 * E)
    assert o.own.tco == pytest.approx(7400 + 0.9 * E)
    doc = o.to_json()
    assert doc["capex"] == 7400 and doc["tco"] == pytest.approx(7400 + 0.9 * E)


def test_tco_objective_picks_the_frugal_gpu(monkeypatch):
    """define_tco: capex picks 3 small GPUs ($7400, 0.9 kW, TCO $19,226); TCO picks one big
    ($12,200, 0.4 kW, TCO $17,456). Without the objective term TCO would keep the smalls."""
    setup(monkeypatch)
    job = {"name": "a", "tokens_per_s": 250}
    capex = run(wfile(job, tco=TCO)).options[0]
    tco = run(wfile(job, tco=TCO, objective="tco")).options[0]
    assert {p.gpu for p in capex.placements} == {"small"}
    assert {p.gpu for p in tco.placements} == {"big"}
    assert tco.total_cost == BOX + 10000
    assert tco.own.tco == pytest.approx(12200 + 0.4 * E)
    assert tco.own.tco < capex.own.tco and tco.total_cost > capex.total_cost


def test_support_scales_capex_in_the_objective(monkeypatch):
    """P2 support: 10%/year over 3 years adds 30% of capex to the TCO."""
    setup(monkeypatch)
    o = run(wfile({"name": "a"}, tco={**TCO, "support_pct_per_year": 0.1})).options[0]
    assert o.own.support == pytest.approx(0.3 * (BOX + 1000))


def test_rack_power_forces_a_different_gpu(monkeypatch):
    """P3 (define_site, within_site): two shareable replicas cost least on 2 small GPUs in
    one box ($4,200, 0.6 kW); a site of one 0.5 kW rack forbids that server and the two
    one-GPU boxes together (0.6 kW), so one shared big GPU ($12,200, 0.4 kW) it is."""
    setup(monkeypatch)
    job = {"name": "a", "replicas": 2, "shareable": True}
    free = run(wfile(job)).options[0]
    assert free.total_cost == BOX + 2000 and free.gpus_by_sku() == {"small": 2}
    site = {"racks": 1, "rack_kw": 0.5, "rack_units": 42}
    r = run(wfile(job, site=site)).options[0]
    assert r.gpus_by_sku() == {"big": 1} and r.total_cost == BOX + 10000
    assert r.own.racks == 1


def test_a_mix_too_big_for_the_site_says_how_many_racks_it_needs(monkeypatch):
    """P3 on the whole mix: three replicas, each one small GPU (big excluded), draw 0.9 kW
    however they are packed. Each fits a 0.7 kW rack alone, all three do not: no plan, and
    the message says 2 such racks (⌈0.9 / 0.7⌉), which then plan."""
    setup(monkeypatch)
    job = {"name": "a", "replicas": 3}
    site = {"racks": 1, "rack_kw": 0.7, "rack_units": 42}
    wf = wfile(job, site=site, exclude=["big"], growth=1.0)
    with pytest.raises(InfeasibleError) as err:
        run(wf)
    assert "does not fit the site" in err.value.message
    assert err.value.problems == [(
        "site: 1 rack of 0.7 kW and 42 U hold 0.7 kW and 42 U; every plan for this mix "
        "needs 2 such racks (the plan found with the fewest racks draws 0.9 kW at full load "
        "and takes 0 U). To fix: raise site.racks to 2, or site.rack_kw or site.rack_units, "
        "or plan fewer replicas")]
    r = run(wfile(job, site={**site, "racks": 2}, exclude=["big"], growth=1.0)).options[0]
    assert r.gpus_by_sku() == {"small": 3} and r.own.racks == 2


def test_rack_cost_counts_racks_used():
    """P3: racks used = max(⌈kW / rack_kw⌉, ⌈U / rack_units⌉)."""
    from solver.inputs.ownership import Site
    site = Site(racks=4, rack_kw=10, rack_units=42)
    assert racks_used(25.0, 8, site) == 3
    assert racks_used(5.0, 50, site) == 2
    assert racks_used(0.0, 0, site) == 0


def test_owned_server_makes_rank_1_cheaper(monkeypatch):
    """P4 (owned types, n_t ≤ count at no price): an owned box with one big GPU serves
    250 tokens/s at no capital cost ($7,400 without it); the second owned box stays idle
    and draws nothing; the BOM is empty; owned servers ignore exclude."""
    setup(monkeypatch)
    job = {"name": "a", "tokens_per_s": 250}
    inv = [{**OWNED_BIG, "count": 2}]
    r = run(wfile(job, inventory=inv, tco=TCO, exclude=["big"])).options[0]
    assert r.total_cost == 0 and r.lines == ()
    assert [s.owned for s in r.servers] == [True]
    assert len(r.idle) == 1 and r.idle[0].owned
    assert r.own.power_kw == pytest.approx(0.4)
    doc = r.to_json()
    assert doc["servers"][0]["owned"] is True and len(doc["idle"]) == 1


def test_checker_refuses_more_owned_than_owned(monkeypatch):
    """P4 check: a plan claiming an owned server the inventory lacks is refused."""
    setup(monkeypatch)
    wf = wfile({"name": "a", "tokens_per_s": 250}, inventory=[OWNED_BIG])
    o = run(wf).options[0]
    assert check_plan(o, wfile({"name": "a", "tokens_per_s": 250}), fx.catalog())


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from([None, 150.0, 250.0, 1100.0]),
       replicas=st.integers(1, 2), shareable=st.booleans(),
       objective=st.sampled_from(["capex", "tco"]),
       kwh=st.sampled_from([0.05, 0.5, 2.0]),
       site=st.sampled_from([None, {"racks": 1, "rack_kw": 0.7, "rack_units": 42},
                             {"racks": 3, "rack_kw": 0.45, "rack_units": 42}]),
       owned=st.sampled_from([0, 1, 2]), rack_cost=st.sampled_from([None, 3000.0]))
def test_rank1_equals_bruteforce(monkeypatch, target, replicas, shareable, objective, kwh,
                                 site, owned, rack_cost):
    """Rank 1's objective (capex or TCO) equals bench/bruteforce.py's exhaustive optimum with
    power, site limits, rack cost and owned servers; every plan passes the checker."""
    setup(monkeypatch)
    job: dict = {"name": "a", "replicas": replicas}
    if target is not None:
        job["tokens_per_s"] = target
    else:
        job["shareable"] = shareable
    tco = {**TCO, "kwh_price": kwh}
    if rack_cost and site:
        tco["rack_cost_per_year"] = rack_cost
    inv = [{**OWNED_BIG, "count": owned}] if owned else None
    wf = wfile(job, site=site, inventory=inv, tco=tco, objective=objective)
    cat = fx.catalog()
    expected = bruteforce.optimum(wf, cat)
    if expected is None:
        with pytest.raises(InfeasibleError):
            run(wf, cat, gap=1e-9)
        return
    o = run(wf, cat, gap=1e-9).options[0]
    assert o.objective_value(objective) == pytest.approx(expected, abs=0.05)


# --- bad input: exit 2 with place and fix ---------------------------------------------------

SMALL = "name: t\nworkloads:\n  - {name: w, kind: inference, model: gpt2, context: 512, batch: 1}\n"


def _cli(tmp_path, text: str):
    f = tmp_path / "w.yaml"
    f.write_text(text)
    return CliRunner().invoke(main, [str(f), "--no-workbook", "--json"])


@pytest.mark.parametrize("extra, words", [
    ("policy: {tco: {kwh_price: -0.1}}\n", "kwh_price"),
    ("policy: {tco: {kwh_price: 0.1, pue: 0.9}}\n", "pue"),
    ("policy: {objective: tco}\n", "To fix: add policy.tco"),
    ("policy: {tco: {kwh_price: 0.1, rack_cost_per_year: 100}}\n", "needs a site"),
    (("inventory: [{platform: srv-4gpu-ddr4, gpu: h100-pcei, gpu_count: 4, "
     "memory: ddr4-3200-64g, dimm_count: 16}]\n"), "did you mean h100-pcie"),
    (("inventory: [{platform: srv-4gpu-ddr4, gpu: h100-sxm, gpu_count: 4, "
     "memory: ddr4-3200-64g, dimm_count: 16}]\n"), "does not fit srv-4gpu-ddr4"),
    (("inventory: [{platform: hgx-a100-8gpu-ddr4, gpu: a100-80g-sxm, gpu_count: 4, "
     "memory: ddr4-3200-64g, dimm_count: 16}]\n"), "inventory[0].gpu_count"),
    (("inventory: [{platform: srv-4gpu-ddr4, gpu: a100-80g-pcie, gpu_count: 4, "
     "memory: ddr4-3200-64g, dimm_count: 5}]\n"), "inventory[0].dimm_count"),
    ("site: {racks: 1, rack_kw: 0.5, rack_units: 42}\n", "smaller than any single server"),
])
def test_bad_input_exits_2(tmp_path, extra, words):
    result = _cli(tmp_path, SMALL + extra)
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert "To fix" in result.output or "fix" in result.output.lower()


BAD_INVENTORY = ("inventory: [{platform: srv-4gpu-ddr4, gpu: h100-pcei, gpu_count: 4, "
                 "memory: ddr4-3200-64g, dimm_count: 16}]\n")


@pytest.mark.parametrize("command", [[], ["sweep", "--budget", "100k,200k"]])
def test_a_file_that_does_not_fit_the_catalog_is_refused_before_any_solve(tmp_path, command):
    """plan and sweep alike: exit 2, the file and its place named, nothing written. A sweep
    used to run every scenario, report each one "failed: the inventory does not match the
    catalog" without the entry, and exit 0 with a CSV."""
    f = tmp_path / "w.yaml"
    f.write_text(SMALL + BAD_INVENTORY)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [*command, str(f), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert f"{f}: inventory[0].gpu: 'h100-pcei' is not a GPU of the catalog" in result.output
    assert "did you mean h100-pcie" in result.output
    assert not out.exists() or not any(out.iterdir())


def test_an_unknown_sku_on_the_command_line_is_named_as_such(tmp_path):
    """--exclude h100-pcei is the command line's, not the file's policy.exclude."""
    f = tmp_path / "w.yaml"
    f.write_text(SMALL + "policy: {exclude: [rtx-409]}\n")
    result = CliRunner().invoke(main, [str(f), "--no-workbook", "--exclude", "h100-pcei"])
    assert result.exit_code == 2, result.output
    assert f"{f}: policy.exclude: 'rtx-409' is not a SKU of the catalog" in result.output
    assert "--exclude: 'h100-pcei' is not a SKU of the catalog" in result.output


def test_inventory_in_json(tmp_path):
    """An owned 4 x A100 server serves a 7B model; the JSON marks it owned, capex is 0."""
    result = _cli(tmp_path, SMALL.replace("gpt2", "llama-2-7b") +
                  "policy: {tco: {kwh_price: 0.12}}\n"
                  "inventory: [{platform: srv-4gpu-ddr4, gpu: a100-80g-pcie, gpu_count: 4, "
                  "memory: ddr4-3200-64g, dimm_count: 16}]\n")
    assert result.exit_code == 0, result.output
    o = json.loads(result.stdout)["options"][0]
    assert o["capex"] == 0 and o["servers"][0]["owned"] is True
    assert o["tco"] == pytest.approx(o["energy_cost"])


def test_inputerror_names_the_place():
    from solver.inputs.owned import check_inventory
    wf = fx.workloads({"name": "a"})
    data = wf.model_dump(mode="json", exclude_none=True)
    data["inventory"] = [{"platform": "bx2", "memory": "d32", "dimm_count": 2}]
    with pytest.raises(InputError) as e:
        check_inventory(type(wf).model_validate(data), fx.catalog())
    assert "inventory[0].platform" in str(e.value.problems)


def test_shipped_expand_pool_uses_the_owned_servers():
    """workloads/expand-pool.yaml: proven optimal, checked; the owned servers carry work,
    are not bought, and the plan fits the site's racks."""
    from pathlib import Path

    from solver.inputs.loading import DEFAULT_CATALOG, load_catalog, load_workloads
    from solver.optimize.pipeline import plan

    root = Path(__file__).resolve().parents[1]
    wf = load_workloads(root / "workloads" / "expand-pool.yaml")
    catalog = load_catalog(DEFAULT_CATALOG)
    result = plan(wf, catalog, top=1)
    o = result.options[0]
    assert result.status == "optimal" and check_plan(o, wf, catalog) == []
    owned = [s for s in o.servers if s.owned]
    assert len(owned) + len(o.idle) == sum(i.count for i in wf.inventory) and owned
    assert o.own.racks <= wf.site.racks
    assert o.own.tco == pytest.approx(o.objective_value("tco"))


def test_the_command_line_says_how_many_racks_a_mix_needs(tmp_path):
    """Exit 3 with the racks to ask for, not a bare "infeasible": ten gpt2 replicas (8
    asked, growth 1.25) fit no single 2 kW rack together; with the racks the message
    names, the same file plans."""
    text = ("name: t\nsite: {racks: 1, rack_kw: 2, rack_units: 42}\nworkloads:\n"
            "  - {name: w, kind: inference, model: gpt2, context: 512, batch: 1, replicas: 8}\n")
    res = _cli(tmp_path, text)
    assert res.exit_code == 3 and "Traceback" not in res.output
    assert "does not fit the site" in res.output
    needed = int(res.output.split("raise site.racks to ")[1].split(",")[0])
    assert needed > 1
    res = _cli(tmp_path, text.replace("racks: 1,", f"racks: {needed},"))
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["options"][0]["racks"] == needed


def test_a_capped_rack_count_advises_the_racks_its_plan_takes(monkeypatch):
    """The fewest-racks solve stops SITE_TICKS checkpoints after its first plan. When its
    bound then proves less than its plan takes (here 0.9 kW on 0.35 kW racks: the plan
    takes ⌈0.9 / 0.35⌉ = 3, and a bound cut short at 1.5 proves 2), the message says "at
    least 2" and advises 3, which plan."""
    from dataclasses import replace

    from solver.optimize import site_fit
    from solver.result import SolveStatus

    setup(monkeypatch)
    caps = []
    real = site_fit.solve

    def cut_short(m, solver, seconds, gap, **kw):
        caps.append(kw.get("work_ticks"))
        return replace(real(m, solver, seconds, gap, **kw), status=SolveStatus.FEASIBLE,
                       bound=1.5)

    monkeypatch.setattr(site_fit, "solve", cut_short)
    job = {"name": "a", "replicas": 3}
    site = {"racks": 1, "rack_kw": 0.35, "rack_units": 42}
    with pytest.raises(InfeasibleError) as err:
        run(wfile(job, site=site, exclude=["big"], growth=1.0))
    assert caps == [site_fit.SITE_TICKS]
    assert err.value.problems == [(
        "site: 1 rack of 0.35 kW and 42 U hold 0.35 kW and 42 U; every plan for this mix "
        "needs at least 2 such racks; the plan found with the fewest uses 3 (it draws 0.9 kW "
        "at full load and takes 0 U). To fix: raise site.racks to 3, or site.rack_kw or "
        "site.rack_units, or plan fewer replicas")]
    r = run(wfile(job, site={**site, "racks": 3}, exclude=["big"], growth=1.0)).options[0]
    assert r.own.racks == 3


def test_sweep_knee_under_tco_is_the_cheapest_full_plan_to_buy(monkeypatch):
    """Under objective tco the full plan (one big GPU, $12,200) is not the smallest budget
    that serves every workload: three smalls ($7,400) serve it too. The knee is $7,400, a
    budget of $10,000 buys the smalls, and $12,200 and up buy the big one (reused, not
    solved again). Before, the sweep reported $12,200 as the smallest budget, proven."""
    from solver.sweep.render import render_sweep
    from solver.sweep.report import sweep_document
    from solver.sweep.run import run_sweep
    from solver.sweep.scenarios import build_sweep

    setup(monkeypatch)
    wf = wfile({"name": "a", "tokens_per_s": 250}, tco=TCO, objective="tco")
    run_ = run_sweep(build_sweep(wf, fx.catalog(), "7399,10000,12200,20000"), jobs=1)
    (knee,) = run_.knees.values()
    (full,) = run_.preferred.values()
    assert (knee.status, knee.total_cost) == ("optimal", 7400)
    assert (full.status, full.total_cost) == ("optimal", BOX + 10000)
    short, mid, at, above = run_.rows
    assert short.unserved and not mid.unserved
    assert mid.total_cost == 7400 and not mid.reused_knee
    assert at.total_cost == above.total_cost == BOX + 10000 and at.reused_knee
    assert all(r.knee_budget == 7400 for r in run_.rows)
    text = " ".join(render_sweep(run_, wf.name, "USD", width=200).split())
    assert "Smallest budget that serves every workload (the cheapest full plan):" in text
    assert "USD 7,400 (proven cheapest)" in text
    assert "*: the budget covers its group's full plan (the cheapest, or under objective tco the one of lowest TCO)" in text
    assert ("The full plan of lowest TCO (objective tco), which every budget at or above its "
            "cost buys: - growth 1, headroom 0.2: USD 12,200, TCO USD 17,456") in text
    doc = sweep_document(run_, build_sweep(wf, fx.catalog(), "7399"))
    assert doc["knees"][0]["knee_budget"] == 7400
    assert doc["knees"][0]["lowest_tco_plan"]["total_cost"] == BOX + 10000


def test_what_serving_everything_costs_is_the_least_capex_under_tco(monkeypatch):
    """Under a budget that leaves work out, "serving every workload costs" is the smallest
    budget that would serve it: three smalls ($7,400), not the full plan of lowest TCO (one
    big, $12,200), under objective tco too."""
    from solver.optimize.full import full_plan

    setup(monkeypatch)
    job = {"name": "a", "tokens_per_s": 250}
    for objective in ("capex", "tco"):
        full = full_plan(wfile(job, tco=TCO, objective=objective, budget=5000), fx.catalog())
        assert (full.total_cost, full.gpus_by_sku) == (7400, {"small": 3})


def test_the_options_table_shows_the_tco_it_ranks_by(monkeypatch):
    """Under objective tco the options are ranked by TCO, so the table carries it beside
    the capital cost (one big GPU: capex $12,200, TCO $17,456); under capex it does not."""
    from solver.report.summary import render_plan_summary

    setup(monkeypatch)
    job = {"name": "a", "tokens_per_s": 250}
    for objective, shown in (("tco", True), ("capex", False)):
        wf = wfile(job, tco=TCO, objective=objective)
        text = render_plan_summary(run(wf, top=1), fx.catalog(), "t", wf=wf, width=100)
        header = next(line for line in text.splitlines() if line.startswith("#"))
        assert ("TCO" in header.split()) is shown
        assert ("USD 17,456" in text.split("Cost of owning")[0]) is shown


def test_renting_compares_only_what_is_bought():
    """P5 by hand: an owned box with 2 big GPUs (0.8 kW) and a bought one with 1 big GPU
    (0.4 kW, capex $12,200) in 1 kW racks: 2 racks, 1 of them added by the purchase.
    Renting the GPU bought: 1 x $2/h x 8,760 x 3 years = $52,560 ($1,460 a month); its
    running cost: energy 0.4 x 13,140 = $5,256, support 10% x 3 x 12,200 = $3,660, the rack
    it adds 3 x $1,200 = $3,600: $12,516 ($347.67 a month). Break-even = 12,200 ÷ (1,460 −
    347.67) = 10.97 months. Counting the owned GPUs too said 3.4 months."""
    from solver.inputs.fabric import CloudPrice
    from solver.inputs.ownership import Site, TcoPolicy
    from solver.optimize.owning import own_cost
    from solver.plan_types import Server

    catalog = fx.catalog().model_copy(update={"cloud": [CloudPrice(gpu="big", per_gpu_hour=2.0)]})
    owned = Server("s1", "box2", "big", 2, "d32", 2, None, 0, owned=True)
    bought = Server("s2", "box2", "big", 1, "d32", 2, None, 0)
    tco = TcoPolicy(kwh_price=0.5, years=3, pue=1.0, utilisation=1.0,
                    support_pct_per_year=0.1, rack_cost_per_year=1200)
    own = own_cost([owned, bought], BOX + 10000, tco, Site(racks=3, rack_kw=1.0, rack_units=42),
                   catalog)
    assert own.racks == 2 and own.racks_added == 1
    assert own.cloud == pytest.approx(52_560)
    assert own.bought_running == pytest.approx(5_256 + 3_660 + 3_600)
    assert own.break_even_month == pytest.approx(12_200 / (52_560 / 36 - 12_516 / 36), abs=0.05)
    assert own.break_even_month == 11.0
    # The terminal says what is compared and which running costs are counted.
    from solver.plan_types import PlanOption
    from solver.report.running import own_lines

    opt = PlanOption(rank=1, total_cost=12_200, servers=(owned, bought), lines=(),
                     placements=(), own=own)
    text = " ".join(own_lines(opt, "USD"))
    assert ("renting the 1 GPU bought (not the owned ones) for 3 years: USD 52,560 (USD 1,460 "
            "a month), against capex and a running cost of USD 348 a month (energy of the "
            "servers bought, support on capex, the 1 rack they add); buying breaks even after "
            "11.0 months") in text


def test_power_reads_the_same_in_the_terminal_and_the_workbook():
    """One rounding rule: 14.95 kW is "15.0" in a "#,##0.0" cell (half up) and was "14.9"
    in the terminal (Python rounds the binary 14.9499…); both now say 15.0."""
    from solver.optimize.owning import kw_text
    from solver.plan_types import OwnCost, PlanOption
    from solver.report.running import own_lines

    assert [kw_text(x) for x in (14.95, 0.05, 1234.25, 26.5)] == ["15.0", "0.1", "1,234.3",
                                                                 "26.5"]
    opt = PlanOption(rank=1, total_cost=0.0, servers=(), lines=(), placements=(),
                     own=OwnCost(capex=0.0, power_kw=14.95, rack_units=0, racks=1))
    assert "; 15.0 kW in 1 rack" in own_lines(opt, "USD")[0]
