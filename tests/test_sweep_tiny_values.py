"""Sweep axis values too small to tell from their bound are refused by the option's name.

``--budget 1e-300`` passed the "> 0" check, was kept to 10 decimals as 0 and failed later
as "invalid policy override - budget: ... got 0.0", naming no option.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import WORKLOADS

from cli import main
from solver.errors import InputError
from solver.sweep.axes import parse_values


@pytest.mark.parametrize("option, fix", [("--budget", "e.g. 500k"), ("--growth", "e.g. 1.25")])
def test_a_value_that_rounds_to_its_bound_names_the_option(tmp_path, option, fix):
    result = CliRunner().invoke(main, ["sweep", str(WORKLOADS / "small.yaml"), "--no-workbook",
                                       "--out", str(tmp_path), option, "1e-300"])
    assert result.exit_code == 2, result.output
    assert f"{option}: 1e-300 is out of range. To fix: use values > 0, {fix}" in result.output
    assert "policy override" not in result.output and not list(tmp_path.iterdir())


def test_a_tiny_value_above_the_rounding_is_kept():
    assert parse_values("1e-9", "--x", 0.0, strict=True) == (1e-9,)
    with pytest.raises(InputError, match="out of range"):
        parse_values("1e-11", "--x", 0.0, strict=True)
