"""U1 on hand-solved instances: the plan held to sampled worlds (``rules/chance.py``) and
its rows (``optimize/program/chance.py``), each of which changes the answer when taken out.

One inference job (a 1B model, batch 4) on a catalog of two cards; the estimate's need
``need`` and one replica's tokens/s ``rate`` are read from the estimator once, and the cards
are sized around them, so the answer follows from the draws by hand:

- memory: "small" holds 1.25 × need (USD 1,000), "big" 3 × need (USD 3,000). With the
  true need need / (1 + e), e uniform on [-40 %, 0], a replica fits "small" in a world
  exactly when 1 / (1 + e) ≤ 1.25, i.e. e ≥ -20 %: about half of the worlds;
- throughput: target 1.5 × rate, so two replicas meet it at the estimate; with the true
  rate rate / (1 + e), e uniform on [-25 %, +50 %], two replicas hold when 1 + e ≤ 4/3
  (about 78 % of the worlds), three always.
"""

from __future__ import annotations

import pytest

from solver.errors import CheckError
from solver.estimate.replica import estimate, replica_throughput
from solver.inputs.catalog import Catalog
from solver.inputs.workload import WorkloadFile
from solver.optimize import pipeline
from solver.optimize.program import assemble
from solver.uncertainty.draws import draw
from tests.solver_fixtures import catalog
from tests.test_uncertainty import MODEL, gpu

N = 40


def _job(**extra) -> dict:
    return {"name": "serve", "kind": "inference", "model": MODEL, "precision": "bf16",
            "context": 2048, "batch": 4, **extra}


def _file(robust: float, job: dict, estimates: dict) -> WorkloadFile:
    return WorkloadFile.model_validate({
        "name": "chance", "policy": {"headroom": 0.0, "max_parallel_degree": 1},
        "workloads": [job],
        "uncertainty": {"samples": N, "seed": 11, "robust": robust,
                        "growth": {"dist": "fixed", "mean": 1.0},
                        "estimates": estimates}})


def _probe() -> tuple[float, float]:
    """(need GB, tokens/s) of one replica on a roomy probe card."""
    wf = _file(0.5, _job(), {"source": "none"})
    g = catalog(gpus=[gpu(200)]).gpus[0]
    e = estimate(wf.workloads[0], g, 1, wf.policy)
    return e.vram_gb_per_gpu, replica_throughput(wf.workloads[0], g, 1, wf.policy, e).tokens_per_s


def _two_cards(need: float) -> Catalog:
    small = {**gpu(need * 1.25), "sku": "small", "price": 1000}
    big = {**gpu(need * 3), "sku": "big", "price": 3000}
    return catalog(gpus=[small, big])


MEMORY = {"peak_memory": {"low_pct": -40, "high_pct": 0},
          "tokens_per_s": {"low_pct": 0, "high_pct": 0}}


def _cards(result) -> set[str]:
    return {p.gpu for p in result.options[0].placements}


def _small_holds(wf: WorkloadFile) -> int:
    """Worlds where one replica fits "small", counted from the draws alone."""
    return sum(1 / (1 - 0.4 + 0.4 * draw(wf.uncertainty, wf, i).memory_u[0]) <= 1.25 + 1e-9
               for i in range(N))


@pytest.mark.parametrize("robust", [0.3, 0.9])
def test_a_card_too_small_in_too_many_worlds_is_not_bought(robust):
    need, _ = _probe()
    cat = _two_cards(need)
    wf = _file(robust, _job(), MEMORY)
    held = _small_holds(wf)
    assert 0.3 * N < held < 0.9 * N  # the draws make the two levels differ
    got = pipeline.plan(wf, cat, top=1, with_baseline=False)
    assert _cards(got) == ({"small"} if held >= robust * N else {"big"})
    assert got.status.value == "optimal"


def test_without_the_chance_rows_the_checker_refuses_the_plan(monkeypatch):
    need, _ = _probe()
    monkeypatch.setattr(assemble, "define_chance", lambda m, wf, cand: None)
    with pytest.raises(CheckError, match="U1"):
        pipeline.plan(_file(0.9, _job(), MEMORY), _two_cards(need), top=1,
                      with_baseline=False)


SPEED = {"peak_memory": {"low_pct": 0, "high_pct": 0},
         "tokens_per_s": {"low_pct": -25, "high_pct": 50}}


def _two_hold(wf: WorkloadFile) -> int:
    """Worlds where two replicas meet the target, from the draws alone."""
    return sum(1 + (-0.25 + 0.75 * draw(wf.uncertainty, wf, i).speed_u[0]) <= 4 / 3 + 1e-9
               for i in range(N))


@pytest.mark.parametrize("robust", [0.6, 0.95])
def test_replicas_for_a_target_at_the_worlds_rates(robust):
    need, rate = _probe()
    cat = catalog(gpus=[{**gpu(need * 3), "sku": "big", "price": 3000}])
    wf = _file(robust, _job(tokens_per_s=round(1.5 * rate, 6)), SPEED)
    held = _two_hold(wf)
    assert 0.6 * N <= held < 0.95 * N
    got = pipeline.plan(wf, cat, top=1, with_baseline=False)
    assert len(got.options[0].placements) == (2 if held >= robust * N else 3)


def test_without_the_target_rows_two_replicas_are_bought_and_refused(monkeypatch):
    need, rate = _probe()
    cat = catalog(gpus=[{**gpu(need * 3), "sku": "big", "price": 3000}])
    wf = _file(0.95, _job(tokens_per_s=round(1.5 * rate, 6)), SPEED)
    from solver.optimize.program import chance

    real = chance.define_chance

    def without_targets(m, wf, cand):
        real(m, wf, cand)
        for name in [n for n in m.prob.constraints if n.startswith("chance.target")]:
            del m.prob.constraints[name]

    monkeypatch.setattr(assemble, "define_chance", without_targets)
    with pytest.raises(CheckError, match="U1"):
        pipeline.plan(wf, cat, top=1, with_baseline=False)


def test_the_program_matches_the_brute_force_on_tiny_instances():
    """U1's optimum by exhaustion (``bench/bruteforce_chance.py``: every count of replicas on
    every option, every world counted on its own) equals the program's rank 1, on instances
    where holding costs more than the plain plan, and where it does not."""
    from bench.bruteforce_chance import crosscheck

    res = crosscheck(40)
    assert res["mismatches"] == [] and res["match"] == 40
    assert res["dearer"] >= 10 and res["infeasible"] < 20


def test_a_scenario_is_certain_so_its_re_solve_is_a_plain_plan():
    """A sweep of a file held to sampled scenarios re-solves each scenario as a plain plan
    (its ``uncertainty`` dropped): the scenario is one world, not a sample of them."""
    from solver.uncertainty.scenario import Cells, scenario_file, world

    need, _ = _probe()
    cat = _two_cards(need)
    wf = _file(0.9, _job(), MEMORY)
    d = draw(wf.uncertainty, wf, 0)
    cells = Cells.of(wf, cat)
    assert scenario_file(wf, cells, wf.uncertainty.estimates, d).uncertainty is None
    there = world(wf, cells, wf.uncertainty, d)
    assert there.uncertainty is None and there.policy.headroom == 0.0
    assert there.policy.growth == round(d.growth, 6)


LATENCY = {"peak_memory": {"low_pct": 0, "high_pct": 0},
           "tokens_per_s": {"low_pct": 0, "high_pct": 0},
           "tpot_ms": {"low_pct": -40, "high_pct": 0}}


def _tpot(card: dict) -> float:
    wf = _file(0.5, _job(), {"source": "none"})
    g = catalog(gpus=[card]).gpus[0]
    return replica_throughput(wf.workloads[0], g, 1, wf.policy).tpot_ms


@pytest.mark.parametrize("robust", [0.3, 0.9])
def test_a_card_too_slow_per_token_in_too_many_worlds_is_not_bought(robust):
    """TPOT is off from its own band, driven by the same draw as tokens/s at 1 − u: the
    true TPOT is TPOT / (1 + e), e = -40 % + 40 % × (1 − u). The limit is 1.25 × the slow
    card's estimate, so the slow card holds when 1 / (1 + e) ≤ 1.25 (about half of the
    worlds); the fast card's worst, 1 / 0.6 of its estimate, stays under it."""
    need, _ = _probe()
    slow = {**gpu(need * 3), "sku": "slow", "price": 1000}
    fast = {**gpu(need * 3), "sku": "fast", "price": 3000, "mem_bw_gbps": 4000}
    limit = 1.25 * _tpot(slow)
    assert _tpot(fast) / 0.6 < limit
    wf = _file(robust, _job(max_tpot_ms=round(limit, 6)), LATENCY)
    held = sum(1 / (0.6 + 0.4 * (1 - draw(wf.uncertainty, wf, i).speed_u[0])) <= 1.25 + 1e-9
               for i in range(N))
    assert 0.3 * N < held < 0.9 * N
    got = pipeline.plan(wf, catalog(gpus=[slow, fast]), top=1, with_baseline=False)
    assert _cards(got) == ({"slow"} if held >= robust * N else {"fast"})


def _shared_instance(seed: int):
    """A tiny instance (``bench/bruteforce.tiny_instance``) whose inference jobs share GPUs,
    2-5 replicas each, held to 12 worlds with peak memory up to 40 % under-estimated."""
    import random

    from bench.bruteforce import tiny_instance
    from bench.generate import DEFAULT_CATALOG
    from solver.inputs.loading import load_catalog

    wf, cat = tiny_instance(seed, load_catalog(DEFAULT_CATALOG))
    rng = random.Random(seed)
    data = wf.model_dump(mode="json", exclude_none=True)
    for w in data["workloads"]:
        if w["kind"] == "inference":
            w.update(shareable=True, replicas=rng.randint(2, 5))
    data["uncertainty"] = {"samples": 12, "seed": seed, "robust": rng.choice((0.5, 0.75, 0.9)),
                           "growth": {"dist": "uniform", "low": 1.0, "high": 1.6},
                           "estimates": {"peak_memory": {"low_pct": -40, "high_pct": 10}}}
    return WorkloadFile.model_validate(data), cat


@pytest.mark.parametrize("seed", [9, 13, 35, 45, 56])
def test_shared_gpus_are_packed_for_the_worlds_the_plan_holds_in(seed):
    """Shared replicas are packed by the most they need in the file and in each world the
    plan holds in (``expand._held_size``): packed by the file's needs alone, three replicas
    of 20 GB filled a GPU whose line is 80 GB in a world where each needs 28 GB, and the
    checker refused the plan (these seeds all did)."""
    from solver.check import check_rule
    from solver.check.verdict import verdict
    from solver.rules.chance import required
    from solver.uncertainty.worlds import worlds

    wf, cat = _shared_instance(seed)
    got = pipeline.plan(wf, cat, top=1, with_baseline=False)  # a CheckError fails here
    option = got.options[0]
    assert check_rule("U1", option, wf, cat) == []
    held = sum(verdict(option, w.wf, cat)["holds"] for w in worlds(wf, cat))
    assert held >= required(wf.uncertainty.robust, 12)


def test_no_pool_holds_that_often_exits_3_with_the_reason(tmp_path):
    """True needs up to 5 x the estimate: the card (3 x the estimate) fits too few worlds
    for 95%, whatever is bought. The answer is exit 3 saying so, never a traceback."""
    import yaml
    from click.testing import CliRunner

    from cli import main
    from solver.errors import InfeasibleError
    from solver.uncertainty.draws import resolve
    from solver.uncertainty.robust import default_planner, plan_robust

    need, _ = _probe()
    cat = catalog(gpus=[{**gpu(need * 3), "sku": "big", "price": 3000}])
    estimates = {"peak_memory": {"low_pct": -80, "high_pct": 0}}
    wf = _file(0.95, _job(), estimates)
    with pytest.raises(InfeasibleError, match="no plan holds in 38 of the 40"):
        plan_robust(wf, cat, resolve(wf, cat, "x"), 0.95, default_planner(cat, top=1))
    path, cat_path = tmp_path / "w.yaml", tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(wf.model_dump(mode="json", exclude_defaults=True)))
    cat_path.write_text(yaml.safe_dump(cat.model_dump(mode="json", exclude_none=True)))
    got = CliRunner().invoke(main, ["plan", str(path), "--catalog", str(cat_path),
                                    "--no-workbook"])
    assert got.exit_code == 3 and "Traceback" not in got.output
    assert "no plan holds in 38 of the 40 sampled scenarios" in got.output
