"""Throughput targets (T3, T4) on tiny instances whose optimum is known by hand.

Catalog (tests/solver_fixtures.py): GPUs small 24 GB $1000, big 80 GB $10000; a box2
server (2 GPU slots) with 2 x 32 GB costs $2200. Every job needs 15 GB at degree 1 (fits
both GPUs) and 10 GB of host RAM per GPU. Table throughput: small 100 tokens/s per GPU,
big 1000. Each test names the rule it would catch if it were removed.
"""

from __future__ import annotations

import pytest
import solver_fixtures as fx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pipeline import run

from solver.errors import InfeasibleError

BOX = 2200
RATES = {"small": 100.0, "big": 1000.0}
TRAIN = {"kind": "lora", "seq_len": 16, "global_batch": 1, "lora_rank": 8}


def setup(monkeypatch, tpot=None):
    fx.install(monkeypatch, {"a": (15, 10)})
    fx.install_rates(monkeypatch, {"a": RATES}, {"a": tpot} if tpot else None)


def test_no_target_runs_one_replica(monkeypatch):
    setup(monkeypatch)
    r = run(fx.workloads({"name": "a"}))
    assert r.options[0].total_cost == BOX + 1000
    assert r.options[0].throughput == ()


def test_target_adds_replicas(monkeypatch):
    """T3 (define_targets): 250 tokens/s takes 3 small GPUs (2 boxes, $7400), cheaper than
    one big GPU ($12200); without the row one small replica ($3200) would do."""
    setup(monkeypatch)
    r = run(fx.workloads({"name": "a", "tokens_per_s": 250}))
    o = r.options[0]
    assert r.status == "optimal"
    assert o.total_cost == 2 * BOX + 3 * 1000
    assert [p.gpu for p in o.placements] == ["small"] * 3
    (fig,) = o.throughput
    assert fig.tokens_per_s == pytest.approx(300) and fig.target_tokens_per_s == 250
    assert fig.replicas == 3 and fig.days_to_finish is None


def test_growth_multiplies_the_target(monkeypatch):
    """R19 on T3: growth 2 makes 250 tokens/s 500: 5 small GPUs (3 boxes) = $11600."""
    setup(monkeypatch)
    r = run(fx.workloads({"name": "a", "tokens_per_s": 250}, growth=2.0))
    assert r.options[0].total_cost == 3 * BOX + 5 * 1000


def test_inference_mixes_gpu_types(monkeypatch):
    """T3 inference: 1100 tokens/s = one big (1000) + one small (100) on two servers,
    $15400; two bigs cost $22200, eleven smalls $24200."""
    setup(monkeypatch)
    r = run(fx.workloads({"name": "a", "tokens_per_s": 1100}))
    assert r.options[0].total_cost == 2 * BOX + 10000 + 1000
    assert sorted(p.gpu for p in r.options[0].placements) == ["big", "small"]


def test_training_keeps_one_gpu_type(monkeypatch):
    """T4 (define_one_gpu_type): the same 1100 tokens/s as a training job may not mix: two
    bigs ($22200) beat eleven smalls ($24200); without T4 the mix ($15400) would win."""
    setup(monkeypatch)
    job = {"name": "a", **TRAIN, "tokens": 1100 * 86400, "deadline_days": 1}
    r = run(fx.workloads(job, data_parallel_efficiency=1.0))
    o = r.options[0]
    assert o.total_cost == BOX + 2 * 10000
    assert {p.gpu for p in o.placements} == {"big"}
    assert o.throughput[0].days_to_finish == pytest.approx(1100 / 2000)


def test_data_parallel_efficiency_counts(monkeypatch):
    """T3 training: 280 tokens/s at 90% efficiency needs 4 small replicas (360 x 0.9 = 324;
    3 give 270 < 280): $8400. At 100% three do: $7400."""
    setup(monkeypatch)
    job = {"name": "a", **TRAIN, "tokens": 280 * 86400, "deadline_days": 1}
    assert run(fx.workloads(job)).options[0].total_cost == 2 * BOX + 4 * 1000
    r = run(fx.workloads(job, data_parallel_efficiency=1.0))
    assert r.options[0].total_cost == 2 * BOX + 3 * 1000


def test_latency_limit_removes_slow_options(monkeypatch):
    """T3 latency: small decodes at 60 ms per token, over max_tpot_ms 50; one big ($12200)."""
    setup(monkeypatch, tpot={"small": 60.0, "big": 20.0})
    r = run(fx.workloads({"name": "a", "tokens_per_s": 250, "max_tpot_ms": 50}))
    assert r.options[0].total_cost == BOX + 10000
    assert r.options[0].throughput[0].tpot_ms == 20.0


def test_unreachable_latency_names_the_best_gpu(monkeypatch):
    """Exit 3 names the workload, its best figure and the GPU that reaches it."""
    setup(monkeypatch, tpot={"small": 60.0, "big": 20.0})
    with pytest.raises(InfeasibleError) as err:
        run(fx.workloads({"name": "a", "tokens_per_s": 250, "max_tpot_ms": 10}))
    reason = "\n".join(err.value.problems)
    assert "a: no GPU option meets its targets" in reason
    assert "20.0 ms" in reason and "on big x1" in reason


def test_budget_leaves_a_target_unserved(monkeypatch):
    """Under a budget a targeted workload is served with its whole target or not at all."""
    setup(monkeypatch)
    fx.install(monkeypatch, {"a": (15, 10), "b": (15, 10)})
    r = run(fx.workloads({"name": "a", "tokens_per_s": 250, "priority": 1},
                         {"name": "b", "priority": 5}, budget=5000))
    assert r.options[0].unserved == ("a",)
    assert r.options[0].throughput == ()


def test_checker_recomputes_the_target(monkeypatch):
    """The checker catches a plan one replica short of the target, on its own."""
    from dataclasses import replace

    from solver.check import check_plan
    setup(monkeypatch)
    wf = fx.workloads({"name": "a", "tokens_per_s": 250})
    o = run(wf).options[0]
    short = replace(o, placements=o.placements[:2])
    assert any("delivers 200.0 tokens/s < target 250.0 (T3)" in e
               for e in check_plan(short, wf, fx.catalog()))


def test_checker_catches_mixed_training(monkeypatch):
    """The checker refuses a training job whose replicas mix GPU types (T4)."""
    from solver.check import check_plan
    setup(monkeypatch)
    o = run(fx.workloads({"name": "a", "tokens_per_s": 1100})).options[0]
    job = {"name": "a", **TRAIN, "tokens": 1100 * 86400, "deadline_days": 1}
    errs = check_plan(o, fx.workloads(job, data_parallel_efficiency=1.0), fx.catalog())
    assert any("(T4)" in e for e in errs)


def _bench_optimum(monkeypatch, wf, cat):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import bench.bruteforce as bf

    monkeypatch.setattr(bf, "estimate", fx.fake_estimate)
    monkeypatch.setattr(bf, "replica_throughput", fx.fake_throughput)
    return bf.optimum(wf, cat)


target_job = st.tuples(
    st.sampled_from(["inference", "lora"]),
    st.sampled_from([15.0, 30.0]),  # VRAM need at degree 1, GB
    st.sampled_from([5.0, 20.0]),  # host RAM per GPU, GB
    st.sampled_from([50.0, 150.0, 250.0, 1100.0]),  # target tokens/s
    st.sampled_from([60.0, 140.0]),  # small GPU tokens/s (per GPU)
    st.integers(1, 2),  # replicas (at least)
)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(job=target_job, eta=st.sampled_from([0.9, 1.0]))
def test_targets_rank1_equals_brute_force(monkeypatch, job, eta):
    """Rank 1 with a throughput target equals bench/bruteforce.py's exhaustive minimum on the
    table estimator (replica counts and option mixes enumerated there); every plan checks."""
    kind, vram, ram, target, small_rate, n = job
    fx.install(monkeypatch, {"a": (vram, ram)})
    fx.install_rates(monkeypatch, {"a": {"small": small_rate, "big": 1000.0}})
    item: dict = {"name": "a", "replicas": n}
    if kind == "inference":
        item["tokens_per_s"] = target
    else:
        item.update(TRAIN, tokens=target * 86400, deadline_days=1)
    wf = fx.workloads(item, data_parallel_efficiency=eta)
    cat = fx.catalog()
    expected = _bench_optimum(monkeypatch, wf, cat)
    if expected is None:
        with pytest.raises(InfeasibleError):
            run(wf, cat)
        return
    r = run(wf, cat, top=2)
    assert r.options[0].total_cost == pytest.approx(expected)


def test_workbook_throughput_sheet(tmp_path):
    """workloads/deadlines.yaml's workbook has a Throughput sheet whose totals are live
    formulas of the per-replica figures (stored values match the plan's)."""
    from pathlib import Path

    import openpyxl

    from solver.inputs.loading import load_catalog, load_workloads
    from solver.optimize.pipeline import plan
    from solver.report.workbook import write_workbook

    root = Path(__file__).resolve().parent.parent
    wf = load_workloads(root / "workloads" / "deadlines.yaml")
    cat = load_catalog(root / "catalogs" / "default.yaml")
    result = plan(wf, cat, top=1, with_baseline=False)
    book = write_workbook(tmp_path / "d.xlsx", result, wf, cat,
                          {"workloads": root / "workloads" / "deadlines.yaml"})
    ws = openpyxl.load_workbook(book)["Throughput"]
    rows = list(ws.iter_rows(min_row=5, values_only=True))
    totals = [r for r in rows if r[1] and str(r[1]).endswith(" total")]
    assert len(totals) == len(result.options[0].throughput)
    assert all(str(r[9]).startswith("=") for r in totals)  # delivered tokens/s: a formula
    pre = next(r for r in totals if r[1] == "pretrain-3b total")
    assert str(pre[12]).startswith("=") and str(pre[13]).startswith("=")
