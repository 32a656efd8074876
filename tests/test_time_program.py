"""The run program (H1, H3–H5) on hand-solved instances, each of which fails when its rule's
rows are taken out of the program.

Every instance uses the table estimator (tests/solver_fixtures.py): one GPU "big" (USD 10,000)
in a 2-slot "box2" platform (USD 2,000) with 2 x d32 DIMMs (USD 100 each, R14's two
channels): a run server is box2 + 2 x big + 2 x d32 = USD 22,200 and holds two replicas. A
replica trains 1,000 tokens/s = 3.6M tokens an hour (one replica has no data-parallel traffic,
N2); every run needs TOKENS = 3.6M x 168, one replica for its whole 7-day window. Renting "big" costs USD 1
per GPU-hour, so a run rented costs USD 168.
"""

from __future__ import annotations

import pytest

from solver.errors import CheckError
from solver.inputs.fabric import CloudPrice
from solver.inputs.workload import WorkloadFile
from solver.optimize.runs import program
from solver.optimize.runs.plan import plan_over_time
from tests.solver_fixtures import catalog, install, install_rates

SERVER = 2000 + 2 * 10000 + 2 * 100
RUN_RENT = 168.0
TOKENS = 1000 * 3600 * 168
MODEL = {"params_b": 1, "hidden": 1024, "layers": 2, "heads": 8, "vocab": 1000}


def _file(*runs: dict, months: int = 36) -> WorkloadFile:
    jobs = [{"kind": "train", "model": MODEL, "seq_len": 16, "global_batch": 8,
             "tokens": TOKENS, "deadline_days": 7, **r} for r in runs]
    return WorkloadFile.model_validate({
        "name": "t", "policy": {"horizon": {"start": "2027-01-04", "months": months}},
        "workloads": jobs})


def _catalog(max_gpus: int | None = None):
    big = {"sku": "big", "vram_gb": 80, "mem_bw_gbps": 2000, "bf16_tflops": 300,
           "power_w": 400, "form_factor": "pcie", "nvlink_gbps": 600, "price": 10000}
    cat = catalog(gpus=[big])
    return cat.model_copy(update={"cloud": [CloudPrice(gpu="big", per_gpu_hour=1.0,
                                                       max_gpus=max_gpus)]})


@pytest.fixture
def tables(monkeypatch):
    install(monkeypatch, {"a": (40, 1), "b": (40, 1)})
    install_rates(monkeypatch, {"a": {"big": 1000.0}, "b": {"big": 1000.0}})


def _cost(wf: WorkloadFile, cat) -> tuple[float, int, float]:
    """Horizon cost, run servers bought and rent of option 1."""
    best = plan_over_time(wf, cat, top=1, with_baseline=False).options[0]
    assert best.time is not None
    return round(best.time.horizon_cost, 2), len(best.time.run_servers), best.time.rent


def test_a_one_off_run_is_rented(tables):
    # 168 to rent against 22,200 to buy.
    assert _cost(_file({"name": "a"}), _catalog()) == (RUN_RENT, 0, RUN_RENT)


def test_a_weekly_run_buys_its_server(tables):
    # 156 weekly runs in 36 months (the 157th would end after the horizon): renting them all
    # costs 156 x 168 = 26,208 > 22,200, and one server does every run in turn.
    assert _cost(_file({"name": "a", "repeat": "weekly"}), _catalog()) == (SERVER, 1, 0.0)


def test_a_short_horizon_charges_its_share_of_the_server(tables):
    # H1: 12 months of a 36-month life: 52 runs rented cost 8,736; the server is charged
    # 22,200 / 3 = 7,400, so it is bought.
    wf = _file({"name": "a", "repeat": "weekly"}, months=12)
    assert _cost(wf, _catalog()) == (SERVER / 3, 1, 0.0)


def test_runs_in_turn_share_one_server(tables):
    # H4: a and b alternate weeks (every 14 days, b a week later): 78 runs each. Alone, each
    # would be rented (78 x 168 = 13,104 < 22,200); together one server does all 156 runs
    # (22,200 < 26,208 to rent them all), because their windows never meet.
    wf = _file({"name": "a", "repeat": {"every_days": 14}},
               {"name": "b", "repeat": {"every_days": 14}, "start": "2027-01-11"})
    assert _cost(wf, _catalog()) == (SERVER, 1, 0.0)


def test_a_rental_cap_sends_one_run_to_a_bought_server(tables):
    # H5: a and b share one week. With at most 1 GPU rented at a time only one is rented
    # (168); the other runs on a bought server (22,200).
    wf = _file({"name": "a"}, {"name": "b"})
    assert _cost(wf, _catalog(max_gpus=1)) == (SERVER + RUN_RENT, 1, RUN_RENT)
    assert _cost(wf, _catalog()) == (2 * RUN_RENT, 0, 2 * RUN_RENT)


CASES = [
    ("define_one_way", lambda: _file({"name": "a"}), None, (RUN_RENT, 0, RUN_RENT)),
    ("define_servers_in_time", lambda: _file({"name": "a", "repeat": "weekly"}), None,
     (SERVER, 1, 0.0)),
    ("define_rent_caps", lambda: _file({"name": "a"}, {"name": "b"}), 1,
     (SERVER + RUN_RENT, 1, RUN_RENT)),
]


@pytest.mark.parametrize(("rows", "wf", "cap", "answer"), CASES, ids=[c[0] for c in CASES])
def test_each_rule_decides_its_instance(tables, monkeypatch, rows, wf, cap, answer):
    """Without its rows (H3 one way per run, H4 servers in time, H5 rent caps) the program's
    answer to the instance above changes, or the checker refuses the plan: each rule is
    needed for it."""
    assert _cost(wf(), _catalog(cap)) == answer
    monkeypatch.setattr(program, rows, lambda *args, **kwargs: None)
    try:
        changed = _cost(wf(), _catalog(cap))
    except IndexError:
        return  # no way chosen for a run: nothing to report (H3 needed)
    except CheckError as exc:
        assert any(p.endswith(("(H3)", "(H4)", "(H5)")) for p in exc.problems), exc.problems
        return
    assert changed != answer
