"""The Monte Carlo sweep (solver/uncertainty): seeded draws, a hand-made file whose chance
of holding is known by construction, the statistics, and nothing half-written.

The tiny files are built here (one GPU, one inference job on a 1B model): the real
estimator sizes the job, and the GPU's VRAM is then chosen so the usable line sits a known
margin above the need; the drawn memory error is uniform, so which scenarios hold is known
scenario by scenario.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from solver.estimate.replica import estimate, replica_throughput
from solver.inputs.catalog import Catalog
from solver.inputs.workload import WorkloadFile
from solver.uncertainty import sweep as sweep_mod
from solver.uncertainty.draws import draw, error_at, resolve
from solver.uncertainty.evaluate import costs
from solver.uncertainty.spec import Uncertainty
from solver.uncertainty.stats import cost_stats, wilson
from solver.uncertainty.sweep import Settings, run_uncertainty
from solver.uncertainty.workbook import exceedance_rows, histogram_rows
from tests.solver_fixtures import catalog

MODEL = {"params_b": 1, "hidden": 2048, "layers": 16, "heads": 16, "vocab": 32000}
MARGIN = 1.05
"""Usable VRAM / the estimated need, by construction."""


pytestmark = pytest.mark.usefixtures("sweeps_in_process")


def gpu(vram_gb: float) -> dict:
    return {"sku": "card", "vram_gb": round(vram_gb, 3), "mem_bw_gbps": 1000,
            "bf16_tflops": 100, "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0,
            "price": 1000}


def tiny_file(unc: dict | None = None, **policy) -> WorkloadFile:
    data = {"name": "tiny", "policy": {"headroom": 0.2, "max_parallel_degree": 1, **policy},
            "workloads": [{"name": "serve", "kind": "inference", "model": MODEL,
                           "precision": "bf16", "context": 2048, "batch": 4}]}
    if unc is not None:
        data["uncertainty"] = unc
    return WorkloadFile.model_validate(data)


def tiny_catalog(wf: WorkloadFile) -> Catalog:
    """One GPU whose usable VRAM is MARGIN x the job's estimated need."""
    probe = catalog(gpus=[gpu(80)])
    need = estimate(wf.workloads[0], probe.gpus[0], 1, wf.policy).vram_gb_per_gpu
    return catalog(gpus=[gpu(need * MARGIN / (1 - wf.policy.headroom))])


MEMORY_ONLY = {"growth": {"dist": "fixed", "mean": 1.0}, "memory_line": "headroom",
               "estimates": {"peak_memory": {"low_pct": -10, "high_pct": 10}}}


def run(tmp_path: Path, unc: dict, samples: int, seed: int = 7, **kw):
    wf = tiny_file(unc)
    cat = tiny_catalog(wf)
    u = resolve(wf, cat, "tiny.yaml", samples=samples, seed=seed)
    return run_uncertainty(wf, cat, u, tmp_path, "tiny-uncertainty", Settings(**kw))


# --- draws -------------------------------------------------------------------------------
def test_same_seed_same_scenarios_and_a_scenario_does_not_depend_on_the_count():
    wf = tiny_file()
    a, b = Uncertainty(seed=7, samples=20), Uncertainty(seed=7, samples=1000)
    assert [draw(a, wf, i) for i in range(20)] == [draw(b, wf, i) for i in range(20)]
    assert draw(Uncertainty(seed=8), wf, 3) != draw(a, wf, 3)


def test_defaults_centre_on_the_policy_growth_and_price_one():
    wf = tiny_file(growth=1.5)
    draws = [draw(Uncertainty(), wf, i) for i in range(400)]
    growth = sum(d.growth for d in draws) / len(draws)
    gpu_f = sorted(dict(d.prices)["gpu"] for d in draws)[200]
    assert growth == pytest.approx(1.5, rel=0.03)
    assert gpu_f == pytest.approx(1.0, abs=0.03)


def test_triangular_error_peaks_at_zero_and_stays_in_its_range():
    assert error_at(0.5, (-10, 10), "triangular") == pytest.approx(0.0)
    assert error_at(0.0, (-10, 10), "triangular") == pytest.approx(-0.1)
    assert error_at(1.0, (-5, 20), "triangular") == pytest.approx(0.2)
    assert error_at(0.3, (-10, 10), "uniform") == pytest.approx(-0.04)
    assert error_at(0.9, (5, 5), "uniform") == pytest.approx(0.05)


# --- known by construction ---------------------------------------------------------------
def test_the_chance_an_option_holds_is_the_share_of_errors_above_its_margin(tmp_path):
    result = run(tmp_path, MEMORY_ONLY, samples=60, resolve=False)
    wf = tiny_file(MEMORY_ONLY)
    unc = resolve(wf, tiny_catalog(wf), "tiny.yaml", samples=60, seed=7)
    # holds <=> need / (1 + e) <= MARGIN x need <=> e >= 1 / MARGIN - 1
    cut = 1 / MARGIN - 1
    rows = [json.loads(line) for line in (tmp_path / "tiny-uncertainty.jsonl").open()]
    assert len(rows) == 60
    for row in rows:
        e = -0.1 + 0.2 * draw(unc, wf, row["scenario"]).memory_u[0]
        if abs(e - cut) > 1e-3:  # a draw on the margin itself is left to rounding
            assert row["options"][0]["holds"] == (e >= cut), (row, e)
        if not row["options"][0]["holds"]:
            assert row["options"][0]["breaks"][0]["workload"] == "serve"
            assert row["options"][0]["breaks"][0]["rule"] == "VRAM"
    share = result.summary.options[1].held / 60
    expected = (0.1 - cut) / 0.2  # 0.738
    assert abs(share - expected) < 4 * math.sqrt(expected * (1 - expected) / 60)


def test_against_the_whole_card_the_same_errors_always_fit(tmp_path):
    # the card is MARGIN / (1 - headroom) = 1.31 x the need; the worst error asks 1.11 x
    result = run(tmp_path, {**MEMORY_ONLY, "memory_line": "vram"}, samples=30, resolve=False)
    assert result.summary.options[1].held == 30


def test_a_slower_true_rate_than_the_slack_breaks_the_target_by_t3(tmp_path):
    wf = tiny_file()
    cat = tiny_catalog(wf)
    rate = replica_throughput(wf.workloads[0], cat.gpus[0], 1, wf.policy).tokens_per_s
    # one replica meets a target of 0.9 x its rate; the truth is 1/1.5 to 1/1.6 of it
    job = wf.workloads[0].model_copy(update={"tokens_per_s": round(0.9 * rate, 3)})
    unc = Uncertainty.model_validate({"growth": {"dist": "fixed", "mean": 1.0}, "estimates": {
        "peak_memory": {"low_pct": 0, "high_pct": 0},
        "tokens_per_s": {"low_pct": 50, "high_pct": 60}}, "samples": 3})
    wf = wf.model_copy(update={"workloads": [job]})
    result = run_uncertainty(wf, cat, unc, tmp_path, "t3", Settings(resolve=False))
    assert dict(result.summary.options[1].first) == {("serve", "throughput"): 3}


def test_exact_estimates_and_fixed_demand_always_hold(tmp_path):
    unc = {"growth": {"dist": "fixed", "mean": 1.0}, "estimates": {"source": "none"}}
    result = run(tmp_path, unc, samples=5)
    assert result.summary.options[1].held == 5
    assert result.summary.resolved.held == 5  # each scenario re-solved finds a plan


def test_more_demand_than_placed_breaks_by_r19(tmp_path):
    unc = {"growth": {"dist": "fixed", "mean": 1.5}, "estimates": {"source": "none"}}
    result = run(tmp_path, unc, samples=3, resolve=False)
    tally = result.summary.options[1]
    assert tally.held == 0
    assert dict(tally.first) == {("serve", "demand"): 3}


def test_same_seed_same_rows(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        run(out, {}, samples=4, resolve=False)

    def rows(folder: Path) -> list[dict]:
        return [json.loads(line) for line in (folder / "tiny-uncertainty.jsonl").open()]

    assert rows(a) == rows(b)


# --- costs and statistics ----------------------------------------------------------------
def test_capex_at_the_scenario_prices_is_each_line_times_its_factor(tmp_path):
    wf = tiny_file()
    cat = tiny_catalog(wf)
    option = sweep_mod.base_plan(wf, cat, Uncertainty(options=1), Settings()).options[0]
    d = draw(Uncertainty(prices={"card": {"dist": "fixed", "mean": 2.0}}), wf, 0)
    want = sum(ln.qty * ln.unit_price * (2.0 if ln.sku == "card" else 1.0)
               * dict(d.prices)[ln.kind] for ln in option.lines)
    assert costs(option, d, wf)["capex"] == pytest.approx(want, abs=0.01)


def test_wilson_interval_and_cvar():
    lo, hi = wilson(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson(0, 0) == (0.0, 1.0)
    s = cost_stats([float(v) for v in range(1, 101)])
    assert s is not None
    assert s["p50"] == 50.5 and s["cvar90"] == 95.5  # mean of 91..100


def test_histogram_and_exceedance_rows():
    hist = histogram_rows([1.0, 2.0, 3.0, 4.0], bins=2)
    assert hist == [[1.0, 2.5, 2], [2.5, 4.0, 2]]
    assert histogram_rows([5.0, 5.0]) == [[5.0, 5.0, 2]]
    curve = exceedance_rows({1: [float(v) for v in range(101)]})
    assert curve[0] == [0.0, 100.0] and curve[-1] == [1.0, 0.0]
    assert [r[1] for r in curve] == sorted((r[1] for r in curve), reverse=True)


# --- failures and interruptions ----------------------------------------------------------
def test_a_failing_scenario_is_reported_not_lost(tmp_path, monkeypatch):
    real = sweep_mod.evaluate_scenario

    def flaky(task):
        if task.draw.index == 1:
            raise RuntimeError("boom")
        return real(task)

    monkeypatch.setattr(sweep_mod, "evaluate_scenario", flaky)
    result = run(tmp_path, {}, samples=3, resolve=False)
    assert result.summary.scenarios == 3
    assert result.summary.failed == [{"scenario": 1, "error": "RuntimeError: boom"}]
    assert result.summary.options[1].n == 2


def test_ctrl_c_leaves_no_file(tmp_path, monkeypatch):
    real = sweep_mod.evaluate_scenario

    def interrupted(task):
        if task.draw.index == 2:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(sweep_mod, "evaluate_scenario", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, {}, samples=4, resolve=False)
    assert list(tmp_path.iterdir()) == []


def test_the_docs_example_section_validates():
    text = (Path(__file__).resolve().parents[1] / "docs" / "workloads.md").read_text()
    block = text.split("```yaml\nuncertainty:")[1].split("```")[0]
    got = yaml.safe_load("uncertainty:" + block)["uncertainty"]
    assert Uncertainty.model_validate(got).samples == 1000
