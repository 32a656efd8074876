"""Expansion's family repack: when a type's replicas do not pack into the servers the program
bought, the types of the same platform and GPU (which differ only in memory) are packed as
one pool, and a server takes a memory upgrade rather than a second server being bought.

Catalog (tests/solver_fixtures.py): box2 $2000 with 2 PCIe slots; DIMMs 32 GB $100, 64 GB
$300; GPU small $1000; CPU node $500. Headroom 20%: box2 with 2 x 32 GB holds 51.2 GB of
host RAM, with 4 x 32 GB 102.4 GB.
"""

from __future__ import annotations

import solver_fixtures as fx

from solver.check import check_plan
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.expand import expand
from solver.optimize.outcome import Outcome, SolveStatus
from solver.optimize.plan import PlanOption


def _outcome(n: dict[str, int], x: dict[tuple[str, int, str], int]) -> Outcome:
    return Outcome(SolveStatus.FEASIBLE, 0.0, 0.0, 0.0, 0.0, n, x, {}, {}, {},
                   {}, gpus={})


def _option(exp) -> PlanOption:
    return PlanOption(rank=1, total_cost=exp.cost, servers=exp.servers, lines=exp.lines,
                      placements=exp.placements)


def test_a_memory_upgrade_beats_a_second_server(monkeypatch):
    """Two 1-GPU replicas of 30 GB host RAM on one box2 with 2 x 32 GB (51.2 GB usable):
    the slots fit, the RAM does not (60 > 51.2). Type by type, repair buys a second box2
    ($2,200 more); pooled with its family, the server takes 4 x 32 GB ($200 more)."""
    fx.install(monkeypatch, {"a": (15, 30)})
    wf = fx.workloads({"name": "a", "replicas": 2})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    small = next(t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
                 and t.gpu.sku == "small" and t.ram_gb == 64)
    oi = next(i for i, o in enumerate(cand.options["a"]) if o.gpu == "small")
    exp = expand(_outcome({small.key: 1}, {("a", oi, small.key): 2}), cand, wf, cat)
    assert exp.failed_types == (small.key,)  # the program's sums lied: the type is tightened
    assert exp.repaired == 0  # no server added
    assert [(s.memory, s.dimm_count, s.gpu_count) for s in exp.servers] == [("d32", 4, 2)]
    assert exp.cost == 2000 + 4 * 100 + 2 * 1000
    assert check_plan(_option(exp), wf, cat) == []


def test_a_cpu_only_replica_that_fits_nowhere_gets_the_cheapest_server(monkeypatch):
    """A preprocess replica of 180 GB beside a 1-GPU replica of 30 GB on one box2 with
    4 x 64 GB (204.8 GB usable; 210 needed). Type by type, repair buys a second such box2
    ($3,200); pooled, the preprocess replica overflows its family (no box2 memory holds
    both) to the cheapest server that holds it alone, a CPU node with 4 x 64 GB ($1,700),
    and the box2 keeps the cheapest memory its 30 GB need (2 x 32 GB)."""
    fx.install(monkeypatch, {"a": (15, 30), "p": (0, 180)})
    wf = fx.workloads({"name": "a"}, {"name": "p", "kind": "preprocess"})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    box = next(t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
               and t.gpu.sku == "small" and t.ram_gb == 256)
    oa = next(i for i, o in enumerate(cand.options["a"]) if o.gpu == "small")
    exp = expand(_outcome({box.key: 1}, {("a", oa, box.key): 1, ("p", 0, box.key): 1}),
                 cand, wf, cat)
    assert exp.repaired == 1
    assert sorted((s.platform, s.memory, s.dimm_count) for s in exp.servers) == [
        ("box2", "d32", 2), ("cpu", "d64", 4)]
    assert exp.cost == 2000 + 2 * 100 + 1000 + 500 + 4 * 300
    assert check_plan(_option(exp), wf, cat) == []
