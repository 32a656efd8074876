"""The benchmark runner writes under out/ by default, so running it leaves the checkout clean."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench import run


def test_results_go_to_the_ignored_out_folder_by_default():
    assert run.DEFAULT_RESULTS_DIR == ROOT / "out" / "bench"
    assert "out/*" in (ROOT / ".gitignore").read_text().splitlines()


def test_write_results_replaces_only_the_generated_block(tmp_path):
    path = tmp_path / "deep" / "results.md"
    run.write_results("| first |\n", path)
    assert run.BEGIN in path.read_text() and "| first |" in path.read_text()
    path.write_text("# notes by hand\n\n" + path.read_text().split("\n\n", 1)[1] + "\nmore\n")
    run.write_results("| second |\n", path)
    text = path.read_text()
    assert text.startswith("# notes by hand") and text.endswith("more\n")
    assert "| second |" in text and "| first |" not in text
