"""Packing a type's replicas into its servers (first fit), the program's patterns first.

Shareable replicas go onto shared GPUs first (first-fit decreasing by VRAM); then GPU items
and CPU-only replicas are packed into the type's servers in several item orders, the best
kept (``pack_type``). ``_FirstFit`` makes first fit linear in the replicas.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...inputs.policy import Policy
from ...rules import usable
from ...rules.storage import local_datasets
from ..candidates import ServerType, cores_of, fits_disk
from ..outcome import BuiltPatterns
from ..replicas import ReplicaOption
from .box import Box, Item, fits


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
        return sum(local_datasets((*self.replicas, more)).values())


def _pack_shared(opts: list[tuple[ReplicaOption, int]], cap: float, gpus: int,
                 cores_cap: float = float("inf"),
                 disk_fits: Callable[[float], bool] = lambda tb: True,
                 size: Callable[[ReplicaOption], float] = lambda o: o.vram_gb,
                 ) -> tuple[list[_SharedGpu], int]:
    """First-fit decreasing of shareable replicas onto GPUs of usable VRAM ``cap``, each
    GPU's replicas within one server's ``cores_cap`` cores (O3) and their distinct local
    datasets within what one server's drives hold (``disk_fits``, O4: the replicas of one
    GPU sit on one server; two 6 TB datasets on one GPU fit no server of 16 TB of bays
    under a 30% headroom).

    ``size`` is what a replica takes of ``cap`` (its VRAM need; under U1 the most it needs,
    scaled to this line, in the file and in every sampled world the plan holds in).

    Returns the shared GPUs filled and how many more than the ``gpus`` bought they are.
    """
    replicas = sorted((o for o, count in opts for _ in range(count)), key=lambda o: -size(o))
    loads: list[_SharedGpu] = []
    for o in replicas:
        for load in loads:
            if (load.vram_gb + size(o) <= cap + 1e-9
                    and load.cores + o.cores <= cores_cap + 1e-9
                    and disk_fits(load.local_tb(o))):
                load.vram_gb += size(o)
                load.ram_gb += o.ram_gb
                load.replicas.append(o)
                break
        else:
            loads.append(_SharedGpu(size(o), o.ram_gb, [o]))
    return loads, max(0, len(loads) - gpus)


# Orders tried when packing a type's replicas into its servers (first fit each time).
_ORDERS: tuple[Callable[[Item], tuple[Any, ...]], ...] = (
   lambda it: (-it.gpus, -it.ram_gb),  # most GPUs first, then most RAM
   lambda it: (-it.ram_gb, -it.gpus),  # most RAM first
   lambda it: (-it.cores, -it.gpus, -it.ram_gb),  # most CPU cores first (O3)
   # O4: largest local dataset first, replicas of one workload together
   lambda it: (-sum(it.datasets.values()), tuple(sorted(it.datasets)), -it.gpus, -it.ram_gb),
)


def pack_type(items: list[Item], start: list[Box], t: ServerType,
       policy: Policy) -> tuple[list[Box], int]:
    """First-fit ``items`` into the bought servers ``start``, in each order of ``_ORDERS``.

    Returns the filled servers and how many had to be added: the fewest servers, then (O4,
    when local datasets are packed) the fewest TB of dataset copies.
    """
    bought = len(start)
    disk = any(it.datasets for it in items)
    best: list[Box] = []
    rank: tuple[int, float] | None = None
    for order in _ORDERS:
        boxes = [b.copy() for b in start]
        first = _FirstFit(boxes, usable(t.ram_gb, policy), policy)
        for item in sorted(items, key=order):
            box = first.find(item)
            if box is None:
                box = Box(t)
                boxes.append(box)
            first.add(box, item)
        mine = (max(bought, len(boxes)), sum(b.local_tb for b in boxes) if disk else 0.0)
        if rank is None or mine < (rank[0], rank[1] - 1e-9):
            best, rank = boxes, mine
        if len(best) <= bought and not disk:
            break
    return best, len(best) - bought


def fill_patterns(items: list[Item], patterns: BuiltPatterns, t: ServerType,
                 policy: Policy) -> tuple[list[Box], list[Item]]:
    """Build the program's servers pattern by pattern; return them and the items left over.

    Items are matched to a pattern's slots by kind (GPUs, host RAM[, CPU cores]), the key the
    program grouped them by; a shared GPU fills the one-GPU shared kind whatever its RAM.
    A slot takes the last item of its kind whose local dataset still fits the server (O4),
    preferring one whose dataset the server already holds; none fits: left for first fit.
    """
    queues: dict[int, list[Item]] = {k: [] for k in set(patterns.kind_index.values())}
    left: list[Item] = []
    for it in items:
        k = (patterns.shared_kind if it.shared
             else patterns.kind(it.gpus, it.ram_gb, it.cores))
        (queues[k] if k is not None else left).append(it)
    boxes = []
    for pattern, servers in patterns.built:
        for _ in range(servers):
            box = Box(t)
            for k, count in enumerate(pattern):
                for _ in range(count):
                    item = _fitting(queues[k], box, policy)
                    if item is not None:
                        box.add(item)
            boxes.append(box)
    left += [it for q in queues.values() for it in q]
    return boxes, left


def _fitting(queue: list[Item], box: Box, policy: Policy) -> Item | None:
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
    """First fit into servers that only ever fill up (``pack_type``), without testing every
    item against every server: packing n items into m servers costs O(n + m) fit tests per
    item shape instead of O(n × m) (10,000 replicas: 10,000 tests, not 50 million).

    Servers only gain replicas, GPUs, RAM, cores and datasets. So a server that has no room
    for an item's shape (GPUs, host RAM, cores, its local datasets) never has room later,
    unless it comes to hold those datasets itself (O4: then they need no more disk). Per
    shape the search therefore resumes where it last stopped, and servers that hold an
    item's datasets are kept apart, by position (a heap), to be tried first: the answer is
    the one ``_first_fit`` gives.
    """

    def __init__(self, boxes: list[Box], ram_cap: float, policy: Policy):
        self.boxes = boxes
        self.ram_cap = ram_cap
        self.policy = policy
        self.resume: dict[tuple, int] = {}
        """By item shape: the first server that may have room."""
        self.holders: dict[tuple, tuple[list[int], set[int]]] = {}
        """By item shape with datasets: positions of the servers holding them all and not
        yet found full for that shape (a heap, and the set of every position it took)."""
        self.position: dict[int, int] = {id(b): i for i, b in enumerate(boxes)}

    def find(self, item: Item) -> Box | None:
        """The first server with room for ``item``; for an item with local datasets, one
        that already holds them first (O4: no second copy). None when none has room."""
        shape = (item.gpus, item.ram_gb, item.cores, frozenset(item.datasets))
        if item.datasets:
            heap = self._holding(shape)[0]
            while heap:
                box = self.boxes[heap[0]]
                if fits(box, item, self.ram_cap, self.policy):
                    return box
                heapq.heappop(heap)  # it holds the data, so only room failed: for good
        i = self.resume.get(shape, 0)
        while i < len(self.boxes) and not fits(self.boxes[i], item, self.ram_cap, self.policy):
            i += 1
        self.resume[shape] = i
        return self.boxes[i] if i < len(self.boxes) else None

    def add(self, box: Box, item: Item) -> None:
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


def _first_fit(boxes: list[Box], item: Item, ram_cap: float, policy: Policy) -> Box | None:
    """The first server with room for ``item``; one that already holds its local datasets
    first (O4: no second copy)."""
    first = None
    for box in boxes:
        if fits(box, item, ram_cap, policy):
            if set(item.datasets) <= set(box.datasets):
                return box
            if first is None:
                first = box
    return first


def to_items(opts: list[tuple[ReplicaOption, int]], t: ServerType, shared_gpus: int,
             policy: Policy, size: Callable[[ReplicaOption], float] | None = None
             ) -> tuple[list[Item], int]:
    """Packing items of some replicas, shared ones grouped onto GPUs (each taking ``size``
    of the usable VRAM, default its need); and the shared GPUs needed beyond the
    ``shared_gpus`` bought."""
    items: list[Item] = []
    extra = 0
    shared = [(o, c) for o, c in opts if o.shared]
    if shared and t.gpu is not None:
        loads, extra = _pack_shared(shared, usable(t.gpu.vram_gb, policy), shared_gpus,
                                    cores_of(t), lambda tb: fits_disk(tb, t, policy),
                                    size or (lambda o: o.vram_gb))
        items += [Item(1, load.ram_gb, tuple(load.replicas), shared=True) for load in loads]
    for o, c in opts:
        if not o.shared:
            items += [Item(o.degree, o.ram_gb, (o,)) for _ in range(c)]
    return items, extra
