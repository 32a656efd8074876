"""The inventory and the site checked against the catalog they are planned with (P3, P4).

The workload file and the catalog are validated apart, so an owned server's SKUs and
configuration, and whether any server fits the site at all, can only be checked once both
are loaded. Each problem is an input error (exit 2) naming its place and the fix.
"""

from __future__ import annotations

import difflib

from ..errors import InputError
from ..rules.power import power_w, rack_holds, rack_units
from .catalog import Catalog
from .ownership import OwnedServer
from .workload import WorkloadFile


def _unknown(where: str, sku: str, known: list[str], what: str) -> str:
    close = difflib.get_close_matches(sku, known, n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else f"the catalog's are {', '.join(known)}. "
    return f"{where}: '{sku}' is not a {what} of the catalog; {hint}To fix: spell it as the catalog does"


def _server_problems(i: int, inv: OwnedServer, catalog: Catalog) -> list[str]:
    """What is wrong with one inventory entry: unknown SKUs, or a configuration no
    platform of the catalog allows (form factor, GPU count, DIMM type and count, bays)."""
    at = f"inventory[{i}]"
    platforms = {p.sku: p for p in catalog.platforms}
    gpus = {g.sku: g for g in catalog.gpus}
    dimms = {m.sku: m for m in catalog.memory}
    drives = {s.sku: s for s in catalog.storage}
    problems = []
    p = platforms.get(inv.platform)
    if p is None:
        problems.append(_unknown(f"{at}.platform", inv.platform, list(platforms), "platform"))
    if inv.gpu is not None and inv.gpu not in gpus:
        problems.append(_unknown(f"{at}.gpu", inv.gpu, list(gpus), "GPU"))
    if inv.memory not in dimms:
        problems.append(_unknown(f"{at}.memory", inv.memory, list(dimms), "DIMM"))
    if inv.storage is not None and inv.storage not in drives:
        problems.append(_unknown(f"{at}.storage", inv.storage, list(drives), "drive"))
    if p is None:
        return problems
    g = gpus.get(inv.gpu) if inv.gpu is not None else None
    if g is not None and not p.takes(g):
        problems.append(f"{at}.gpu: {g.sku} ({g.form_factor}) does not fit {p.sku}, which takes "
                        f"{', '.join(p.form_factors) or 'no GPUs'}. To fix: list the GPU the "
                        "server really holds, or its platform")
    counts = p.allowed_gpu_counts()
    if inv.gpu_count not in counts:
        problems.append(f"{at}.gpu_count: {p.sku} holds {', '.join(map(str, counts))} GPUs, not "
                        f"{inv.gpu_count}. To fix: give the count the server really holds")
    m = dimms.get(inv.memory)
    if m is not None and m.type != p.memory_type:
        problems.append(f"{at}.memory: {m.sku} is {m.type}, {p.sku} takes {p.memory_type}. "
                        "To fix: list the DIMM the server really holds")
    if inv.dimm_count % p.memory_channels or inv.dimm_count > p.dimm_slots:
        problems.append(f"{at}.dimm_count: {inv.dimm_count} DIMMs do not fill {p.sku}'s "
                        f"{p.memory_channels} channels within its {p.dimm_slots} slots. To fix: "
                        f"a multiple of {p.memory_channels} up to {p.dimm_slots}")
    if inv.drive_count > p.drive_bays:
        problems.append(f"{at}.drive_count: {inv.drive_count} drives, {p.sku} has "
                        f"{p.drive_bays} bays. To fix: give the drives the server really holds")
    return problems


def check_inventory(wf: WorkloadFile, catalog: Catalog) -> None:
    """Raise InputError (exit 2) listing every inventory entry the catalog cannot describe."""
    problems = inventory_problems(wf, catalog)
    if problems:
        raise InputError("the inventory does not match the catalog", problems)


def inventory_problems(wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """One line per inventory field the catalog cannot describe."""
    return [line for i, inv in enumerate(wf.inventory)
            for line in _server_problems(i, inv, catalog)]


def check_site(wf: WorkloadFile, catalog: Catalog) -> None:
    """Raise InputError (exit 2) when no server the plan could use fits one rack
    (``site_problem``)."""
    problem = site_problem(wf, catalog)
    if problem is not None:
        raise InputError("the site is smaller than any single server", [problem])


def site_problem(wf: WorkloadFile, catalog: Catalog) -> str | None:
    """Why no server the plan could use fits one rack (P3), None when one does: every
    platform's smallest server (its base power plus its fewest GPUs of the lowest-power GPU
    it takes) is over ``rack_kw``, or taller than ``rack_units``."""
    site = wf.site
    if site is None:
        return None
    excluded = set(wf.policy.exclude)
    smallest: list[tuple[float, int, str]] = []
    for p in catalog.platforms:
        if p.sku in excluded and p.sku not in {inv.platform for inv in wf.inventory}:
            continue
        least = min(p.allowed_gpu_counts())
        gpu = min((g for g in catalog.gpus if p.takes(g)), key=lambda g: g.power_w, default=None)
        smallest.append((power_w(p, gpu, least), rack_units(p), p.sku))
    fits = [s for s in smallest if rack_holds(site, s[0], s[1])]
    if not smallest or fits:
        return None
    watts, _, sku = min(smallest)
    tallest = min(u for _, u, _ in smallest)
    return (f"site: smaller than any single server: a rack holds {site.rack_kw:g} kW and "
            f"{site.rack_units} U; the smallest server ({sku}) draws {watts / 1000:g} kW and "
            f"the shortest is {tallest} U. To fix: raise site.rack_kw or site.rack_units to "
            "at least those, or add a smaller platform to the catalog")
