"""Inputs that load but once misled the planner (issue 34, section 6), run through ``plan``.

Every ``tests/bad_inputs/plan/*.yaml`` is one case. Its header lines say how it runs and
what it must produce: ``# args: ...`` (options after the file; ``--no-workbook`` always),
``# exit: N`` (the exit code), ``# expect: TEXT`` (must appear in the output) and
``# absent: TEXT`` (must not). Files named ``catalog-*`` are catalogs, planned with
``workloads/q3.yaml`` unless a ``# workloads: NAME`` line names a file of this folder.
No case may show a traceback. Nothing here measures time: the ``limit-*`` cases once ran
for minutes past their ``--time-limit`` and now plan; ``test_expand_scaling.py`` counts
the work that made them slow.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import BAD_INPUTS, WORKLOADS

from cli import main

FOLDER = BAD_INPUTS / "plan"
CASES = sorted(p for p in FOLDER.glob("*.yaml") if not p.name.startswith("_"))


@pytest.fixture(autouse=True)
def fresh_command(monkeypatch):
    """Each case runs as a command started now: its --time-limit counts from the case, not
    from when pytest started (the CLI counts from its process's start, which in-process is
    this test session's; a case late in a long run was left its minimum slice)."""
    import time

    monkeypatch.setattr("solver.optimize.budget.process_started", time.perf_counter)


def _header(path: Path, key: str) -> list[str]:
    return re.findall(rf"^# {key}: (.*)$", path.read_text(encoding="utf-8"), re.MULTILINE)


def test_every_case_says_its_exit_code_and_what_it_expects():
    assert CASES
    for path in CASES:
        assert len(_header(path, "exit")) == 1, f"{path.name}: one '# exit:' line"
        assert _header(path, "expect"), f"{path.name}: no '# expect:' line"


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_bad_plan_case(path: Path, tmp_path: Path):
    args = [a for line in _header(path, "args") for a in shlex.split(line)]
    if path.name.startswith("catalog-"):
        named = _header(path, "workloads")
        workloads = FOLDER / named[0] if named else WORKLOADS / "q3.yaml"
        run = ["plan", str(workloads), "--catalog", str(path)]
    else:
        run = ["plan", str(path)]
    result = CliRunner().invoke(main, [*run, "--no-workbook", "--out", str(tmp_path), *args])
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert "Traceback" not in output, output
    assert result.exit_code == int(_header(path, "exit")[0]), (run, args, output)
    for text in _header(path, "expect"):
        assert text in output, f"expected {text!r} in:\n{output}"
    for text in _header(path, "absent"):
        assert text not in output, f"did not expect {text!r} in:\n{output}"
