"""Expand an aggregate solution into physical servers and a replica-by-replica placement.

The program decides *how many* servers of each type and *how many* replicas of each option
go on that type. Here every replica gets its server and GPU indices:

1. shareable replicas are packed onto shared GPUs (first-fit decreasing by VRAM);
2. GPU items (exclusive replicas of d GPUs, shared GPUs of 1) and CPU-only replicas are packed
   into the type's servers, largest degree first, then largest host RAM (first fit);
3. drives (O4): replicas reading one local dataset are first gathered onto fewer servers'
   drives, by moves and swaps between servers of a family (``_gather``); then every bought
   server gets one drive SKU, enough under the headroom line for the distinct local
   datasets of the replicas it runs, and the pool enough for those copies, the shared
   datasets and the checkpoints (``_place_drives``).

GPU slots always pack (power-of-two degrees, docs/solver.md Lemma 1). Host RAM, CPU cores
(O3, a third dimension of every server whose platform lists them) and shared VRAM are
summed per type in the program, so in rare cases first fit needs one more server
than the program bought: then a server is added ("repair") and the plan is reported as
feasible with the gap to the program's bound, never as optimal. Repair packs a failed type's
whole family again (``_repack``), its seeded packing then covered afresh by the cheapest
server patterns (``_cover``, ``family_pack``). Packing also never puts on
one server more distinct local data than its bays hold under the line (O4). The program's
disk rows are sums too: when a server's drives, rounded per server, cost more than the
program's, the plan is reported feasible with its gap.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from ..inputs.catalog import Catalog, StorageSku
from ..inputs.workload import Policy, WorkloadFile
from ..plan_types import BomLine, Placement, Server
from .candidates import (
    Candidates,
    ReplicaOption,
    ServerType,
    allowed_drives,
    cores_of,
    fits_disk,
    type_accepts,
    usable,
)
from .family_pack import Kind, ServerConfig, cheapest_cover
from .outcome import BuiltPatterns, Outcome


@dataclass(frozen=True)
class _Item:
    """What packs into a server: one exclusive replica, or one shared GPU and its replicas."""

    gpus: int
    ram_gb: float
    replicas: tuple[ReplicaOption, ...]
    """The exclusive replica's option, or the options of the replicas on the shared GPU."""
    shared: bool = False

    @cached_property
    def cores(self) -> float:
        """CPU cores its replicas need (O3)."""
        return sum(o.cores for o in self.replicas)

    @cached_property
    def datasets(self) -> dict[str, float]:
        """O4: the local dataset (TB) of each workload among its replicas that reads one
        (read, never changed)."""
        return {o.workload: o.local_tb for o in self.replicas if o.local_tb > 0}


@dataclass
class _SharedGpu:
    """A shared GPU being filled: VRAM and host RAM of the replicas on it, GB."""

    vram_gb: float
    ram_gb: float
    replicas: list[ReplicaOption]

    @property
    def cores(self) -> float:
        return sum(o.cores for o in self.replicas)

    def local_tb(self, more: ReplicaOption) -> float:
        """O4: TB of the distinct local datasets of its replicas and ``more``'s."""
        tb = {o.workload: o.local_tb for o in (*self.replicas, more) if o.local_tb > 0}
        return sum(tb.values())


@dataclass
class _Box:
    """A server being filled."""

    type: ServerType
    gpus_used: int = 0
    ram_used: float = 0.0
    items: list[_Item] = field(default_factory=list)
    cores_used: float = 0.0
    datasets: dict[str, float] = field(default_factory=dict)
    """O4: local datasets of the workloads it runs, TB, by workload (each held once)."""

    def add(self, item: _Item) -> None:
        self.gpus_used += item.gpus
        self.ram_used += item.ram_gb
        self.cores_used += item.cores
        self.items.append(item)
        self.datasets.update(item.datasets)

    def copy(self) -> _Box:
        return _Box(self.type, self.gpus_used, self.ram_used, list(self.items), self.cores_used,
                    dict(self.datasets))

    @property
    def local_tb(self) -> float:
        """O4: TB of local datasets this server holds."""
        return sum(self.datasets.values())

    def disk_fits(self, item: _Item, policy: Policy) -> bool:
        """O4: with ``item`` its distinct local datasets stay under the headroom line of
        the most TB its bays (or an owned server's drives) hold."""
        more = sum(tb for name, tb in item.datasets.items() if name not in self.datasets)
        return not more or fits_disk(self.local_tb + more, self.type, policy)


@dataclass(frozen=True)
class Expansion:
    servers: tuple[Server, ...]
    placements: tuple[Placement, ...]
    lines: tuple[BomLine, ...]
    cost: float
    repaired: int
    """Servers and shared GPUs added beyond the program's counts (0 when exact)."""
    failed_types: tuple[str, ...] = ()
    """Server types whose replicas did not pack into the servers the program bought."""
    idle: tuple[Server, ...] = ()
    """P4: owned servers the plan leaves idle."""
    disk_types: tuple[str, ...] = ()
    """O4: server types whose servers' drives, rounded per server, cost more than the
    program's drive configurations for that type (the program's disk rows are sums)."""
    drive_extra: float = 0.0
    """O4: what the plan's drives cost beyond the program's drive configurations (per-server
    rounding, and drive-only servers for the shared pool; negative when they cost less)."""


def _pack_shared(opts: list[tuple[ReplicaOption, int]], cap: float, gpus: int,
                 cores_cap: float = float("inf"),
                 disk_fits: Callable[[float], bool] = lambda tb: True
                 ) -> tuple[list[_SharedGpu], int]:
    """First-fit decreasing of shareable replicas onto GPUs of usable VRAM ``cap``, each
    GPU's replicas within one server's ``cores_cap`` cores (O3) and their distinct local
    datasets within what one server's drives hold (``disk_fits``, O4: the replicas of one
    GPU sit on one server; two 6 TB datasets on one GPU fit no server of 16 TB of bays
    under a 30% headroom).

    Returns the shared GPUs filled and how many more than the ``gpus`` bought they are.
    """
    replicas = sorted((o for o, count in opts for _ in range(count)), key=lambda o: -o.vram_gb)
    loads: list[_SharedGpu] = []
    for o in replicas:
        for load in loads:
            if (load.vram_gb + o.vram_gb <= cap + 1e-9
                    and load.cores + o.cores <= cores_cap + 1e-9
                    and disk_fits(load.local_tb(o))):
                load.vram_gb += o.vram_gb
                load.ram_gb += o.ram_gb
                load.replicas.append(o)
                break
        else:
            loads.append(_SharedGpu(o.vram_gb, o.ram_gb, [o]))
    return loads, max(0, len(loads) - gpus)


# Orders tried when packing a type's replicas into its servers (first fit each time).
_ORDERS: tuple[Callable[[_Item], tuple[Any, ...]], ...] = (
    lambda it: (-it.gpus, -it.ram_gb),  # most GPUs first, then most RAM
    lambda it: (-it.ram_gb, -it.gpus),  # most RAM first
    lambda it: (-it.cores, -it.gpus, -it.ram_gb),  # most CPU cores first (O3)
    # O4: largest local dataset first, replicas of one workload together
    lambda it: (-sum(it.datasets.values()), tuple(sorted(it.datasets)), -it.gpus, -it.ram_gb),
)


def _pack(items: list[_Item], start: list[_Box], t: ServerType,
          policy: Policy) -> tuple[list[_Box], int]:
    """First-fit ``items`` into the bought servers ``start``, in each order of ``_ORDERS``.

    Returns the filled servers and how many had to be added: the fewest servers, then (O4,
    when local datasets are packed) the fewest TB of dataset copies.
    """
    bought = len(start)
    disk = any(it.datasets for it in items)
    best: list[_Box] = []
    rank: tuple[int, float] | None = None
    for order in _ORDERS:
        boxes = [b.copy() for b in start]
        first = _FirstFit(boxes, usable(t.ram_gb, policy), policy)
        for item in sorted(items, key=order):
            box = first.find(item)
            if box is None:
                box = _Box(t)
                boxes.append(box)
            first.add(box, item)
        mine = (max(bought, len(boxes)), sum(b.local_tb for b in boxes) if disk else 0.0)
        if rank is None or mine < (rank[0], rank[1] - 1e-9):
            best, rank = boxes, mine
        if len(best) <= bought and not disk:
            break
    return best, len(best) - bought


def _fill_patterns(items: list[_Item], patterns: BuiltPatterns, t: ServerType,
                   policy: Policy) -> tuple[list[_Box], list[_Item]]:
    """Build the program's servers pattern by pattern; return them and the items left over.

    Items are matched to a pattern's slots by kind (GPUs, host RAM[, CPU cores]), the key the
    program grouped them by; a shared GPU fills the one-GPU shared kind whatever its RAM.
    A slot takes the last item of its kind whose local dataset still fits the server (O4),
    preferring one whose dataset the server already holds; none fits: left for first fit.
    """
    queues: dict[int, list[_Item]] = {k: [] for k in set(patterns.kind_index.values())}
    left: list[_Item] = []
    for it in items:
        k = (patterns.shared_kind if it.shared
             else patterns.kind(it.gpus, it.ram_gb, it.cores))
        (queues[k] if k is not None else left).append(it)
    boxes = []
    for pattern, servers in patterns.built:
        for _ in range(servers):
            box = _Box(t)
            for k, count in enumerate(pattern):
                for _ in range(count):
                    item = _fitting(queues[k], box, policy)
                    if item is not None:
                        box.add(item)
            boxes.append(box)
    left += [it for q in queues.values() for it in q]
    return boxes, left


def _fitting(queue: list[_Item], box: _Box, policy: Policy) -> _Item | None:
    """Take from ``queue`` the item to put in ``box``: the last whose datasets the box already
    holds, else the last whose datasets still fit its disk (O4); None when none does."""
    if not queue:
        return None
    for i in range(len(queue) - 1, -1, -1):
        if set(queue[i].datasets) <= set(box.datasets):
            return queue.pop(i)
    for i in range(len(queue) - 1, -1, -1):
        if box.disk_fits(queue[i], policy):
            return queue.pop(i)
    return None


class _FirstFit:
    """First fit into servers that only ever fill up (``_pack``), without testing every
    item against every server: packing n items into m servers costs O(n + m) fit tests per
    item shape instead of O(n × m) (10,000 replicas: 10,000 tests, not 50 million).

    Servers only gain replicas, GPUs, RAM, cores and datasets. So a server that has no room
    for an item's shape (GPUs, host RAM, cores, its local datasets) never has room later,
    unless it comes to hold those datasets itself (O4: then they need no more disk). Per
    shape the search therefore resumes where it last stopped, and servers that hold an
    item's datasets are kept apart, by position (a heap), to be tried first: the answer is
    the one ``_first_fit`` gives.
    """

    def __init__(self, boxes: list[_Box], ram_cap: float, policy: Policy):
        self.boxes = boxes
        self.ram_cap = ram_cap
        self.policy = policy
        self.resume: dict[tuple, int] = {}
        """By item shape: the first server that may have room."""
        self.holders: dict[tuple, tuple[list[int], set[int]]] = {}
        """By item shape with datasets: positions of the servers holding them all and not
        yet found full for that shape (a heap, and the set of every position it took)."""
        self.position: dict[int, int] = {id(b): i for i, b in enumerate(boxes)}

    def find(self, item: _Item) -> _Box | None:
        """The first server with room for ``item``; for an item with local datasets, one
        that already holds them first (O4: no second copy). None when none has room."""
        shape = (item.gpus, item.ram_gb, item.cores, frozenset(item.datasets))
        if item.datasets:
            heap = self._holding(shape)[0]
            while heap:
                box = self.boxes[heap[0]]
                if _fits(box, item, self.ram_cap, self.policy):
                    return box
                heapq.heappop(heap)  # it holds the data, so only room failed: for good
        i = self.resume.get(shape, 0)
        while i < len(self.boxes) and not _fits(self.boxes[i], item, self.ram_cap, self.policy):
            i += 1
        self.resume[shape] = i
        return self.boxes[i] if i < len(self.boxes) else None

    def add(self, box: _Box, item: _Item) -> None:
        """Put ``item`` in ``box`` (one of the servers, or a new one appended to them)."""
        if id(box) not in self.position:
            self.position[id(box)] = len(self.position)
        had = len(box.datasets)
        box.add(item)
        if len(box.datasets) == had:
            return
        at = self.position[id(box)]
        for shape, (heap, members) in self.holders.items():
            if at not in members and shape[3] <= box.datasets.keys():
                heapq.heappush(heap, at)
                members.add(at)

    def _holding(self, shape: tuple) -> tuple[list[int], set[int]]:
        if shape not in self.holders:
            at = [i for i, b in enumerate(self.boxes) if shape[3] <= b.datasets.keys()]
            self.holders[shape] = (at, set(at))  # ascending: already a heap
        return self.holders[shape]


def _first_fit(boxes: list[_Box], item: _Item, ram_cap: float, policy: Policy) -> _Box | None:
    """The first server with room for ``item``; one that already holds its local datasets
    first (O4: no second copy)."""
    first = None
    for box in boxes:
        if _fits(box, item, ram_cap, policy):
            if set(item.datasets) <= set(box.datasets):
                return box
            if first is None:
                first = box
    return first


def _items(opts: list[tuple[ReplicaOption, int]], t: ServerType, shared_gpus: int,
           policy: Policy) -> tuple[list[_Item], int]:
    """Packing items of some replicas, shared ones grouped onto GPUs; and the shared GPUs
    needed beyond the ``shared_gpus`` bought."""
    items: list[_Item] = []
    extra = 0
    shared = [(o, c) for o, c in opts if o.shared]
    if shared and t.gpu is not None:
        loads, extra = _pack_shared(shared, usable(t.gpu.vram_gb, policy), shared_gpus,
                                    cores_of(t), lambda tb: fits_disk(tb, t, policy))
        items += [_Item(1, load.ram_gb, tuple(load.replicas), shared=True) for load in loads]
    for o, c in opts:
        if not o.shared:
            items += [_Item(o.degree, o.ram_gb, (o,)) for _ in range(c)]
    return items, extra


def expand(outcome: Outcome, cand: Candidates, wf: WorkloadFile, catalog: Catalog) -> Expansion:
    """Turn an aggregate outcome into servers and placements that a checker can verify."""
    boxes_by_type, repaired, failed = _fill_types(outcome, cand, wf.policy, catalog,
                                                  site=wf.site is not None)
    servers, placements, needs, keys = _number_servers(boxes_by_type, wf)
    served = {p.workload for p in placements}
    pooled = sum(w.pool_tb for w in wf.workloads if w.name in served)
    numbered = len(servers)
    servers = _place_drives(servers, needs, keys, pooled, outcome, catalog, wf.policy)
    lines = bom_lines(servers, catalog)
    cost = round(sum(ln.extended for ln in lines), 2)
    idle = _idle_owned(boxes_by_type, cand, len(servers))
    bought, planned = _drive_costs(servers[:numbered], keys, outcome, catalog)
    over = tuple(sorted(key for key, c in bought.items() if c > planned.get(key, 0.0) + 0.005))
    extra = sum(_drives_price(s, catalog) for s in servers) - sum(planned.values())
    return Expansion(tuple(servers), tuple(placements), lines, cost, repaired, tuple(failed),
                     idle, over, round(extra, 2))


def _drive_costs(servers: list[Server], keys: list[str], outcome: Outcome,
                 catalog: Catalog) -> tuple[dict[str, float], dict[str, float]]:
    """O4, per type: what its servers' drives cost, and what the program's z_tk for it
    cost."""
    bought: dict[str, float] = {}
    for s, key in zip(servers, keys):
        if _drives_price(s, catalog):
            bought[key] = bought.get(key, 0.0) + _drives_price(s, catalog)
    planned: dict[str, float] = {}
    for (key, sku, c), count in outcome.z.items():
        planned[key] = planned.get(key, 0.0) + count * c * catalog.drive(sku).price
    return bought, planned


def _drives_price(s: Server, catalog: Catalog) -> float:
    """What a server's drives cost to buy (an owned server's cost nothing, P4)."""
    if s.owned or not s.storage or not s.drive_count:
        return 0.0
    return s.drive_count * catalog.drive(s.storage).price


def _idle_owned(boxes_by_type: dict[str, list[_Box]], cand: Candidates,
                numbered: int) -> tuple[Server, ...]:
    """P4: the owned servers of each inventory configuration the plan does not use
    (numbered after the plan's servers); they draw no power."""
    idle: list[Server] = []
    for t in cand.types:
        for _ in range(max(0, t.owned - len(boxes_by_type.get(t.key, [])))):
            sid = f"s{numbered + len(idle) + 1}"
            idle.append(_server(sid, _Box(t), t.disk_tb))
    return tuple(idle)


def _fill_types(outcome: Outcome, cand: Candidates, policy: Policy, catalog: Catalog,
                site: bool = False) -> tuple[dict[str, list[_Box]], int, list[str]]:
    """Each bought type's servers, filled with its replicas; servers and shared GPUs added
    beyond the program's counts; the types that needed them.

    Where a type's replicas do not pack, its whole family (the types of the same platform,
    GPU and GPU count, which differ only in memory) is packed again as one pool, each
    server then taking the cheapest memory configuration its load needs (``_repack``).
    """
    by_type: dict[str, list[tuple[ReplicaOption, int]]] = {}
    for (wname, oi, key), count in sorted(outcome.x.items()):
        by_type.setdefault(key, []).append((cand.options[wname][oi], count))

    types = {t.key: t for t in cand.types}
    boxes_by_type: dict[str, list[_Box]] = {}
    repaired = 0
    failed: list[str] = []
    for key in sorted(set(by_type) | {k for k, v in outcome.n.items() if v}):
        t = types[key]
        opts = by_type.get(key, [])
        items, extra_gpus = _items(opts, t, outcome.shared.get(key, 0), policy)
        if key in outcome.patterns:
            boxes, items = _fill_patterns(items, outcome.patterns[key], t, policy)
        else:
            boxes = [_Box(t) for _ in range(outcome.n.get(key, 0))]
        boxes, extra = _pack(items, boxes, t, policy)
        if extra or extra_gpus:
            repaired += extra + extra_gpus
            failed.append(key)
        boxes_by_type[key] = boxes
    if failed:
        repaired -= _repack(boxes_by_type, set(failed), cand, policy, catalog, outcome)
        repaired -= _dissolve(boxes_by_type, outcome, cand, policy, catalog, site)
        repaired -= _empty_into_idle(boxes_by_type, cand, policy, catalog, site)
    _gather(boxes_by_type, policy, catalog)
    return boxes_by_type, repaired, failed


def _gather(boxes_by_type: dict[str, list[_Box]], policy: Policy, catalog: Catalog) -> None:
    """O4: dataset copies gathered onto fewer drives. Within a family's servers (or a
    type's, outside families; owned servers left alone), a replica reading a local dataset
    moves to another server, or swaps with one of its replicas, where that server already
    holds the dataset or has room for it on the drives it needs anyway: when the two
    servers' cheapest drive configurations then cost less (GPU slots, RAM, cores and disk
    checked on both, each keeping its type). Each server is tried in turn, taking the move
    that saves most, until a sweep saves nothing. Servers, GPUs and memory are unchanged;
    the drives are bought afterwards (``_place_drives``), which also fills the shared pool."""
    drives = allowed_drives(catalog, set(policy.exclude))
    if not drives:
        return
    line = 1 - policy.headroom
    options: dict[int, list[Config]] = {}
    known: dict[tuple[int, float], tuple[float, float]] = {}

    def config(box: _Box, tb: float) -> tuple[float, float]:
        """(price, TB under the line) of the cheapest drive configuration of a server of
        ``box``'s platform holding ``tb`` of local datasets."""
        if tb <= 0:
            return 0.0, 0.0
        bays = box.type.platform.drive_bays
        if (bays, tb) not in known:
            if bays not in options:
                options[bays] = _configs(bays, drives)
            c = _cheapest_config(options[bays], tb, line)
            known[(bays, tb)] = (c[3], line * c[2]) if c is not None else (float("inf"), 0.0)
        return known[(bays, tb)]

    groups: dict[Any, list[_Box]] = {}
    for key, boxes in boxes_by_type.items():
        for b in boxes:
            if not b.type.owned:
                groups.setdefault(_family(b.type) or key, []).append(b)
    for boxes in groups.values():
        if sum(1 for b in boxes if b.datasets) < 2:
            continue
        moved = True
        while moved:
            moved = False
            near = _Near(boxes, config)
            for box in boxes:
                if box.datasets and _gather_move(box, near, config, policy):
                    moved = True
                    near = _Near(boxes, config)  # two servers changed


_DrivePrice = Callable[[_Box, float], tuple[float, float]]
"""``_gather``'s (price, TB under the line) of the cheapest drives of a server holding some
TB of local datasets."""


def _item_sig(item: _Item) -> tuple:
    """What a move of ``item`` depends on: items alike in it are interchangeable."""
    return (item.gpus, item.ram_gb, item.cores, item.shared, tuple(map(id, item.replicas)))


class _Near:
    """``_gather``: the servers a replica may go to: those holding one of its datasets, and
    those whose drives have room left (any other would need more drives: not a gathering);
    each as (server, its drives' price, TB under the line, TB it holds).

    Servers alike (same type and the same replicas in the same order) offer the same moves,
    and of those the first in order is the one taken (a later one must save more), so each
    list keeps the first two servers of each kind: the second stands in when the first is
    the server moving from. 10,000 servers of one replica each are a few candidates, not
    10,000 for each of 10,000 replicas."""

    def __init__(self, boxes: list[_Box], config: _DrivePrice):
        self.holding: dict[str, list[tuple[_Box, float, float, float]]] = {}
        self.roomy: list[tuple[_Box, float, float, float]] = []
        self.sig: dict[int, tuple] = {}
        kept: dict[tuple, int] = {}
        for b in boxes:
            sig = self.sig[id(b)] = (id(b.type), tuple(_item_sig(it) for it in b.items))
            there, room = config(b, b.local_tb)
            entry = (b, there, room, b.local_tb)
            for name in b.datasets:
                self._keep(self.holding.setdefault(name, []), entry, (name, sig), kept)
            if room > entry[3] + 1e-9:
                self._keep(self.roomy, entry, ("", sig), kept)

    @staticmethod
    def _keep(entries: list, entry: tuple, key: tuple, kept: dict[tuple, int]) -> None:
        if kept.get(key, 0) < 2:
            kept[key] = kept.get(key, 0) + 1
            entries.append(entry)

    def of(self, item: _Item, box: _Box) -> list[tuple[_Box, float, float, float]]:
        """Where ``item`` of ``box`` may go: each server once, other than ``box``, and of
        servers alike the first only."""
        seen: set[int] = {id(box)}
        sigs: set[tuple] = set()
        out = []
        for e in [e for n in item.datasets for e in self.holding.get(n, ())] + self.roomy:
            if id(e[0]) in seen:
                continue
            seen.add(id(e[0]))
            sig = self.sig[id(e[0])]
            if sig not in sigs:
                sigs.add(sig)
                out.append(e)
        return out


def _gather_move(box: _Box, near: _Near,
                 config: _DrivePrice, policy: Policy) -> bool:
    """``_gather``: make the move (one replica of ``box`` reading a local dataset out, or a
    swap) that saves most on the two servers' drives; False when none saves anything."""
    here = config(box, box.local_tb)[0]
    best: _Swap | None = None
    # Items alike give the same moves, the first of them taken: each is weighed once.
    for item in _unlike(box.items):
        if not item.datasets:
            continue
        without = _tb_after(box, item, None)
        # What taking the item out saves here; a replica coming back without data changes
        # nothing more here and adds data there, so unless this saves, only a replica
        # taking data away from the other server can make the move pay.
        alone = here - config(box, without)[0]
        for other, there, room, held in near.of(item, box):
            new = sum(tb for n, tb in item.datasets.items() if n not in other.datasets)
            if new > 0 and held + new > room + 1e-9:
                continue  # it would need more drives there: not a gathering
            backs = [None, *_unlike(other.items)] if alone > 1e-6 else [
                it for it in _unlike(other.items) if it.datasets]
            for back in backs:
                if not (_room_for(box, item, back) and _room_for(other, back, item)):
                    continue
                kept_tb = without if back is None else _tb_after(box, item, back)
                saved = (here + there - config(box, kept_tb)[0]
                         - config(other, _tb_after(other, back, item))[0])
                if saved <= 1e-6 or (best is not None and saved <= best[0] + 1e-9):
                    continue
                best = _better_swap(best, saved, box, item, other, back, box.type, policy)
    return _make_swap(box, best)


def _unlike(items: list[_Item]) -> list[_Item]:
    """``items`` in order, each kind (``_item_sig``) once: its first."""
    seen: set[tuple] = set()
    out = []
    for it in items:
        sig = _item_sig(it)
        if sig not in seen:
            seen.add(sig)
            out.append(it)
    return out


def _tb_after(box: _Box, out: _Item | None, into: _Item | None) -> float:
    """The TB of distinct local datasets ``box`` holds without ``out`` and with ``into``,
    for ``_gather``'s drive prices."""
    tb = box.local_tb
    gone: set[str] = set()
    if out is not None and out.datasets:
        kept = {n for it in box.items if it is not out for n in it.datasets}
        gone = {n for n in out.datasets if n not in kept}
        tb -= sum(out.datasets[n] for n in gone)
    if into is not None:
        tb += sum(v for n, v in into.datasets.items() if n not in box.datasets or n in gone)
    return tb


def _dissolve(boxes_by_type: dict[str, list[_Box]], outcome: Outcome, cand: Candidates,
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


def _empty_into_idle(boxes_by_type: dict[str, list[_Box]], cand: Candidates, policy: Policy,
                     catalog: Catalog, site: bool) -> int:
    """Servers emptied into the GPUs the plan bought but leaves idle (a board of fixed GPU
    count bought whole, O1: often one a repair added for a CPU-only replica no other
    server holds), where that costs less than the server, as ``_dissolve`` moves them.
    Every server of the plan is tried in each order of ``_IDLE_ORDERS`` (on a copy), and the
    cheaper plan is kept. Returns how many servers fewer the plan has."""
    best: tuple[float, int, dict[str, list[_Box]]] | None = None
    for order in _IDLE_ORDERS:
        trial = {k: [b.copy() for b in v] for k, v in boxes_by_type.items()}
        removed = _empty_in_order(trial, order, cand, policy, catalog, site)
        cost = sum(_box_price(b, catalog) for v in trial.values() for b in v)
        if best is None or cost < best[0] - 1e-6:
            best = (cost, removed, trial)
    assert best is not None
    boxes_by_type.clear()
    boxes_by_type.update(best[2])
    return best[1]


_IDLE_ORDERS: tuple[Callable[[_Box, Catalog], tuple[float, ...]], ...] = (
    # the least loaded first: the easiest to empty
    lambda b, catalog: (b.gpus_used, b.ram_used),
    # the dearest per GPU it needs first: idle slots are few, spend them where they save most
    lambda b, catalog: (-_box_price(b, catalog) / max(1, b.gpus_used),),
)
"""Orders ``_empty_into_idle`` tries the servers in. Neither is better on every plan: at
N = 1,000 the second saved 58,050 more (it empties three H200 boards into idle H100 ones),
on one of N = 200's plans 23,830 more, and on N = 200's kept plan 4,720 less."""


def _empty_in_order(boxes_by_type: dict[str, list[_Box]],
                    order: Callable[[_Box, Catalog], tuple[float, ...]], cand: Candidates,
                    policy: Policy, catalog: Catalog, site: bool) -> int:
    """``_empty_into_idle`` with the servers tried in ``order``."""
    removed = 0
    every = [b for boxes in boxes_by_type.values() for b in boxes]

    def idle() -> list[_Box]:
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


def _empty(box: _Box, found: tuple[list[tuple[_Box, _Item]], _Box | None],
           boxes_by_type: dict[str, list[_Box]], every: list[_Box]) -> int:
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


def _rehome(box: _Box, others: list[_Box], cand: Candidates, policy: Policy,
            catalog: Catalog, site: bool
            ) -> tuple[list[tuple[_Box, _Item]], _Box | None] | None:
    """Where each replica of ``box`` would go (``_dissolve``): (server, replica as moved)
    for those that find room, and the new server holding the rest; None when that costs
    at least ``box``."""
    if any(it.shared or len(it.replicas) != 1 or it.replicas[0].workload in cand.targets
           for it in box.items):
        return None
    trial = {id(b): b.copy() for b in others if not b.type.owned}
    accepts: dict[tuple[str, int], bool] = {}

    def accepted(t: ServerType, o: ReplicaOption) -> bool:
        return accepts.setdefault((t.key, id(o)), type_accepts(t, o, policy))

    moves: list[tuple[int, _Item]] = []
    left: list[_Item] = []
    spent = 0.0
    saved = _box_price(box, catalog)
    for it in sorted(box.items, key=lambda i: (-i.gpus, -i.ram_gb)):
        best = None
        for moved in _as_options(it, cand):
            o = moved.replicas[0]
            for bid, b in trial.items():
                t = b.type
                cap = usable(t.ram_gb, policy)
                if not accepted(t, o) or not _fits(b, moved, cap, policy):
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
        spent += _box_price(fresh, catalog)
    if spent >= saved - 1e-6:
        return None
    by_id = {id(b): b for b in others}
    return [(by_id[bid], item) for bid, item in moves], fresh


def _as_options(item: _Item, cand: Candidates) -> list[_Item]:
    """An exclusive replica as each option of its workload (not the shared ones)."""
    return [_Item(o.degree if o.gpu is not None else 0, o.ram_gb, (o,))
            for o in cand.options[item.replicas[0].workload] if not o.shared]


def _cheapest_new(items: list[_Item], cand: Candidates, policy: Policy, catalog: Catalog,
                  accepted: Callable[[ServerType, ReplicaOption], bool]) -> _Box | None:
    """The cheapest new server (of any bought type) that holds ``items``, each as one of its
    workload's options (the fewest GPUs, then the least RAM, that still fits)."""
    best: tuple[float, _Box] | None = None
    for t in cand.types:
        if t.owned:
            continue
        box = _Box(t)
        cap = usable(t.ram_gb, policy)
        for it in items:
            fits = [m for m in _as_options(it, cand)
                    if accepted(t, m.replicas[0]) and _fits(box, m, cap, policy)]
            if not fits:
                break
            box.add(min(fits, key=lambda m: (m.gpus, m.ram_gb)))
        else:
            price = _box_price(box, catalog)
            if best is None or price < best[0]:
                best = (price, box)
    return None if best is None else best[1]


def _family(t: ServerType) -> tuple | None:
    """Types that differ only in memory (same platform, GPU and GPU capacity) form a family
    whose servers can trade replicas; owned types (P4) stay as they are."""
    if t.owned:
        return None
    return (t.platform.sku, t.gpu.sku if t.gpu is not None else None, t.gpu_count,
            t.gpu_slots)


def _box_price(box: _Box, catalog: Catalog) -> float:
    """What one server costs: platform, DIMMs and GPUs (all k of a fixed count, O1)."""
    t = box.type
    gpus = t.gpu_count if t.gpu_count is not None else box.gpus_used
    return t.server_price(catalog, gpus if t.gpu is not None else 0)


def _repack(boxes_by_type: dict[str, list[_Box]], failed: set[str], cand: Candidates,
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
        fam = _family(t)
        if fam is not None and t.key not in outcome.patterns:
            families.setdefault(fam, []).append(t)
    types = {t.key: t for t in cand.types}
    pooled = {_family(types[k]) for k in failed if k not in outcome.patterns} - {None}
    if not pooled:
        return 0
    bought = sum(outcome.n.values())
    before = [b for v in boxes_by_type.values() for b in v]
    best: list[_Box] | None = None
    best_cost = sum(_box_price(b, catalog) for b in before)
    for order, seeded in [(o, False) for o in _POOL_ORDERS] + [(_POOL_ORDERS[0], True)]:
        boxes = _pool_all(boxes_by_type, pooled, families, order, policy, catalog, outcome,
                          seeded)
        if boxes is None:
            continue
        cost = sum(_box_price(b, catalog) for b in boxes)
        if cost < best_cost - 1e-6:
            best, best_cost = boxes, cost
    if best is None:
        return 0
    for k in list(boxes_by_type):
        boxes_by_type[k] = []
    for b in best:
        boxes_by_type.setdefault(b.type.key, []).append(b)
    return max(0, len(before) - bought) - max(0, len(best) - bought)


_POOL_ORDERS: tuple[Callable[[_Item], tuple[float, ...]], ...] = (
    lambda it: (-it.gpus, -it.ram_gb),
    lambda it: (-it.ram_gb, -it.gpus),
    lambda it: (-it.gpus, -it.cores, -it.ram_gb),
)


def _pool_all(boxes_by_type: dict[str, list[_Box]], pooled: set, families: dict,
              order: Callable[[_Item], tuple[float, ...]], policy: Policy, catalog: Catalog,
              outcome: Outcome, seeded: bool = False) -> list[_Box] | None:
    """Every server of the plan, the ``pooled`` families packed again in ``order`` (a copy:
    the type-by-type boxes are left as they were).

    ``seeded``: the CPU-only replicas of more than half a server's RAM first, one to a
    server, each server then filled with the GPU replicas of least RAM per GPU that fit
    beside it, and only then the rest in ``order``."""
    out: list[_Box] = []
    overflow: list[_Item] = []
    for key, boxes in boxes_by_type.items():
        fam = _family(boxes[0].type) if boxes else None
        if fam not in pooled or key in outcome.patterns:
            out += [b.copy() for b in boxes]
    for fam in sorted(pooled, key=str):
        members = families[fam]
        keys = [t.key for t in members]
        items = [it for k in keys for b in boxes_by_type.get(k, []) for it in b.items]
        start = sorted((t for t in members for _ in range(outcome.n.get(t.key, 0))),
                       key=lambda t: -usable(t.ram_gb, policy))
        boxes = [_Box(t) for t in start]
        if seeded:
            items = _seed(boxes, items, members, policy, catalog, overflow)
        for item in sorted(items, key=order):
            if not _place_pooled(boxes, item, members, policy, catalog, opens=item.gpus > 0):
                if item.gpus > 0:
                    return None  # no configuration of the family holds it alone
                overflow.append(item)
        boxes = [_cheapest_memory(b, members, policy, catalog) for b in boxes]
        _shed(boxes, members, policy, catalog)
        if seeded:
            boxes = _cover(boxes, members, policy, catalog)
        out += boxes
    spare = [t for ts in families.values() for t in ts]
    for item in sorted(overflow, key=lambda it: (-it.ram_gb, -it.cores)):
        if not _place_anywhere(out, item, families, spare, policy, catalog):
            return None
    return out


def _cover(boxes: list[_Box], members: list[ServerType], policy: Policy,
           catalog: Catalog) -> list[_Box]:
    """A family's pool packed again as the cheapest cover by server patterns
    (``family_pack.cheapest_cover``, from the packing in hand, so never dearer), when that
    costs less. Greedy packing leaves GPU slots idle beside big CPU-only replicas: on a
    generated 1,000-workload mix the H200 family took 66 servers where 65 patterns hold
    the same replicas, 379,080 less. Each pattern becomes a server; a replica its bays'
    drives refuse (O4, not a dimension of the patterns) is placed as ``_place_pooled``
    does. Kept only with no more servers than the packing in hand (the site's rack space
    and power, P3, count servers of the platform)."""
    index = {t.key: s for s, t in enumerate(members)}
    if any(b.type.key not in index for b in boxes):
        return boxes
    queues: dict[Kind, list[_Item]] = {}
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
    configs = [ServerConfig(_box_price(_Box(t), catalog), t.gpu_slots, usable(t.ram_gb, policy),
                            cores_of(t)) for t in members]
    chosen = cheapest_cover(kinds, [len(queues[k]) for k in kinds], configs, start)
    if chosen == start:  # no cheaper cover found
        return boxes
    new: list[_Box] = []
    left: list[_Item] = []
    for s, counts in sorted(chosen, key=lambda p: -configs[p[0]].ram_gb):
        box = _Box(members[s])
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
        if not _place_pooled(new, item, members, policy, catalog):
            return boxes
    new = [_cheapest_memory(b, members, policy, catalog) for b in new]
    _shed(new, members, policy, catalog)
    before = sum(_box_price(b, catalog) for b in boxes)
    cheaper = sum(_box_price(b, catalog) for b in new) < before - 1e-6
    # No more servers of the platform than in hand: a site's racks (P3) count them.
    return new if cheaper and len(new) <= len(boxes) else boxes


def _kind(item: _Item) -> Kind:
    return (item.gpus, round(item.ram_gb, 6), round(item.cores, 6))


def _seed(boxes: list[_Box], items: list[_Item], members: list[ServerType], policy: Policy,
          catalog: Catalog, overflow: list[_Item]) -> list[_Item]:
    """``_pool_all(seeded=True)``: place the big CPU-only replicas (more than half the
    family's largest usable RAM: two never share a server), one to a server, and fill each
    such server's GPU slots with the GPU replicas of least RAM per GPU that fit beside it
    (the program's sums count on them there). Returns the replicas left to place."""
    half = max(usable(t.ram_gb, policy) for t in members) / 2

    def is_big(it: _Item) -> bool:
        return it.gpus == 0 and it.ram_gb > half

    big = sorted(filter(is_big, items), key=lambda it: -it.ram_gb)
    if not big:
        return items
    rest = [it for it in items if not is_big(it)]
    for item in big:
        if not _place_pooled(boxes, item, members, policy, catalog, opens=False):
            overflow.append(item)
    light = sorted((it for it in rest if it.gpus), key=lambda it: (it.ram_gb / it.gpus,
                                                                   -it.gpus))
    used: set[int] = set()
    for box in boxes:
        if box.gpus_used or not any(map(is_big, box.items)):
            continue
        cap = usable(box.type.ram_gb, policy)
        for i, it in enumerate(light):
            if i in used or not _fits(box, it, cap, policy):
                continue
            box.add(it)
            used.add(i)
            if box.gpus_used >= box.type.gpu_slots:
                break
    taken = {id(light[i]) for i in used}
    return [it for it in rest if id(it) not in taken]


def _shed(boxes: list[_Box], members: list[ServerType], policy: Policy,
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


def _shed_move(box: _Box, boxes: list[_Box], cheaper: ServerType, policy: Policy,
               per_tb: float, saved: float) -> bool:
    """``_shed``: make the move (one replica out of ``box``, or a swap for one of less RAM)
    that brings ``box`` within the ``cheaper`` configuration and saves most once new
    dataset copies are priced; False when none saves anything."""
    need = box.ram_used - usable(cheaper.ram_gb, policy)
    best: _Swap | None = None
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
                best = _better_swap(best, gain, box, item, other, back, cheaper, policy)
    return _make_swap(box, best)


_Swap = tuple[float, "_Box", "_Box", "_Box"]
"""A move or swap found by ``_shed`` or ``_gather``: (what it saves, the other server, the
server as it would be, the other as it would be)."""


def _better_swap(best: _Swap | None, gain: float, box: _Box, item: _Item, other: _Box,
                 back: _Item | None, t: ServerType, policy: Policy) -> _Swap | None:
    """``best``, or the move of ``item`` from ``box`` (as type ``t``) to ``other`` with
    ``back`` the other way, saving ``gain``, when it fits both servers (the caller checked
    that it saves more than ``best``)."""
    kept = _swapped(box, item, back, t, policy)
    taken = _swapped(other, back, item, other.type, policy) if kept is not None else None
    return best if kept is None or taken is None else (gain, other, kept, taken)


def _make_swap(box: _Box, best: _Swap | None) -> bool:
    """Make the move ``best`` (``_shed``, ``_gather``); False when there is none."""
    if best is None:
        return False
    _, other, kept, taken = best
    _assign(box, kept)
    _assign(other, taken)
    return True


def _swapped(box: _Box, out: _Item | None, into: _Item | None, t: ServerType,
             policy: Policy) -> _Box | None:
    """``box`` as a server of type ``t``, without ``out`` and with ``into``; None when
    that does not fit (GPU slots, RAM, cores, disk)."""
    new = _Box(t)
    for it in box.items:
        if it is not out:
            new.add(it)
    cap = usable(t.ram_gb, policy)
    if into is None:
        return new if new.ram_used <= cap + 1e-9 else None
    if not _fits(new, into, cap, policy):
        return None
    new.add(into)
    return new


def _room_for(box: _Box, out: _Item | None, into: _Item | None) -> bool:
    """A quick test before ``_swapped``: ``box`` without ``out`` has the GPU slots, CPU
    cores and (unrounded) RAM for ``into``; the rest ``_swapped`` checks."""
    if into is None:
        return True
    t = box.type
    gone = (out.gpus, out.ram_gb, out.cores) if out is not None else (0, 0.0, 0.0)
    return (box.gpus_used - gone[0] + into.gpus <= t.gpu_slots
            and box.ram_used - gone[1] + into.ram_gb <= t.ram_gb + 1e-9
            and box.cores_used - gone[2] + into.cores <= cores_of(t) + 1e-9)


def _assign(box: _Box, new: _Box) -> None:
    """Make ``box`` (held in the pool's lists) what ``new`` is."""
    box.type, box.gpus_used, box.ram_used = new.type, new.gpus_used, new.ram_used
    box.items, box.cores_used, box.datasets = new.items, new.cores_used, new.datasets


def _fits(box: _Box, item: _Item, ram_cap: float, policy: Policy) -> bool:
    """GPU slots, RAM up to ``ram_cap``, cores and (O4) local datasets on its disk."""
    t = box.type
    return (box.gpus_used + item.gpus <= t.gpu_slots
            and box.ram_used + item.ram_gb <= ram_cap + 1e-9
            and box.cores_used + item.cores <= cores_of(t) + 1e-9
            and box.disk_fits(item, policy))


def _best_fit(boxes: list[_Box], item: _Item, policy: Policy) -> _Box | None:
    """The server, as configured, that the item leaves the least RAM free in."""
    best = None
    for box in boxes:
        cap = usable(box.type.ram_gb, policy)
        if _fits(box, item, cap, policy):
            left = cap - box.ram_used - item.ram_gb
            if best is None or left < best[0]:
                best = (left, box)
    return None if best is None else best[1]


def _upgrade(boxes: list[_Box], item: _Item, members_of: Callable[[_Box], list[ServerType]],
             policy: Policy, catalog: Catalog) -> tuple[float, _Box, ServerType] | None:
    """The cheapest memory upgrade (price difference, server, new type) that makes room."""
    best = None
    for box in boxes:
        now = box.type.server_price(catalog)
        for t in members_of(box):
            if (_fits(box, item, usable(t.ram_gb, policy), policy)
                    and (best is None or t.server_price(catalog) - now < best[0])):
                best = (t.server_price(catalog) - now, box, t)
    return best


def _place_pooled(boxes: list[_Box], item: _Item, members: list[ServerType], policy: Policy,
                  catalog: Catalog, opens: bool = True) -> bool:
    """Best fit by RAM into a server as configured; else the cheaper of a memory upgrade and
    (when ``opens``) a new server of the family's cheapest configuration that holds it."""
    return _place(boxes, item, lambda b: members, members if opens else [], policy, catalog)


def _place_anywhere(boxes: list[_Box], item: _Item, families: dict,
                    spare: list[ServerType], policy: Policy, catalog: Catalog) -> bool:
    """A CPU-only replica into any server with room, else the cheaper of a memory upgrade and
    a new server of the cheapest type that holds it."""
    return _place(boxes, item, lambda b: families.get(_family(b.type), []), spare, policy,
                  catalog)


def _place(boxes: list[_Box], item: _Item, members_of: Callable[[_Box], list[ServerType]],
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
    fresh = min(((_box_price(_Box(t), catalog), t) for t in new_types
                 if _fits(_Box(t), item, usable(t.ram_gb, policy), policy)),
                key=lambda pt: pt[0], default=None)
    if upgrade is not None and (fresh is None or upgrade[0] <= fresh[0]):
        _, box, t = upgrade
        box.type = t
        box.add(item)
        return True
    if fresh is None:
        return False
    box = _Box(fresh[1])
    box.add(item)
    boxes.append(box)
    return True


def _cheapest_memory(box: _Box, members: list[ServerType], policy: Policy,
                     catalog: Catalog) -> _Box:
    """The server with the cheapest memory configuration of its family that holds its load."""
    fits = [t for t in members if usable(t.ram_gb, policy) + 1e-9 >= box.ram_used]
    new = box.copy()
    new.type = min(fits, key=lambda t: (t.server_price(catalog), -t.ram_gb))
    return new


def _number_servers(
    boxes_by_type: dict[str, list[_Box]], wf: WorkloadFile
) -> tuple[list[Server], list[Placement], list[float], list[str]]:
    """Servers s1, s2, ... in type order, every replica placed on its GPU indices, and each
    server's local datasets, TB, and type (O4, for the drives)."""
    counters = {w.name: 0 for w in wf.workloads}
    servers: list[Server] = []
    placements: list[Placement] = []
    needs: list[float] = []
    keys: list[str] = []
    for boxes in boxes_by_type.values():
        for box in boxes:
            sid = f"s{len(servers) + 1}"
            gpu_index = 0
            for item in box.items:
                indices = tuple(range(gpu_index, gpu_index + item.gpus))
                gpu_index += item.gpus
                for o in item.replicas:
                    counters[o.workload] += 1
                    placements.append(_placement(o, counters[o.workload], sid, indices))
            servers.append(_server(sid, box, box.type.disk_tb if box.type.owned else 0.0))
            needs.append(box.local_tb)
            keys.append(box.type.key)
    return servers, placements, needs, keys


def _placement(o: ReplicaOption, replica: int, sid: str, indices: tuple[int, ...]) -> Placement:
    e = o.estimate
    return Placement(
        workload=o.workload, replica=replica, server=sid, gpu=o.gpu, gpus=o.degree,
        vram_gb_per_gpu=o.vram_gb, host_ram_gb=o.ram_gb, gpu_indices=indices,
        micro_batch=e.micro_batch, grad_accum_steps=e.grad_accum_steps,
        tokens_per_s=o.tokens_per_s,
        tpot_ms=o.rate.tpot_ms if o.rate is not None else None,
        ttft_ms=o.rate.ttft_ms if o.rate is not None else None,
    )


def _server(sid: str, box: _Box, disk_tb: float) -> Server:
    """A filled box as a server without drives (a GPU type left without GPUs has none).

    O1: a type of fixed GPU count is bought with all its k GPUs, idle ones included.
    P4: an owned server is as listed in the inventory, drives (``disk_tb``) included.
    """
    t = box.type
    fixed = t.gpu_count
    has_gpus = t.gpu is not None and (box.gpus_used > 0 or bool(fixed))
    gpu = t.gpu.sku if t.gpu is not None and has_gpus else None
    count = fixed if fixed is not None else box.gpus_used
    return Server(
        id=sid, platform=t.platform.sku, gpu=gpu, gpu_count=count if gpu else 0,
        memory=t.memory_sku, dimm_count=t.dimm_count, storage=t.storage,
        drive_count=t.drive_count, owned=bool(t.owned), disk_tb=disk_tb,
        disk_used_tb=box.local_tb,
    )


Config = tuple[str, int, float, float]
"""A drive configuration of one server (O4): (drive SKU, drives, TB, price)."""


def _place_drives(servers: list[Server], needs: list[float], keys: list[str], pooled: float,
                  outcome: Outcome, catalog: Catalog, policy: Policy) -> list[Server]:
    """O4: one drive SKU per bought server, so that each holds its local datasets (``needs``)
    and the pool its copies + ``pooled`` (shared datasets and checkpoints), all under the
    headroom line; owned servers keep their drives (P4).

    Two starts, the cheaper result kept: (a) the program's configurations z_tk, handed to
    the type's servers largest need first (each the smallest config left that holds it;
    a server left without one gets its cheapest); (b) every server its cheapest config.
    Then, while the pool is short, the drive change of least price per TB still missing is
    made; when no bay is left, a server carrying only drives is added.
    """
    line = 1 - policy.headroom
    excluded = set(policy.exclude)
    drives = allowed_drives(catalog, excluded)
    if not drives or (pooled <= 0 and not any(needs)):
        return servers
    bays = [0 if s.owned else catalog.platform(s.platform).drive_bays for s in servers]
    options = {b: _configs(b, drives) for b in set(bays)}
    starts = (_program_configs(servers, needs, keys, bays, options, outcome, line),
              [_cheapest_config(options[b], need, line) if need > 0 else None
               for b, need in zip(bays, needs)])
    best: tuple[tuple[bool, float], list[Config | None], list[tuple[float, Server]]] | None
    best = None
    for start in starts:
        chosen, extra, short = _fill_pool(
            start, servers, needs, bays, options, pooled, line,
            lambda short: _drive_server(catalog, drives, excluded, short))
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


def _configs(bays: int, drives: list[StorageSku]) -> list[Config]:
    """Every configuration of one SKU within ``bays`` bays, by price then TB."""
    return sorted(((d.sku, c, c * d.size_tb, c * d.price) for d in drives
                   for c in range(1, bays + 1)), key=lambda k: (k[3], -k[2], k[0]))


def _cheapest_config(configs: list[Config], need: float, line: float) -> Config | None:
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
            chosen[i] = fit or _cheapest_config(options[bays[i]], needs[i], line)
        for i in mine:
            if chosen[i] is None and configs:
                chosen[i] = configs.pop()
    for i, need in enumerate(needs):
        if chosen[i] is None and need > 0 and not servers[i].owned:
            chosen[i] = _cheapest_config(options[bays[i]], need, line)
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
                  short: float) -> tuple[float, Server] | None:
    """A server that carries only drives, for ``short`` TB: on each platform sold without
    GPUs, with bays and allowed, the cheapest config that holds it (else its largest), with
    the cheapest DIMMs that fill its channels; the one of least price per TB it adds."""
    best: tuple[float, float, Server] | None = None
    for p in catalog.platforms:
        if p.sku in excluded or not p.drive_bays or 0 not in p.allowed_gpu_counts():
            continue
        dimms = [m for m in catalog.memory if m.type == p.memory_type and m.sku not in excluded]
        if not dimms:
            continue
        dimm = min(dimms, key=lambda m: m.price)
        configs = _configs(p.drive_bays, drives)
        cfg = next((k for k in configs if k[2] + 1e-9 >= short),
                   max(configs, key=lambda k: (k[2], -k[3])))
        price = p.price + p.memory_channels * dimm.price + cfg[3]
        rate = price / min(cfg[2], short)
        if best is None or rate < best[0]:
            server = Server("", p.sku, None, 0, dimm.sku, p.memory_channels, cfg[0], cfg[1],
                            disk_tb=cfg[2])
            best = (rate, price, server)
    return None if best is None else (best[1], best[2])


def bom_lines(servers: list[Server] | tuple[Server, ...], catalog: Catalog) -> tuple[BomLine, ...]:
    """The bill of materials of a list of servers: one line per SKU, in kind order (owned
    servers, P4, are not bought and not listed)."""
    qty: dict[str, int] = {}
    for server in servers:
        if server.owned:
            continue
        for sku, q in server.parts():
            qty[sku] = qty.get(sku, 0) + q
    order = {"platform": 0, "gpu": 1, "memory": 2, "storage": 3}
    lines = [BomLine(sku, catalog.kind_of(sku), q, catalog.price_of(sku))
             for sku, q in qty.items()]
    return tuple(sorted(lines, key=lambda ln: (order[ln.kind], ln.sku)))
