"""The fewest-cost servers that hold a multiset of replica kinds, by column generation.

A family's servers (one platform and GPU, several memory configurations) must hold a
given multiset of items, each of a kind (GPUs d, host RAM r, cores c). As a set cover over
server patterns (a configuration and how many items of each kind it holds):

    min  Σ_p price_p λ_p    s.t.  Σ_p a_kp λ_p ≥ q_k  (every kind k),   λ_p ∈ ℤ≥0

Its LP is priced one configuration at a time: a pattern of configuration s enters when
Σ_k a_k π_k > price_s for the duals π of the demand rows, the most valuable one (a_k ≤ q_k)
a small knapsack over GPU slots, RAM and cores, found by the depth-first search of the
program's own patterns (``patterns.best_pattern``) or, past PRICING_NODES, by a MIP. Once
no pattern enters, the integer program over the patterns generated (and the ``start`` ones,
a packing already in hand, so the answer is never dearer) is solved within COVER_NODES
branch-and-bound nodes: every limit counts work, not seconds. Pure
numbers in, pure numbers out: ``expand`` turns its replicas into kinds and the patterns
back into servers. (Disks, O4, are not among the dimensions: the caller places what a
server's bays refuse.) HiGHS is imported on the first call, not with the module: expansion
is a stage that loads no solver (``tests/test_layout.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .patterns import SearchLimit, best_pattern

Kind = tuple[float, float, float]
"""An item's (GPUs, host RAM GB, CPU cores)."""
Pattern = tuple[int, tuple[int, ...]]
"""A configuration's index and how many items of each kind one such server holds."""

MAX_ROUNDS = 200
"""Pricing rounds of the LP at most (on a 1,000-workload mix's H200 family, 48 kinds and
three memory configurations: 61)."""
PRICING_NODES = 2_000
"""Nodes of ``patterns.best_pattern``'s search for one entering pattern before the pricing
falls back on a MIP (a family of three servers prices in a few hundred; the H200 family of
the generated 1,000-workload mix, 48 kinds, needs the MIP)."""
COVER_NODES = 2000
"""Branch-and-bound nodes of the integer program at most."""


@dataclass(frozen=True)
class ServerConfig:
    """One server configuration of the family: its price and capacities."""

    price: float
    slots: int
    ram_gb: float
    cores: float


def _quiet() -> Any:
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 1)
    return h


def cheapest_cover(kinds: Sequence[Kind], demand: Sequence[int], configs: Sequence[ServerConfig],
                   start: Sequence[Pattern]) -> list[Pattern]:
    """The patterns (one per server, repeated as bought) of least total price found that
    hold ``demand[k]`` items of each kind; ``start``, a cover in hand (one pattern per
    server), seeds the columns and the integer program, and comes back as it is when
    nothing cheaper is found. Deterministic: the limits count rounds and nodes, not seconds."""
    from .engines import quiet_stdout

    with quiet_stdout():  # HiGHS's banner, printed from C++ by its first model
        return _cover(kinds, demand, configs, start)


def _cover(kinds: Sequence[Kind], demand: Sequence[int], configs: Sequence[ServerConfig],
           start: Sequence[Pattern]) -> list[Pattern]:
    import highspy

    columns: dict[Pattern, None] = dict.fromkeys(p for p in start)
    lp = _master(demand, configs, list(columns))
    for _ in range(MAX_ROUNDS):
        lp.run()
        if lp.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        duals = [max(0.0, d) for d in lp.getSolution().row_dual]
        entered = False
        for s, config in enumerate(configs):
            value, counts = _best_pattern(kinds, demand, duals, config)
            if value > config.price * (1 + 1e-9) + 1e-6 and (s, counts) not in columns:
                columns[(s, counts)] = None
                _add_pattern(lp, configs, (s, counts))
                entered = True
        if not entered:
            break
    return _integer_cover(list(columns), demand, configs, start)


def _master(demand: Sequence[int], configs: Sequence[ServerConfig],
            columns: list[Pattern]) -> Any:
    """The cover over ``columns``: one row Σ_p a_kp λ_p ≥ q_k per kind, one column each."""
    import highspy

    h = _quiet()
    for q in demand:
        h.addRow(float(q), highspy.kHighsInf, 0, [], [])
    for p in columns:
        _add_pattern(h, configs, p)
    return h


def _add_pattern(h: Any, configs: Sequence[ServerConfig], p: Pattern) -> None:
    import highspy

    s, counts = p
    rows = [k for k, a in enumerate(counts) if a]
    h.addCol(configs[s].price, 0.0, highspy.kHighsInf, len(rows), rows,
             [float(counts[k]) for k in rows])


def _best_pattern(kinds: Sequence[Kind], demand: Sequence[int], values: Sequence[float],
                  config: ServerConfig) -> tuple[float, tuple[int, ...]]:
    """max Σ a_k v_k over one server of ``config``, a_k ≤ demand_k: ``patterns.best_pattern``'s
    search, else, past PRICING_NODES nodes, a small MIP."""
    try:
        cores = None if math.isinf(config.cores) else config.cores  # no cores listed: unchecked
        return best_pattern(kinds, list(values), config.slots, config.ram_gb, cores,
                            limit=PRICING_NODES, most=demand)
    except SearchLimit:
        pass
    import highspy

    h = _quiet()
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    n = len(kinds)
    for q, v in zip(demand, values, strict=True):
        h.addCol(v, 0.0, float(q), 0, [], [])
    _integers(h, n)
    for dim, cap in ((0, config.slots), (1, config.ram_gb), (2, config.cores)):
        h.addRow(-highspy.kHighsInf, float(cap) + 1e-9, n, list(range(n)),
                 [float(k[dim]) for k in kinds])
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return 0.0, (0,) * n
    counts = tuple(round(x) for x in h.getSolution().col_value)
    return sum(a * v for a, v in zip(counts, values, strict=True)), counts


def _integers(h: Any, n: int) -> None:
    """Columns 0..n-1 of ``h`` integer."""
    import numpy as np

    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.ones(n, dtype=np.uint8))


def _integer_cover(columns: list[Pattern], demand: Sequence[int], configs: Sequence[ServerConfig],
                   start: Sequence[Pattern]) -> list[Pattern]:
    """The integer program over ``columns`` (``start``'s among them), within COVER_NODES
    branch-and-bound nodes; ``start`` itself when it finds nothing cheaper. (HiGHS is not
    handed ``start`` as its first solution: from one, HiGHS 1.16 stopped at it.)"""
    h = _master(demand, configs, columns)
    h.setOptionValue("mip_max_nodes", COVER_NODES)
    _integers(h, len(columns))
    h.run()
    if h.getInfo().primal_solution_status != 2:
        return list(start)
    chosen: list[Pattern] = []
    for p, x in zip(columns, h.getSolution().col_value, strict=True):
        chosen += [p] * round(x)
    price = sum(configs[s].price for s, _ in chosen)
    return chosen if price < sum(configs[s].price for s, _ in start) else list(start)
