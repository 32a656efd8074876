"""The network in every output (N3): terminal, workbook, quote, chargeback, JSON.

``fabric_plan`` is ``sample_plan`` (tests/test_report.py) with a fabric: option 1 adds a
2 x 100 GbE card to its L40S server, so its three servers are cabled to one 100 GbE
switch (the HGX board's InfiniBand ports are on one server only: no InfiniBand switch);
option 2 has ten HGX A100 servers in the always-on pool (80 InfiniBand ports: leaves and
spines) and two in the pod of runs (one leaf each kind). Fabrics and bills of materials
come from the rule's own functions, as a plan's do.
"""

from __future__ import annotations

from dataclasses import replace

import jsonschema
import openpyxl
import pytest
from recalc import recalculate, soffice, stored_vs_recalculated
from test_report import CATALOG, WORKLOADS, sample_plan

from solver.inputs.fabric import LINK_SKU
from solver.optimize.expand.servers import bom_lines
from solver.plan_types import PlanOption
from solver.report import chargeback, network
from solver.report import tables as report
from solver.report.output_schema import output_schema
from solver.report.plan_files import write_plan_files
from solver.report.quote import fabric_quote_lines, quote_frame, quote_lines
from solver.report.summary import render_plan_summary
from solver.rules.fabric import fabric_of

SOURCES = {"workloads": WORKLOADS, "catalog": CATALOG}


def _with_fabric(option: PlanOption, servers, catalog) -> PlanOption:
    lines = bom_lines(servers, catalog)
    return replace(option, servers=tuple(servers), lines=lines,
                   total_cost=round(sum(ln.extended for ln in lines), 2),
                   fabric=fabric_of(servers, catalog))


def fabric_plan():
    """(PlanResult, WorkloadFile, Catalog) of ``sample_plan`` with a network bought."""
    result, wf, catalog = sample_plan()
    one, two = result.options
    s1, s2, s3 = one.servers
    first = [s1, replace(s2, nics=(("eth-100g-2p", 1),)), s3]
    t1, t2 = two.servers
    pool = [t1, t2, *(replace(t1, id=f"t{i}") for i in range(3, 12))]
    runs = [replace(t1, id=f"r{i}", pod="runs") for i in (1, 2)]
    options = (_with_fabric(one, first, catalog), _with_fabric(two, pool + runs, catalog))
    return replace(result, options=options), wf, catalog


@pytest.fixture(scope="module")
def plan():
    return fabric_plan()


def test_the_fixture_buys_leaves_spines_and_cables(plan):
    result, _, _ = plan
    one, two = result.options
    assert [(p.pod, p.kind, p.leaves) for p in one.fabric] == [
        ("pool", "ethernet", ("sw-eth-100g-32p", 1))]
    assert one.fabric[0].cables == 8 and one.fabric[0].spines is None
    ib = next(p for p in two.fabric if p.pod == "pool" and p.kind == "infiniband")
    assert ib.ports == 80 and ib.spines is not None
    assert {p.pod for p in two.fabric} == {"pool", "runs"}
