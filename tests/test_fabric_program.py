"""N3 on hand-solved instances: the fabric's rule (``rules/fabric.py``) and its rows in the
purchase and run programs (``optimize/program/fabric.py``), each of which changes the answer
when taken out.

The catalog: GPU "small" (USD 1,000; the table estimator fits one replica per GPU), DIMMs d32
(USD 100, two channels), platforms "box2" (2 GPU slots, USD 2,000) and "box4" (4 slots, USD
5,000), each with one 2 x 25 GbE card included (NIC "e25", 2 ports); switches "sw25" (48 x
25 GbE, USD 3,000, 200 W) and "sw8" (8 x 100 GbE, USD 500); a cable USD 100.
"""

from __future__ import annotations

import pytest

from solver.inputs.catalog import Catalog
from solver.optimize import pipeline
from solver.optimize.program import assemble
from solver.plan_types import Server
from solver.rules.fabric import cheapest_layout, fabric_lines, fabric_of
from tests.solver_fixtures import catalog, install, workloads

SMALL = {"sku": "small", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100,
         "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0, "price": 1000}
NIC = [{"nic": "e25", "count": 1}]


def _catalog(switches: list[dict] | None = None) -> Catalog:
    data = catalog(gpus=[SMALL]).model_dump(exclude_defaults=True)
    data["platforms"] = [
        {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 4,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000,
         "nic_slots": 2, "included_nics": NIC},
        {"sku": "box4", "gpu_slots": 4, "form_factors": ["pcie"], "dimm_slots": 4,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 5000,
         "nic_slots": 2, "included_nics": NIC},
    ]
    data["network"] = {
        "link_price": 100,
        "nics": [{"sku": "e25", "gbps": 25, "kind": "ethernet", "ports": 2, "price": 0}],
        "switches": switches if switches is not None else [
            {"sku": "sw25", "ports": 48, "gbps": 25, "kind": "ethernet", "price": 3000,
             "power_w": 200},
            {"sku": "sw8", "ports": 8, "gbps": 100, "kind": "ethernet", "price": 500}],
    }
    return Catalog.model_validate(data)


def _server(i: int, platform: str = "box2") -> Server:
    return Server(f"s{i}", platform, "small", 2, "d32", 2, None, 0)


def test_one_server_needs_no_switch():
    assert fabric_of([_server(1)], _catalog()) == ()


def test_two_servers_share_one_leaf_and_a_cable_per_port():
    # 2 servers x 2 ports = 4 ports: one sw8 (500) beats one sw25 (3,000); 4 cables.
    (pod,) = fabric_of([_server(1), _server(2)], _catalog())
    assert (pod.pod, pod.kind, pod.ports, pod.leaves, pod.spines, pod.cables) == \
        ("pool", "ethernet", 4, ("sw8", 1), None, 4)
    assert sum(ln.extended for ln in fabric_lines([pod], _catalog())) == 500 + 4 * 100


def test_past_one_leaf_the_fabric_has_spines():
    # Only sw8: 6 servers x 2 = 12 ports > 8. Leaves ⌈12 / 4⌉ = 3 with 4 uplinks each = 12
    # uplinks on ⌈12 / 8⌉ = 2 spines; cables 12 + 12 = 24: 5 x 500 + 24 x 100 = 4,900.
    cat = _catalog([{"sku": "sw8", "ports": 8, "gbps": 100, "kind": "ethernet",
                     "price": 500}])
    (pod,) = fabric_of([_server(i) for i in range(6)], cat)
    assert (pod.leaves, pod.spines, pod.cables) == (("sw8", 3), ("sw8", 2), 24)
    assert cheapest_layout("ethernet", {25.0: 12}, cat).cost == 4900


def test_a_leaf_is_as_fast_as_its_fastest_port():
    # A 100 Gb/s port cannot go to the cheaper 25 Gb/s switch.
    cat = _catalog([{"sku": "sw25", "ports": 48, "gbps": 25, "kind": "ethernet", "price": 100},
                    {"sku": "sw100", "ports": 48, "gbps": 100, "kind": "ethernet",
                     "price": 900}])
    assert cheapest_layout("ethernet", {25.0: 4}, cat).leaves == ("sw25", 1)
    assert cheapest_layout("ethernet", {25.0: 2, 100.0: 2}, cat).leaves == ("sw100", 1)


def test_owned_servers_are_in_no_pod():
    owned = Server("o1", "box2", "small", 2, "d32", 2, None, 0, owned=True)
    assert fabric_of([owned, _server(1)], _catalog()) == ()


def _four_replicas():
    return workloads({"name": "a", "replicas": 4})


@pytest.fixture
def tables(monkeypatch):
    install(monkeypatch, {"a": (10, 1)})


def test_the_program_prices_the_fabric(tables):
    # 4 replicas of one GPU each. Two box2 (2 x 4,200 = 8,400) need a fabric (sw8 500 + 4
    # cables 400 = 900): 9,300. One box4 (5,000 + 4,000 + 200 = 9,200) needs none: cheaper.
    opt = pipeline.plan(_four_replicas(), _catalog(), top=1).options[0]
    assert opt.total_cost == 9200
    assert [s.platform for s in opt.servers] == ["box4"]
    assert opt.fabric == ()


def test_without_the_fabric_rows_the_program_buys_the_wrong_pool(tables, monkeypatch):
    # Without define_pool_fabric the program sees 8,400 < 9,200 and buys two box2; the plan
    # then pays for their fabric too: 9,300.
    monkeypatch.setattr(assemble, "define_pool_fabric", lambda *args: None)
    opt = pipeline.plan(_four_replicas(), _catalog(), top=1).options[0]
    assert opt.total_cost == 9300
    assert [s.platform for s in opt.servers] == ["box2", "box2"]
