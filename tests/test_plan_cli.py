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
                      "power_kw", "racks", "cloud_cost", "break_even_month", "idle"}
    assert set(o["servers"][0]) == {"id", "platform", "gpu", "gpu_count", "memory",
                                    "dimm_count", "storage", "drive_count", "owned",
                                    "disk_tb", "disk_used_tb"}
    assert set(o["lines"][0]) == {"sku", "kind", "qty", "unit_price", "extended"}
    assert set(o["placements"][0]) == {"workload", "replica", "server", "gpu", "gpus",
                                       "vram_gb_per_gpu", "host_ram_gb", "tokens_per_s"}
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
