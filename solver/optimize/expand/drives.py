"""Drives and storage (O4): each bought server one drive SKU holding its local datasets, and
the pool enough for those copies, the shared datasets and the checkpoints, all under the
headroom line; what they cost against the program's drive configurations z_tk.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import replace

from ...inputs.catalog import Catalog, MemorySku, Platform, StorageSku
from ...inputs.ownership import Site
from ...inputs.policy import Policy
from ...plan_types import Server
from ...rules import headroom_line
from ..candidates import ServerType, allowed_drives, within_site
from ..outcome import Outcome


def drive_costs(servers: list[Server], keys: list[str], outcome: Outcome,
                catalog: Catalog) -> tuple[dict[str, float], dict[str, float]]:
    """O4, per type: what its servers' drives cost, and what the program's z_tk for it
    cost."""
    bought: dict[str, float] = {}
    for s, key in zip(servers, keys):
        if drives_price(s, catalog):
            bought[key] = bought.get(key, 0.0) + drives_price(s, catalog)
    planned: dict[str, float] = {}
    for (key, sku, c), count in outcome.z.items():
        planned[key] = planned.get(key, 0.0) + count * c * catalog.drive(sku).price
    return bought, planned


def drives_price(s: Server, catalog: Catalog) -> float:
    """What a server's drives cost to buy (an owned server's cost nothing, P4)."""
    if s.owned or not s.storage or not s.drive_count:
        return 0.0
    return s.drive_count * catalog.drive(s.storage).price


Config = tuple[str, int, float, float]
"""A drive configuration of one server (O4): (drive SKU, drives, TB, price)."""


def place_drives(servers: list[Server], needs: list[float], keys: list[str], pooled: float,
                 outcome: Outcome, catalog: Catalog, policy: Policy,
                 site: Site | None = None) -> list[Server]:
    """O4: one drive SKU per bought server, so that each holds its local datasets (``needs``)
    and the pool its copies + ``pooled`` (shared datasets and checkpoints), all under the
    headroom line; owned servers keep their drives (P4).

    Two starts, the cheaper result kept: (a) the program's configurations z_tk, handed to
    the type's servers largest need first (each the smallest config left that holds it;
    a server left without one gets its cheapest); (b) every server its cheapest config.
    Then, while the pool is short, the drive change of least price per TB still missing is
    made; when no bay is left, a server carrying only drives is added (one that a rack of
    the ``site`` holds, P3).
    """
    line = headroom_line(policy)
    excluded = set(policy.exclude)
    drives = allowed_drives(catalog, excluded)
    if not drives or (pooled <= 0 and not any(needs)):
        return servers
    bays = [0 if s.owned else catalog.platform(s.platform).drive_bays for s in servers]
    options = {b: bay_configs(b, drives) for b in set(bays)}
    starts = (_program_configs(servers, needs, keys, bays, options, outcome, line),
              [cheapest_config(options[b], need, line) if need > 0 else None
               for b, need in zip(bays, needs)])
    best: tuple[tuple[bool, float], list[Config | None], list[tuple[float, Server]]] | None
    best = None
    for start in starts:
        chosen, extra, short = _fill_pool(
            start, servers, needs, bays, options, pooled, line,
            lambda short: _drive_server(catalog, drives, excluded, short, site))
        rank = (short, sum(c[3] for c in chosen if c is not None) + sum(p for p, _ in extra))
        if best is None or rank < best[0]:
            best = (rank, chosen, extra)
    assert best is not None
    _, chosen, extra = best
    out = [s if c is None else replace(s, storage=c[0], drive_count=c[1], disk_tb=c[2])
           for s, c in zip(servers, chosen)]
    for _, server in extra:  # servers that carry only drives
        out.append(replace(server, id=f"s{len(out) + 1}"))
    return out


def bay_configs(bays: int, drives: list[StorageSku]) -> list[Config]:
    """Every configuration of one SKU within ``bays`` bays, by price then TB."""
    return sorted(((d.sku, c, c * d.size_tb, c * d.price) for d in drives
                   for c in range(1, bays + 1)), key=lambda k: (k[3], -k[2], k[0]))


def cheapest_config(configs: list[Config], need: float, line: float) -> Config | None:
    """The cheapest configuration whose TB holds ``need`` under the line (None: none)."""
    return next((c for c in configs if line * c[2] + 1e-9 >= need), None)


def _program_configs(servers: list[Server], needs: list[float], keys: list[str],
                     bays: list[int], options: dict[int, list[Config]], outcome: Outcome,
                     line: float) -> list[Config | None]:
    """The program's z_tk handed to the servers of each type: the largest need first,
    each the smallest config left that holds it (its cheapest when none does); the rest to
    servers without local data."""
    chosen: list[Config | None] = [None] * len(servers)
    for key in sorted({t for t, _, _ in outcome.z}):
        mine = sorted((i for i, s in enumerate(servers) if keys[i] == key and not s.owned),
                      key=lambda i: -needs[i])
        if not mine:
            continue
        known = {(k[0], k[1]): k for k in options[bays[mine[0]]]}
        configs = sorted((known[(ssku, c)] for (t, ssku, c), count in outcome.z.items()
                          if t == key and (ssku, c) in known for _ in range(count)),
                         key=lambda k: (k[2], k[3]))
        for i in mine:
            if needs[i] <= 0:
                continue
            fit = next((k for k in configs if line * k[2] + 1e-9 >= needs[i]), None)
            if fit is not None:
                configs.remove(fit)
            chosen[i] = fit or cheapest_config(options[bays[i]], needs[i], line)
        for i in mine:
            if chosen[i] is None and configs:
                chosen[i] = configs.pop()
    for i, need in enumerate(needs):
        if chosen[i] is None and need > 0 and not servers[i].owned:
            chosen[i] = cheapest_config(options[bays[i]], need, line)
    return chosen


def _fill_pool(start: list[Config | None], servers: list[Server], needs: list[float],
               bays: list[int], options: dict[int, list[Config]], pooled: float, line: float,
               drive_server: Callable[[float], tuple[float, Server] | None],
               ) -> tuple[list[Config | None], list[tuple[float, Server]], bool]:
    """Grow drives until the pool holds every local copy and ``pooled`` under the line: each
    step the change (a server's config for a larger one, or drives for a server without)
    of least extra price per TB still missing; with no bay left, a server of drives only.
    Returns the configs, the drives-only servers added with their prices, and whether the
    pool is still short (no platform can carry drives alone: the checker reports it)."""
    chosen = list(start)
    need = sum(needs) + pooled
    have = sum(s.disk_tb for s in servers if s.owned) + sum(c[2] for c in chosen if c)
    extra: list[tuple[float, Server]] = []
    # Servers of the same bays and config offer the same changes, so each step weighs one
    # group of them (its first server) instead of every server: thousands of servers each
    # grown a few times cost thousands of steps of a few groups, not millions.
    groups: dict[tuple[int, Config | None], list[int]] = {}
    for i, cur in enumerate(chosen):
        if not servers[i].owned and bays[i]:
            heapq.heappush(groups.setdefault((bays[i], cur), []), i)
    while line * have + 1e-9 < need:
        short = need / line - have
        step = _cheapest_step(groups, options, short)
        if step is None:
            alone = drive_server(short)
            if alone is None:
                return chosen, extra, True
            extra.append(alone)
            have += alone[1].disk_tb
            continue
        (b, old), cfg = step
        i = heapq.heappop(groups[(b, old)])
        heapq.heappush(groups.setdefault((b, cfg), []), i)
        have += cfg[2] - (old[2] if old is not None else 0.0)
        chosen[i] = cfg
    return chosen, extra, False


def _cheapest_step(groups: dict[tuple[int, Config | None], list[int]],
                   options: dict[int, list[Config]], short: float,
                   ) -> tuple[tuple[int, Config | None], Config] | None:
    """The change of least extra price per TB still missing (``short``): the group of
    servers (bays, current config) whose first server makes it, and the new config. Groups
    are weighed in the order of their first server, configs in price order, a later one
    kept only when cheaper by more than rounding: the first server that offers the cheapest
    change makes it. None when no server has a larger config to take."""
    best: tuple[float, tuple[int, Config | None], Config] | None = None
    for key in sorted((k for k, heap in groups.items() if heap), key=lambda k: groups[k][0]):
        bays, cur = key
        tb, price = (cur[2], cur[3]) if cur is not None else (0.0, 0.0)
        for cfg in options[bays]:
            if cfg[2] > tb + 1e-9:
                rate = (cfg[3] - price) / min(cfg[2] - tb, short)
                if best is None or rate < best[0] - 1e-12:
                    best = (rate, key, cfg)
    return None if best is None else (best[1], best[2])


def _drive_server(catalog: Catalog, drives: list[StorageSku], excluded: set[str],
                  short: float, site: Site | None = None) -> tuple[float, Server] | None:
    """A server that carries only drives, for ``short`` TB: on each platform sold without
    GPUs, with bays and allowed, the cheapest config that holds it (else its largest), with
    the cheapest DIMMs that fill its channels; the one of least price per TB it adds. A
    platform one rack of the ``site`` cannot hold (P3, its power or height) is passed over,
    as the program's candidate types pass it over."""
    best: tuple[float, float, Server] | None = None
    for p in catalog.platforms:
        if p.sku in excluded or not p.drive_bays or 0 not in p.allowed_gpu_counts():
            continue
        dimms = [m for m in catalog.memory if m.type == p.memory_type and m.sku not in excluded]
        if not dimms:
            continue
        dimm = min(dimms, key=lambda m: m.price)
        if not _in_a_rack(p, dimm, site):
            continue
        configs = bay_configs(p.drive_bays, drives)
        cfg = next((k for k in configs if k[2] + 1e-9 >= short),
                   max(configs, key=lambda k: (k[2], -k[3])))
        price = p.price + p.memory_channels * dimm.price + cfg[3]
        rate = price / min(cfg[2], short)
        if best is None or rate < best[0]:
            server = Server("", p.sku, None, 0, dimm.sku, p.memory_channels, cfg[0], cfg[1],
                            disk_tb=cfg[2])
            best = (rate, price, server)
    return None if best is None else (best[1], best[2])


def _in_a_rack(p: Platform, dimm: MemorySku, site: Site | None) -> bool:
    """P3: a drives-only server of platform ``p`` with ``dimm`` in every channel is within
    one rack's power and height (``candidates.within_site``, the candidate types' rule)."""
    t = ServerType(f"drives:{p.sku}", p, None, dimm.sku, p.memory_channels,
                   p.memory_channels * dimm.size_gb)
    return within_site(t, site) is not None
