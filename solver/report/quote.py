"""The servers an option buys, grouped by configuration: what a vendor is asked to quote.

``quote_lines`` groups an option's bought servers (owned ones are not bought) by their
whole configuration (platform, GPUs, DIMMs, drives, NICs added) and prices one server of
each from the option's own bill of materials; ``fabric_quote_lines`` adds the network's
switches and cables (N3), so the lines add up to the option's total cost. The
terminal (``quote_text``), the workbook's quote section and the per-option CSV
(``quote_frame``) all read these lines.

Money in the catalog's currency; sizes as the catalog gives them (GB = 10^9 bytes, TB =
10^12 bytes).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..inputs.catalog import Catalog
from ..plan_types import PlanOption, Server
from .network import network_name

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class QuoteLine:
    """``qty`` servers of one configuration, each priced ``unit_price``."""

    qty: int
    platform: str
    parts: tuple[tuple[str, int], ...]
    """(SKU, quantity) in one server: platform, GPUs, DIMMs, drives, NICs added
    (``Server.parts``)."""
    description: str
    """"srv-8gpu-ddr5 with 8 x h100-pcie, 16 x 64 GB DDR5-4800, 2 x 3.84 TB NVMe U.2"."""
    unit_price: float
    """One server so configured: Σ quantity × the BOM's unit price of each part."""
    fabric: bool = False
    """A switch or the cables of the network (N3), not a server: ``platform`` is its SKU,
    ``qty`` units of it at ``unit_price``."""

    @property
    def extended(self) -> float:
        """qty × unit_price."""
        return self.qty * self.unit_price


def describe(server: Server, catalog: Catalog) -> str:
    """A server's configuration in words a vendor reads: the platform SKU, then its GPUs,
    DIMMs (size, type and speed) and data drives."""
    parts = []
    if server.gpu and server.gpu_count:
        parts.append(f"{server.gpu_count} x {server.gpu}")
    dimm = catalog.dimm(server.memory)
    parts.append(f"{server.dimm_count} x {dimm.size_gb:g} GB {dimm.type.upper()}-"
                 f"{dimm.speed_mts}")
    if server.storage and server.drive_count:
        drive = catalog.drive(server.storage)
        parts.append(f"{server.drive_count} x {drive.name or drive.sku}")
    parts += [f"{n} x NIC {network_name(catalog, sku) or sku}" for sku, n in server.nics if n]
    return f"{server.platform} with {', '.join(parts)}"


def quote_lines(option: PlanOption, catalog: Catalog) -> list[QuoteLine]:
    """The option's bought servers grouped by configuration, most servers first.

    Each part is priced at the unit price of its line in the option's bill of materials
    (the price the plan was solved with), so Σ extended = the option's total cost when
    every line of the BOM belongs to a bought server.
    """
    price = {ln.sku: ln.unit_price for ln in option.lines}
    groups: Counter[tuple[tuple[str, int], ...]] = Counter()
    first: dict[tuple[tuple[str, int], ...], Server] = {}
    for s in option.servers:
        if s.owned:
            continue
        key = s.parts()
        groups[key] += 1
        first.setdefault(key, s)
    lines = [
        QuoteLine(qty=n, platform=first[key].platform, parts=key,
                  description=describe(first[key], catalog),
                  unit_price=round(sum(q * price.get(sku, catalog.price_of(sku))
                                       for sku, q in key), 2))
        for key, n in groups.items()
    ]
    return sorted(lines, key=lambda ln: (-ln.qty, -ln.unit_price, ln.description))


def fabric_quote_lines(option: PlanOption, catalog: Catalog) -> list[QuoteLine]:
    """The network bought beside the servers (N3): one line per switch SKU and one for the
    cables, from the option's bill of materials (the NICs added to servers are in the
    servers' configurations), so servers and fabric add up to the option's total cost."""
    nics = {n.sku for n in catalog.network.nics}
    return [QuoteLine(qty=ln.qty, platform=ln.sku, parts=((ln.sku, 1),),
                      description=network_name(catalog, ln.sku) or ln.sku,
                      unit_price=ln.unit_price, fabric=True)
            for ln in option.lines if ln.kind == "network" and ln.sku not in nics]


def quote_text(line: QuoteLine, currency: str) -> str:
    """"3 x srv-8gpu-ddr5 with 8 x h100-pcie, ... : USD 120,000 each, USD 360,000"."""
    each = f"{currency} {line.unit_price:,.0f}"
    if line.qty == 1:
        return f"1 x {line.description}: {each}"
    return f"{line.qty} x {line.description}: {each} each, {currency} {line.extended:,.0f}"


def quote_frame(option: PlanOption, catalog: Catalog) -> pd.DataFrame:
    """One row per configuration: quantity, what is in one server (SKUs and counts, the
    NICs the plan adds as "1 x eth-100g-2p"), description, unit and extended price (the
    per-option CSV ``plan`` writes); then one row per switch SKU and one for the cables of
    the network (N3), their SKU under ``network``, so the rows add up to the option's
    total cost."""
    import pandas as pd

    rows = []
    for ln in quote_lines(option, catalog):
        parts = dict(ln.parts)
        nics = {sku: q for sku, q in parts.items() if catalog.network.nic(sku) is not None}
        kinds = {catalog.kind_of(sku): sku for sku in parts}
        rows.append({
            "quantity": ln.qty,
            "platform": ln.platform,
            "gpu": kinds.get("gpu", ""),
            "gpus_per_server": parts.get(kinds.get("gpu", ""), 0),
            "dimm": kinds["memory"],
            "dimms_per_server": parts[kinds["memory"]],
            "drive": kinds.get("storage", ""),
            "drives_per_server": parts.get(kinds.get("storage", ""), 0),
            "nics_per_server": ", ".join(f"{q} x {sku}" for sku, q in nics.items()),
            "network": "",
            "description": ln.description,
            "unit_price": ln.unit_price,
            "extended_price": round(ln.extended, 2),
            "currency": catalog.currency,
        })
    rows += [{"quantity": ln.qty, "platform": "", "gpu": "", "gpus_per_server": 0, "dimm": "",
              "dimms_per_server": 0, "drive": "", "drives_per_server": 0,
              "nics_per_server": "", "network": ln.platform, "description": ln.description,
              "unit_price": ln.unit_price, "extended_price": round(ln.extended, 2),
              "currency": catalog.currency} for ln in fabric_quote_lines(option, catalog)]
    columns = ["quantity", "platform", "gpu", "gpus_per_server", "dimm", "dimms_per_server",
               "drive", "drives_per_server", "nics_per_server", "network", "description",
               "unit_price", "extended_price", "currency"]
    return pd.DataFrame(rows, columns=columns)
