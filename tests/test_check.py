"""The checker reports the bugs it exists to catch as violations, never as exceptions.

Each case takes a valid plan for workloads/small.yaml and breaks it by hand the way a
modelling or expansion bug could: an unknown SKU, a placement on a server that is not in
the plan, a negative count, ... ``check_plan`` must return at least one violation that
names the problem, and raise nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from solver.check import check_plan
from solver.inputs.catalog import Catalog
from solver.inputs.loading import load_workloads
from solver.inputs.workload import WorkloadFile
from solver.optimize.pipeline import plan
from solver.plan_types import BomLine, PlanOption

WORKLOADS = Path(__file__).resolve().parents[1] / "workloads"


@pytest.fixture(scope="module")
def small(default_catalog: Catalog) -> tuple[PlanOption, WorkloadFile]:
    wf = load_workloads(WORKLOADS / "small.yaml")
    option = plan(wf, default_catalog, top=1, with_baseline=False).options[0]
    return option, wf


def _server(o: PlanOption, i: int = 0, **changes) -> PlanOption:
    servers = list(o.servers)
    servers[i] = replace(servers[i], **changes)
    return replace(o, servers=tuple(servers))


def _placement(o: PlanOption, i: int = 0, **changes) -> PlanOption:
    placements = list(o.placements)
    placements[i] = replace(placements[i], **changes)
    return replace(o, placements=tuple(placements))


def _gpu_server(o: PlanOption) -> int:
    return next(i for i, s in enumerate(o.servers) if s.gpu_count)


def _on_server(o: PlanOption, sid: str) -> list[int]:
    return [i for i, p in enumerate(o.placements) if p.server == sid]


def _unknown_gpu_everywhere(o: PlanOption) -> PlanOption:
    """A GPU SKU the catalog lacks, on a server and on the replicas placed there."""
    i = _gpu_server(o)
    sid, gpu = o.servers[i].id, o.servers[i].gpu
    o = _server(o, i, gpu="gpu-from-nowhere")
    for j in _on_server(o, sid):
        if o.placements[j].gpu == gpu:
            o = _placement(o, j, gpu="gpu-from-nowhere")
    return o


def _gpu_replica_on_cpu_server(o: PlanOption) -> PlanOption:
    i = _gpu_server(o)
    sid = o.servers[i].id
    o = _server(o, i, gpu=None, gpu_count=0)
    for j in _on_server(o, sid):
        o = _placement(o, j, gpu=None)
    return o


BREAKS: dict[str, tuple[Callable[[PlanOption], PlanOption], str]] = {
    "unknown platform": (lambda o: _server(o, platform="no-such-chassis"), "unknown platform"),
    "unknown GPU on server and replicas": (_unknown_gpu_everywhere, "unknown GPU"),
    "unknown memory": (lambda o: _server(o, memory="ddr9-1t"), "unknown memory"),
    "unknown storage": (lambda o: _server(o, storage="tape-100t", drive_count=1),
                        "unknown storage"),
    "placement on a missing server": (lambda o: _placement(o, server="s999"),
                                      "unknown workload or server s999"),
    "placement of an unknown workload": (lambda o: _placement(o, workload="ghost"),
                                         "unknown workload"),
    "negative GPU count": (lambda o: _server(o, _gpu_server(o), gpu_count=-2), "negative count"),
    "negative DIMM count": (lambda o: _server(o, dimm_count=-8), "negative count"),
    "negative drive count": (lambda o: _server(o, drive_count=-1), "negative count"),
    "GPU replica on a server without GPUs": (_gpu_replica_on_cpu_server, "unknown GPU"),
    "GPU replica on another SKU": (lambda o: _placement(o, gpu="h100-sxm"), "placed on h100-sxm"),
    "negative degree": (lambda o: _placement(o, gpus=-1), "degree -1"),
    "GPU index outside the server": (lambda o: _placement(o, gpu_indices=(99,)),
                                     "distinct GPUs"),
    "negative host RAM": (lambda o: _placement(o, host_ram_gb=-1.0), "GB RAM < need"),
    "unserved workload not in the file": (lambda o: replace(o, unserved=("ghost",)),
                                          "not a workload of the file"),
    "BOM line for an unknown SKU": (
        lambda o: replace(o, lines=(*o.lines, BomLine("mystery", "gpu", 1, 1.0))),
        "differ from the servers'"),
    "wrong total": (lambda o: replace(o, total_cost=o.total_cost + 1000), "!= priced servers"),
    "no servers at all": (lambda o: replace(o, servers=()), "unknown workload or server"),
    # O4: small.yaml's servers each run a job that reads its dataset locally
    "local dataset without drives": (lambda o: _server(o, drive_count=0, storage=None,
                                                       disk_tb=0.0),
                                     "over the headroom line of its 0.00 TB of drives"),
    "pool over the line": (lambda o: replace(o, servers=tuple(
        replace(s, storage=None, drive_count=0, disk_tb=0.0) for s in o.servers)),
        "over the headroom line of the pool"),
    "misreported disk use": (lambda o: _server(o, disk_used_tb=99.0), "TB used, its drives"),
}


def test_the_unbroken_plan_is_valid(small, default_catalog):
    option, wf = small
    assert check_plan(option, wf, default_catalog) == []


@pytest.mark.parametrize("name", BREAKS)
def test_a_broken_plan_is_a_violation_not_an_exception(small, default_catalog, name):
    option, wf = small
    breaker, message = BREAKS[name]
    problems = check_plan(breaker(option), wf, default_catalog)
    assert problems, f"{name}: no violation reported"
    assert any(message in p for p in problems), problems


def test_the_checker_imports_nothing_of_the_optimiser():
    """The checker reads plans (``solver.plan_types``), never the search that makes them:
    an oracle that imported the optimiser could share the code it checks, and the two
    once imported each other (``check`` -> ``optimize.plan``, ``pipeline`` -> ``check``)."""
    import subprocess
    import sys

    code = ("import sys, solver.check; "
            "print(sorted(m for m in sys.modules if m.startswith('solver.optimize')))")
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_check_is_found_by_a_rule_id_or_runs_by_name():
    """``RULES`` finds a rule's checks by its id; each id is one docs/solver.md names, and
    ``check_plan`` runs every check the table names."""
    from solver.check import CHECKS, RULES

    docs = (Path(__file__).resolve().parents[1] / "docs" / "solver.md").read_text()
    assert all(rule in docs for rule in RULES)
    assert {c for checks in RULES.values() for c in checks} <= set(CHECKS)


def test_a_rule_is_checked_by_its_id(small, default_catalog):
    from solver.check import check_rule

    option, wf = small
    broken = _server(option, 0, drive_count=0, storage=None, disk_tb=0.0)
    assert any("(O4, R15)" in p for p in check_rule("O4", broken, wf, default_catalog))
    assert check_rule("O4", option, wf, default_catalog) == []
    assert check_rule("P3", broken, wf, default_catalog) == []
