"""DIMM choice in a family's pool: a replica placed by best fit, a memory upgrade or a new
server (``place_pooled``, ``place_anywhere``); each server then given the cheapest memory
configuration that holds its load (``cheapest_memory``), and memory bought back down by
moves and swaps (``shed``).
"""

from __future__ import annotations

from collections.abc import Callable

from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...rules import usable
from ..candidates import ServerType, allowed_drives
from .box import Box, Item, box_price, family, fits
from .moves import Swap, better_swap, make_swap


def shed(boxes: list[Box], members: list[ServerType], policy: Policy,
        catalog: Catalog) -> None:
    """Memory bought back down: a server of a family's pool takes a cheaper configuration
    of the family once one of its replicas moves to another server of the pool, or swaps
    with a replica of less RAM there, the other server keeping its own configuration (GPU
    slots, RAM, cores and O4 disk checked on both). A move that gives a server another
    dataset copy is charged the cheapest allowed drive's price per TB against the memory
    saved.
    Servers are tried the dearest first, each taking the move that saves most, until a
    sweep saves nothing."""
    per_tb = min((d.price / d.size_tb for d in allowed_drives(catalog, policy.exclude)),
                 default=0.0)
    price = {t.key: t.server_price(catalog) for t in members}
    by_price = sorted(members, key=lambda t: -price[t.key])
    moved = True
    while moved:
        moved = False
        for box in sorted(boxes, key=lambda b: -price[b.type.key]):
            for t in by_price:
                saved = price[box.type.key] - price[t.key]
                if saved <= 1e-6:
                    continue
                if _shed_move(box, boxes, t, policy, per_tb, saved):
                    moved = True
                    break


def _shed_move(box: Box, boxes: list[Box], cheaper: ServerType, policy: Policy,
             per_tb: float, saved: float) -> bool:
    """``shed``: make the move (one replica out of ``box``, or a swap for one of less RAM)
    that brings ``box`` within the ``cheaper`` configuration and saves most once new
    dataset copies are priced; False when none saves anything."""
    need = box.ram_used - usable(cheaper.ram_gb, policy)
    best: Swap | None = None
    for other in boxes:
        room = usable(other.type.ram_gb, policy) - other.ram_used
        if other is box or room < need - 1e-9:
            continue
        for item in box.items:
            for back in [None, *other.items]:
                given = item.ram_gb - (back.ram_gb if back is not None else 0.0)
                if given < need - 1e-9 or given > room + 1e-9:
                    continue
                copies = sum(tb for n, tb in item.datasets.items() if n not in other.datasets)
                if back is not None:
                    copies += sum(tb for n, tb in back.datasets.items() if n not in box.datasets)
                gain = saved - per_tb * copies
                if gain <= 1e-6 or (best is not None and gain <= best[0]):
                    continue
                best = better_swap(best, gain, box, item, other, back, cheaper, policy)
    return make_swap(box, best)


def _best_fit(boxes: list[Box], item: Item, policy: Policy) -> Box | None:
    """The server, as configured, that the item leaves the least RAM free in."""
    best = None
    for box in boxes:
        cap = usable(box.type.ram_gb, policy)
        if fits(box, item, cap, policy):
            left = cap - box.ram_used - item.ram_gb
            if best is None or left < best[0]:
                best = (left, box)
    return None if best is None else best[1]


def _upgrade(boxes: list[Box], item: Item, members_of: Callable[[Box], list[ServerType]],
          policy: Policy, catalog: Catalog) -> tuple[float, Box, ServerType] | None:
    """The cheapest memory upgrade (price difference, server, new type) that makes room."""
    best = None
    for box in boxes:
        now = box.type.server_price(catalog)
        for t in members_of(box):
            if (fits(box, item, usable(t.ram_gb, policy), policy)
                   and (best is None or t.server_price(catalog) - now < best[0])):
                best = (t.server_price(catalog) - now, box, t)
    return best


def place_pooled(boxes: list[Box], item: Item, members: list[ServerType], policy: Policy,
               catalog: Catalog, opens: bool = True) -> bool:
    """Best fit by RAM into a server as configured; else the cheaper of a memory upgrade and
    (when ``opens``) a new server of the family's cheapest configuration that holds it."""
    return _place(boxes, item, lambda b: members, members if opens else [], policy, catalog)


def place_anywhere(boxes: list[Box], item: Item, families: dict,
                 spare: list[ServerType], policy: Policy, catalog: Catalog) -> bool:
    """A CPU-only replica into any server with room, else the cheaper of a memory upgrade and
    a new server of the cheapest type that holds it."""
    return _place(boxes, item, lambda b: families.get(family(b.type), []), spare, policy,
                 catalog)


def _place(boxes: list[Box], item: Item, members_of: Callable[[Box], list[ServerType]],
        new_types: list[ServerType], policy: Policy, catalog: Catalog) -> bool:
    """Best fit by RAM into a server as configured; else the cheaper of upgrading a server's
    memory within ``members_of`` it and a new server of the cheapest of ``new_types`` that
    holds the item; False when neither exists."""
    box = _best_fit(boxes, item, policy)
    if box is not None:
        box.add(item)
        return True
    upgrade = _upgrade(boxes, item, members_of, policy, catalog)
    # A new server costs its platform, DIMMs and (fixed count, O1) all k of its GPUs.
    fresh = min(((box_price(Box(t), catalog), t) for t in new_types
               if fits(Box(t), item, usable(t.ram_gb, policy), policy)),
              key=lambda pt: pt[0], default=None)
    if upgrade is not None and (fresh is None or upgrade[0] <= fresh[0]):
        _, box, t = upgrade
        box.type = t
        box.add(item)
        return True
    if fresh is None:
        return False
    box = Box(fresh[1])
    box.add(item)
    boxes.append(box)
    return True


def cheapest_memory(box: Box, members: list[ServerType], policy: Policy,
                   catalog: Catalog) -> Box:
    """The server with the cheapest memory configuration of its family that holds its load."""
    holding = [t for t in members if usable(t.ram_gb, policy) + 1e-9 >= box.ram_used]
    new = box.copy()
    new.type = min(holding, key=lambda t: (t.server_price(catalog), -t.ram_gb))
    return new
