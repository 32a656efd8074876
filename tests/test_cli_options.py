"""Command-line numbers are checked like file values: nan, inf and out-of-range exit 2."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import WORKLOADS

from cli import main

SMALL = str(WORKLOADS / "small.yaml")


@pytest.mark.parametrize("option", ["--time-limit", "--gap", "--budget"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "-1"])
def test_plan_refuses_non_finite_and_negative_numbers(option, value):
    result = CliRunner().invoke(main, ["plan", SMALL, "--no-workbook", option, value])
    assert result.exit_code == 2, result.output
    assert option in result.output and "Traceback" not in result.output
    if value.lower() == "nan":
        assert "is not a finite number" in result.output


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_sweep_refuses_non_finite_time_limit(value):
    result = CliRunner().invoke(main, ["sweep", SMALL, "--no-workbook", "--time-limit", value])
    assert result.exit_code == 2
    assert "is not a finite number" in result.output


def test_huge_unknown_key_is_cut_in_the_message(write_yaml):
    key = "k" * 3_000_000
    path = write_yaml(f"name: big-key\nworkloads:\n  - name: p\n    kind: preprocess\n"
                      f"    ? {key}\n    : 1\n")
    result = CliRunner().invoke(main, ["plan", str(path), "--no-workbook"])
    assert result.exit_code == 2
    assert "unknown field 'kkkk" in result.output and "…" in result.output
    assert len(result.output) < 2_000


def test_a_million_problems_print_fifty(write_yaml):
    body = "".join(f"  - {{name: w{i}, kind: nope}}\n" for i in range(2000))
    result = CliRunner().invoke(main, ["plan", str(write_yaml("name: x\nworkloads:\n" + body))])
    assert result.exit_code == 2
    assert result.output.count("\n  - ") == 50
    assert "and 1,950 more problems like these" in result.output


# --- One parser for money: plan --budget, sweep --budget and policy.budget --------------------
def _plan_json(*args: str) -> dict:
    import json

    result = CliRunner().invoke(main, ["plan", *args, "--no-workbook", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_plan_budget_takes_a_suffix_like_sweep():
    # 10k buys part of small.yaml (the full plan costs 17,790): the cap reached the program.
    doc = _plan_json(SMALL, "--budget", "10k")
    assert doc["full_plan_cost"] > 10_000
    assert all(o["total_cost"] <= 10_000 and o["unserved"] for o in doc["options"])


def test_sweep_budget_reads_the_same_amounts(tmp_path):
    import json

    result = CliRunner().invoke(main, ["sweep", SMALL, "--no-workbook", "--json", "--out",
                                       str(tmp_path), "--budget", "10k,1.5M,2_000_000"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [r["budget"] for r in rows] == [10_000, 1_500_000, 2_000_000]


def test_policy_budget_in_the_file_takes_a_suffix(write_yaml):
    from solver.inputs.loading import load_workloads

    text = (WORKLOADS / "small.yaml").read_text(encoding="utf-8")
    path = write_yaml(text.replace("policy:\n", "policy:\n  budget: 10k\n", 1))
    assert load_workloads(path).policy.budget == 10_000
    assert _plan_json(str(path))["options"] == _plan_json(SMALL, "--budget", "10000")["options"]


@pytest.mark.parametrize(("value", "says"), [
    ("1,500,000", "without thousands separators"), ("abc", "is not a number"),
    ("0", "must be above 0"), ("", "is not a number"), ("1.5X", "is not a number")])
def test_a_bad_amount_says_what_would_work_everywhere(value, says, write_yaml, tmp_path):
    fix = "1500000, 1.5M or 500k"
    # To sweep, a comma separates values, 0 is out of its range, "" an empty list: its own
    # messages (the empty one below).
    for command in ("plan", "sweep") if value in ("abc", "1.5X") else ("plan",):
        result = CliRunner().invoke(main, [command, SMALL, "--no-workbook", "--out",
                                           str(tmp_path / "out"), "--budget", value])
        assert result.exit_code == 2, result.output
        assert "--budget" in result.output and says in result.output, result.output
        assert fix in result.output and "Traceback" not in result.output
    text = (WORKLOADS / "small.yaml").read_text(encoding="utf-8")
    path = write_yaml(text.replace("policy:\n", f"policy:\n  budget: '{value}'\n", 1))
    result = CliRunner().invoke(main, ["estimate", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}: policy.budget: " in result.output and says in result.output
    assert fix in result.output


def test_sweep_empty_budget_is_refused_not_run_without_one(tmp_path):
    result = CliRunner().invoke(main, ["sweep", SMALL, "--no-workbook", "--out", str(tmp_path),
                                       "--budget", ""])
    assert result.exit_code == 2, result.output
    assert "--budget: '' has an empty value" in result.output
    assert not list(tmp_path.iterdir())


# --- --out: a folder, or the file itself ---------------------------------------------------
def test_plan_out_ending_xlsx_writes_that_file(tmp_path):
    target = tmp_path / "reports" / "report.xlsx"
    result = CliRunner().invoke(main, ["plan", SMALL, "--top", "1", "--out", str(target)])
    assert result.exit_code == 0, result.output
    assert target.is_file() and target.read_bytes()[:2] == b"PK"  # a workbook, not a folder
    assert sorted(p.name for p in target.parent.iterdir()) == ["report-option-1.csv",
                                                                "report.xlsx"]
    assert f"Workbook: {target}" in result.output


def test_sweep_out_ending_xlsx_puts_the_csv_beside_it(tmp_path):
    target = tmp_path / "q.xlsx"
    result = CliRunner().invoke(main, ["sweep", SMALL, "--growth", "1,1.5", "--jobs", "1",
                                       "--out", str(target)])
    assert result.exit_code == 0, result.output
    assert target.is_file() and (tmp_path / "q.csv").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.csv", "q.xlsx"]


def test_an_existing_folder_named_like_a_workbook_stays_a_folder(tmp_path):
    folder = tmp_path / "old.xlsx"
    folder.mkdir()
    result = CliRunner().invoke(main, ["plan", SMALL, "--top", "1", "--out", str(folder)])
    assert result.exit_code == 0, result.output
    assert (folder / "small.xlsx").is_file()


@pytest.mark.parametrize(("command", "name"), [("plan", "report.csv"), ("plan", "r.json"),
                                               ("sweep", "r.ods")])
def test_out_naming_a_file_the_command_does_not_write_is_refused(command, name, tmp_path):
    result = CliRunner().invoke(main, [command, SMALL, "--no-workbook", "--out",
                                       str(tmp_path / name)])
    assert result.exit_code == 2, result.output
    assert "--out" in result.output and "To fix: --out " in result.output
    assert not list(tmp_path.iterdir())
