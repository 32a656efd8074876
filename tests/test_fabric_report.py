"""The network in every output (N3): terminal, workbook, quote, chargeback, JSON.

``fabric_plan`` is ``sample_plan`` (tests/test_report.py) with a fabric: option 1 adds a
2 x 100 GbE card to its L40S server, so its three servers are cabled to one 100 GbE
switch (the HGX board's InfiniBand ports are on one server only: no InfiniBand switch);
option 2 has ten HGX A100 servers in the always-on pool (80 InfiniBand ports: leaves and
spines) and two in the pod of runs (one leaf each kind). Fabrics and bills of materials
come from the rule's own functions, as a plan's do.
"""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
import openpyxl
import pytest
from recalc import recalculate, soffice, stored_vs_recalculated
from test_report import CATALOG, WORKLOADS, sample_plan

from solver.errors import InputError
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
from solver.sweep.axes import parse_prices, priced_catalog

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
    one = _with_fabric(one, first, catalog)
    two = _with_fabric(two, pool + runs, catalog)
    two = replace(two, over_cheapest=two.total_cost / one.total_cost - 1)
    return replace(result, options=(one, two)), wf, catalog


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


def test_terminal_names_each_fabric_of_option_1_and_adds_it_to_the_total(plan):
    result, wf, catalog = plan
    one = result.options[0]
    for width in (80, 60):
        text = render_plan_summary(result, catalog, "q3", wf=wf, width=width)
        assert all(len(line) <= width for line in text.splitlines()), width
    text = render_plan_summary(result, catalog, "q3", wf=wf, width=80)
    block = text.split("Servers option 1 buys")[1].split("\n\n")[0]
    assert ("  - Fabric (pool, ethernet): 1 x sw-eth-100g-32p, 8 cables for 3 servers: "
            "USD\n    18,400") in block
    assert "1 x NIC 2 x 100 GbE (NVIDIA ConnectX-6 Dx)" in block  # the NIC the plan adds
    flat = " ".join(block.split())
    assert f"In all 3 servers and their network, USD {one.total_cost:,.0f}." in flat


def test_a_plan_without_a_fabric_reads_as_before():
    result, wf, catalog = sample_plan()
    text = render_plan_summary(result, catalog, "q3", wf=wf, width=80)
    assert "Fabric (" not in text and "their network" not in text


def test_bom_names_network_lines_by_the_catalog(plan):
    result, _, catalog = plan
    bom = report.bom_table(result.options[1], catalog)
    net = bom[bom["kind"] == "network"].set_index("sku")["description"].to_dict()
    assert net == {LINK_SKU: network.LINK_TEXT,
                   "sw-eth-25g-48p": "48 x 25 GbE leaf (NVIDIA SN2410 class)",
                   "sw-ib-200g-40p": "40 x 200 Gb/s HDR InfiniBand (NVIDIA QM8700)"}
    assert list(bom["kind"]).index("network") > list(bom["kind"]).index("storage")
    one = report.bom_table(result.options[0], catalog)
    assert "2 x 100 GbE (NVIDIA ConnectX-6 Dx)" in set(one["description"])


def test_summary_and_fabric_tables(plan):
    result, wf, catalog = plan
    summ = report.summary_table(result, catalog, wf.policy)
    for opt, net in zip(result.options, summ["network_cost"], strict=True):
        assert net == pytest.approx(opt.cost_by_kind()["network"]) and net > 0
    df = network.fabric_table(result.options[1], catalog)
    ib = df[(df["pod"] == "pool") & (df["kind"] == "infiniband")].iloc[0]
    assert (ib["servers"], ib["ports"], ib["leaf"], ib["leaves"], ib["spine"]) == (
        10, 80, "sw-ib-200g-40p", 4, "sw-ib-200g-40p")
    # one cable per server port and per uplink (half of each leaf's ports)
    assert ib["cables"] == 80 + 4 * 20
    assert ib["cost"] == pytest.approx((4 + ib["spines"]) * 25000 + ib["cables"] * 300)
    nics = sum(ln.extended for ln in result.options[1].lines
               if catalog.network.nic(ln.sku) is not None)
    assert df["cost"].sum() + nics == pytest.approx(result.options[1].cost_by_kind()["network"])


def test_quote_and_csv_add_up_with_the_network(plan):
    result, _, catalog = plan
    for opt in result.options:
        lines = quote_lines(opt, catalog) + fabric_quote_lines(opt, catalog)
        assert sum(ln.extended for ln in lines) == pytest.approx(opt.total_cost)
        df = quote_frame(opt, catalog)
        assert df["extended_price"].sum() == pytest.approx(opt.total_cost)
    df = quote_frame(result.options[0], catalog)
    l40s = df[df["platform"] == "srv-4gpu-ddr4"].iloc[0]
    assert l40s["nics_per_server"] == "1 x eth-100g-2p"
    switch = df[df["network"] == "sw-eth-100g-32p"].iloc[0]
    assert (switch["quantity"], switch["platform"], switch["unit_price"]) == (1, "", 16000)


def test_chargeback_splits_the_network_like_platforms(plan):
    result, wf, catalog = plan
    df = chargeback.teams_table(result, wf, catalog)
    for opt in result.options:
        part = df[df["option"] == f"Option {opt.rank}"]
        assert part["total_cost"].sum() == pytest.approx(opt.total_cost, abs=0.01)
        assert part["network_share"].sum() == pytest.approx(1.0)
        assert part["network_cost"].sum() == pytest.approx(opt.cost_by_kind()["network"])
        shares = network.network_by_server(opt.servers, opt.fabric, catalog)
        assert sum(shares.values()) == pytest.approx(opt.cost_by_kind()["network"])
    # option 2's idle HGX servers carry their ports' share of the fabric to nobody's team
    two = df[df["option"] == "Option 2"].set_index("team")
    assert two.loc[chargeback.UNASSIGNED, "network_cost"] > 0


def test_json_carries_the_fabric_and_validates(plan):
    result, _, _ = plan
    doc = json.loads(json.dumps(result.to_json()))
    # A hand-made option has no cost of owning (power_kw): check the keys N3 adds
    option = output_schema("plan")["anyOf"][0]["properties"]["options"]["items"]
    keys = ("servers", "lines", "fabric")
    schema = {**option, "required": list(keys),
              "properties": {k: option["properties"][k] for k in keys}}
    assert "fabric" in option["required"]
    for opt in doc["options"]:
        jsonschema.validate(opt, schema)
    one, two = doc["options"]
    assert {ln["kind"] for ln in one["lines"]} >= {"network"}
    assert one["servers"][1]["nics"] == [{"sku": "eth-100g-2p", "count": 1}]
    assert "nics" not in one["servers"][0] and "pod" not in one["servers"][0]
    assert {s.get("pod") for s in two["servers"]} == {None, "runs"}
    spined = [f for f in two["fabric"] if f["spines"] is not None]
    assert spined and spined[0]["leaves"] == {"sku": "sw-ib-200g-40p", "count": 4}
    for path, value in ((("fabric", 0, "cables"), "8"), (("lines", 0, "kind"), "cables"),
                        (("servers", 1, "nics", 0, "count"), None)):
        broken = json.loads(json.dumps(one))
        parent = broken
        for part in path[:-1]:
            parent = parent[part]
        parent[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


def _rows(ws):
    return [[c.value for c in r] for r in ws.iter_rows()]


def test_workbook_shows_the_network_with_live_formulas(plan, tmp_path):
    result, wf, catalog = plan
    book, _ = write_plan_files(tmp_path / "q3.xlsx", result, wf, catalog, SOURCES)
    wb = openpyxl.load_workbook(book)
    rows = _rows(wb["Option 2"])
    start = next(i for i, r in enumerate(rows) if str(r[0]).startswith("Network:"))
    assert rows[start + 1][:8] == ["Pod", "Leaves", "Spines", "Kind", "Servers", "Ports",
                                   "Cables", "Cost (USD)"]
    table = rows[start + 2:start + 2 + len(result.options[1].fabric)]
    ib = next(r for r in table if r[0] == "pool" and r[3] == "infiniband")
    assert ib[1] == "4 x sw-ib-200g-40p" and ib[2].endswith("x sw-ib-200g-40p")
    assert str(ib[7]).startswith("=4*Assumptions!")  # live on the editable prices
    assert rows[start + 2 + len(table)][0] == "Fabric total"
    subtotal = next(r for r in rows if r[0] == "Subtotal: Network")
    assert subtotal[2] == "network" and str(subtotal[5]).startswith("=SUMIF(")
    servers = {r[0]: r[1] for r in _rows(wb["Option 1"]) if r[0] in ("s1", "s2")}
    assert servers["s2"].endswith("+ 1 x eth-100g-2p") and "eth-100g" not in servers["s1"]
    quote = [r for r in _rows(wb["Option 1"]) if r[0] in ("sw-eth-100g-32p", LINK_SKU)]
    assert len(quote) == 4  # BOM line and quote line of each
    summary = {r[0]: r for r in _rows(wb["Summary"])}
    assert str(summary["  Network"][2]).startswith("='Option 1'!")
    teams = _rows(wb["Teams"])
    head = next(r for r in teams if r and r[0] == "Option" and "Adds up" in r)
    assert "Network cost" in head
    if soffice() is None:
        pytest.skip("LibreOffice (soffice) is not installed: stored values not recalculated")
    copies = recalculate([book], tmp_path / "recalculated")
    count, diffs = stored_vs_recalculated(book, copies[book])
    assert count > 100 and not diffs, "\n".join(map(str, diffs))
    values = openpyxl.load_workbook(copies[book], data_only=True)
    col = head.index("Adds up")
    checks = _rows(values["Teams"])
    start = next(i for i, r in enumerate(checks) if r[col] == "Adds up")
    adds_up = [r[col] for r in checks[start + 1:] if str(r[0]).startswith("Option ")]
    assert adds_up == [True, True]


def test_price_axes_scale_the_network(plan):
    _, _, catalog = plan
    axes = parse_prices(["network=2", f"{LINK_SKU}=0.5", "sw-eth-25g-48p=0.5"], catalog)
    assert [t for t, _ in axes] == ["network", LINK_SKU, "sw-eth-25g-48p"]
    dear = priced_catalog(catalog, tuple((t, v[0]) for t, v in axes))
    net, base = dear.network, catalog.network
    assert [n.price for n in net.nics] == [2 * n.price for n in base.nics]
    assert dear.price_of("sw-eth-25g-48p") == catalog.price_of("sw-eth-25g-48p")  # 2 x 0.5
    assert dear.price_of("sw-ib-400g-64p") == 2 * catalog.price_of("sw-ib-400g-64p")
    assert net.link_price == base.link_price and dear.gpus == catalog.gpus
    with pytest.raises(InputError, match="network"):
        parse_prices(["netwrk=2"], catalog)
