"""Same answers before and after a move: every shipped file's `plan --json` and `estimate
--json`, compared whole with a recorded copy.

The recorded copies in tests/golden/ pin what a user gets (costs, statuses, options, servers,
placements, notes). A change that means to alter an answer re-records them on purpose and
shows the difference in its commit:

    .venv/bin/python tests/test_golden.py --update
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cli import main

GOLDEN = ROOT / "tests" / "golden"
SHIPPED = sorted((ROOT / "workloads").glob("*.yaml"))
COMMANDS = {"plan": ["--no-workbook"], "estimate": []}
CASES = [(cmd, path) for path in SHIPPED for cmd in COMMANDS]


def _document(cmd: str, path: Path) -> dict:
    result = CliRunner().invoke(main, [cmd, str(path), "--json", *COMMANDS[cmd]])
    assert result.exit_code in (0, 3), result.output
    return json.loads(result.stdout)


def _recorded(cmd: str, path: Path) -> Path:
    return GOLDEN / f"{path.stem}.{cmd}.json"


@pytest.mark.parametrize(("cmd", "path"), CASES, ids=lambda c: getattr(c, "stem", c))
def test_shipped_answers_are_unchanged(cmd: str, path: Path) -> None:
    recorded = _recorded(cmd, path)
    assert recorded.exists(), f"no recorded copy: run {Path(__file__).name} --update"
    assert _document(cmd, path) == json.loads(recorded.read_text(encoding="utf-8"))


def test_every_shipped_file_has_a_recorded_copy() -> None:
    wanted = {_recorded(cmd, path).name for cmd, path in CASES}
    assert wanted == {p.name for p in GOLDEN.glob("*.json")}


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    GOLDEN.mkdir(exist_ok=True)
    for cmd, path in CASES:
        text = json.dumps(_document(cmd, path), indent=1, sort_keys=True, ensure_ascii=False)
        _recorded(cmd, path).write_text(text + "\n", encoding="utf-8")
        print("recorded", _recorded(cmd, path).relative_to(ROOT))
