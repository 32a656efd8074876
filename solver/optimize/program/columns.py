"""Server patterns: one type modelled by the multisets of replica kinds one server holds
(exact where its sums failed to pack), and new patterns priced from LP duals."""

from __future__ import annotations

from ...inputs.policy import Policy
from ...rules import usable
from ..lp import pulp
from ..outcome import Kind, kind_of
from ..patterns import MAX_PATTERNS, best_pattern, greedy_patterns, maximal_patterns, most_value
from ..replicas import ReplicaOption
from .model import Model, PatternModel, PricedType, gpu_of
from .names import row_name


def disaggregate(m: Model, key: str, policy: Policy, limit: int = MAX_PATTERNS,
                 optimistic: bool = False) -> bool:
    """Model one server type by server *patterns*: exact where summed RAM failed to pack.

    Replicas of the type are grouped into kinds of equal (GPUs, host RAM); a pattern π is a
    maximal multiset of kinds one server holds (Σ d ≤ K_t, Σ r ≤ (1 − h) R_t, and with
    the platform's cores known, Σ c ≤ cores_p: kinds are then (d, r, c)), and
    p_π ∈ ℤ≥0 counts servers built to it:  n_t = Σ_π p_π,  Σ_π a_kπ p_π ≥ Σ_{o ∈ k} x_wot.
    Patterns are downward closed, so any x covered this way packs server by server; every
    real plan is covered, so the program stays a relaxation (the bound stays valid).
    Shared GPUs count as a kind of one GPU carrying the most RAM a full shared GPU can need
    (conservative: ``m.conservative`` turns True, as the bound then proves nothing). With
    ``optimistic``, a shared GPU is a kind of one GPU and no RAM or cores instead: every
    real server is still covered (its shared replicas' RAM and cores stay in the type's sum
    rows), so the program stays a relaxation, though its plan may not pack: a bound for
    plans the conservative kind found (``bounds.pattern_bound``).

    When the maximal patterns exceed ``limit``, the type starts from one greedy pattern per
    kind and more are *priced* from the LP duals (``price_patterns``, column generation).
    The program then chooses among the patterns generated so far, a restriction: its MIP
    bound proves nothing, but once pricing finds no better pattern the LP value is a valid
    lower bound (``m.lp_bound``), which plans are reported against.
    """
    if key in m.patterns:
        return True
    t = m.types[key]
    kinds, shared_kind = _pattern_kinds(m, key, policy, optimistic)
    if not kinds:
        return False
    shape = tuple(kinds)
    ram_cap = usable(t.ram_gb, policy)
    cores_cap = t.platform.cpu_cores
    patterns = maximal_patterns(shape, t.gpu_slots, ram_cap, limit, cores_cap)
    if patterns is None:
        patterns = greedy_patterns(shape, t.gpu_slots, ram_cap, cores_cap)
        m.priced[key] = PricedType(shape, t.gpu_slots, ram_cap, cores_cap)
    m.patterns[key] = PatternModel(
        kinds=shape,
        covers=tuple(kinds[kind] for kind in shape),
        shared_kind=shape.index(shared_kind) if shared_kind is not None else None,
        link_row=row_name("pattern.link", key),
        cover_rows=tuple(row_name("pattern.cover", key, k) for k in range(len(shape))),
        cores_cap=cores_cap,
    )
    for pat in patterns:
        _add_pattern(m, key, pat)
    _write_pattern_rows(m, key)
    return True


def takes_nothing(o: ReplicaOption, cores_cap: int | None) -> bool:
    """No GPU, no host RAM and, where cores are checked, no cores: no pattern counts it."""
    return o.degree == 0 and o.ram_gb <= 0 and (cores_cap is None or o.cores <= 0)


def bare_gpu(cores_cap: int | None) -> Kind:
    """A shared GPU as an optimistic pattern kind: one GPU and nothing else (its replicas'
    RAM and cores stay in the type's sum rows)."""
    return kind_of(1, 0.0, None if cores_cap is None else 0.0)


def _pattern_kinds(m: Model, key: str, policy: Policy, optimistic: bool = False,
                   ) -> tuple[dict[Kind, list[pulp.LpVariable]], Kind | None]:
    """A type's replicas grouped by kind (GPUs, host RAM[, CPU cores where the platform's are
    checked, O3]), each with the variables it covers, and the one-GPU kind standing for a
    shared GPU (None without one).

    A shared GPU carries the most RAM a full one can need: conservative, so this marks the
    program as no longer a relaxation (``m.conservative``); with ``optimistic``, none (a
    relaxation: ``disaggregate``).
    """
    entries = [((w, oi), v) for (w, oi, k), v in m.x.items() if k == key]
    exclusive = [(wk, v) for wk, v in entries if not m.options[wk].shared]
    shared = [(wk, v) for wk, v in entries if m.options[wk].shared]
    cores_cap = m.types[key].platform.cpu_cores
    kinds: dict[Kind, list[pulp.LpVariable]] = {}
    for wk, v in exclusive:
        o = m.options[wk]
        if takes_nothing(o, cores_cap):
            continue
        kinds.setdefault(pattern_kind(o, cores_cap), []).append(v)
    shared_kind = None
    if shared and key in m.shared and optimistic:
        shared_kind = bare_gpu(cores_cap)
        kinds.setdefault(shared_kind, []).append(m.shared[key])
    elif shared and key in m.shared:
        vram_cap = usable(gpu_of(m, key).vram_gb, policy)
        opts = [m.options[wk] for wk, _ in shared]
        # The most RAM (and cores) one full shared GPU can need, over every mix of the
        # shareable options that fits its VRAM (and the server's cores): a knapsack, since
        # two different jobs on one GPU can need more RAM than a GPU full of either.
        per_gpu = _most_on_shared_gpu(opts, [o.ram_gb for o in opts], vram_cap, cores_cap)
        shared_kind = kind_of(1, per_gpu, None if cores_cap is None else _most_on_shared_gpu(
            opts, [o.cores for o in opts], vram_cap, cores_cap))
        kinds.setdefault(shared_kind, []).append(m.shared[key])
        m.conservative = True
    return kinds, shared_kind


def _most_on_shared_gpu(opts: list[ReplicaOption], values: list[float], vram_cap: float,
                        cores_cap: int | None) -> float:
    """max Σ_o n_o value_o over replica counts n_o that one shared GPU holds together:
    Σ n_o vram_o ≤ vram_cap and, where cores are checked, Σ n_o c_o ≤ cores_p (the GPU's
    replicas all run on its one server). The knapsack of ``best_pattern``, with the cores
    as its first dimension and VRAM as its second."""
    kinds = [(o.cores if cores_cap is not None else 0.0, o.vram_gb) for o in opts]
    # Exact within SHARED_KNAPSACK_NODES, else an upper bound (still conservative): many
    # small shareable jobs make the exact search explode (seconds per type at N = 200).
    return most_value(kinds, values, (cores_cap if cores_cap is not None else 0, vram_cap),
                      SHARED_KNAPSACK_NODES)


SHARED_KNAPSACK_NODES = 20_000
"""Nodes the exact shared-GPU knapsack may visit before its fractional bound is used."""


def pattern_kind(o: ReplicaOption, cores_cap: int | None) -> Kind:
    """The kind a replica option is grouped under in server patterns: (GPUs, RAM[, cores]),
    cores only where the platform's are checked (``cores_cap`` not None, O3)."""
    return kind_of(o.degree, o.ram_gb, None if cores_cap is None else o.cores)


def _add_pattern(m: Model, key: str, pattern: tuple[int, ...]) -> None:
    pm = m.patterns[key]
    pm.patterns.append(pattern)
    pm.counts.append(
        pulp.LpVariable(f"p_{m.index[key]}_{len(pm.counts)}", 0, m.n_ub, cat="Integer"))


def _write_pattern_rows(m: Model, key: str) -> None:
    """(Re)write n_t = Σ p and the coverage rows of a pattern-modelled type."""
    pm = m.patterns[key]
    for name in (pm.link_row, *pm.cover_rows):
        m.prob.constraints.pop(name, None)
    m.prob += m.n[key] - pulp.lpSum(pm.counts) == 0, pm.link_row
    for k, (members, row) in enumerate(zip(pm.covers, pm.cover_rows)):
        covered = pulp.lpSum(pat[k] * p for pat, p in zip(pm.patterns, pm.counts))
        m.prob += covered - pulp.lpSum(members) >= 0, row


def price_patterns(m: Model, duals: dict[str, float]) -> int:
    """Add, per priced type, the pattern of most negative reduced cost (column generation).

    With duals y of n_t − Σ p = 0 (y_link) and of the coverage rows (y_k ≥ 0), a new pattern
    a has reduced cost y_link − Σ_k a_k y_k; the best one solves a knapsack over GPU slots
    and RAM. ``duals`` holds each row's dual by name (``Model.pattern_rows``). Returns how
    many patterns were added.
    """
    added = 0
    for key, priced in m.priced.items():
        pm = m.patterns[key]
        link = duals.get(pm.link_row, 0.0)
        values = [max(0.0, duals.get(row, 0.0)) for row in pm.cover_rows]
        value, pattern = best_pattern(list(priced.kinds), values, priced.slots, priced.ram_cap,
                                      priced.cores_cap)
        if value > link + 1e-6 and pattern not in pm.patterns:
            _add_pattern(m, key, pattern)
            _write_pattern_rows(m, key)
            added += 1
    return added
