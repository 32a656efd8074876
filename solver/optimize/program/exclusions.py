"""Rows that cut off a plan already found: another purchase list (the alternatives), a
disk choice that rounded up (O4), and the reference servers only (R20)."""

from __future__ import annotations

from ..lp import pulp
from ..outcome import Outcome
from .model import Model
from .names import row_name


def bom_vector(m: Model, platforms: bool) -> dict[str, pulp.LpAffineExpression]:
    """The purchase list that distinguishes options: GPUs by SKU (and platforms, if asked)."""
    vec: dict[str, list] = {}
    for key, t in m.types.items():
        if t.owned:
            continue  # owned servers (P4) are not purchases
        if platforms:
            vec.setdefault(t.platform.sku, []).append(m.n[key])
        if t.gpu is not None:
            vec.setdefault(t.gpu.sku, []).append(m.gpus(key))
    return {sku: pulp.lpSum(terms) for sku, terms in vec.items()}


def exclude_bom(m: Model, counts: dict[str, int], ub: int, platforms: bool = False) -> None:
    """Cut off one purchase list: at least one SKU count must differ from ``counts``.

    By default options must differ in their GPU mix (what finance compares: 4 x A100 80GB
    vs 8 x A100 40GB); with ``platforms`` a different server mix alone is enough.

    For each SKU c with value c*: lo_c → c ≤ c* − 1, hi_c → c ≥ c* + 1, Σ (lo + hi) ≥ 1.
    """
    m.cuts += 1
    flags = []
    for i, (sku, expr) in enumerate(bom_vector(m, platforms).items()):
        star = counts.get(sku, 0)
        hi = pulp.LpVariable(f"hi_{m.cuts}_{i}", cat="Binary")
        m.prob += expr >= (star + 1) * hi, row_name("distinct.hi", m.cuts, i)
        flags.append(hi)
        if star > 0:
            lo = pulp.LpVariable(f"lo_{m.cuts}_{i}", cat="Binary")
            m.prob += expr <= star - 1 + (ub + 1) * (1 - lo), row_name("distinct.lo", m.cuts, i)
            flags.append(lo)
    m.prob += pulp.lpSum(flags) >= 1, row_name("distinct", m.cuts)


def exclude_disk_choice(m: Model, keys: tuple[str, ...], out: Outcome) -> None:
    """O4: cut off the solve's choice on types whose drives, rounded per server, cost more
    than its disk rows said: at least one of n_t and X_wt = Σ_o x_wot (w reading its data
    locally) differs from its value in ``out`` for some t in ``keys`` (binaries as in
    ``exclude_bom``). This cuts off real plans too, so the program is a *restriction* while
    such rows are in it (``Model.exact`` is False: its bounds prove nothing, those proven
    before stand); ``drop_disk_choices`` removes them."""
    m.cuts += 1
    exprs: list[tuple[pulp.LpAffineExpression, int]] = []
    for key in keys:
        exprs.append((pulp.lpSum([m.n[key]]), out.n.get(key, 0)))
        for name in sorted({w for w, k in m.hosts if k == key}):
            xs = [(i, v) for (w, i, k), v in m.x.items() if w == name and k == key]
            exprs.append((pulp.lpSum(v for _, v in xs),
                          sum(out.x.get((name, i, key), 0) for i, _ in xs)))
    ub = m.n_ub  # at least every n_t and every workload's replicas
    flags = []
    for i, (expr, star) in enumerate(exprs):
        hi = pulp.LpVariable(f"dhi_{m.cuts}_{i}", cat="Binary")
        m.nogood_flags.append(hi)
        m.prob += expr >= (star + 1) * hi, row_name("disk.choice.hi", m.cuts, i)
        m.nogoods.append(row_name("disk.choice.hi", m.cuts, i))
        flags.append(hi)
        if star > 0:
            lo = pulp.LpVariable(f"dlo_{m.cuts}_{i}", cat="Binary")
            m.nogood_flags.append(lo)
            m.prob += expr <= star - 1 + (ub + 1) * (1 - lo), row_name("disk.choice.lo", m.cuts, i)
            m.nogoods.append(row_name("disk.choice.lo", m.cuts, i))
            flags.append(lo)
    m.prob += pulp.lpSum(flags) >= 1, row_name("disk.choice", m.cuts)
    m.nogoods.append(row_name("disk.choice", m.cuts))


def drop_disk_choices(m: Model) -> None:
    """Remove every ``exclude_disk_choice`` row and its binaries: the program is a
    relaxation again."""
    for name in m.nogoods:
        m.prob.constraints.pop(name, None)
    m.nogoods.clear()
    # PuLP 3.3 keeps a variable once it has been in a row, and writes its bounds to the MPS
    # file CBC reads even when no row holds it any more, which CBC refuses ("No match for
    # column"); it has no public call to forget one.
    gone = {id(v) for v in m.nogood_flags}
    m.prob._variables = [v for v in m.prob._variables if id(v) not in gone]
    for v in m.nogood_flags:
        m.prob._variable_ids.pop(v.hash, None)
    m.nogood_flags.clear()


def require_reference(m: Model, type_keys: set[str], gpus_per_server: dict[str, int]) -> None:
    """Only the reference server types may be bought (R20), each with its reference GPUs.

    n_t = 0 for t ∉ reference types;  G_t ≤ k_ref · n_t for the reference GPU types.
    The caller prices each bought server with k_ref GPUs.
    """
    for key, v in m.n.items():
        if key not in type_keys:
            m.prob += v == 0, row_name("reference.only", key)
    for key, k in gpus_per_server.items():
        m.prob += m.gpus(key) <= k * m.n[key], row_name("reference.gpus", key)
