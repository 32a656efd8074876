"""What is owned, the site and the cost of owning (P1–P4): the inventory's servers used or
idle, a site's racks, and the power and TCO an option reports.

The checker's own arithmetic on purpose (an oracle must not share the code it checks).
"""

from __future__ import annotations

import math

from ..plan_types import PlanOption, Server
from .network import fabric_switches, nic_power_w
from .subject import TOL, Skus, Subject

Config = tuple[str, str | None, int, str, int, str | None, int]
"""An owned server's configuration: platform, GPU, GPUs, memory, DIMMs, storage, drives."""


def _config(s: Server) -> Config:
    """An owned server's configuration, as the inventory writes it."""
    return (s.platform, s.gpu, s.gpu_count, s.memory, s.dimm_count, s.storage, s.drive_count)


def check_p4(sub: Subject) -> list[str]:
    """P4: every owned server (used or idle) is one of the inventory, and per configuration
    used + idle = the count owned; idle servers run nothing."""
    option = sub.option
    owned: dict[Config, int] = {}
    for inv in sub.wf.inventory:
        key = (inv.platform, inv.gpu, inv.gpu_count, inv.memory, inv.dimm_count, inv.storage,
               inv.drive_count)
        owned[key] = owned.get(key, 0) + inv.count
    listed: dict[Config, int] = {}
    errs = []
    for s in (*option.servers, *option.idle):
        if not s.owned:
            if s in option.idle:
                errs.append(f"{s.id}: listed idle but not owned")
            continue
        key = _config(s)
        if key not in owned:
            errs.append(f"{s.id}: marked owned, but the inventory has no such server")
        listed[key] = listed.get(key, 0) + 1
    for key, n in owned.items():
        if listed.get(key, 0) != n:
            errs.append(f"owned {key[0]} ({key[1] or 'CPU'} x{key[2]}): {listed.get(key, 0)} "
                        f"used or idle, {n} owned (P4)")
    idle = {s.id for s in option.idle}
    errs += [f"{pl.workload}#{pl.replica}: placed on idle server {pl.server}"
             for pl in option.placements if pl.server in idle]
    return errs


def power_w(s: Server, skus: Skus) -> float:
    """P1: platform power_w + gpu_count × GPU power_w + the NICs the plan adds (N3); 0 for
    an unknown SKU, reported apart."""
    p = skus.platforms.get(s.platform)
    g = skus.gpu(s.gpu)
    return ((p.power_w if p else 0.0) + (s.gpu_count * g.power_w if g and s.gpu_count else 0.0)
            + nic_power_w(s, skus))


def switch_w_units(option: PlanOption, skus: Skus) -> tuple[float, int]:
    """N3: the power (W) and rack units of the fabric's switches."""
    switches = fabric_switches(option.fabric, skus)
    return sum(w.power_w * n for w, n in switches), sum(w.rack_units * n for w, n in switches)


def plan_units(option: PlanOption, skus: Skus) -> int:
    """P3: rack units of the servers the plan runs and of its fabric's switches (N3)."""
    units = sum((skus.platforms[s.platform].rack_units or 0) for s in option.servers
                if s.platform in skus.platforms)
    return units + switch_w_units(option, skus)[1]


def check_p3(sub: Subject) -> list[str]:
    """P3: no server above one rack's power or height; Σ power ≤ racks × rack_kw and
    Σ U ≤ racks × rack_units over the servers the plan runs."""
    site = sub.wf.site
    if site is None:
        return []
    errs = []
    total_w, units = switch_w_units(sub.option, sub.skus)
    for s in sub.option.servers:
        w = power_w(s, sub.skus)
        p = sub.skus.platforms.get(s.platform)
        u = (p.rack_units or 0) if p else 0
        total_w += w
        units += u
        if w > site.rack_kw * 1000 + TOL:
            errs.append(f"{s.id}: draws {w / 1000:g} kW, over one rack's {site.rack_kw:g} kW (P3)")
        if u > site.rack_units:
            errs.append(f"{s.id}: {u} U, taller than a rack's {site.rack_units} U (P3)")
    # Over a horizon run servers draw only while a run is on them: H4 sums power per instant.
    if sub.timed is None and total_w > site.racks * site.rack_kw * 1000 + TOL:
        errs.append(f"servers draw {total_w / 1000:g} kW, over {site.racks} racks x "
                    f"{site.rack_kw:g} kW (P3)")
    if units > site.racks * site.rack_units:
        errs.append(f"servers take {units} U, over {site.racks} racks x {site.rack_units} U (P3)")
    return errs + _reported_units(sub, units)


def _reported_units(sub: Subject, units: int) -> list[str]:
    """P3: the rack units (and, with a site, the racks) the option reports are those of its
    servers and switches."""
    own, site = sub.option.own, sub.wf.site
    if own is None:
        return []
    errs = []
    if own.rack_units != units:
        errs.append(f"reports {own.rack_units} U, its servers and switches take {units} U (P3)")
    if site is not None and own.racks is not None and sub.timed is None:
        kw = (sum(power_w(s, sub.skus) for s in sub.option.servers)
              + switch_w_units(sub.option, sub.skus)[0]) / 1000
        racks = max(math.ceil(kw / site.rack_kw - 1e-9) if kw > 0 else 0,
                    math.ceil(units / site.rack_units - 1e-9) if units > 0 else 0)
        if own.racks != racks:
            errs.append(f"reports {own.racks} racks, its servers and switches take {racks} "
                        "(P3)")
    return errs


def check_p1_p2(sub: Subject) -> list[str]:
    """P1, P2: the power and TCO the option reports are those of its servers and fabric:
    kW = (Σ (platform W + k × GPU W + added NICs' W) + Σ switch W) / 1000;
    TCO = capex (1 + pct·Y) + kW · 8,760 · Y · u ·
    PUE · kwh_price + racks · rack_cost · Y, racks = max(⌈kW / rack_kw⌉, ⌈U / rack_units⌉)."""
    option, wf, skus = sub.option, sub.wf, sub.skus
    own = option.own
    if own is None:
        return []
    errs = []
    kw = (sum(power_w(s, skus) for s in option.servers)
          + switch_w_units(option, skus)[0]) / 1000
    if abs(kw - own.power_kw) > 1e-3:
        errs.append(f"reports {own.power_kw:g} kW, its servers and switches draw {kw:g} kW "
                    "(P1)")
    tco = wf.policy.tco
    if tco is None:
        return errs
    racks = 0
    if wf.site is not None:
        units = plan_units(option, skus)
        racks = max(math.ceil(kw / wf.site.rack_kw - 1e-9) if kw > 0 else 0,
                    math.ceil(units / wf.site.rack_units - 1e-9) if units > 0 else 0)
    want = (option.total_cost * (1 + (tco.support_pct_per_year or 0.0) * tco.years)
            + kw * 8760 * tco.years * tco.utilisation * tco.pue * tco.kwh_price
            + racks * (tco.rack_cost_per_year or 0.0) * tco.years)
    if own.tco is None or abs(want - own.tco) > 0.05:
        errs.append(f"reports TCO {own.tco}, its servers cost {want:.2f} to own (P2)")
    return errs
