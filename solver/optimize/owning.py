"""What a plan costs to own and where it stands (P2, P5), from its physical servers.

Pure arithmetic on a plan's servers: no solver objects, so reports, sweeps and the pipeline
share one home for each formula (the program in ``program/`` states the same ones as
constraints and objective terms; the checker recomputes them on its own). A server's power
(P1) and the racks a pool takes (P3) are rules of ``solver/rules/power.py``.

- P2 energy = Σ kW × 8,760 × years × utilisation × PUE × kwh_price;
  support = support_pct_per_year × capex × years; racks = rack_cost_per_year × years ×
  racks used; TCO = capex + energy + support + racks;
- P5 renting the GPUs bought = Σ GPUs bought × price per GPU-hour × 8,760 × years ×
  utilisation, against what is bought: capex and its running cost (energy of the servers
  bought, support on capex, the racks they add to those the owned servers take). Owned
  servers are paid for already: neither side counts them.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal

from ..inputs.catalog import Catalog
from ..inputs.ownership import HOURS_PER_YEAR, Site, TcoPolicy
from ..plan_types import OwnCost, Server
from ..rules.power import plan_power_w, plan_units, racks_used, server_power_w, server_units


def kw_text(kw: float) -> str:
    """Power in kW to one decimal, rounded half up as a spreadsheet shows it (14.95 ->
    "15.0"), so the terminal and the workbook's "#,##0.0" cells say the same."""
    return f"{Decimal(repr(float(kw))).quantize(Decimal('0.1'), ROUND_HALF_UP):,}"


def own_cost(servers: Iterable[Server], capex: float, tco: TcoPolicy | None, site: Site | None,
             catalog: Catalog) -> OwnCost:
    """Power, racks, energy, support, TCO and the rental comparison of a plan's servers."""
    servers = list(servers)
    power_kw = plan_power_w(servers, catalog) / 1000
    units = plan_units(servers, catalog)
    racks = racks_used(power_kw, units, site) if site is not None else None
    if tco is None:
        return OwnCost(round(capex, 2), round(power_kw, 4), units, racks)
    energy = power_kw * tco.energy_per_kw()
    support = capex * tco.support_rate()
    rack_cost = (racks or 0) * tco.rack_rate()
    bought = [s for s in servers if not s.owned]
    bought_kw = plan_power_w(bought, catalog) / 1000
    added = _racks_added(servers, racks, site, catalog)
    return OwnCost(
        capex=round(capex, 2), power_kw=round(power_kw, 4), rack_units=units, racks=racks,
        energy=round(energy, 2), support=round(support, 2), rack_cost=round(rack_cost, 2),
        tco=round(capex + energy + support + rack_cost, 2), cloud=rent(bought, tco, catalog),
        years=tco.years, bought_power_kw=round(bought_kw, 4), racks_added=added,
        bought_running=round(bought_kw * tco.energy_per_kw() + support
                             + added * tco.rack_rate(), 2),
    )


def rent(servers: Iterable[Server], tco: TcoPolicy, catalog: Catalog) -> float | None:
    """P5: renting the GPUs of ``servers`` for the horizon at the same utilisation: Σ GPUs ×
    price per GPU-hour × 8,760 × years × utilisation. None when they hold no GPU or one of
    their GPUs has no cloud price."""
    gpus: dict[str, int] = {}
    for s in servers:
        if s.gpu is not None and s.gpu_count:
            gpus[s.gpu] = gpus.get(s.gpu, 0) + s.gpu_count
    prices = {sku: catalog.cloud_price(sku) for sku in gpus}
    if not gpus or any(p is None for p in prices.values()):
        return None
    hours = HOURS_PER_YEAR * tco.years * tco.utilisation
    return round(sum(n * (prices[sku] or 0.0) * hours for sku, n in gpus.items()), 2)


def _racks_added(servers: list[Server], racks: int | None, site: Site | None,
                 catalog: Catalog) -> int:
    """Racks the plan uses beyond those its owned servers alone take (0 without a site)."""
    if site is None or racks is None:
        return 0
    owned = [s for s in servers if s.owned]
    alone = racks_used(sum(server_power_w(s, catalog) for s in owned) / 1000,
                       sum(server_units(s, catalog) for s in owned), site)
    return max(0, racks - alone)
