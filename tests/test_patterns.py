"""Server patterns: enumeration, greedy starts and the pricing knapsack."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.optimize.patterns import best_pattern, greedy_patterns, maximal_patterns


def fits(pattern, kinds, slots, cap):
    return (sum(c * d for c, (d, _) in zip(pattern, kinds)) <= slots
            and sum(c * r for c, (_, r) in zip(pattern, kinds)) <= cap + 1e-9)


def test_maximal_patterns_of_the_blocking_case():
    """4 slots, 409.6 GB: (1 GPU, 200 GB) and (2 GPUs, 10 GB)."""
    kinds = [(1, 200.0), (2, 10.0)]
    pats = set(maximal_patterns(kinds, 4, 409.6, 100))
    assert pats == {(2, 0), (1, 1), (0, 2)}


def test_enumeration_gives_up_past_the_limit():
    kinds = [(1, float(r)) for r in range(10, 30)]
    assert maximal_patterns(kinds, 8, 1000.0, 10) is None


kind = st.tuples(st.sampled_from([0, 1, 2, 4]), st.sampled_from([10.0, 40.0, 90.0, 150.0]))


@settings(max_examples=60, deadline=None)
@given(kinds=st.lists(kind, min_size=1, max_size=4, unique=True),
       values=st.lists(st.floats(0, 10), min_size=4, max_size=4),
       slots=st.sampled_from([2, 4, 8]), cap=st.sampled_from([100.0, 300.0]))
def test_best_pattern_is_the_knapsack_optimum(kinds, values, slots, cap):
    values = values[: len(kinds)]
    value, pattern = best_pattern(kinds, values, slots, cap)
    assert fits(pattern, kinds, slots, cap)
    brute = max(
        sum(c * v for c, v in zip(p, values))
        for p in itertools.product(range(31), repeat=len(kinds))
        if fits(p, kinds, slots, cap)
    )
    assert abs(value - brute) < 1e-6


def test_greedy_patterns_fit_and_cannot_grow():
    kinds = [(1, 200.0), (2, 10.0), (0, 50.0)]
    for p in greedy_patterns(kinds, 4, 409.6):
        assert fits(p, kinds, 4, 409.6)
        for k in range(len(kinds)):
            grown = tuple(c + (i == k) for i, c in enumerate(p))
            assert not fits(grown, kinds, 4, 409.6)


def test_patterns_respect_cores_as_a_third_dimension():
    """O3: 4 slots, 400 GB, 8 cores; (1 GPU, 10 GB, 6 cores) and (1 GPU, 10 GB, 2 cores):
    only one 6-core replica fits a server, whatever the GPUs and RAM left."""
    kinds = [(1, 10.0, 6.0), (1, 10.0, 2.0)]
    pats = set(maximal_patterns(kinds, 4, 400.0, 100, cores_cap=8.0))
    assert pats == {(1, 1), (0, 4)}
    assert all(sum(c * k[2] for c, k in zip(p, kinds)) <= 8 for p in greedy_patterns(kinds, 4, 400.0, 8.0))
    value, pattern = best_pattern(kinds, [5.0, 1.0], 4, 400.0, 8.0)
    assert (value, pattern) == (6.0, (1, 1))
