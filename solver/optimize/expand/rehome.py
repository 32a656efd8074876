"""Repair by emptying servers: the replicas of a server the plan can do without moved into
room left on the plan's other servers (``dissolve``: servers added beyond the program's
counts; ``empty_into_idle``: into GPUs bought but idle), where that costs less than the
server.
"""

from __future__ import annotations

from collections.abc import Callable

from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...rules import usable
from ..candidates import Candidates, ServerType, type_accepts
from ..outcome import Outcome
from ..replicas import ReplicaOption
from .box import Box, Item, box_price, fits


def dissolve(boxes_by_type: dict[str, list[Box]], outcome: Outcome, cand: Candidates,
            policy: Policy, catalog: Catalog, site: bool) -> int:
    """Servers beyond the program's counts, emptied where that costs less than the server:
    each replica may take any option of its workload (another GPU it runs on), into room
    left on the plan's other servers that accept that option alone, and what finds no room
    into one new server of the cheapest type that holds it all. A receiving server installs
    no GPU it would not buy anyway, unless that costs less than the server replaced and no
    site limit applies (P3: a GPU, or a server, adds power); replicas on shared GPUs, of
    workloads with throughput targets (T3: another GPU gives another rate) and owned
    servers (P4) are left as they are. Returns how many servers fewer the plan has.

    Each type's added servers are tried, the least loaded first."""
    removed = 0
    every = [b for boxes in boxes_by_type.values() for b in boxes]
    for key in sorted(boxes_by_type):
        boxes = boxes_by_type[key]
        if not boxes or boxes[0].type.owned:
            continue
        added = len(boxes) - outcome.n.get(key, 0)
        for box in sorted(boxes, key=lambda b: (b.gpus_used, b.ram_used))[:max(0, added)]:
            found = _rehome(box, [b for b in every if b is not box], cand, policy, catalog,
                            site)
            if found is not None:
                removed += _empty(box, found, boxes_by_type, every)
    return removed


def empty_into_idle(boxes_by_type: dict[str, list[Box]], cand: Candidates, policy: Policy,
                   catalog: Catalog, site: bool) -> int:
    """Servers emptied into the GPUs the plan bought but leaves idle (a board of fixed GPU
    count bought whole, O1: often one a repair added for a CPU-only replica no other
    server holds), where that costs less than the server, as ``dissolve`` moves them.
    Every server of the plan is tried in each order of ``_IDLE_ORDERS`` (on a copy), and the
    cheaper plan is kept. Returns how many servers fewer the plan has."""
    best: tuple[float, int, dict[str, list[Box]]] | None = None
    for order in _IDLE_ORDERS:
        trial = {k: [b.copy() for b in v] for k, v in boxes_by_type.items()}
        removed = _empty_in_order(trial, order, cand, policy, catalog, site)
        cost = sum(box_price(b, catalog) for v in trial.values() for b in v)
        if best is None or cost < best[0] - 1e-6:
            best = (cost, removed, trial)
    assert best is not None
    boxes_by_type.clear()
    boxes_by_type.update(best[2])
    return best[1]


_IDLE_ORDERS: tuple[Callable[[Box, Catalog], tuple[float, ...]], ...] = (
   # the least loaded first: the easiest to empty
   lambda b, catalog: (b.gpus_used, b.ram_used),
   # the dearest per GPU it needs first: idle slots are few, spend them where they save most
   lambda b, catalog: (-box_price(b, catalog) / max(1, b.gpus_used),),
)
"""Orders ``empty_into_idle`` tries the servers in. Neither is better on every plan: at
N = 1,000 the second saved 58,050 more (it empties three H200 boards into idle H100 ones),
on one of N = 200's plans 23,830 more, and on N = 200's kept plan 4,720 less."""


def _empty_in_order(boxes_by_type: dict[str, list[Box]],
                   order: Callable[[Box, Catalog], tuple[float, ...]], cand: Candidates,
                   policy: Policy, catalog: Catalog, site: bool) -> int:
    """``empty_into_idle`` with the servers tried in ``order``."""
    removed = 0
    every = [b for boxes in boxes_by_type.values() for b in boxes]

    def idle() -> list[Box]:
        return [b for b in every if not b.type.owned and b.gpus_used < b.type.gpu_slots]

    room = idle()
    for box in sorted(every, key=lambda b: order(b, catalog)):
        others = [b for b in room if b is not box]
        if not others:
            break
        if box.type.owned or not box.items:
            continue
        found = _rehome(box, others, cand, policy, catalog, site)
        if found is not None:
            removed += _empty(box, found, boxes_by_type, every)
            room = idle()  # the moves filled slots, and a new server may have some
    return removed


def _empty(box: Box, found: tuple[list[tuple[Box, Item]], Box | None],
       boxes_by_type: dict[str, list[Box]], every: list[Box]) -> int:
    """Make a ``_rehome``: its replicas moved, ``box`` gone and its new server (if any)
    added. Returns how many servers fewer the plan has (1, or 0 with a new server)."""
    moves, fresh = found
    for target, item in moves:
        target.add(item)
    boxes_by_type[box.type.key].remove(box)
    every.remove(box)
    if fresh is None:
        return 1
    boxes_by_type.setdefault(fresh.type.key, []).append(fresh)
    every.append(fresh)
    return 0


def _rehome(box: Box, others: list[Box], cand: Candidates, policy: Policy,
          catalog: Catalog, site: bool
          ) -> tuple[list[tuple[Box, Item]], Box | None] | None:
    """Where each replica of ``box`` would go (``dissolve``): (server, replica as moved)
    for those that find room, and the new server holding the rest; None when that costs
    at least ``box``."""
    if any(it.shared or len(it.replicas) != 1 or it.replicas[0].workload in cand.targets
           for it in box.items):
        return None
    trial = {id(b): b.copy() for b in others if not b.type.owned}
    accepts: dict[tuple[str, int], bool] = {}

    def accepted(t: ServerType, o: ReplicaOption) -> bool:
        return accepts.setdefault((t.key, id(o)), type_accepts(t, o, policy))

    moves: list[tuple[int, Item]] = []
    left: list[Item] = []
    spent = 0.0
    saved = box_price(box, catalog)
    for it in sorted(box.items, key=lambda i: (-i.gpus, -i.ram_gb)):
        best = None
        for moved in _as_options(it, cand):
            o = moved.replicas[0]
            for bid, b in trial.items():
                t = b.type
                cap = usable(t.ram_gb, policy)
                if not accepted(t, o) or not fits(b, moved, cap, policy):
                    continue
                # GPUs a flexible-count server must now buy (a fixed count has them all).
                more = 0 if t.gpu_count is not None or o.gpu is None else moved.gpus
                if more and site:
                    continue
                cost = more * (t.gpu.price if t.gpu is not None else 0.0)
                rank = (cost, cap - b.ram_used - moved.ram_gb)
                if best is None or rank < best[0]:
                    best = (rank, bid, moved)
        if best is None:
            left.append(it)
            continue
        (cost, _), bid, moved = best
        spent += cost
        trial[bid].add(moved)
        moves.append((bid, moved))
    fresh = None
    if left:
        fresh = None if site else _cheapest_new(left, cand, policy, catalog, accepted)
        if fresh is None:
            return None
        spent += box_price(fresh, catalog)
    if spent >= saved - 1e-6:
        return None
    by_id = {id(b): b for b in others}
    return [(by_id[bid], item) for bid, item in moves], fresh


def _as_options(item: Item, cand: Candidates) -> list[Item]:
    """An exclusive replica as each option of its workload (not the shared ones)."""
    return [Item(o.degree if o.gpu is not None else 0, o.ram_gb, (o,))
           for o in cand.options[item.replicas[0].workload] if not o.shared]


def _cheapest_new(items: list[Item], cand: Candidates, policy: Policy, catalog: Catalog,
                 accepted: Callable[[ServerType, ReplicaOption], bool]) -> Box | None:
    """The cheapest new server (of any bought type) that holds ``items``, each as one of its
    workload's options (the fewest GPUs, then the least RAM, that still fits)."""
    best: tuple[float, Box] | None = None
    for t in cand.types:
        if t.owned:
            continue
        box = Box(t)
        cap = usable(t.ram_gb, policy)
        for it in items:
            room = [m for m in _as_options(it, cand)
                    if accepted(t, m.replicas[0]) and fits(box, m, cap, policy)]
            if not room:
                break
            box.add(min(room, key=lambda m: (m.gpus, m.ram_gb)))
        else:
            price = box_price(box, catalog)
            if best is None or price < best[0]:
                best = (price, box)
    return None if best is None else best[1]
