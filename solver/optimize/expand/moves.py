"""Moving a replica between two servers, or swapping two: found by ``gather_datasets`` (O4 drives)
and ``memory.shed`` (DIMMs), checked on both servers, then made.
"""

from __future__ import annotations

from ...inputs.policy import Policy
from ...rules import usable
from ..candidates import ServerType, cores_of
from .box import Box, Item, fits

Swap = tuple[float, "Box", "Box", "Box"]
"""A move or swap found by ``shed`` or ``gather_datasets``: (what it saves, the other server, the
server as it would be, the other as it would be)."""


def better_swap(best: Swap | None, gain: float, box: Box, item: Item, other: Box,
            back: Item | None, t: ServerType, policy: Policy) -> Swap | None:
    """``best``, or the move of ``item`` from ``box`` (as type ``t``) to ``other`` with
    ``back`` the other way, saving ``gain``, when it fits both servers (the caller checked
    that it saves more than ``best``)."""
    kept = _swapped(box, item, back, t, policy)
    taken = _swapped(other, back, item, other.type, policy) if kept is not None else None
    return best if kept is None or taken is None else (gain, other, kept, taken)


def make_swap(box: Box, best: Swap | None) -> bool:
    """Make the move ``best`` (``shed``, ``gather_datasets``); False when there is none."""
    if best is None:
        return False
    _, other, kept, taken = best
    _assign(box, kept)
    _assign(other, taken)
    return True


def _swapped(box: Box, out: Item | None, into: Item | None, t: ServerType,
          policy: Policy) -> Box | None:
    """``box`` as a server of type ``t``, without ``out`` and with ``into``; None when
    that does not fit (GPU slots, RAM, cores, disk)."""
    new = Box(t)
    for it in box.items:
        if it is not out:
            new.add(it)
    cap = usable(t.ram_gb, policy)
    if into is None:
        return new if new.ram_used <= cap + 1e-9 else None
    if not fits(new, into, cap, policy):
        return None
    new.add(into)
    return new


def room_for(box: Box, out: Item | None, into: Item | None) -> bool:
    """A quick test before ``_swapped``: ``box`` without ``out`` has the GPU slots, CPU
    cores and (unrounded) RAM for ``into``; the rest ``_swapped`` checks."""
    if into is None:
        return True
    t = box.type
    gone = (out.gpus, out.ram_gb, out.cores) if out is not None else (0, 0.0, 0.0)
    return (box.gpus_used - gone[0] + into.gpus <= t.gpu_slots
            and box.ram_used - gone[1] + into.ram_gb <= t.ram_gb + 1e-9
            and box.cores_used - gone[2] + into.cores <= cores_of(t) + 1e-9)


def _assign(box: Box, new: Box) -> None:
    """Make ``box`` (held in the pool's lists) what ``new`` is."""
    box.type, box.gpus_used, box.ram_used = new.type, new.gpus_used, new.ram_used
    box.items, box.cores_used, box.datasets = new.items, new.cores_used, new.datasets
