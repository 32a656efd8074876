"""The checker's reading of N3: hand-built plans whose fabric is right or wrong by hand.

Catalog: ``box`` (2 GPU slots, 2 NIC slots, price includes one 2 x 25 GbE card, 2 U, 500 W)
and ``node`` (CPU-only, 1 NIC slot, the same card, 1 U); NICs ``e25`` (2 x 25 GbE, 12 W)
and ``e100`` (2 x 100 GbE, $1,200, 20 W); switches ``sw48`` (48 x 25 GbE, $9,000, 250 W),
``sw8`` (8 x 25 GbE, $1,000, 50 W) and ``sw100`` (32 x 100 GbE, $16,000, 300 W, 1 U); a
cable $300. Two boxes have 4 Ethernet ports at 25 Gb/s: one ``sw48`` and 4 cables. Ten
have 20: past ``sw8``'s 8 ports, ⌈20 ÷ 4⌉ = 5 leaves of ``sw8`` with 4 uplinks each, and
20 uplinks on ⌈20 ÷ 48⌉ = 1 ``sw48`` spine: 40 cables.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import solver_fixtures as fx

from solver.check import check_plan, check_rule
from solver.check.network import check_n3
from solver.check.subject import Subject
from solver.inputs.catalog import Catalog
from solver.inputs.fabric import LINK_SKU
from solver.inputs.ownership import Site
from solver.plan_types import BomLine, FabricPod, OwnCost, PlanOption, Server

E25 = {"sku": "e25", "gbps": 25, "kind": "ethernet", "ports": 2, "price": 450, "power_w": 12}
E100 = {"sku": "e100", "gbps": 100, "kind": "ethernet", "ports": 2, "price": 1200,
        "power_w": 20}


def _switch(sku: str, ports: int, gbps: float, price: float, watts: float) -> dict:
    return {"sku": sku, "ports": ports, "gbps": gbps, "kind": "ethernet", "price": price,
            "power_w": watts, "rack_units": 1}


@pytest.fixture(scope="module")
def cat() -> Catalog:
    data = fx.catalog().model_dump(mode="json")
    card = [{"nic": "e25", "count": 1}]
    data["platforms"] = [
        {"sku": "box", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 4,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000,
         "power_w": 500, "rack_units": 2, "nic_slots": 2, "included_nics": card},
        {"sku": "node", "gpu_slots": 0, "dimm_slots": 4, "memory_type": "ddr4",
         "memory_channels": 4, "drive_bays": 4, "price": 500, "power_w": 200,
         "rack_units": 1, "nic_slots": 1, "included_nics": card},
    ]
    data["network"] = {
        "link_price": 300, "nics": [E25, E100],
        "switches": [_switch("sw48", 48, 25, 9000, 250), _switch("sw8", 8, 25, 1000, 50),
                     _switch("sw100", 32, 100, 16000, 300)],
    }
    return Catalog.model_validate(data)


WF = fx.workloads({"name": "a"})


def box(i: int, **changes) -> Server:
    return replace(Server(f"s{i}", "box", "small", 1, "d32", 2, None, 0), **changes)


def option(cat: Catalog, servers: list[Server], fabric: list[FabricPod],
           own: OwnCost | None = None) -> PlanOption:
    """A plan of these servers and fabric, its BOM priced from the catalog."""
    qty: dict[str, int] = {}
    parts = [p for s in servers if not s.owned for p in s.parts()]
    for f in fabric:
        parts += [f.leaves, *((f.spines,) if f.spines else ()), (LINK_SKU, f.cables)]
    for sku, n in parts:
        qty[sku] = qty.get(sku, 0) + n
    known = {s.sku for s in cat.network.switches} | {LINK_SKU}
    lines = tuple(BomLine(sku, cat.kind_of(sku), n, cat.price_of(sku)) if sku in known
                  or not sku.startswith("sw") else BomLine(sku, "network", n, 0.0)
                  for sku, n in qty.items())
    return PlanOption(1, sum(ln.extended for ln in lines), tuple(servers), lines, (),
                      own=own, fabric=tuple(fabric))


def two(cat: Catalog, **entry) -> PlanOption:
    """Two boxes of the pool on one sw48 (``entry`` changes the fabric)."""
    f = replace(FabricPod("pool", "ethernet", ("s1", "s2"), 4, ("sw48", 1), None, 4), **entry)
    return option(cat, [box(1), box(2)], [f])


def ten(cat: Catalog, **entry) -> PlanOption:
    """Ten boxes on 5 sw8 leaves and one sw48 spine (``entry`` changes the fabric)."""
    ids = tuple(f"s{i}" for i in range(1, 11))
    f = replace(FabricPod("pool", "ethernet", ids, 20, ("sw8", 5), ("sw48", 1), 40), **entry)
    return option(cat, [box(i) for i in range(1, 11)], [f])


def n3(o: PlanOption, cat: Catalog) -> list[str]:
    return check_rule("N3", o, WF, cat)


def test_two_servers_on_one_48_port_leaf(cat):
    assert n3(two(cat), cat) == []
    assert two(cat).total_cost == 2 * (2000 + 1000 + 200) + 9000 + 4 * 300


def test_two_leaves_need_a_spine(cat):
    assert n3(ten(cat), cat) == []
    assert n3(ten(cat, spines=("sw8", 3)), cat) == []  # 3 x 8 spine ports hold 20 uplinks


@pytest.mark.parametrize(("entry", "says"), [
    ({"leaves": ("sw8", 1), "spines": None, "cables": 20}, "one leaf must hold them all"),
    ({"leaves": ("sw8", 4), "cables": 36}, "give 16 server ports"),
    ({"spines": ("sw8", 2)}, "fewer than the leaves' 20 uplinks"),
    ({"spines": ("sw-none", 1)}, "spine sw-none is not an ethernet switch"),
    ({"cables": 20}, "20 cables, 20 ports + 20 uplinks need 40"),
    ({"ports": 18}, "says 18 ports, its servers have 20"),
])
def test_too_few_ports_or_cables_are_caught(cat, entry, says):
    errs = n3(ten(cat, **entry), cat)
    assert any(says in e and "fabric pool/ethernet" in e for e in errs), errs


def test_an_owned_server_is_not_cabled(cat):
    owned = box(3, owned=True)
    o = option(cat, [box(1), box(2), owned], [FabricPod("pool", "ethernet", ("s1", "s2"), 4,
                                                            ("sw48", 1), None, 4)])
    assert n3(o, cat) == []
    cabled = replace(o, fabric=(replace(o.fabric[0], servers=("s1", "s2", "s3"), ports=6,
                                        cables=6),))
    errs = n3(cabled, cat)
    assert any("cables servers ['s1', 's2', 's3'], its ethernet ports are on ['s1', 's2']"
               in e for e in errs), errs
    alone = option(cat, [box(1), owned], [])
    assert n3(alone, cat) == []  # one bought server: nothing to talk to


def test_a_missing_switch_is_caught(cat):
    o = option(cat, [box(1), box(2)], [])
    errs = n3(o, cat)
    want = ("fabric pool/ethernet: missing, 2 servers have ethernet ports (s1, s2) and no "
            "switch joins them (N3)")
    assert errs == [want]
    # The switch on the BOM but not in the fabric: the BOM check says so too.
    lines = (*o.lines, BomLine("sw48", "network", 1, 9000))
    errs = check_rule("N3", replace(o, lines=lines, total_cost=o.total_cost + 9000), WF, cat)
    assert any("BOM SKUs" in e for e in errs), errs


def test_a_fabric_no_pod_needs_is_caught(cat):
    o = option(cat, [box(1)], [FabricPod("pool", "ethernet", ("s1",), 2, ("sw48", 1), None,
                                         2)])
    assert any("fabric pool/ethernet: not needed" in e for e in n3(o, cat))
    # A catalog without switches prices no fabric: two servers need none, and buy none.
    bare = cat.model_copy(update={"network": cat.network.model_copy(update={"switches": []})})
    assert n3(option(bare, [box(1), box(2)], []), bare) == []
    errs = n3(two(cat), bare)
    assert any("the catalog lists no switches, so no fabric is bought" in e for e in errs)


def test_pods_are_cabled_apart(cat):
    """Two pool boxes and two run boxes: one fabric each, never one across both."""
    servers = [box(1), box(2), box(3, pod="runs"), box(4, pod="runs")]
    pool = FabricPod("pool", "ethernet", ("s1", "s2"), 4, ("sw48", 1), None, 4)
    runs = replace(pool, pod="runs", servers=("s3", "s4"))
    assert n3(option(cat, servers, [pool, runs]), cat) == []
    one = FabricPod("pool", "ethernet", ("s1", "s2", "s3", "s4"), 8, ("sw48", 1), None, 8)
    errs = n3(option(cat, servers, [one]), cat)
    assert any("fabric runs/ethernet: missing" in e for e in errs), errs
    assert any("fabric pool/ethernet: cables servers" in e for e in errs), errs


def test_a_too_slow_leaf_is_caught(cat):
    """Boxes with an added 2 x 100 GbE card: 8 ports, the fastest at 100 Gb/s."""
    servers = [box(1, nics=(("e100", 1),)), box(2, nics=(("e100", 1),))]
    slow = FabricPod("pool", "ethernet", ("s1", "s2"), 8, ("sw48", 1), None, 8)
    errs = n3(option(cat, servers, [slow]), cat)
    assert any("leaf sw48 at 25 Gb/s is slower than its 100 Gb/s ports" in e for e in errs)
    fast = replace(slow, leaves=("sw100", 1))
    assert n3(option(cat, servers, [fast]), cat) == []


def test_nics_beyond_the_slots_are_caught(cat):
    """box: 2 NIC slots, one taken by its included card; node: 1, taken."""
    over = [box(1, nics=(("e100", 2),)), box(2)]
    f = FabricPod("pool", "ethernet", ("s1", "s2"), 8, ("sw100", 1), None, 8)
    errs = n3(option(cat, over, [f]), cat)
    assert any("s1: 3 NICs (included and added) > 2 NIC slots of box" in e for e in errs)
    node = Server("s3", "node", None, 0, "d32", 4, None, 0, nics=(("e25", 1),))
    errs = check_n3(Subject.of(option(cat, [node], []), WF, cat))
    assert errs == ["s3: 2 NICs (included and added) > 1 NIC slots of node (N3)"]


def test_added_nics_and_switches_count_in_power_and_racks(cat):
    """P1: 2 x (500 + 300 + 20) W of boxes with an e100 card + 300 W of sw100 = 1.94 kW;
    P3: 2 x 2 U + 1 U = 5 U, in 1 rack of 2 kW; 2 racks of 1.5 kW."""
    servers = [box(1, nics=(("e100", 1),)), box(2, nics=(("e100", 1),))]
    f = FabricPod("pool", "ethernet", ("s1", "s2"), 8, ("sw100", 1), None, 8)
    right = OwnCost(0.0, 1.94, 5, 1)
    wf = WF.model_copy(update={"site": Site(racks=2, rack_kw=2, rack_units=42)})
    assert n3(option(cat, servers, [f], right), cat) == []
    assert check_rule("N3", option(cat, servers, [f], right), wf, cat) == []
    servers_only = option(cat, servers, [f], OwnCost(0.0, 1.6, 4, 1))
    errs = check_rule("N3", servers_only, wf, cat)
    assert any("reports 1.6 kW, its servers and switches draw 1.94 kW (P1)" in e for e in errs)
    assert any("reports 4 U, its servers and switches take 5 U (P3)" in e for e in errs)
    small = WF.model_copy(update={"site": Site(racks=1, rack_kw=1.5, rack_units=42)})
    errs = check_rule("N3", option(cat, servers, [f], right), small, cat)
    assert any("draw 1.94 kW, over 1 racks" in e for e in errs), errs


def test_a_shipped_plan_passes(cat, default_catalog):
    """The pipeline's plan for workloads/medium.yaml buys its fabric as the checker reads it
    (small.yaml's plan is one server since the fabric has a price: no fabric to check)."""
    from conftest import WORKLOADS

    from solver.inputs.loading import load_workloads
    from solver.optimize.pipeline import plan

    wf = load_workloads(WORKLOADS / "medium.yaml")
    o = plan(wf, default_catalog, top=1, with_baseline=False).options[0]
    assert o.fabric and check_plan(o, wf, default_catalog) == []
    broken = replace(o, fabric=(replace(o.fabric[0], cables=o.fabric[0].cables + 1),))
    assert any("cables" in e for e in check_rule("N3", broken, wf, default_catalog))


# -- The brute force's own fabric (bench/bruteforce_fabric.py) ------------------------------


def test_brute_force_fabric_by_hand(default_catalog):
    """100 ports at 25 GbE: 48-port leaves give 24 each, ⌈100 ÷ 24⌉ = 5 leaves with 120
    uplinks on ⌈120 ÷ 48⌉ = 3 spines of the same switch: 8 x 9,000 + 220 cables x 300."""
    from bench.bruteforce_fabric import KINDS, cheapest_fabric

    state = tuple((2, 100, 25.0) if k == "ethernet" else (0, 0, 0.0) for k in KINDS)
    got = cheapest_fabric(state, default_catalog)
    assert got is not None and got.price == 8 * 9000 + 220 * 300 and got.units == 8


@pytest.mark.parametrize("kind", ["ethernet", "infiniband"])
def test_brute_force_fabric_agrees_with_the_rule(default_catalog, kind):
    """The two readings of N3 (the rule's ``cheapest_layout`` and the brute force's own
    enumeration) price every port count alike."""
    from bench.bruteforce_fabric import KINDS, cheapest_fabric
    from solver.rules.fabric import cheapest_layout

    for fastest in (10.0, 25.0, 100.0, 200.0, 400.0):
        for ports in (2, 3, 17, 32, 33, 40, 41, 48, 49, 64, 65, 150, 700):
            state = tuple((2, ports, fastest) if k == kind else (0, 0, 0.0) for k in KINDS)
            mine = cheapest_fabric(state, default_catalog)
            rule = cheapest_layout(kind, {fastest: ports}, default_catalog)
            assert (mine is None) == (rule is None), (kind, fastest, ports)
            assert mine is None or rule is None or mine.price == pytest.approx(rule.cost)


def test_brute_force_pays_for_the_pool_fabric(default_catalog):
    """Three 7B replicas on 2-GPU workstations (2 x 10 GbE each) take two of them: the
    exhaustive optimum is the servers' cost + one 48-port leaf + 4 cables."""
    from bench.bruteforce import optimum
    from solver.inputs.workload import WorkloadFile

    cat = fx.one_workstation(default_catalog)
    bare = cat.model_copy(update={"network": cat.network.model_copy(update={"switches": []})})
    wf = WorkloadFile.model_validate({"name": "three", "workloads": [
        {"name": "chat", "kind": "inference", "model": "llama-2-7b", "precision": "fp16",
         "context": 2048, "batch": 1, "replicas": 3}]})
    servers_only = optimum(wf, bare)
    assert servers_only is not None
    assert optimum(wf, cat) == pytest.approx(servers_only + 9000 + 4 * 300)


def test_time_brute_force_pays_for_the_runs_pod(monkeypatch):
    """A run of 4 GPUs x 100 tokens/s x 200 h in a 10-day window, on box2 (2 slots, one
    included 2 x 25 GbE card, USD 4,200 with 2 GPUs and 2 DIMMs): one box takes 400 h, so two
    are bought (N2 over 50 Gb/s: 99% efficient, 202 h). Their 4 ports go on one 4-port switch
    (800) with 4 cables (300 each), not on a 48-port one (9,000): 12 months of a 36-month
    life, (2 x 4,200 + 2,000) / 3; without switches in the catalog, 2 x 4,200 / 3."""
    from bench import bruteforce, bruteforce_servers
    from bench.bruteforce_time import brute_force_time
    from solver.inputs.workload import WorkloadFile

    for module in (bruteforce, bruteforce_servers):
        monkeypatch.setattr(module, "estimate", fx.fake_estimate)
        monkeypatch.setattr(module, "replica_throughput", fx.fake_throughput)
    fx.NEEDS.clear()
    fx.NEEDS["a"] = (10, 10)
    fx.RATES.clear()
    fx.RATES["a"] = {"small": 100.0}
    data = fx.catalog().model_dump(mode="json")
    data["gpus"] = [g for g in data["gpus"] if g["sku"] == "small"]
    data["platforms"] = [
        {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 4,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000,
         "included_nics": [{"nic": "e25", "count": 1}]}]
    data["memory"] = [m for m in data["memory"] if m["sku"] == "d32"]
    data["network"] = {"link_price": 300, "nics": [E25], "switches": [
        _switch("sw48", 48, 25, 9000, 250), _switch("sw4", 4, 25, 800, 20)]}
    cat = Catalog.model_validate(data)
    bare = cat.model_copy(update={"network": cat.network.model_copy(update={"switches": []})})
    model = {"params_b": 1, "hidden": 1024, "layers": 2, "heads": 8, "vocab": 1000}
    wf = WorkloadFile.model_validate({
        "name": "t", "policy": {"horizon": {"start": "2027-01-01", "months": 12},
                                "data_parallel_efficiency": 1.0, "rent": "never"},
        "workloads": [{"name": "a", "kind": "train", "model": model, "seq_len": 1024,
                       "global_batch": 8, "tokens": 4 * 100 * 200 * 3600,
                       "deadline_days": 10}]})
    assert brute_force_time(wf, bare) == pytest.approx(2 * 4200 / 3)
    assert brute_force_time(wf, cat) == pytest.approx((2 * 4200 + 800 + 4 * 300) / 3)
