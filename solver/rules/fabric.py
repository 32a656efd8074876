"""N3: the fabric a pool buys, as a function of its servers.

The rule (docs/solver.md, "The fabric (N3)"):

- A *pod* is a set of bought servers cabled together: the always-on pool is one pod, the
  servers bought for runs (H4) another (a training pod). Servers already owned (P4) are
  cabled to the network their owner has; they are in no pod.
- Every port of every NIC of a pod's server (the platform's ``included_nics`` and the cards
  the plan adds, up to ``nic_slots``) is in use. Ethernet ports go to Ethernet switches,
  InfiniBand ports to InfiniBand switches: one fabric per kind. A kind whose ports are on
  fewer than two servers of the pod needs no switch (nothing to talk to).
- A fabric's leaves are all of one switch SKU of its kind, at least as fast as its fastest
  port. One leaf when it has a port for every server port (P ≤ ports); otherwise
  L = ⌈P ÷ ⌊ports/2⌋⌉ leaves, each giving ⌊ports/2⌋ ports to servers and ⌈ports/2⌉ as
  uplinks, and spines all of one SKU of the kind at least as fast as the leaves,
  ⌈L·⌈ports/2⌉ ÷ spine ports⌉ of them.
- One cable (or pair of transceivers, ``network.link_price``) per server port and per
  uplink.
- The plan buys the cheapest such fabric; its switches' price, power and rack units count
  in capex, P1–P3 and TCO like a server's.

The program states this as rows (``optimize/program/fabric.py``); the checker and the brute
force recompute it on their own. A catalog whose ``network`` lists no switches prices no
fabric.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from ..inputs.catalog import Catalog, Platform
from ..inputs.fabric import LINK_SKU, SwitchSku
from ..inputs.policy import NetworkPolicy
from ..plan_types import BomLine, FabricPod, Server

KINDS = ("ethernet", "infiniband")
POOL_POD = "pool"
RUN_POD = "runs"


def platform_ports(platform: Platform, catalog: Catalog,
                   extra: Iterable[tuple[str, int]] = ()) -> dict[str, dict[float, int]]:
    """NIC ports of one server, by kind and Gb/s: its platform's included NICs and the
    ``extra`` (SKU, count) cards the plan adds."""
    out: dict[str, dict[float, int]] = {}
    for sku, count in (*((i.nic, i.count) for i in platform.included_nics), *extra):
        nic = catalog.network.nic(sku)
        if nic is None or count <= 0:
            continue
        by_speed = out.setdefault(nic.kind, {})
        by_speed[nic.gbps] = by_speed.get(nic.gbps, 0) + count * nic.ports
    return out


def server_ports(server: Server, catalog: Catalog) -> dict[str, dict[float, int]]:
    """NIC ports of one server of a plan, by kind and Gb/s."""
    return platform_ports(catalog.platform(server.platform), catalog, server.nics)


def run_gbps(ports: dict[str, dict[float, int]], net: NetworkPolicy | None) -> float:
    """The network a run spread over servers gets from one server, Gb/s (N2): its fastest
    kind, or the kind ``net.fabric`` names; 0 (the run may not span servers this way) where
    the server lacks that kind, ``net.span_servers`` is false, or it is under
    ``net.min_gbps``."""
    if net is None:
        return network_gbps(ports)
    if not net.span_servers:
        return 0.0
    if net.fabric == "auto":
        gbps = network_gbps(ports)
    else:
        gbps = sum(g * n for g, n in ports.get(net.fabric, {}).items())
    return 0.0 if net.min_gbps is not None and gbps + 1e-9 < net.min_gbps else gbps


def network_gbps(ports: dict[str, dict[float, int]]) -> float:
    """A server's network for data-parallel traffic (N2), Gb/s: the summed rate of its
    fastest kind's ports (Ethernet and InfiniBand are not bonded together)."""
    return max((sum(g * n for g, n in by.items()) for by in ports.values()), default=0.0)


@dataclass(frozen=True)
class Layout:
    """One fabric's switches and cables (a kind of one pod), and what they cost."""

    leaves: tuple[str, int]
    spines: tuple[str, int] | None
    cables: int
    cost: float


def layout(ports: int, fastest: float, leaf: SwitchSku, spine: SwitchSku | None,
           link_price: float) -> Layout | None:
    """The fabric for ``ports`` server ports (the fastest ``fastest`` Gb/s) on leaves of
    ``leaf`` (and, past one leaf, spines of ``spine``); None when the rule does not allow
    that choice."""
    if leaf.gbps + 1e-9 < fastest:
        return None
    if ports <= leaf.ports:
        return Layout((leaf.sku, 1), None, ports, leaf.price + link_price * ports)
    down = leaf.ports // 2
    if spine is None or down < 1 or spine.gbps + 1e-9 < leaf.gbps:
        return None
    leaves = math.ceil(ports / down)
    uplinks = leaves * (leaf.ports - down)
    spines = math.ceil(uplinks / spine.ports)
    cost = leaves * leaf.price + spines * spine.price + link_price * (ports + uplinks)
    return Layout((leaf.sku, leaves), (spine.sku, spines), ports + uplinks, cost)


def cheapest_layout(kind: str, by_speed: dict[float, int], catalog: Catalog) -> Layout | None:
    """The cheapest fabric the rule allows for these ports (ties: the first switch SKUs in
    catalog order); None when no switch of the kind is fast enough."""
    switches = [s for s in catalog.network.switches if s.kind == kind]
    ports = sum(by_speed.values())
    fastest = max(by_speed, default=0.0)
    best: Layout | None = None
    for leaf in switches:
        spines: list[SwitchSku | None] = [None] if ports <= leaf.ports else list(switches)
        for spine in spines:
            got = layout(ports, fastest, leaf, spine, catalog.network.link_price)
            if got is not None and (best is None or got.cost < best.cost - 1e-9):
                best = got
    return best


def prices_fabric(catalog: Catalog) -> bool:
    """The catalog prices fabrics: its network lists switches."""
    return bool(catalog.network.switches)


def fabric_of(servers: Iterable[Server], catalog: Catalog) -> tuple[FabricPod, ...]:
    """The fabric each pod of the plan's bought servers needs (module docstring), by pod and
    kind."""
    if not prices_fabric(catalog):
        return ()
    pods: dict[str, list[Server]] = {}
    for s in servers:
        if not s.owned:
            pods.setdefault(s.pod or POOL_POD, []).append(s)
    out: list[FabricPod] = []
    for pod, members in sorted(pods.items()):
        ports = {s.id: server_ports(s, catalog) for s in members}
        for kind in KINDS:
            on = [s.id for s in members if sum(ports[s.id].get(kind, {}).values())]
            if len(on) < 2:
                continue
            by_speed: dict[float, int] = {}
            for sid in on:
                for g, n in ports[sid][kind].items():
                    by_speed[g] = by_speed.get(g, 0) + n
            got = cheapest_layout(kind, by_speed, catalog)
            if got is None:
                continue  # the catalog's validator requires a switch for every NIC
            out.append(FabricPod(pod, kind, tuple(on), sum(by_speed.values()), got.leaves,
                                 got.spines, got.cables))
    return tuple(out)


def fabric_lines(pods: Iterable[FabricPod], catalog: Catalog) -> list[BomLine]:
    """The switches and cables of the fabric as BOM lines (kind "network")."""
    qty: dict[str, int] = {}
    for p in pods:
        for sku, n in (p.leaves, *((p.spines,) if p.spines else ())):
            qty[sku] = qty.get(sku, 0) + n
        qty[LINK_SKU] = qty.get(LINK_SKU, 0) + p.cables
    return [BomLine(sku, "network", n, catalog.price_of(sku)) for sku, n in qty.items() if n]


def switch_power_w(pods: Iterable[FabricPod], catalog: Catalog) -> float:
    """P1: rated power of the fabric's switches, W."""
    by = {s.sku: s for s in catalog.network.switches}
    return sum(by[sku].power_w * n for p in pods
               for sku, n in (p.leaves, *((p.spines,) if p.spines else ())))


def switch_units(pods: Iterable[FabricPod], catalog: Catalog) -> int:
    """P3: rack units of the fabric's switches."""
    by = {s.sku: s for s in catalog.network.switches}
    return sum(by[sku].rack_units * n for p in pods
               for sku, n in (p.leaves, *((p.spines,) if p.spines else ())))


def nic_power_w(server: Server, catalog: Catalog) -> float:
    """P1: rated power of the NICs a plan adds to one server, W (included NICs are in the
    platform's power)."""
    return sum((n.power_w if (n := catalog.network.nic(sku)) else 0.0) * c
               for sku, c in server.nics)
