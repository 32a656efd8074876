"""Power and site (P1, P3): a server's rated power, what one rack holds, the racks a pool takes.

The candidate types (a rack's cap on a type's GPUs), the input check of the site, the
expansion's drives-only servers, the cost of owning and the reports read these; the program
states P1 and P3 as rows of ``optimize/program/power.py``, and the checker and the brute
force recompute them on their own.

- P1 power of a server, W = platform power_w + gpu_count × GPU power_w (+ the NICs a plan
  adds); a plan's power adds its fabric's switches (N3, ``rules/fabric.py``);
- P3 one rack holds a server drawing at most rack_kw and at most rack_units tall; racks
  used = max(⌈Σ kW ÷ rack_kw⌉, ⌈Σ U ÷ rack_units⌉).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..inputs.catalog import Catalog, GpuSku, Platform
from ..inputs.ownership import Site
from ..plan_types import Server
from .fabric import fabric_of, nic_power_w, switch_power_w, switch_units


def power_w(platform: Platform, gpu: GpuSku | None, gpus: int) -> float:
    """P1: rated power of one server of ``platform`` holding ``gpus`` GPUs of ``gpu``, W."""
    return platform.power_w + (gpus * gpu.power_w if gpu is not None else 0.0)


def server_power_w(server: Server, catalog: Catalog) -> float:
    """P1: rated power of one server of a plan, W: its platform's power_w + gpu_count × GPU
    power_w + the power of the NICs the plan adds (N3)."""
    gpu = catalog.gpu(server.gpu) if server.gpu is not None and server.gpu_count else None
    return (power_w(catalog.platform(server.platform), gpu, server.gpu_count)
            + nic_power_w(server, catalog))


def plan_power_w(servers: Iterable[Server], catalog: Catalog) -> float:
    """P1: rated power of a plan's servers and of the switches of their fabric (N3), W."""
    servers = list(servers)
    return (sum(server_power_w(s, catalog) for s in servers)
            + switch_power_w(fabric_of(servers, catalog), catalog))


def plan_units(servers: Iterable[Server], catalog: Catalog) -> int:
    """P3: rack units of a plan's servers and of their fabric's switches (N3)."""
    servers = list(servers)
    return (sum(server_units(s, catalog) for s in servers)
            + switch_units(fabric_of(servers, catalog), catalog))


def rack_units(platform: Platform) -> int:
    """P3: the height of one server of ``platform``, U (0 when the catalog gives none)."""
    return platform.rack_units or 0


def server_units(server: Server, catalog: Catalog) -> int:
    """P3: the height of one server of a plan, U."""
    return rack_units(catalog.platform(server.platform))


def rack_holds(site: Site, watts: float, units: int) -> bool:
    """P3: one rack of ``site`` holds a server drawing ``watts`` W, ``units`` U tall."""
    return watts <= site.rack_kw * 1000 + 1e-9 and units <= site.rack_units


def rack_gpus(site: Site, platform: Platform, gpu: GpuSku) -> int:
    """P3: the most GPUs of ``gpu`` a server of ``platform`` may hold within one rack's
    power, ⌊(rack_kw − platform kW) ÷ GPU kW⌋ (``gpu.power_w`` is positive)."""
    return int((site.rack_kw * 1000 - platform.power_w) // gpu.power_w)


def racks_used(power_kw: float, units: int, site: Site) -> int:
    """P3: racks the servers take: the larger of ⌈Σ kW ÷ rack_kw⌉ and ⌈Σ U ÷ rack_units⌉."""
    by_power = math.ceil(power_kw / site.rack_kw - 1e-9) if power_kw > 0 else 0
    by_space = math.ceil(units / site.rack_units - 1e-9) if units > 0 else 0
    return max(by_power, by_space)
