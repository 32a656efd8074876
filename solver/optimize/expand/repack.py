"""Repair by packing a failed type's whole memory family again as one pool
(``repack_families``), the seeded packing then covered afresh by the cheapest server
patterns (``cover``, ``family_pack``).
"""

from __future__ import annotations

from collections.abc import Callable

from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...rules import usable
from ..candidates import Candidates, ServerType, cores_of
from ..family_pack import Kind, ServerConfig, cheapest_cover
from ..outcome import Outcome
from .box import Box, Item, box_price, family, fits
from .memory import cheapest_memory, place_anywhere, place_pooled, shed


def repack_families(boxes_by_type: dict[str, list[Box]], failed: set[str], cand: Candidates,
          policy: Policy, catalog: Catalog, outcome: Outcome) -> int:
    """Pack each failed type's family again as one pool; keep it when the plan is cheaper.

    The pool keeps the servers the program bought (of any memory configuration in the
    family) and packs every replica of the family into them, best fit by RAM (several item
    orders are tried); a replica that fits no server upgrades the memory of the server
    where that is cheapest, or, failing that, opens a new server. A CPU-only replica that
    fits nowhere in its family may go to any server with room (or a memory upgrade), or to
    a new server of the cheapest type that holds it. At the end every pooled server takes the
    cheapest configuration of its family that holds its load. Pattern-built and owned types
    are left alone. Returns how many fewer servers this added than type-by-type repair did.
    """
    families: dict[tuple, list[ServerType]] = {}
    for t in cand.types:
        fam = family(t)
        if fam is not None and t.key not in outcome.patterns:
            families.setdefault(fam, []).append(t)
    types = {t.key: t for t in cand.types}
    pooled = {family(types[k]) for k in failed if k not in outcome.patterns} - {None}
    if not pooled:
        return 0
    bought = sum(outcome.n.values())
    before = [b for v in boxes_by_type.values() for b in v]
    best: list[Box] | None = None
    best_cost = sum(box_price(b, catalog) for b in before)
    for order, seeded in [(o, False) for o in _POOL_ORDERS] + [(_POOL_ORDERS[0], True)]:
        boxes = _pool_all(boxes_by_type, pooled, families, order, policy, catalog, outcome,
                          seeded)
        if boxes is None:
            continue
        cost = sum(box_price(b, catalog) for b in boxes)
        if cost < best_cost - 1e-6:
            best, best_cost = boxes, cost
    if best is None:
        return 0
    for k in list(boxes_by_type):
        boxes_by_type[k] = []
    for b in best:
        boxes_by_type.setdefault(b.type.key, []).append(b)
    return max(0, len(before) - bought) - max(0, len(best) - bought)


_POOL_ORDERS: tuple[Callable[[Item], tuple[float, ...]], ...] = (
   lambda it: (-it.gpus, -it.ram_gb),
   lambda it: (-it.ram_gb, -it.gpus),
   lambda it: (-it.gpus, -it.cores, -it.ram_gb),
)


def _pool_all(boxes_by_type: dict[str, list[Box]], pooled: set, families: dict,
             order: Callable[[Item], tuple[float, ...]], policy: Policy, catalog: Catalog,
             outcome: Outcome, seeded: bool = False) -> list[Box] | None:
    """Every server of the plan, the ``pooled`` families packed again in ``order`` (a copy:
    the type-by-type boxes are left as they were).

    ``seeded``: the CPU-only replicas of more than half a server's RAM first, one to a
    server, each server then filled with the GPU replicas of least RAM per GPU that fit
    beside it, and only then the rest in ``order``."""
    out: list[Box] = []
    overflow: list[Item] = []
    for key, boxes in boxes_by_type.items():
        fam = family(boxes[0].type) if boxes else None
        if fam not in pooled or key in outcome.patterns:
            out += [b.copy() for b in boxes]
    for fam in sorted(pooled, key=str):
        members = families[fam]
        keys = [t.key for t in members]
        items = [it for k in keys for b in boxes_by_type.get(k, []) for it in b.items]
        start = sorted((t for t in members for _ in range(outcome.n.get(t.key, 0))),
                       key=lambda t: -usable(t.ram_gb, policy))
        boxes = [Box(t) for t in start]
        if seeded:
            items = _seed(boxes, items, members, policy, catalog, overflow)
        for item in sorted(items, key=order):
            if not place_pooled(boxes, item, members, policy, catalog, opens=item.gpus > 0):
                if item.gpus > 0:
                    return None  # no configuration of the family holds it alone
                overflow.append(item)
        boxes = [cheapest_memory(b, members, policy, catalog) for b in boxes]
        shed(boxes, members, policy, catalog)
        if seeded:
            boxes = cover(boxes, members, policy, catalog)
        out += boxes
    spare = [t for ts in families.values() for t in ts]
    for item in sorted(overflow, key=lambda it: (-it.ram_gb, -it.cores)):
        if not place_anywhere(out, item, families, spare, policy, catalog):
            return None
    return out


def cover(boxes: list[Box], members: list[ServerType], policy: Policy,
         catalog: Catalog) -> list[Box]:
    """A family's pool packed again as the cheapest cover by server patterns
    (``family_pack.cheapest_cover``, from the packing in hand, so never dearer), when that
    costs less. Greedy packing leaves GPU slots idle beside big CPU-only replicas: on a
    generated 1,000-workload mix the H200 family took 66 servers where 65 patterns hold
    the same replicas, 379,080 less. Each pattern becomes a server; a replica its bays'
    drives refuse (O4, not a dimension of the patterns) is placed as ``place_pooled``
    does. Kept only with no more servers than the packing in hand (the site's rack space
    and power, P3, count servers of the platform)."""
    index = {t.key: s for s, t in enumerate(members)}
    if any(b.type.key not in index for b in boxes):
        return boxes
    queues: dict[Kind, list[Item]] = {}
    for b in boxes:
        for it in b.items:
            queues.setdefault(_kind(it), []).append(it)
    kinds = sorted(queues)
    at = {k: i for i, k in enumerate(kinds)}
    start = []
    for b in boxes:
        held = [0] * len(kinds)
        for it in b.items:
            held[at[_kind(it)]] += 1
        start.append((index[b.type.key], tuple(held)))
    configs = [ServerConfig(box_price(Box(t), catalog), t.gpu_slots, usable(t.ram_gb, policy),
                          cores_of(t)) for t in members]
    chosen = cheapest_cover(kinds, [len(queues[k]) for k in kinds], configs, start)
    if chosen == start:  # no cheaper cover found
        return boxes
    new: list[Box] = []
    left: list[Item] = []
    for s, counts in sorted(chosen, key=lambda p: -configs[p[0]].ram_gb):
        box = Box(members[s])
        for k, count in zip(kinds, counts, strict=True):
            for _ in range(min(count, len(queues[k]))):
                item = queues[k].pop()
                if box.disk_fits(item, policy):
                    box.add(item)
                else:
                    left.append(item)
        if box.items:
            new.append(box)
    for item in left:
        if not place_pooled(new, item, members, policy, catalog):
            return boxes
    new = [cheapest_memory(b, members, policy, catalog) for b in new]
    shed(new, members, policy, catalog)
    before = sum(box_price(b, catalog) for b in boxes)
    cheaper = sum(box_price(b, catalog) for b in new) < before - 1e-6
    # No more servers of the platform than in hand: a site's racks (P3) count them.
    return new if cheaper and len(new) <= len(boxes) else boxes


def _kind(item: Item) -> Kind:
    return (item.gpus, round(item.ram_gb, 6), round(item.cores, 6))


def _seed(boxes: list[Box], items: list[Item], members: list[ServerType], policy: Policy,
        catalog: Catalog, overflow: list[Item]) -> list[Item]:
    """``_pool_all(seeded=True)``: place the big CPU-only replicas (more than half the
    family's largest usable RAM: two never share a server), one to a server, and fill each
    such server's GPU slots with the GPU replicas of least RAM per GPU that fit beside it
    (the program's sums count on them there). Returns the replicas left to place."""
    half = max(usable(t.ram_gb, policy) for t in members) / 2

    def is_big(it: Item) -> bool:
        return it.gpus == 0 and it.ram_gb > half

    big = sorted(filter(is_big, items), key=lambda it: -it.ram_gb)
    if not big:
        return items
    rest = [it for it in items if not is_big(it)]
    for item in big:
        if not place_pooled(boxes, item, members, policy, catalog, opens=False):
            overflow.append(item)
    light = sorted((it for it in rest if it.gpus), key=lambda it: (it.ram_gb / it.gpus,
                                                                   -it.gpus))
    used: set[int] = set()
    for box in boxes:
        if box.gpus_used or not any(map(is_big, box.items)):
            continue
        cap = usable(box.type.ram_gb, policy)
        for i, it in enumerate(light):
            if i in used or not fits(box, it, cap, policy):
                continue
            box.add(it)
            used.add(i)
            if box.gpus_used >= box.type.gpu_slots:
                break
    taken = {id(light[i]) for i in used}
    return [it for it in rest if id(it) not in taken]
