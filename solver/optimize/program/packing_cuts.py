"""Cuts added after a type's replicas failed to pack: Martello-Toth bin-packing cuts on
host RAM, cores and shared VRAM, and pattern-LP cuts (all valid for every plan)."""

from __future__ import annotations

from ...inputs.policy import Policy
from ...rules import usable
from ..lp import pulp
from ..outcome import Kind
from .board_cuts import MAX_CUT_LEVELS
from .columns import pattern_kind, takes_nothing
from .model import Model, gpu_of
from .names import row_name


def _bin_packing_cuts(count: pulp.LpVariable, items: list[tuple[float, pulp.LpVariable]],
                      cap: float) -> list[pulp.LpConstraint]:
    """Martello-Toth L2 lower bounds on bins, as linear cuts ``count ≥ ...``.

    For a threshold α ≤ C/2: J1 = {size > C − α}, J2 = {C/2 < size ≤ C − α},
    J3 = {α ≤ size ≤ C/2}. J1 items sit alone, J2 items need a bin each, and J3 items fill
    at most what J2 bins leave:  bins ≥ |J1| + |J2| + (Σ_J3 size − Σ_J2 (C − size)) / C.
    Every term is linear in the item counts, so the cut is valid for any assignment.
    """
    cuts = [count >= pulp.lpSum(_over_half(items, cap))]
    alphas = sorted({size for size, _ in items if 0 < size <= cap / 2 + 1e-9})
    if len(alphas) > MAX_CUT_LEVELS:
        step = len(alphas) / MAX_CUT_LEVELS
        alphas = [alphas[int(i * step)] for i in range(MAX_CUT_LEVELS)]
    for a in alphas:
        j12 = _over_half(items, cap)
        j2 = [(size, v) for size, v in items if cap / 2 + 1e-9 < size <= cap - a + 1e-9]
        j3 = [(size, v) for size, v in items if a - 1e-9 <= size <= cap / 2 + 1e-9]
        if not j3:
            continue
        fill = pulp.lpSum(size * v for size, v in j3) - pulp.lpSum((cap - size) * v for size, v in j2)
        cuts.append(count >= pulp.lpSum(j12) + (1.0 / cap) * fill)
    return cuts


def _over_half(items: list[tuple[float, pulp.LpVariable]], cap: float) -> list[pulp.LpVariable]:
    """The items of size over half of ``cap``: no two share a bin."""
    return [v for size, v in items if size > cap / 2 + 1e-9]


def _shared_vram(m: Model, key: str,
                 policy: Policy) -> tuple[list[tuple[float, pulp.LpVariable]], float]:
    """A type's shared replicas as (VRAM, y_ot), and a GPU's usable VRAM."""
    return ([(o.vram_gb, v) for o, v in m.on_type[key] if o.shared],
            usable(gpu_of(m, key).vram_gb, policy))


def add_shared_big_rows(m: Model, policy: Policy) -> list[str]:
    """s_t ≥ Σ_{v_o > U_g/2} y_ot on every type with shared GPUs: no two shared replicas of
    over half a GPU's usable VRAM share one (the first of the bin-packing cuts on shared
    VRAM, valid for every plan). Returns the rows' names (``shared.big(t)``), so a caller
    can take them out again."""
    names = []
    for key, s_t in m.shared.items():
        big = _over_half(*_shared_vram(m, key, policy))
        name = row_name("shared.big", key)
        if big and name not in m.prob.constraints:
            m.prob += s_t >= pulp.lpSum(big), name
            names.append(name)
    return names


def add_packing_cuts(m: Model, key: str, policy: Policy) -> int:
    """Tighten one server type after its replicas failed to pack (host RAM, CPU cores where
    the platform's are checked (O3), and shared VRAM).

    Returns the number of cuts added. Cuts are valid for every solution, so optimality holds.
    Rows ``pack.ram(t,j)``, ``pack.cores(t,j)`` and ``pack.vram(t,j)``; added once
    per type.
    """
    t = m.types[key]
    ram_items = [(o.ram_gb, v) for o, v in m.on_type[key]]
    cuts = [(row_name("pack.ram", key, j), cut) for j, cut in
            enumerate(_bin_packing_cuts(m.n[key], ram_items, usable(t.ram_gb, policy)))]
    if t.platform.cpu_cores:  # None: unchecked; 0: no replica needing cores is offered
        core_items = [(o.cores, v) for o, v in m.on_type[key]]
        cuts += [(row_name("pack.cores", key, j), cut) for j, cut in
                 enumerate(_bin_packing_cuts(m.n[key], core_items, float(t.platform.cpu_cores)))]
    if key in m.shared:
        cuts += [(row_name("pack.vram", key, j), cut) for j, cut in
                 enumerate(_bin_packing_cuts(m.shared[key], *_shared_vram(m, key, policy)))]
    for name, cut in cuts:
        m.prob += cut, name
    return len(cuts)


def pattern_cut_kinds(m: Model, key: str) -> dict[Kind, list[pulp.LpVariable]]:
    """The exclusive replica kinds (GPUs, RAM[, cores]) of one type with their x_wot, as
    ``add_pattern_cut`` weighs them (shared replicas are left out: a weight of 0 is valid)."""
    cores_cap = m.types[key].platform.cpu_cores
    kinds: dict[Kind, list[pulp.LpVariable]] = {}
    for o, v in m.on_type[key]:
        if o.shared or takes_nothing(o, cores_cap):
            continue
        kinds.setdefault(pattern_kind(o, cores_cap), []).append(v)
    return kinds


def add_pattern_cut(m: Model, key: str, weights: dict[Kind, float]) -> bool:
    """A pattern-LP cut on one type:  n_t ≥ Σ_k w_k Σ_{o ∈ k} x_wot  (``pack.lp(t,j)``).

    The weights satisfy Σ_k a_k w_k ≤ 1 for every pattern a one server of the type holds
    (GPU slots, usable RAM and, where checked, cores; ``tighten.pattern_cut_weights``), so each
    server carries replicas of total weight at most 1 and every plan satisfies the cut: the
    program stays a relaxation. They are the duals of the type's pattern LP at the counts of
    the last solve, so the cut is as strong as server patterns there, at the cost of one row.
    """
    kinds = pattern_cut_kinds(m, key)
    terms = [w * v for kind, w in weights.items() if w > 1e-9 for v in kinds.get(kind, [])]
    if not terms:
        return False
    j = 0  # the type's next cut (none is ever removed)
    while row_name("pack.lp", key, j) in m.prob.constraints:
        j += 1
    m.prob += m.n[key] >= pulp.lpSum(terms), row_name("pack.lp", key, j)
    return True
