"""N3 by exhaustive enumeration: the fabric a pod of bought servers buys, found without the
integer program or ``solver/rules/fabric.py``.

The stated rule it enumerates: every port of a bought server's NICs (its platform's
``included_nics``; the brute force adds no NIC) is cabled to a switch of its kind; a kind
whose ports are on fewer than two servers of the pod needs none. For the P ports of a kind
(the fastest F Gb/s) every leaf SKU of the kind with rate ≥ F is tried: one leaf when
P ≤ its p ports; else L = ⌈P ÷ ⌊p/2⌋⌉ leaves sending ⌈p/2⌉ uplinks each to spines of every
SKU of the kind with rate ≥ the leaf's, S = ⌈L·⌈p/2⌉ ÷ spine ports⌉ of them. One cable
(``network.link_price``) per server port and per uplink. A pod's fabric is one choice per
kind; the plan takes the one whose switches' price (under ``objective: tco`` with their
power), cables and racks cost least within the site.

A pod's ports are kept per kind as (servers with ports, at most 2; ports; fastest Gb/s), so
partial plans join by adding them (``join_ports``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from solver.inputs.catalog import Catalog, Platform

KINDS = ("ethernet", "infiniband")

PodPorts = tuple[tuple[int, int, float], ...]
"""Per kind of ``KINDS``: (servers with ports of the kind, capped at 2; ports; fastest
Gb/s)."""

NO_PORTS: PodPorts = tuple((0, 0, 0.0) for _ in KINDS)


@dataclass(frozen=True)
class FabricChoice:
    """Switches and cables of a pod (or of one kind of it): price, W, U."""

    price: float
    watts: float
    units: int

    def __add__(self, other: FabricChoice) -> FabricChoice:
        return FabricChoice(self.price + other.price, self.watts + other.watts,
                            self.units + other.units)


NOTHING = FabricChoice(0.0, 0.0, 0)


def platform_ports(p: Platform, catalog: Catalog) -> PodPorts:
    """The ports one bought server of ``p`` brings to its pod (its included NICs)."""
    out = []
    for kind in KINDS:
        cards = [(catalog.network.nic(i.nic), i.count) for i in p.included_nics]
        mine = [(n, c) for n, c in cards if n is not None and n.kind == kind]
        ports = sum(n.ports * c for n, c in mine)
        out.append((min(1, ports), ports, max((n.gbps for n, _ in mine), default=0.0)))
    return tuple(out)


def join_ports(a: PodPorts, b: PodPorts) -> PodPorts:
    """Two parts of one pod together."""
    return tuple((min(2, x[0] + y[0]), x[1] + y[1], max(x[2], y[2])) for x, y in zip(a, b))


def kind_choices(kind: str, ports: int, fastest: float,
                 catalog: Catalog) -> list[FabricChoice]:
    """Every fabric the rule allows for ``ports`` ports of ``kind`` (module docstring)."""
    switches = [s for s in catalog.network.switches if s.kind == kind]
    link = catalog.network.link_price
    out = []
    for leaf in switches:
        if leaf.gbps + 1e-9 < fastest:
            continue
        if ports <= leaf.ports:
            out.append(FabricChoice(leaf.price + ports * link, leaf.power_w, leaf.rack_units))
            continue
        down, up = leaf.ports // 2, leaf.ports - leaf.ports // 2
        if down < 1:
            continue
        leaves = math.ceil(ports / down)
        for spine in switches:
            if spine.gbps + 1e-9 < leaf.gbps:
                continue
            spines = math.ceil(leaves * up / spine.ports)
            out.append(FabricChoice(
                leaves * leaf.price + spines * spine.price + (ports + leaves * up) * link,
                leaves * leaf.power_w + spines * spine.power_w,
                leaves * leaf.rack_units + spines * spine.rack_units))
    return out


def pod_choices(state: PodPorts, catalog: Catalog) -> list[FabricChoice]:
    """Every fabric of one pod: a choice per kind with ports on two servers or more (none
    when the catalog lists no switches); empty when some kind has no switch fast enough."""
    if not catalog.network.switches:
        return [NOTHING]
    per_kind = [kind_choices(kind, ports, fastest, catalog)
                for kind, (servers, ports, fastest) in zip(KINDS, state) if servers >= 2]
    return [sum(c, NOTHING) for c in itertools.product(*per_kind)]


def cheapest_fabric(state: PodPorts, catalog: Catalog) -> FabricChoice | None:
    """N3: the cheapest fabric of a pod by price (None when none is allowed)."""
    return min(pod_choices(state, catalog), key=lambda c: c.price, default=None)


def pool_with_fabric(cost: float, watts: float, units: int, state: PodPorts,
                     catalog: Catalog, site, tco) -> float | None:
    """A pool of servers costing ``cost`` (drawing ``watts`` W in ``units`` U where a site
    counts them) with its best fabric: switches and cables priced (under ``tco``, with
    support and energy), the racks its servers and switches take within the site (P3) and,
    under ``tco``, their rack cost. None when no fabric fits."""
    best = None
    for f in pod_choices(state, catalog):
        c = cost + (f.price if tco is None else
                    f.price * (1 + tco.support_rate()) + f.watts / 1000 * tco.energy_per_kw())
        if site is not None:
            w, u = watts + f.watts, units + f.units
            racks = max(math.ceil(w / (site.rack_kw * 1000) - 1e-9) if w > 0 else 0,
                        math.ceil(u / site.rack_units - 1e-9) if u > 0 else 0)
            if racks > site.racks:
                continue
            c += racks * tco.rack_rate() if tco is not None else 0.0
        best = c if best is None or c < best else best
    return best


TINY_SWITCH = {"sku": "sw-eth-100g-4p", "name": "4 x 100 GbE (MikroTik CRS504-4XQ class)",
               "ports": 4, "gbps": 100, "kind": "ethernet", "price": 800, "power_w": 25,
               "rack_units": 1}
"""A small switch of tiny catalogs (illustrative price): two servers' four ports on one,
three servers' six on three leaves and two spines of it (N3 with a spine layer)."""


def tiny_network(base: Catalog, platforms: list) -> dict:
    """N3: the NICs the platforms include, the base catalog's switches of their kinds and,
    with Ethernet, ``TINY_SWITCH``."""
    used = {i.nic for p in platforms for i in p.included_nics}
    nics = [n for n in base.network.nics if n.sku in used]
    kinds = {n.kind for n in nics}
    switches = [w.model_dump(mode="json") for w in base.network.switches if w.kind in kinds]
    return {"link_price": base.network.link_price,
            "nics": [n.model_dump(mode="json") for n in nics],
            "switches": switches + ([TINY_SWITCH] if "ethernet" in kinds else [])}
