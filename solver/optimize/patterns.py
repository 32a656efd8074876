"""Server patterns: which multisets of replica kinds one server holds (pure, no solver).

A kind is (GPUs d, host RAM r) of a replica option; a server of K GPU slots and usable RAM C
holds a multiset with Σ d ≤ K (power-of-two degrees pack within it, Lemma 1 of
docs/solver.md) and Σ r ≤ C. ``build.disaggregate`` turns these into program columns.
"""

from __future__ import annotations

MAX_PATTERNS = 5000
"""Most server patterns enumerated for one type before it is left to the summed model."""


def maximal_patterns(kinds: list[tuple[int, float]], slots: int, ram_cap: float,
                      limit: int) -> list[tuple[int, ...]] | None:
    """Every maximal multiset of kinds (GPUs d, RAM r) one server holds: Σd ≤ K, Σr ≤ C.

    GPU counts pack exactly within a server (Lemma 1). Returns None past ``limit``.
    """
    out: list[tuple[int, ...]] = []
    counts = [0] * len(kinds)

    def fits_more(gpus: int, ram: float) -> bool:
        return any(gpus + d <= slots and ram + r <= ram_cap + 1e-9 for d, r in kinds)

    def walk(i: int, gpus: int, ram: float) -> bool:
        if i == len(kinds):
            if not fits_more(gpus, ram):
                out.append(tuple(counts))
            return len(out) <= limit
        d, r = kinds[i]
        most = min((slots - gpus) // d if d else 10**9,
                   int((ram_cap - ram + 1e-9) // r) if r > 0 else 10**9)
        most = min(most, 10_000)
        for c in range(most, -1, -1):
            counts[i] = c
            if not walk(i + 1, gpus + c * d, ram + c * r):
                return False
        counts[i] = 0
        return True

    return out if walk(0, 0, 0.0) else None


def greedy_patterns(kinds: list[tuple[int, float]], slots: int,
                    ram_cap: float) -> list[tuple[int, ...]]:
    """One maximal pattern per kind: as many of it as fit, then the rest filled greedily."""
    out: set[tuple[int, ...]] = set()
    order = sorted(range(len(kinds)), key=lambda k: kinds[k][1])
    for first in range(len(kinds)):
        counts = [0] * len(kinds)
        gpus, ram = 0, 0.0
        for k in [first, *order]:
            d, r = kinds[k]
            while gpus + d <= slots and ram + r <= ram_cap + 1e-9 and (d or r):
                counts[k] += 1
                gpus, ram = gpus + d, ram + r
                if counts[k] > 10_000:
                    break
        out.add(tuple(counts))
    return sorted(out)


def best_pattern(kinds: list[tuple[int, float]], values: list[float], slots: int,
                 ram_cap: float) -> tuple[float, tuple[int, ...]]:
    """The pattern of most total value Σ a_k v_k within GPU slots and RAM (depth-first)."""
    idx = [k for k in range(len(kinds)) if values[k] > 1e-9]
    idx.sort(key=lambda k: -values[k] / max(kinds[k][1], 1e-9))
    best_value = 0.0
    best: tuple[int, ...] = tuple([0] * len(kinds))
    counts = [0] * len(kinds)

    def walk(j: int, gpus: int, ram: float, value: float) -> None:
        nonlocal best_value, best
        if value > best_value + 1e-9:
            best_value, best = value, tuple(counts)
        if j == len(idx):
            return
        rest = idx[j:]
        ratio = max(values[k] / max(kinds[k][1], 1e-9) for k in rest)
        if value + ratio * (ram_cap - ram) <= best_value + 1e-9:
            return  # even filling the RAM left at the best ratio cannot beat the best
        k = idx[j]
        d, r = kinds[k]
        most = min((slots - gpus) // d if d else 10_000,
                   int((ram_cap - ram + 1e-9) // r) if r > 0 else 10_000)
        for c in range(most, -1, -1):
            counts[k] = c
            walk(j + 1, gpus + c * d, ram + c * r, value + c * values[k])
        counts[k] = 0

    walk(0, 0, 0.0, 0.0)
    return best_value, best
