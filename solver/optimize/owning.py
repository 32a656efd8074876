"""What a plan costs to own and where it stands (P1, P2, P3, P5), from its physical servers.

Pure arithmetic on a plan's servers: no solver objects, so reports, sweeps and the pipeline
share one home for each formula (the program in ``build.py`` states the same ones as
constraints and objective terms; the checker recomputes them on its own).

- P1 power of a server, W = platform power_w + gpu_count × GPU power_w;
- P2 energy = Σ kW × 8,760 × years × utilisation × PUE × kwh_price;
  support = support_pct_per_year × capex × years; racks = rack_cost_per_year × years ×
  racks used; TCO = capex + energy + support + racks;
- P3 racks used = max(⌈Σ kW ÷ rack_kw⌉, ⌈Σ U ÷ rack_units⌉);
- P5 renting the same GPUs = Σ GPUs × price per GPU-hour × 8,760 × years × utilisation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..inputs.catalog import Catalog
from ..inputs.ownership import HOURS_PER_YEAR, Site, TcoPolicy
from .plan import OwnCost, Server


def server_power_w(server: Server, catalog: Catalog) -> float:
    """P1: rated power of one server, W: its platform's power_w + gpu_count × GPU power_w."""
    watts = catalog.platform(server.platform).power_w
    if server.gpu is not None and server.gpu_count:
        watts += server.gpu_count * catalog.gpu(server.gpu).power_w
    return watts


def racks_used(power_kw: float, units: int, site: Site) -> int:
    """P3: racks the servers take: the larger of ⌈Σ kW ÷ rack_kw⌉ and ⌈Σ U ÷ rack_units⌉."""
    by_power = math.ceil(power_kw / site.rack_kw - 1e-9) if power_kw > 0 else 0
    by_space = math.ceil(units / site.rack_units - 1e-9) if units > 0 else 0
    return max(by_power, by_space)


def own_cost(servers: Iterable[Server], capex: float, tco: TcoPolicy | None, site: Site | None,
             catalog: Catalog) -> OwnCost:
    """Power, racks, energy, support, TCO and the rental comparison of a plan's servers."""
    servers = list(servers)
    watts = sum(server_power_w(s, catalog) for s in servers)
    units = sum(catalog.platform(s.platform).rack_units or 0 for s in servers)
    power_kw = watts / 1000
    racks = racks_used(power_kw, units, site) if site is not None else None
    if tco is None:
        return OwnCost(round(capex, 2), round(power_kw, 4), units, racks)
    energy = power_kw * tco.energy_per_kw()
    support = capex * tco.support_rate()
    rack_cost = (racks or 0) * tco.rack_rate()
    gpus: dict[str, int] = {}
    for s in servers:
        if s.gpu is not None and s.gpu_count:
            gpus[s.gpu] = gpus.get(s.gpu, 0) + s.gpu_count
    prices = {sku: catalog.cloud_price(sku) for sku in gpus}
    cloud = None
    if gpus and all(p is not None for p in prices.values()):
        hours = HOURS_PER_YEAR * tco.years * tco.utilisation
        cloud = round(sum(n * (prices[sku] or 0.0) * hours for sku, n in gpus.items()), 2)
    return OwnCost(
        capex=round(capex, 2), power_kw=round(power_kw, 4), rack_units=units, racks=racks,
        energy=round(energy, 2), support=round(support, 2), rack_cost=round(rack_cost, 2),
        tco=round(capex + energy + support + rack_cost, 2), cloud=cloud, years=tco.years,
    )
