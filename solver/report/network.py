"""The network an option buys (N3), as the reports show it: the catalog's names of its
NICs, switches and cables, one line of words per fabric (a kind of one pod), the fabric as a
tidy table, and each bought server's share of the network's cost.

Pure functions of a plan and its catalog (``rules/fabric.py`` says what a fabric is; the
option's ``fabric`` holds what the plan bought). Money in the catalog's currency.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..inputs.catalog import Catalog
from ..inputs.fabric import LINK_SKU
from ..plan_types import FabricPod, PlanOption, Server
from ..rules.fabric import server_ports
from .wording import counted

if TYPE_CHECKING:
    import pandas as pd

LINK_TEXT = "Cables / transceivers (one per switch port in use)"
"""How ``LINK_SKU`` is described wherever a SKU's name is shown."""


def network_name(catalog: Catalog, sku: str) -> str | None:
    """The catalog's name of a NIC or switch (its SKU when it has none), ``LINK_TEXT`` for
    the fabric's cables; None for a SKU that is not part of the network."""
    if sku == LINK_SKU:
        return LINK_TEXT
    names = {n.sku: n.name for n in catalog.network.nics}
    names.update({w.sku: w.name for w in catalog.network.switches})
    return (names[sku] or sku) if sku in names else None


def nics_text(server: Server) -> str:
    """The NICs a plan adds to a server: ``1 x eth-100g-2p``; "" for none."""
    return ", ".join(f"{n} x {sku}" for sku, n in server.nics if n)


def switches(pod: FabricPod) -> tuple[tuple[str, int], ...]:
    """(switch SKU, count) of a fabric: its leaves, then its spines."""
    return (pod.leaves, *((pod.spines,) if pod.spines else ()))


def switch_text(pod: FabricPod) -> str:
    """``1 x sw-eth-25g-48p``; past one leaf ``4 x sw-eth-25g-48p + 2 x sw-ib-...``
    (leaves, then spines)."""
    return " + ".join(f"{n} x {sku}" for sku, n in switches(pod))


def fabric_text(pod: FabricPod) -> str:
    """One fabric in words: "Fabric (pool, ethernet): 1 x sw-eth-25g-48p, 20 cables for
    10 servers"."""
    return (f"Fabric ({pod.pod}, {pod.kind}): {switch_text(pod)}, "
            f"{counted(pod.cables, 'cable')} for {counted(len(pod.servers), 'server')}")


def unit_prices(option: PlanOption) -> dict[str, float]:
    """The unit price of each SKU the option buys as its bill of materials gives it (the
    price it was solved with)."""
    return {ln.sku: ln.unit_price for ln in option.lines}


def fabric_cost(pod: FabricPod, catalog: Catalog, prices: dict[str, float]) -> float:
    """What one fabric costs: its switches and cables at ``prices`` (else the catalog's)."""
    def price(sku: str) -> float:
        return prices[sku] if sku in prices else catalog.price_of(sku)

    return (sum(n * price(sku) for sku, n in switches(pod))
            + pod.cables * price(LINK_SKU))


def fabric_table(option: PlanOption, catalog: Catalog) -> pd.DataFrame:
    """One row per fabric of the option (a kind of one pod): its pod, kind, servers, server
    ports, leaves and spines (SKU and count), cables and cost."""
    import pandas as pd

    prices = unit_prices(option)
    columns = ["pod", "kind", "servers", "ports", "leaf", "leaves", "spine", "spines",
               "cables", "cost"]
    rows = [{"pod": p.pod, "kind": p.kind, "servers": len(p.servers), "ports": p.ports,
             "leaf": p.leaves[0], "leaves": p.leaves[1],
             "spine": p.spines[0] if p.spines else "",
             "spines": p.spines[1] if p.spines else 0,
             "cables": p.cables, "cost": fabric_cost(p, catalog, prices)}
            for p in option.fabric]
    return pd.DataFrame(rows, columns=columns)


def network_by_server(servers: Iterable[Server], fabric: Iterable[FabricPod],
                      catalog: Catalog) -> dict[str, float]:
    """Each bought server's share of the network's cost at catalog prices: the NICs the
    plan adds to it, and of every fabric it is cabled to the share its ports there take
    (the fabric's ports split its switches and cables); the shares add up to the cost of
    the network lines of the bill of materials."""
    by_id = {s.id: s for s in servers if not s.owned}
    out = {sid: sum(n * catalog.price_of(sku) for sku, n in s.nics)
           for sid, s in by_id.items()}
    for pod in fabric:
        cost = fabric_cost(pod, catalog, {})
        ports = {sid: sum(server_ports(by_id[sid], catalog).get(pod.kind, {}).values())
                 for sid in pod.servers if sid in by_id}
        total = sum(ports.values())
        for sid, n in ports.items():
            out[sid] += cost * n / total if total else cost / len(ports)
    return out
