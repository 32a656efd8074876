"""Input paths that are not regular files are refused by what they are, quickly (exit 2).

A FIFO would block the reader forever and /dev/zero would be read forever; a directory is
not "no such file". These cannot live in tests/bad_inputs/ (git keeps regular files only).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WORKLOADS

from cli import main
from solver.errors import InputError
from solver.inputs.files import FileProblem, read_text
from solver.inputs.loading import load_catalog, load_workloads

Q3 = str(WORKLOADS / "q3.yaml")


def _special(tmp_path: Path, kind: str) -> Path:
    if kind == "fifo":
        path = tmp_path / "pipe.yaml"
        os.mkfifo(path)
        return path
    if kind == "device":
        return Path("/dev/zero")
    path = tmp_path / "folder.yaml"
    path.mkdir()
    return path


KINDS = {"fifo": "is a named pipe (FIFO)", "device": "is a device", "directory": "is a directory"}


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                    reason="needs POSIX FIFOs and /dev/zero")
@pytest.mark.parametrize("kind", KINDS)
def test_special_files_are_refused_without_reading(tmp_path, kind):
    path = _special(tmp_path, kind)
    done: list[BaseException] = []

    def load() -> None:
        try:
            load_workloads(path)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            done.append(exc)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), f"reading {kind} hung"
    assert isinstance(done[0], InputError)
    message = str(done[0])
    assert KINDS[kind] in message and "not a regular file" in message and "To fix:" in message
    assert "no such file" not in message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")
@pytest.mark.parametrize("kind", KINDS)
def test_cli_refuses_special_files_with_exit_2(tmp_path, kind):
    path = str(_special(tmp_path, kind))
    for args in (["plan", path], ["estimate", path], ["plan", Q3, "--catalog", path]):
        result = CliRunner().invoke(main, [*args, "--no-workbook"] if args[0] == "plan" else args)
        assert result.exit_code == 2, (args, result.output)
        assert KINDS[kind] in result.output and "Traceback" not in result.output


def test_catalog_in_a_directory_is_named_as_such(tmp_path):
    with pytest.raises(InputError, match="is a directory, not a regular file"):
        load_catalog(tmp_path)


def test_bytes_read_are_capped(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"x" * 101)
    assert read_text(path, 101, "a file") == "x" * 101
    with pytest.raises(FileProblem, match="is over 100 bytes"):
        read_text(path, 100, "a file")


def test_nul_in_a_path_is_a_problem_not_a_crash():
    with pytest.raises(FileProblem, match="To fix: check the path"):
        read_text(Path("bad\0name.yaml"), 100, "a file")
