"""Every plan rule has a home, a check, a brute-force rule and a doc section, and the shared
arithmetic of ``solver/rules/`` gives the hand-computed figures.

The registry names functions by string; these tests resolve each one. Checker functions are
found in today's ``solver/check.py`` or in any module of a ``solver/check/`` package, or by
rule id in a table of that package that maps ids to check functions.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import solver_fixtures as fx

from bench import bruteforce
from solver.inputs.ownership import Site
from solver.plan_types import Server
from solver.rules import headroom_line, usable
from solver.rules.cores import replica_cores
from solver.rules.power import power_w, rack_gpus, rack_holds, racks_used, server_power_w
from solver.rules.registry import RULES, Rule
from solver.rules.storage import disk_holds, local_datasets, stored_tb

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULE_ID = re.compile(r"\b([ROTPHNU](?:[1-9][0-9]?))\b")
"""A rule id as the docs write it: R (sizing), O (orderable), T (throughput), P (power, site,
ownership), H (time), N (network) and U (uncertainty)."""


def resolve(dotted: str) -> Any:
    """The object a dotted name points to: the longest importable module prefix, then
    attributes (``solver.inputs.workload.WorkloadFile.planned_replicas``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(dotted)


def checker_functions() -> dict[str, Callable]:
    """Every function of the checker by name: today's module, or each module of a package."""
    check = importlib.import_module("solver.check")
    modules = [check]
    if hasattr(check, "__path__"):
        modules += [importlib.import_module(f"solver.check.{m.name}")
                    for m in pkgutil.iter_modules(check.__path__)]
    return {name: f for m in modules for name, f in vars(m).items() if callable(f)}


def checks_by_id() -> Mapping[str, Any]:
    """A table of the checker mapping rule ids to check functions, if it has one."""
    check = importlib.import_module("solver.check")
    for value in vars(check).values():
        if (isinstance(value, Mapping) and value and all(isinstance(k, str) for k in value)
                and any(k in RULES for k in value)):
            return value
    return {}


def doc_ids() -> dict[str, list[str]]:
    """Rule id -> the docs that name it."""
    found: dict[str, list[str]] = {}
    for doc in sorted(DOCS.glob("*.md")):
        for rule_id in sorted(set(RULE_ID.findall(doc.read_text(encoding="utf-8")))):
            found.setdefault(rule_id, []).append(doc.name)
    return found


def anchor(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading: lower case, punctuation dropped,
    spaces as hyphens ("Rules → constraints" -> "rules--constraints")."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    return {anchor(line.lstrip("#")) for line in doc.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


RULE_ROWS = [pytest.param(r, id=r.id) for r in RULES.values()]


# -- The registry is complete ------------------------------------------------------------


def test_every_rule_the_docs_name_has_a_row():
    missing = {rule_id: docs for rule_id, docs in doc_ids().items() if rule_id not in RULES}
    assert not missing, f"rules named in docs/ without a row in solver/rules/registry.py: {missing}"


def test_docs_solver_md_names_the_planning_rules():
    """The scan above reads docs/solver.md: it names the program's rules by id."""
    assert {"R15", "O4", "T3", "P3"} <= {i for i, docs in doc_ids().items() if "solver.md" in docs}


@pytest.mark.parametrize("rule", RULE_ROWS)
def test_row_is_keyed_by_its_id_and_states_the_rule(rule: Rule):
    assert RULES[rule.id] is rule and RULE_ID.fullmatch(rule.id)
    assert rule.statement and "\n" not in rule.statement and len(rule.statement) <= 100


@pytest.mark.parametrize("rule", RULE_ROWS)
def test_home_exists(rule: Rule):
    assert resolve(rule.home) is not None


@pytest.mark.parametrize("rule", RULE_ROWS)
def test_program_steps_exist(rule: Rule):
    for name in rule.program or ():
        assert name.rsplit(".", 1)[1].startswith(("define_", "add_")), name
        assert callable(resolve(name)), name


@pytest.mark.parametrize("rule", RULE_ROWS)
def test_check_exists(rule: Rule):
    """The registry's checker function exists in solver/check/, and where the checker's own
    table lists the rule's checks, it is one of them (the two tables agree)."""
    if rule.check is None:
        return
    found = checker_functions().get(rule.check)
    assert callable(found), f"{rule.id}: no checker function {rule.check!r} in solver/check"
    by_id = checks_by_id()
    if rule.id in by_id:  # one of the rule's checks, or a helper one of them calls
        runs = by_id[rule.id]
        assert found in runs or any(rule.check in f.__code__.co_names for f in runs), (
            rule.id, rule.check)


@pytest.mark.parametrize("rule", RULE_ROWS)
def test_brute_force_rule_exists(rule: Rule):
    if rule.brute_force is not None:
        module, _, name = rule.brute_force.rpartition(".")
        where = importlib.import_module(f"bench.{module}") if module else bruteforce
        assert callable(getattr(where, name, None)), rule.brute_force


@pytest.mark.parametrize("rule", RULE_ROWS)
def test_doc_anchor_exists(rule: Rule):
    path, _, tag = rule.doc.partition("#")
    assert tag in anchors(ROOT / path), f"{rule.id}: no heading #{tag} in {path}"


@pytest.mark.parametrize("rule", RULE_ROWS)
def test_a_rule_of_the_program_has_both_oracles(rule: Rule):
    """A row of the program is verified twice, by the checker and by the brute force."""
    if rule.program:
        assert rule.check and rule.brute_force, rule.id


def test_the_rules_load_no_solver_or_checker():
    code = ("import sys, solver.rules.registry, solver.rules.power, solver.rules.cores, "
            "solver.rules.storage; print(' '.join(k for k in ('pulp', 'highspy', "
            "'solver.check', 'solver.optimize') if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == []


# -- The shared arithmetic, by hand --------------------------------------------------------


def test_headroom_line():
    """R15: 20% headroom leaves 0.8 of 80 GB, 64 GB."""
    policy = fx.workloads({"name": "a"}, headroom=0.2).policy
    assert headroom_line(policy) == pytest.approx(0.8)
    assert usable(80, policy) == pytest.approx(64)


def test_server_power_and_racks():
    """P1: 500 W + 2 × 300 W = 1,100 W; P3: a 1.5 kW rack holds 3 such GPUs on that
    platform, and 2.5 kW in 40 U takes max(⌈2.5 / 1.5⌉, ⌈40 / 42⌉) = 2 racks."""
    cat = fx.catalog(platforms=[
        {"sku": "box2", "gpu_slots": 4, "form_factors": ["pcie"], "dimm_slots": 4,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000,
         "power_w": 500, "rack_units": 2}])
    box, small = cat.platform("box2"), cat.gpu("small")
    assert power_w(box, small, 2) == 1100 and power_w(box, None, 0) == 500
    server = Server("s1", "box2", "small", 2, "d32", 2, None, 0)
    assert server_power_w(server, cat) == 1100
    site = Site(racks=4, rack_kw=1.5, rack_units=42)
    assert rack_gpus(site, box, small) == 3
    assert rack_holds(site, 1500, 42) and not rack_holds(site, 1501, 2)
    assert racks_used(2.5, 40, site) == 2 and racks_used(0.0, 0, site) == 0


def test_cores_needed():
    """O3: inference 2 per GPU, preprocess max(1, workers), data.cpu_cores when given."""
    wf = fx.workloads({"name": "i"}, {"name": "p", "kind": "preprocess", "data": {"workers": 3}},
                      {"name": "c", "data": {"cpu_cores": 5}})
    i, p, c = wf.workloads
    assert (replica_cores(i, 4), replica_cores(p, 0), replica_cores(c, 8)) == (8, 3, 5)


def test_storage_need():
    """O4: the mix stores dataset + checkpoints once; a server holds each local dataset once;
    6 TB fit 8 TB of drives under 20% headroom (6.4 TB usable), 7 TB do not."""
    wf = fx.workloads({"name": "a", "data": {"dataset_tb": 2, "checkpoints_tb": 1}},
                      {"name": "b", "data": {"dataset_tb": 3, "storage": "local"}},
                      headroom=0.2)
    assert stored_tb(wf.workloads) == 6

    class Reader:
        def __init__(self, workload: str, local_tb: float) -> None:
            self.workload, self.local_tb = workload, local_tb

    assert local_datasets([Reader("b", 3), Reader("b", 3), Reader("a", 0)]) == {"b": 3}
    assert disk_holds(6, 8, wf.policy) and not disk_holds(7, 8, wf.policy)
