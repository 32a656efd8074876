"""Server patterns: which multisets of replica kinds one server holds (pure, no solver).

A kind is (GPUs d, host RAM r) of a replica option, or (d, r, CPU cores c) when the
platform's cores are checked (O3); a server of K GPU slots, usable RAM C and P cores holds a
multiset with Σ d ≤ K (power-of-two degrees pack within it, Lemma 1 of docs/solver.md),
Σ r ≤ C and Σ c ≤ P. ``program.columns.disaggregate`` turns these into program columns.
"""

from __future__ import annotations

from collections.abc import Sequence

MAX_PATTERNS = 5000
"""Most server patterns enumerated for one type before it is left to the summed model."""

Dims = tuple[float, ...]
"""A kind's size, or a server's capacity or use, per dimension: (GPUs, RAM GB[, cores])."""


def _caps(slots: int, ram_cap: float, cores_cap: float | None) -> Dims:
    return (slots, ram_cap) if cores_cap is None else (slots, ram_cap, cores_cap)


def _room(kind: Dims, used: Dims, caps: Dims) -> int:
    """How many more of ``kind`` fit beside ``used`` (every dimension), at most 10,000."""
    most = 10_000
    for k, u, c in zip(kind, used, caps, strict=False):
        if k > 0:
            most = min(most, int((c - u + 1e-9) // k))
    return max(most, 0)


def _nothing(kind: Dims) -> bool:
    return not any(kind)


def _add(used: Dims, kind: Dims, count: int) -> Dims:
    return tuple(u + count * k for u, k in zip(used, kind, strict=False))


def maximal_patterns(kinds: Sequence[Dims], slots: int, ram_cap: float, limit: int,
                     cores_cap: float | None = None) -> list[tuple[int, ...]] | None:
    """Every maximal multiset of kinds (GPUs d, RAM r[, cores c]) one server holds:
    Σd ≤ K, Σr ≤ C (and Σc ≤ P with ``cores_cap``).

    GPU counts pack exactly within a server (Lemma 1). Returns None past ``limit``.
    """
    caps = _caps(slots, ram_cap, cores_cap)
    dims = len(caps)
    out: list[tuple[int, ...]] = []
    counts = [0] * len(kinds)

    def fits_more(used: Dims) -> bool:
        return any(not _nothing(k[:dims]) and _room(k[:dims], used, caps) >= 1 for k in kinds)

    def walk(i: int, used: Dims) -> bool:
        if i == len(kinds):
            if not fits_more(used):
                out.append(tuple(counts))
            return len(out) <= limit
        kind = kinds[i][:dims]
        for c in range(_room(kind, used, caps), -1, -1):
            counts[i] = c
            if not walk(i + 1, _add(used, kind, c)):
                return False
        counts[i] = 0
        return True

    return out if walk(0, (0,) * dims) else None


def greedy_patterns(kinds: Sequence[Dims], slots: int, ram_cap: float,
                    cores_cap: float | None = None) -> list[tuple[int, ...]]:
    """One maximal pattern per kind: as many of it as fit, then the rest filled greedily."""
    caps = _caps(slots, ram_cap, cores_cap)
    dims = len(caps)
    out: set[tuple[int, ...]] = set()
    order = sorted(range(len(kinds)), key=lambda k: kinds[k][1])
    for first in range(len(kinds)):
        counts = [0] * len(kinds)
        used: Dims = (0,) * dims
        for k in [first, *order]:
            kind = kinds[k][:dims]
            if _nothing(kind):
                continue
            c = min(_room(kind, used, caps), 10_000 - counts[k])
            counts[k] += c
            used = _add(used, kind, c)
        out.add(tuple(counts))
    return sorted(out)


class SearchLimit(Exception):
    """``best_pattern`` visited more nodes than its ``limit``."""


def best_pattern(kinds: Sequence[Dims], values: list[float], slots: int, ram_cap: float,
                 cores_cap: float | None = None, limit: int | None = None,
                 most: Sequence[int] | None = None) -> tuple[float, tuple[int, ...]]:
    """The pattern of most total value Σ a_k v_k within GPU slots, RAM (and cores), each
    a_k at most ``most[k]`` when given, by depth-first search with a RAM-ratio bound;
    raises SearchLimit past ``limit`` nodes."""
    caps = _caps(slots, ram_cap, cores_cap)
    dims = len(caps)
    idx = [k for k in range(len(kinds)) if values[k] > 1e-9]
    idx.sort(key=lambda k: -values[k] / max(kinds[k][1], 1e-9))
    best_value = 0.0
    best: tuple[int, ...] = tuple([0] * len(kinds))
    counts = [0] * len(kinds)
    nodes = 0

    def walk(j: int, used: Dims, value: float) -> None:
        nonlocal best_value, best, nodes
        nodes += 1
        if limit is not None and nodes > limit:
            raise SearchLimit
        if value > best_value + 1e-9:
            best_value, best = value, tuple(counts)
        if j == len(idx):
            return
        rest = idx[j:]
        ratio = max(values[k] / max(kinds[k][1], 1e-9) for k in rest)
        if value + ratio * (ram_cap - used[1]) <= best_value + 1e-9:
            return  # even filling the RAM left at the best ratio cannot beat the best
        k = idx[j]
        kind = kinds[k][:dims]
        room = _room(kind, used, caps)
        for c in range(room if most is None else min(room, most[k]), -1, -1):
            counts[k] = c
            walk(j + 1, _add(used, kind, c), value + c * values[k])
        counts[k] = 0

    walk(0, (0,) * dims, 0.0)
    return best_value, best


def most_value(kinds: Sequence[Dims], values: list[float], caps: Dims, limit: int) -> float:
    """max Σ_k n_k values_k over n ∈ ℤ≥0 with Σ_k n_k kinds_k ≤ caps in every dimension (a
    capacity of 0 leaves that dimension unchecked): exact by ``best_pattern`` within
    ``limit`` nodes, else the least of the dimensions' fractional bounds cap × the best
    value per unit there (each an upper bound, so the answer never falls short)."""
    try:
        third = caps[2] if len(caps) > 2 else None
        return best_pattern(kinds, values, int(caps[0]), caps[1], third, limit=limit)[0]
    except SearchLimit:
        pass
    bound = float("inf")
    for d, cap in enumerate(caps):
        if cap <= 0:
            continue
        ratios = [v / k[d] if k[d] > 0 else float("inf") for k, v in zip(kinds, values,
                                                                          strict=True) if v > 0]
        bound = min(bound, cap * max(ratios, default=0.0))
    return bound
