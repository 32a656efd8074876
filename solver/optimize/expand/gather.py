"""Dataset copies gathered onto fewer servers' drives (O4), before drives are bought.

Within a family's servers, a replica reading a local dataset moves, or swaps, to a server
already holding its dataset or with room on its drives when the two servers' cheapest drive
configurations then cost less (``gather_datasets``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...rules import headroom_line
from ..candidates import allowed_drives
from .box import Box, Item, family
from .drives import Config, bay_configs, cheapest_config
from .moves import Swap, better_swap, make_swap, room_for


def gather_datasets(boxes_by_type: dict[str, list[Box]], policy: Policy, catalog: Catalog) -> None:
    """O4: dataset copies gathered onto fewer drives. Within a family's servers (or a
    type's, outside families; owned servers left alone), a replica reading a local dataset
    moves to another server, or swaps with one of its replicas, where that server already
    holds the dataset or has room for it on the drives it needs anyway: when the two
    servers' cheapest drive configurations then cost less (GPU slots, RAM, cores and disk
    checked on both, each keeping its type). Each server is tried in turn, taking the move
    that saves most, until a sweep saves nothing. Servers, GPUs and memory are unchanged;
    the drives are bought afterwards (``place_drives``), which also fills the shared pool."""
    drives = allowed_drives(catalog, set(policy.exclude))
    if not drives:
        return
    line = headroom_line(policy)
    options: dict[int, list[Config]] = {}
    known: dict[tuple[int, float], tuple[float, float]] = {}

    def config(box: Box, tb: float) -> tuple[float, float]:
        """(price, TB under the line) of the cheapest drive configuration of a server of
        ``box``'s platform holding ``tb`` of local datasets."""
        if tb <= 0:
            return 0.0, 0.0
        bays = box.type.platform.drive_bays
        if (bays, tb) not in known:
            if bays not in options:
                options[bays] = bay_configs(bays, drives)
            c = cheapest_config(options[bays], tb, line)
            known[(bays, tb)] = (c[3], line * c[2]) if c is not None else (float("inf"), 0.0)
        return known[(bays, tb)]

    groups: dict[Any, list[Box]] = {}
    for key, boxes in boxes_by_type.items():
        for b in boxes:
            if not b.type.owned:
                groups.setdefault(family(b.type) or key, []).append(b)
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


_DrivePrice = Callable[[Box, float], tuple[float, float]]
"""``gather_datasets``'s (price, TB under the line) of the cheapest drives of a server holding some
TB of local datasets."""


def _item_sig(item: Item) -> tuple:
    """What a move of ``item`` depends on: items alike in it are interchangeable."""
    return (item.gpus, item.ram_gb, item.cores, item.shared, tuple(map(id, item.replicas)))


class _Near:
    """``gather_datasets``: the servers a replica may go to: those holding one of its datasets, and
    those whose drives have room left (any other would need more drives: not a gathering);
    each as (server, its drives' price, TB under the line, TB it holds).

    Servers alike (same type and the same replicas in the same order) offer the same moves,
    and of those the first in order is the one taken (a later one must save more), so each
    list keeps the first two servers of each kind: the second stands in when the first is
    the server moving from. 10,000 servers of one replica each are a few candidates, not
    10,000 for each of 10,000 replicas."""

    def __init__(self, boxes: list[Box], config: _DrivePrice):
        self.holding: dict[str, list[tuple[Box, float, float, float]]] = {}
        self.roomy: list[tuple[Box, float, float, float]] = []
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

    def of(self, item: Item, box: Box) -> list[tuple[Box, float, float, float]]:
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


def _gather_move(box: Box, near: _Near,
                config: _DrivePrice, policy: Policy) -> bool:
    """``gather_datasets``: make the move (one replica of ``box`` reading a local dataset out, or a
    swap) that saves most on the two servers' drives; False when none saves anything."""
    here = config(box, box.local_tb)[0]
    best: Swap | None = None
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
                if not (room_for(box, item, back) and room_for(other, back, item)):
                    continue
                kept_tb = without if back is None else _tb_after(box, item, back)
                saved = (here + there - config(box, kept_tb)[0]
                         - config(other, _tb_after(other, back, item))[0])
                if saved <= 1e-6 or (best is not None and saved <= best[0] + 1e-9):
                    continue
                best = better_swap(best, saved, box, item, other, back, box.type, policy)
    return make_swap(box, best)


def _unlike(items: list[Item]) -> list[Item]:
    """``items`` in order, each kind (``_item_sig``) once: its first."""
    seen: set[tuple] = set()
    out = []
    for it in items:
        sig = _item_sig(it)
        if sig not in seen:
            seen.add(sig)
            out.append(it)
    return out


def _tb_after(box: Box, out: Item | None, into: Item | None) -> float:
    """The TB of distinct local datasets ``box`` holds without ``out`` and with ``into``,
    for ``gather_datasets``'s drive prices."""
    tb = box.local_tb
    gone: set[str] = set()
    if out is not None and out.datasets:
        kept = {n for it in box.items if it is not out for n in it.datasets}
        gone = {n for n in out.datasets if n not in kept}
        tb -= sum(out.datasets[n] for n in gone)
    if into is not None:
        tb += sum(v for n, v in into.datasets.items() if n not in box.datasets or n in gone)
    return tb
