"""plan-buy is a real package: the default catalog ships inside it, the version has one source,
every sub-package is a package, and the product needs no library it does not import.

The wheel itself is built and installed into a fresh virtual environment by ``.ci/run``
(too slow for the unit suite); these tests keep the pieces it relies on in place.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from click.testing import CliRunner

import solver
from cli import main
from solver.inputs.loading import DEFAULT_CATALOG, load_catalog

ROOT = Path(__file__).resolve().parents[1]


def test_the_packaged_catalog_is_the_users_copy():
    """solver/data/default-catalog.yaml (package data) and catalogs/default.yaml are one file."""
    user_copy = ROOT / "catalogs" / "default.yaml"
    assert DEFAULT_CATALOG.is_relative_to(ROOT / "solver")
    assert DEFAULT_CATALOG.read_bytes() == user_copy.read_bytes(), (
        "catalogs/default.yaml and solver/data/default-catalog.yaml differ; edit one and copy "
        "it over the other (the package ships the second, users copy the first)"
    )
    load_catalog(DEFAULT_CATALOG)


def test_package_data_covers_the_catalog():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = conf["package-data"]["solver"]
    rel = DEFAULT_CATALOG.relative_to(ROOT / "solver")
    assert any(rel.match(p) for p in patterns)


def test_every_solver_folder_with_code_is_a_package():
    """setuptools' package finder only ships folders with an __init__.py."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert conf["packages"]["find"]["include"] == ["solver", "solver.*"]
    for folder in [ROOT / "solver", *(p for p in (ROOT / "solver").rglob("*") if p.is_dir())]:
        if folder.name == "__pycache__" or not any(folder.glob("*.py")):
            continue
        assert (folder / "__init__.py").is_file(), f"{folder} has modules but no __init__.py"


def test_version_has_one_source():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"plan-buy, version {solver.__version__}"


def test_default_catalog_is_found_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    q3 = ROOT / "workloads" / "q3.yaml"
    result = CliRunner().invoke(main, ["estimate", str(q3), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rows"]


def test_product_does_not_import_test_only_libraries():
    """openpyxl is a test dependency: the product writes workbooks with XlsxWriter only."""
    offenders = [
        str(p.relative_to(ROOT))
        for p in [ROOT / "cli.py", *(ROOT / "solver").rglob("*.py")]
        if "import openpyxl" in p.read_text() or "from openpyxl" in p.read_text()
    ]
    assert offenders == []


def test_the_command_exits_fast_with_its_code_and_all_its_output(tmp_path):
    """``plan-buy`` is ``cli:entry``: ``main``, then ``os._exit`` once the streams are
    flushed (tearing pandas, numpy and pydantic down took 0.1 s of q3's 1.7 s). The exit code
    and every byte written must still come through: a JSON document piped whole, and a bad
    file's message with exit 2."""
    import subprocess
    import sys

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["plan-buy"] == "cli:entry"
    ok = subprocess.run([sys.executable, "cli.py", "estimate", "workloads/q3.yaml", "--json"],
                        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert ok.returncode == 0, ok.stderr
    assert len(json.loads(ok.stdout)["rows"]) > 100
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nworkloads: []\n")
    res = subprocess.run([sys.executable, "cli.py", str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=False)
    assert res.returncode == 2 and "plan-buy:" in res.stderr and res.stdout == ""
    code = "import cli, sys; sys.argv = ['plan-buy', '--version']; cli.entry(); print('no')"
    exits = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, timeout=60, check=False)
    assert exits.returncode == 0
    assert exits.stdout.strip() == f"plan-buy, version {solver.__version__}"
