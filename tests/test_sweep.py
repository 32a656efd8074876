"""Scenario sweeps: axes parsing, validated copies, the knee, monotone budgets, the CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import DEFAULT_CATALOG, WORKLOADS

from cli import main
from solver.errors import InputError
from solver.inputs.scenario import with_policy
from solver.optimize.pipeline import plan
from solver.sweep.axes import parse_prices, parse_values, priced_catalog
from solver.sweep.render import render_sweep
from solver.sweep.report import sweep_document, sweep_frame
from solver.sweep.run import run_sweep
from solver.sweep.scenarios import build_sweep

TINY = """\
name: tiny
policy: {growth: 1.0}
workloads:
  - {name: chat, team: a, kind: inference, model: llama-3.1-8b, precision: fp16,
     context: 4096, batch: 8, replicas: 2, priority: 10}
  - {name: big, team: b, kind: inference, model: llama-3.1-70b, precision: fp8,
     context: 4096, batch: 8, replicas: 1, priority: 5}
  - {name: small, team: c, kind: inference, model: gpt2, precision: fp16,
     context: 1024, batch: 8, replicas: 1, priority: 1}
"""


@pytest.fixture
def tiny(write_yaml):
    from solver.inputs.loading import load_workloads

    path = write_yaml(TINY, "tiny.yaml")
    return path, load_workloads(path)


@pytest.fixture(scope="module")
def tiny_cost(default_catalog):
    import yaml

    from solver.inputs.workload import WorkloadFile

    wf = WorkloadFile.model_validate(yaml.safe_load(TINY))
    return plan(wf, default_catalog, top=1, with_baseline=False).options[0].total_cost


# -- Axes -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ("250000:2000000:8", (250000, 500000, 750000, 1e6, 1.25e6, 1.5e6, 1.75e6, 2e6)),
        ("500k,1M,1.5m", (5e5, 1e6, 1.5e6)),
        ("1,1.25,1.5,1.25", (1, 1.25, 1.5)),
        ("7:7:1", (7,)),
    ],
)
def test_axis_values(text, expected):
    assert parse_values(text, "--x") == pytest.approx(expected)


@pytest.mark.parametrize(
    "text, message",
    [
        ("5:1:3", "runs backwards"),
        ("1:5:0", "whole number >= 1"),
        ("1:5:2.5", "whole number >= 1"),
        ("1:5:1", "one step but two ends"),
        ("1,,2", "empty value"),
        ("abc", "not a number"),
        ("-3", "negative"),
        ("nan", "not a finite number"),
    ],
)
def test_bad_axis_is_an_input_error(text, message):
    with pytest.raises(InputError, match=message):
        parse_values(text, "--x")


def test_headroom_must_stay_below_one():
    with pytest.raises(InputError, match="< 1"):
        parse_values("0.2,1", "--headroom", below=1.0)


def test_unknown_sku_suggests_the_closest(default_catalog):
    with pytest.raises(InputError) as exc:
        parse_prices(["h100-sxn=0.8"], default_catalog)
    assert "did you mean 'h100-sxm'" in str(exc.value)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("h100-sxm", "TARGET=MULT"),
        ("h100-sxm=-0.5", "negative"),
    ],
)
def test_bad_price_specs(default_catalog, spec, message):
    with pytest.raises(InputError, match=message):
        parse_prices([spec], default_catalog)


def test_a_price_target_given_twice_is_refused(default_catalog):
    with pytest.raises(InputError, match="given twice"):
        parse_prices(["memory=1.5", "memory=2"], default_catalog)


def test_price_multipliers_make_a_validated_copy(default_catalog):
    assert priced_catalog(default_catalog, (("h100-sxm", 1.0),)) is default_catalog
    cheap = priced_catalog(default_catalog, (("h100-sxm", 0.8), ("gpu", 0.5)))
    for g in default_catalog.gpus:
        factor = 0.4 if g.sku == "h100-sxm" else 0.5
        assert cheap.gpu(g.sku).price == pytest.approx(g.price * factor)
    assert cheap.memory == default_catalog.memory
    dear = priced_catalog(default_catalog, (("memory", 2.0),))
    assert [d.price for d in dear.memory] == [2 * d.price for d in default_catalog.memory]


def test_the_grid_is_the_cartesian_product(q3, default_catalog):
    sweep = build_sweep(q3, default_catalog, "100k,200k", "1,1.5", "0.1,0.2", ["memory=1,2"])
    assert len(sweep.scenarios) == 2 * 2 * 2 * 2
    assert len(sweep.groups) == 8
    s = sweep.scenarios[-1]
    wf, cat = sweep.inputs(s)
    assert (wf.policy.budget, wf.policy.growth, wf.policy.headroom) == (200000, 1.5, 0.2)
    assert cat.memory[0].price == 2 * default_catalog.memory[0].price
    assert q3.policy.budget is None and q3.policy.growth == 1.25  # the input is untouched


def test_too_much_growth_is_an_input_error(q3, default_catalog):
    with pytest.raises(InputError, match="growth"):
        build_sweep(q3, default_catalog, growth="500")


# -- Solving ----------------------------------------------------------------------------
def test_knee_is_the_plain_plans_optimal_cost(tiny, default_catalog, tiny_cost):
    _, wf = tiny
    knee = tiny_cost
    sweep = build_sweep(wf, default_catalog, f"{knee - 1},{knee},{knee * 2}")
    run = run_sweep(sweep, jobs=1)
    (k,) = run.knees.values()
    assert k.status == "optimal" and k.total_cost == pytest.approx(knee)
    below, at, above = run.rows
    assert below.unserved and not at.unserved and not above.unserved  # exact: knee-1 falls short
    assert at.total_cost == above.total_cost == pytest.approx(knee)
    assert at.reused_knee and above.reused_knee and not below.reused_knee
    assert all(r.knee_budget == pytest.approx(knee) for r in run.rows)


def test_served_priority_never_decreases_with_budget(tiny, default_catalog, tiny_cost):
    _, wf = tiny
    sweep = build_sweep(wf, default_catalog, f"1000:{tiny_cost * 2.5}:12", growth="1,2")
    run = run_sweep(sweep, jobs=1)
    assert len(run.rows) == 24 and all(r.total_cost is not None for r in run.rows)
    for growth in (1.0, 2.0):
        rows = [r for r in run.rows if r.scenario.growth == growth]
        served = [r.served_priority for r in rows]
        assert served == sorted(served)
        assert all(r.total_cost <= r.scenario.budget + 1e-6 for r in rows)
        assert rows[-1].knee_budget <= rows[-1].scenario.budget
        assert rows[-1].served_priority == rows[-1].total_priority
        assert all(r.marginal_priority_per_dollar >= 0 for r in rows)
    first = run.rows[0]
    assert first.marginal_priority_per_dollar == first.served_priority / first.scenario.budget


def test_price_multiplier_one_reproduces_the_base_plan(q3, default_catalog):
    base = plan(q3, default_catalog, top=1, with_baseline=False).options[0]
    sweep = build_sweep(q3, default_catalog, prices=["h100-sxm=1.0", "memory=1"])
    run = run_sweep(sweep, jobs=1)
    (row,) = run.rows
    assert row.total_cost == pytest.approx(base.total_cost)
    assert row.gpus == base.gpus_by_sku() and row.unserved == ()


def test_dearer_gpus_raise_the_knee(tiny, default_catalog, tiny_cost):
    _, wf = tiny
    run = run_sweep(build_sweep(wf, default_catalog, prices=["gpu=1,1.5"]), jobs=1)
    cheap, dear = run.rows
    assert cheap.total_cost == pytest.approx(tiny_cost)
    assert dear.total_cost > cheap.total_cost


def test_a_failing_scenario_does_not_sink_the_others(tiny, default_catalog):
    _, wf = tiny
    # At 95 % headroom the 70B model fits no GPU: that scenario fails, the other plans.
    run = run_sweep(build_sweep(wf, default_catalog, headroom="0.2,0.95"), jobs=2)
    ok, bad = run.rows
    assert ok.status == "optimal" and ok.total_cost is not None
    assert bad.status == "infeasible" and bad.total_cost is None and "big" in bad.error
    assert bad.exit_code == 3
    assert "no full plan" in render_sweep(run, "tiny", "USD")


def test_ctrl_c_keeps_the_finished_scenarios(tiny, default_catalog):
    _, wf = tiny

    def interrupt(done, total):
        if done >= 1:
            raise KeyboardInterrupt

    sweep = build_sweep(wf, default_catalog, "5000:50000:10", growth="1,2,3")
    run = run_sweep(sweep, jobs=2, on_progress=interrupt)
    assert run.interrupted and run.rows
    assert run.not_run == len(sweep.scenarios) - len(run.rows) > 0
    assert sweep_document(run, sweep)["status"] == "interrupted"


# -- CLI ------------------------------------------------------------------------------------
def test_cli_json_csv_and_workbook(tiny, tmp_path, tiny_cost):
    path, _ = tiny
    out = tmp_path / "out"
    res = CliRunner().invoke(
        main,
        [
            "sweep",
            str(path),
            "--budget",
            f"10000,{tiny_cost}",
            "--growth",
            "1,1.5",
            "--price",
            "rtx-4090=0.8,1",
            "--jobs",
            "2",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output + res.stderr
    doc = json.loads(res.stdout)
    assert doc["status"] == "complete" and len(doc["rows"]) == 8
    row = doc["rows"][0]
    assert {
        "budget",
        "growth",
        "headroom",
        "prices",
        "served",
        "unserved",
        "gpus",
        "total_cost",
        "served_priority",
        "knee_budget",
    } <= set(row)
    assert row["prices"] == {"rtx-4090": 0.8}
    assert len(doc["knees"]) == 4
    import openpyxl
    import pandas as pd

    table = pd.read_csv(out / "tiny-sweep.csv")
    assert list(table["scenario"]) == list(range(1, 9))
    assert "price_rtx-4090" in table.columns
    book = openpyxl.load_workbook(out / "tiny-sweep.xlsx")
    assert "Sweep" in book.sheetnames and book["Sweep"]._charts


def test_cli_table_shows_the_knee(tiny, tmp_path, tiny_cost):
    path, _ = tiny
    res = CliRunner().invoke(
        main,
        [
            "sweep",
            str(path),
            "--budget",
            "20000:80000:4",
            "--jobs",
            "1",
            "--out",
            str(tmp_path),
            "--no-workbook",
        ],
    )
    assert res.exit_code == 0, res.stderr
    assert f"USD {tiny_cost:,.0f} (proven cheapest)" in res.stdout
    assert "Smallest budget that serves every workload" in res.stdout
    assert "tiny-sweep.csv" in res.stdout
    assert not (tmp_path / "tiny-sweep.xlsx").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--budget", "9:1:3"], "runs backwards"),
        (["--budget", "0"], "out of range"),
        (["--growth", "-1"], "negative"),
        (["--headroom", "0.1,-0.2"], "negative"),
        (["--price", "h100-sx=0.8"], "did you mean 'h100-sxm'"),
        (["--price", "memory=-1.5"], "negative"),
    ],
)
def test_cli_bad_axes_exit_2(tmp_path, args, message):
    res = CliRunner().invoke(
        main,
        [
            "sweep",
            str(WORKLOADS / "q3.yaml"),
            "--catalog",
            str(DEFAULT_CATALOG),
            "--out",
            str(tmp_path),
            *args,
        ],
    )
    assert res.exit_code == 2, res.output
    assert message in res.stderr and "Traceback" not in res.stderr
    assert res.stdout == ""


def test_with_policy_budget_rows_match_plain_budget_plans(tiny, default_catalog):
    _, wf = tiny
    run = run_sweep(build_sweep(wf, default_catalog, "10000,20000"), jobs=1)
    for row in run.rows:
        direct = plan(
            with_policy(wf, budget=row.scenario.budget), default_catalog, top=1, with_baseline=False
        ).options[0]
        assert row.total_cost == pytest.approx(direct.total_cost)
        assert row.unserved == direct.unserved
    assert list(sweep_frame(run)["budget"]) == [10000, 20000]


def test_owning_axes_sweep_kwh_price_years_and_objective(tmp_path):
    """--kwh-price, --years and --objective are axes: each scenario's file carries them, and
    under objective tco a dearer kWh may change what is bought; capex stays the rank-1 cost."""
    from solver.inputs.loading import load_catalog, load_workloads
    from solver.sweep.scenarios import build_sweep

    wf = load_workloads(WORKLOADS / "small.yaml")
    cat = load_catalog(DEFAULT_CATALOG)
    grid = build_sweep(wf, cat, kwh_price="0.1,0.3", years="3,5", objective="capex,tco")
    assert len(grid.scenarios) == 8
    s = grid.scenarios[-1]
    swf, _ = grid.inputs(s)
    assert dict(s.owning) == {"kwh_price": 0.3, "years": 5, "objective": "tco"}
    assert swf.policy.tco.kwh_price == 0.3 and swf.policy.tco.years == 5
    assert swf.policy.objective == "tco"
    with pytest.raises(InputError):
        build_sweep(wf, cat, years="3")  # no policy.tco and no --kwh-price
    with pytest.raises(InputError):
        build_sweep(wf, cat, kwh_price="0.1", objective="cheapest")


def test_knees_are_listed_in_grid_order_whatever_order_they_finish(tiny, default_catalog):
    """Workers finish groups in any order; the knee list follows the grid (growth 1.5 came
    before growth 1 when its full plan finished first)."""
    import time
    from types import SimpleNamespace

    from solver.sweep.run import _finish, solve_one

    _, wf = tiny
    sweep = build_sweep(wf, default_catalog, growth="1,1.5")
    groups = list(sweep.groups)
    solved = {g: solve_one(*sweep.groups[g], None, None, 1e-4) for g in groups}
    finished = SimpleNamespace(rows={}, fulls=dict(reversed(list(solved.items()))),
                               cheapest={}, base=None, interrupted=False, solves=2)
    run = _finish(sweep, finished, time.perf_counter(), 1)
    assert [k.scenario.growth for k in run.knees.values()] == [1.0, 1.5]


def test_a_scenario_times_out_by_how_its_run_ended_not_by_its_seconds(monkeypatch, tiny,
                                                                        default_catalog):
    """A run the time limit stopped without a plan is a timeout however soon it stopped
    (the sweep once guessed from ``seconds >= 0.9 x time_limit``); any other solver
    failure is a failure, however long it ran."""
    from solver.errors import SolverError
    from solver.optimize.diagnosis import NoPlanInTime
    from solver.sweep import rows
    from solver.sweep import run as sweep_run

    _, wf = tiny

    def raising(error):
        def planned(*args, **kwargs):
            raise error
        return planned

    monkeypatch.setattr(sweep_run, "plan", raising(NoPlanInTime("no plan in time")))
    timed = sweep_run.solve_one(wf, default_catalog, None, 1000.0, 1e-4)
    assert rows.status_of(timed) == "timeout"
    monkeypatch.setattr(sweep_run, "plan", raising(SolverError("the solver failed")))
    failed = sweep_run.solve_one(wf, default_catalog, None, 1e-9, 1e-4)
    assert rows.status_of(failed) == "failed"
