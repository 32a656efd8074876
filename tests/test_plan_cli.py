"""``plan-buy plan`` from the command line: exit codes, JSON contract, messages."""

from __future__ import annotations

import json
from pathlib import Path

import pulp
import pytest
from click.testing import CliRunner

from cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
Q3 = str(ROOT / "workloads" / "q3.yaml")


@pytest.fixture(scope="module")
def q3_json():
    result = CliRunner().invoke(main, [Q3, "--json", "--no-workbook"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_is_the_spec_document(q3_json):
    doc = q3_json
    assert doc["status"] == "optimal"
    assert doc["currency"] == "USD"
    assert 1 <= len(doc["options"]) <= 3
    o = doc["options"][0]
    assert set(o) == {"rank", "label", "total_cost", "over_cheapest", "servers", "lines",
                      "placements", "unserved", "throughput", "capex", "energy_cost", "tco",
                      "power_kw", "racks", "cloud_cost", "bought_running_cost", "break_even_month", "idle",
                      "direction", "fabric"}
    assert o["direction"] is None  # rank 1 pushes no direction
    # q3's alternative is proven best in its direction; since issue 37's estimates its
    # fewest-servers plan (9 servers) is beaten by this one's 8 and left out
    # (tests/test_alternatives_ahead.py)
    assert [(a["label"], a["direction"]) for a in doc["options"][1:]] == [
        ("no consumer GPUs", {"key": "consumer", "value": 0, "unit": "consumer GPU",
                              "better": "lower", "best_possible": 0, "proven_best": True,
                              "cheapest_value": 8})]
    assert set(o["servers"][0]) == {"id", "platform", "gpu", "gpu_count", "memory",
                                    "dimm_count", "storage", "drive_count", "owned",
                                    "disk_tb", "disk_used_tb"}
    assert set(o["lines"][0]) == {"sku", "kind", "qty", "unit_price", "extended"}
    assert set(o["placements"][0]) == {"workload", "replica", "server", "gpu", "gpus",
                                       "vram_gb_per_gpu", "host_ram_gb", "tokens_per_s",
                                       "tpot_ms", "ttft_ms"}
    assert sum(line["extended"] for line in o["lines"]) == pytest.approx(o["total_cost"])


def test_options_ranked_by_cost(q3_json):
    costs = [o["total_cost"] for o in q3_json["options"]]
    assert costs == sorted(costs)


def test_customer_file_plans_as_is():
    result = CliRunner().invoke(main, ["plan", str(DATA / "customer-q3.yaml"),
                                       "--no-workbook", "--top", "1"])
    assert result.exit_code == 0, result.output
    assert "optimal" in result.output
    assert "1 " in result.output


def test_infeasible_exits_3_with_reason(tmp_path):
    f = tmp_path / "big.yaml"
    f.write_text(
        "name: big\npolicy: {max_parallel_degree: 1}\nworkloads:\n"
        "  - {name: giant-serving, kind: inference, model: llama-3.1-405b, precision: bf16,"
        " context: 8192, batch: 8}\n"
    )
    result = CliRunner().invoke(main, [str(f), "--no-workbook"])
    assert result.exit_code == 3
    assert "giant-serving needs" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("cap", [1, 64])
def test_infeasible_advice_names_the_servers_when_no_cap_would_help(tmp_path, cap):
    """A 405B full training run needs more than 8 GPUs' VRAM (932 GB each on 8 H200): under
    a cap of 1 or of 64 the servers (8 GPUs at most, a replica on one server) bind, and
    "raise max_parallel_degree" would send the user in a circle."""
    f = tmp_path / "big.yaml"
    f.write_text(
        f"name: big\npolicy: {{max_parallel_degree: {cap}}}\nworkloads:\n"
        "  - {name: train-405b, kind: train, model: llama-3.1-405b, seq_len: 8192,"
        " global_batch: 1024}\n"
    )
    result = CliRunner().invoke(main, [str(f), "--no-workbook"])
    assert result.exit_code == 3
    assert "raise max_parallel_degree" not in result.output
    assert ("a replica runs within one server, and no server of the catalog holds more than "
            "8 GPUs" in result.output)


def test_infeasible_advice_raises_a_parallel_cap_to_where_the_job_fits(tmp_path):
    """QLoRA of a 70B model fits on 4 x H200 (tests/data/qlora-70b.yaml): under a cap of 1
    the advice is the cap and the value that fits, beside checkpointing."""
    f = tmp_path / "capped.yaml"
    f.write_text((DATA / "qlora-70b.yaml").read_text() + "policy: {max_parallel_degree: 1}\n")
    result = CliRunner().invoke(main, [str(f), "--no-workbook"])
    assert result.exit_code == 3
    text = " ".join(result.output.split())
    assert "max_parallel_degree caps a replica at 1 GPU." in text
    assert "raise max_parallel_degree to 4 (it would fit on 4 x h200-sxm)" in text


def test_bad_budget_is_usage_error():
    result = CliRunner().invoke(main, [Q3, "--budget", "-5"])
    assert result.exit_code == 2


def test_solver_crash_exits_4(monkeypatch):
    def boom(self, lp, callback=None):
        raise pulp.PulpSolverError("simulated crash")

    monkeypatch.setattr(pulp.HiGHS, "actualSolve", boom)
    result = CliRunner().invoke(main, [Q3, "--solver", "highs", "--no-workbook"])
    assert result.exit_code == 4
    assert "solver failed" in result.output


# --- a budget that buys nothing ---------------------------------------------------------------
SMALL = str(ROOT / "workloads" / "small.yaml")


def test_budget_that_buys_nothing_is_infeasible_and_writes_no_workbook(tmp_path):
    result = CliRunner().invoke(main, [SMALL, "--budget", "1000", "--out", str(tmp_path)])
    assert result.exit_code == 3, result.output
    err = result.stderr
    assert "the budget of USD 1,000 buys nothing" in err
    # The cheapest workload (ties: the most priority) and what it costs alone, and the full plan.
    assert "at least USD 6,670, what serving serve-mistral-7b alone costs" in err
    assert "serve-mistral-7b (inference, priority 9, 1 replica(s)): USD 6,670 on its own" in err
    assert "every workload: USD 17,790" in err
    assert result.stdout == ""
    assert not list(tmp_path.glob("*.xlsx")) and not list(tmp_path.glob(".*"))


def test_budget_that_buys_nothing_json_document(tmp_path):
    result = CliRunner().invoke(main, [SMALL, "--budget", "1000", "--json", "--out",
                                       str(tmp_path)])
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    assert doc["status"] == "infeasible" and doc["options"] == []
    assert doc["budget"] == 1000 and doc["currency"] == "USD"
    assert doc["cheapest_workload"] == "serve-mistral-7b"
    assert doc["cheapest_workload_cost"] == pytest.approx(6670)
    assert doc["full_plan_cost"] == pytest.approx(17790)
    assert len(doc["unserved"]) == 4 == len(doc["workload_costs"])
    costs = [c["total_cost"] for c in doc["workload_costs"]]
    assert costs == sorted(costs) and costs[0] == doc["cheapest_workload_cost"]
    assert doc["error"].startswith("the budget of USD 1,000 buys nothing")
    assert "buys nothing" in result.stderr
    assert not list(tmp_path.glob("*.xlsx"))


def test_budget_that_buys_part_still_plans(tmp_path):
    result = CliRunner().invoke(main, [SMALL, "--budget", "8000", "--json", "--no-workbook"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["status"] == "optimal" and doc["options"][0]["total_cost"] <= 8000
    assert len(doc["options"][0]["unserved"]) == 3


def test_sweep_budget_that_buys_nothing_is_a_row_not_a_failure(tmp_path):
    result = CliRunner().invoke(main, ["sweep", SMALL, "--budget", "1000,8000", "--jobs", "1",
                                       "--no-workbook", "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    nothing = rows[0]
    assert nothing["budget"] == 1000 and nothing["total_cost"] == 0
    assert nothing["served"] == [] and len(nothing["unserved"]) == 4
    assert nothing["served_priority"] == 0 and not nothing["error"]
    assert rows[1]["served"]


def test_the_library_gives_the_command_lines_answer(default_catalog):
    """``optimize.answer`` holds the policy ``plan`` once kept in cli.py: under a budget
    that leaves work out the plan serving everything is priced too (``full_plan_cost``),
    and a budget that buys nothing raises, as the command line exits 3."""
    from solver.errors import NothingServedError
    from solver.inputs.loading import load_workloads
    from solver.inputs.scenario import with_policy
    from solver.optimize.answer import answer

    wf = load_workloads(Path(SMALL))
    with pytest.raises(NothingServedError, match="the budget of USD 1,000 buys nothing"):
        answer(with_policy(wf, budget=1000), default_catalog, top=1)
    got = answer(with_policy(wf, budget=10_000), default_catalog, top=1)
    assert got.result.options[0].unserved
    assert got.to_json()["full_plan_cost"] == pytest.approx(17790)
    assert "full_plan_cost" not in answer(wf, default_catalog, top=1).to_json()
