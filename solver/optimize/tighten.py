"""Tightening the program between rounds, each cut valid for every plan (the program stays
a relaxation): a failed type's pattern-LP and Martello-Toth cuts (``tighten``), the pattern
LP's weights, the root cuts at the LP relaxation's point before the first integer solve,
and the column generation of priced server patterns (docs/solver.md, "Cuts when the sums
lie").
"""

from __future__ import annotations

import time

from ..inputs.policy import Policy
from ..inputs.workload import WorkloadFile
from ..rules import usable
from . import tuning
from .budget import Budget
from .engines import LpHighs, quiet_stdout
from .lp import pulp
from .outcome import Kind
from .patterns import SearchLimit, best_pattern, greedy_patterns
from .program import Model, add_packing_cuts, add_pattern_cut, pattern_cut_kinds, price_patterns
from .solve import lp_duals


def tighten(m: Model, key: str, bought: float, wf: WorkloadFile) -> bool:
    """One more packing failure of type ``key`` (counted in ``m.failures``), bought ``bought``
    servers: a pattern-LP cut at that count unless the type is on patterns, and the
    Martello-Toth cuts the first time. Whether a cut was added."""
    m.failures[key] = m.failures.get(key, 0) + 1
    cut = False
    if key not in m.patterns:
        cut = _pattern_cut(m, key, bought, wf.policy)
    if m.failures[key] == 1:
        cut |= _cuts_off_plan(m, key, wf)
    return cut


def _cuts_off_plan(m: Model, key: str, wf: WorkloadFile) -> bool:
    """Add a failed type's packing cuts; whether any of them cuts off the plan just solved
    (the model's variables still hold its values)."""
    before = set(m.prob.constraints)
    add_packing_cuts(m, key, wf.policy)
    new = [row for name, row in m.prob.constraints.items() if name not in before]
    # A row over a variable without a value (none solved yet) counts as cutting it off.
    return any(row.value() is None or not row.valid(1e-6) for row in new)


def _pattern_cut(m: Model, key: str, bought: float, policy: Policy) -> bool:
    """Add the pattern-LP cut of a type that failed to pack, weighed at the counts of the
    solve just read (its variables' values, fractional after an LP); True when it cuts that
    solution off."""
    t = m.types[key]
    kinds = pattern_cut_kinds(m, key)
    present = {kind: sum(v.varValue or 0.0 for v in vs) for kind, vs in kinds.items()}
    present = {kind: c for kind, c in present.items() if c > 1e-6}
    if not present:
        return False
    shape = list(present)
    weights = pattern_cut_weights(shape, [present[k] for k in shape], t.gpu_slots,
                                  usable(t.ram_gb, policy), t.platform.cpu_cores)
    if weights is None or sum(w * present[k] for k, w in zip(shape, weights,
                                                             strict=True)) <= bought + 1e-6:
        return False
    return add_pattern_cut(m, key, dict(zip(shape, weights, strict=True)))


def pattern_cut_weights(kinds: list[Kind], counts: list[float], slots: int, ram_cap: float,
                        cores_cap: float | None) -> list[float] | None:
    """Weights w_k ≥ 0 with Σ_k a_k w_k ≤ 1 for every pattern a one server holds (Σ a_k d_k ≤
    slots, Σ a_k r_k ≤ ram_cap[, Σ a_k c_k ≤ cores_cap]), chosen to maximise Σ_k w_k counts_k:
    the duals of the pattern LP min Σ_π p_π s.t. Σ_π a_kπ p_π ≥ counts_k, priced by column
    generation from one greedy pattern per kind. Whatever the LP reached, the weights are
    divided by the most any pattern weighs (an exact knapsack), so n ≥ Σ w_k x_k holds for
    every plan. None when the knapsack is too large to check exactly, or HiGHS is missing.
    """
    if not pulp.HiGHS().available():
        return None
    patterns = greedy_patterns(kinds, slots, ram_cap, cores_cap)
    weights = [0.0] * len(kinds)
    try:
        for _ in range(tuning.PATTERN_LP_ROUNDS):
            lp = pulp.LpProblem("pattern_lp", pulp.LpMinimize)
            p = [pulp.LpVariable(f"p{j}", 0) for j in range(len(patterns))]
            lp += pulp.lpSum(p)
            for i, need in enumerate(counts):
                lp += pulp.lpSum(pat[i] * v for pat, v in zip(patterns, p, strict=True)
                                 if pat[i]) >= need, f"c{i}"
            with quiet_stdout():
                lp.solve(LpHighs())
            if lp.sol_status != pulp.LpSolutionOptimal:
                return None
            weights = [max(0.0, lp.constraints[f"c{i}"].pi or 0.0) for i in range(len(kinds))]
            value, pattern = best_pattern(kinds, weights, slots, ram_cap, cores_cap,
                                          limit=tuning.PATTERN_SEARCH_NODES)
            if value <= 1 + 1e-9 or pattern in patterns:
                break
            patterns.append(pattern)
        most, _ = best_pattern(kinds, weights, slots, ram_cap, cores_cap,
                               limit=tuning.PATTERN_SEARCH_NODES)
    except SearchLimit:
        return None
    return [w / max(1.0, most) for w in weights]


def root_rounds(m: Model, clock: Budget) -> int:
    """How many root rounds a time limit leaves room for: tuning.ROOT_CUT_ROUNDS, fewer where
    their estimated seconds (``tuning.ROOT_ROUND_S`` at 10,000 rows, growing with rows^1.5, the
    whole LP counted) would pass tuning.ROOT_SHARE of the work left in calibrated seconds (the work
    budget's own measure, so the count is the same on every run); never fewer than
    tuning.ROOT_MIN_ROUNDS."""
    left = clock.nominal_left(m.size)
    if left is None:
        return tuning.ROOT_CUT_ROUNDS
    each = tuning.ROOT_ROUND_S * (len(m.prob.constraints) / 10_000) ** 1.5
    return max(tuning.ROOT_MIN_ROUNDS,
               min(tuning.ROOT_CUT_ROUNDS, int(tuning.ROOT_SHARE * left / each)))


def root_cuts(m: Model, policy: Policy, clock: Budget) -> None:
    """Pattern-LP cuts at the LP relaxation's point, for every type it uses, before the first
    integer solve (a cutting-plane root: each LP takes a fraction of an integer solve, and the
    cuts hold for every plan), ``root_rounds`` times. Skipped without HiGHS. On a machine
    slower than calibrated the clock stops them too once they used tuning.ROOT_SHARE of the seconds
    left (a rerun may then differ: noted)."""
    start, left = time.perf_counter(), clock.seconds_left()
    for _ in range(root_rounds(m, clock)):
        if left is not None and time.perf_counter() - start > tuning.ROOT_SHARE * left:
            clock.clock_skipped += 1
            return
        if relaxation(m, clock) is None:
            return
        added = 0
        for key, n in m.n.items():
            if (n.varValue or 0.0) > 1e-6 and key not in m.patterns:
                added += _pattern_cut(m, key, n.varValue or 0.0, policy)
        if not added:
            return


def relaxation(m: Model, clock: Budget) -> dict[str, float] | None:
    """``lp_duals`` of the whole program, its seconds counted (``Budget.spend_lp``: a solve of
    the whole program is not started with less than tuning.ROOT_LP_TIMES times as many left); on a
    minimisation that is a relaxation of the plan rules (``Model.exact``) its value bounds
    every plan (``m.lp_bound``), so a run the clock ends before the integer search of the
    whole program still reports a proven gap."""
    began = time.perf_counter()
    duals = lp_duals(m)
    clock.spend_lp(time.perf_counter() - began)
    if duals is not None and m.exact and m.prob.sense == pulp.LpMinimize:
        m.lp_bound = max(m.lp_bound or duals["objective"], duals["objective"])
    return duals


def generate_patterns(m: Model, clock: Budget) -> None:
    """Column generation for pattern-priced types: LP duals -> best new pattern, repeated.

    Stops when no pattern has negative reduced cost or after tuning.MAX_PRICING_ROUNDS (a count,
    so the same on every run); a quarter of the time left is the clock's safety net.
    """
    if not m.priced:
        return
    left = clock.seconds_left()
    stop = None if left is None else 0.25 * left
    for _ in range(tuning.MAX_PRICING_ROUNDS):
        now = clock.seconds_left()
        remaining = None if stop is None or left is None or now is None else stop - (left - now)
        if remaining is not None and remaining <= 0:
            clock.clock_stopped += 1
            return
        duals = lp_duals(m, None if remaining is None else max(0.05, remaining))
        if duals is None:
            return
        if not price_patterns(m, duals):
            # No pattern prices out: this LP value bounds every plan (column generation).
            if not m.conservative:
                m.lp_bound = max(m.lp_bound or duals["objective"], duals["objective"])
            return
