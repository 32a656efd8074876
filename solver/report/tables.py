"""What each option buys and costs, as tidy pandas tables: the Summary's figures per
option, its bill of materials, what each platform includes and its cost of owning year
by year.

Every function here is pure: a plan (and the catalog it came from) in, a ``DataFrame``
out. ``solver/report/workbook/`` decides how the tables are written (formulas, formats,
charts); the table modules (this one, ``chargeback``, ``placement_tables``, ``run_tables``)
decide what they hold, so they are tested without Excel. Money is in the catalog's
currency, memory in GB (10^9 bytes).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from ..inputs.catalog import Catalog, GpuSku, MemorySku, Platform, StorageSku
from ..inputs.policy import Policy
from ..plan_types import PlanOption
from ..result import PlanResult
from .metrics import option_metrics
from .network import network_name
from .wording import direction_text

KINDS = ("platform", "gpu", "memory", "storage", "network")
"""Kinds of a bill of materials' lines, in the order reports list them; "network" holds
the NICs a plan adds to servers and the fabric's switches and cables (N3)."""


KIND_LABELS = {"platform": "Platforms", "gpu": "GPUs", "memory": "Memory", "storage": "Storage",
               "network": "Network"}


def summary_table(result: PlanResult, catalog: Catalog, policy: Policy) -> pd.DataFrame:
    """One row per ranked option: costs by kind, counts, R18 utilisation (of the memory
    ``policy``'s headroom leaves usable), R20 saving."""
    ref = result.baseline.total_cost if result.baseline is not None else None
    rows = []
    for opt in result.options:
        m = option_metrics(opt, catalog, policy)
        saving = ref - opt.total_cost if ref is not None else None
        rows.append(
            {
                "option": f"Option {opt.rank}",
                "rank": opt.rank,
                "label": opt.label,
                "total_cost": opt.total_cost,
                "over_cheapest": opt.over_cheapest,
                **{f"{k}_cost": m.cost_by_kind.get(k, 0.0) for k in KINDS},
                "gpus": m.gpu_count,
                "gpus_by_sku": ", ".join(f"{n} x {s}" for s, n in sorted(m.gpus_by_sku.items())),
                "servers": m.servers,
                "max_degree": m.max_degree,
                "installed_vram_gb": m.installed_vram_gb,
                "planned_vram_gb": m.planned_vram_gb,
                "vram_util": m.vram_util,
                "vram_vs_target": m.vram_status,
                "installed_ram_gb": m.installed_ram_gb,
                "planned_ram_gb": m.planned_ram_gb,
                "ram_util": m.ram_util,
                "ram_target": m.ram_target if m.ram_util is not None else None,
                "ram_vs_target": m.ram_status,
                "host_bw_gbps_per_gpu": m.host_bw_gbps_per_gpu,
                "installed_storage_tb": m.installed_storage_tb,
                "unserved": ", ".join(opt.unserved),
                "saving_vs_reference": saving,
                "saving_pct": saving / ref if saving is not None and ref else None,
                "lower_bound": opt.lower_bound,
                "direction": direction_text(opt.direction),
                **_own_columns(opt),
            }
        )
    return pd.DataFrame(rows)


def _own_columns(opt: PlanOption) -> dict[str, float | int | None]:
    """P1–P5 per option: power, racks, energy, TCO, renting and break-even (None: unknown)."""
    own = opt.own
    return {
        "power_kw": own.power_kw if own else None,
        "racks": own.racks if own else None,
        "owned_used": sum(1 for s in opt.servers if s.owned),
        "owned_idle": len(opt.idle),
        "energy_cost": own.energy if own else None,
        "tco": own.tco if own else None,
        "cloud_cost": own.cloud if own else None,
        "break_even_month": own.break_even_month if own else None,
    }


def tco_rows(opt: PlanOption, years: int) -> pd.DataFrame:
    """Cost of owning one option year by year (P2): capex in year 0, then energy, support
    and racks each year, and the cumulative total (what the TCO sheet writes as formulas);
    with a rent to compare (P5), renting the GPUs bought and the running cost of what is
    bought (energy of the servers bought, support, the racks they add), and both cumulated
    from the capex."""
    own = opt.own
    rows = []
    for y in range(years + 1):
        capex = opt.total_cost if y == 0 else 0.0
        running = [0.0, 0.0, 0.0]
        if own is not None and own.tco is not None and y > 0:
            running = [(own.energy or 0.0) / years, (own.support or 0.0) / years,
                       (own.rack_cost or 0.0) / years]
        rent = bought = 0.0
        if own is not None and own.cloud is not None and y > 0:
            rent, bought = own.cloud / years, (own.bought_running or 0.0) / years
        rows.append({"year": y, "capex": capex, "energy_cost": running[0],
                     "support_cost": running[1], "rack_cost": running[2],
                     "total": capex + sum(running), "rent": rent, "bought_running": bought,
                     "bought_total": capex + bought})
    df = pd.DataFrame(rows)
    df["cumulative"] = df["total"].cumsum()
    df["cumulative_rent"] = df["rent"].cumsum()
    df["cumulative_bought"] = df["bought_total"].cumsum()
    return df


def _describe(catalog: Catalog, sku: str) -> str:
    net = network_name(catalog, sku)
    if net is not None:
        return net
    try:
        kind = catalog.kind_of(sku)
    except KeyError:
        return ""
    lookup: dict[str, Callable[[str], GpuSku | Platform | MemorySku | StorageSku]] = {
        "gpu": catalog.gpu,
        "platform": catalog.platform,
        "memory": catalog.dimm,
        "storage": catalog.drive,
    }
    item = lookup[kind](sku)
    return item.name or sku


def bom_table(option: PlanOption, catalog: Catalog) -> pd.DataFrame:
    """The option's bill of materials, one row per SKU, ordered by kind then SKU."""
    order = {k: i for i, k in enumerate(KINDS)}
    lines = sorted(option.lines, key=lambda ln: (order.get(ln.kind, len(KINDS)), ln.sku))
    return pd.DataFrame(
        [
            {
                "sku": ln.sku,
                "description": _describe(catalog, ln.sku),
                "kind": ln.kind,
                "qty": ln.qty,
                "unit_price": ln.unit_price,
                "extended": ln.extended,
            }
            for ln in lines
        ],
        columns=["sku", "description", "kind", "qty", "unit_price", "extended"],
    )


def includes_table(option: PlanOption, catalog: Catalog) -> pd.DataFrame:
    """What the price of each platform the option buys covers (O2), one row per platform.

    Data drives, GPUs and DIMMs are separate lines of the bill of materials; a platform
    whose catalog entry says nothing is listed as "(not stated in the catalog)".
    """
    rows = []
    for sku in sorted({s.platform for s in option.servers}):
        p = catalog.platform(sku)
        rows.append({
            "platform": sku,
            "servers": sum(1 for s in option.servers if s.platform == sku),
            "cpu_cores": p.cpu_cores,
            "rack_units": p.rack_units,
            "includes": "; ".join(p.includes) or "(not stated in the catalog)",
        })
    return pd.DataFrame(rows, columns=["platform", "servers", "cpu_cores", "rack_units", "includes"])
