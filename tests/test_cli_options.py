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
