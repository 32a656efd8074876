"""The program's rows are all named from validated ids, so duals and reports find them by name."""

from __future__ import annotations

from solver.optimize.candidates import enumerate_candidates
from solver.optimize.program import add_packing_cuts, build, disaggregate, exclude_bom
from solver.optimize.program.names import family
from solver.optimize.solve import lp_duals


def _unnamed(m) -> list[str]:
    # PuLP names a row it was not given a name for _C1, _C2, ...
    return [name for name in m.prob.constraints if name.startswith("_C")]


def test_every_row_is_named_after_cuts_patterns_and_exclusions(q3, default_catalog):
    cand = enumerate_candidates(q3, default_catalog)
    m = build(q3, default_catalog, cand, budget=None)
    assert _unnamed(m) == []
    used = [key for key in m.types if m.on_type[key]]
    shared = [key for key in used if key in m.shared]
    for key in {used[0], *shared[:1]}:
        assert add_packing_cuts(m, key, q3.policy) > 0
        assert disaggregate(m, key, q3.policy, limit=1)
    exclude_bom(m, {}, ub=100)
    assert _unnamed(m) == []
    assert m.priced, "limit=1 leaves the types to column generation"
    rows = m.pattern_rows()
    assert rows and all(row in m.prob.constraints for row in rows)


def test_pattern_duals_are_read_by_row_name(q3, default_catalog):
    cand = enumerate_candidates(q3, default_catalog)
    m = build(q3, default_catalog, cand, budget=None)
    key = next(key for key in m.types if m.on_type[key])
    assert disaggregate(m, key, q3.policy, limit=1)
    duals = lp_duals(m)
    assert duals is not None
    assert set(duals) == {*m.pattern_rows(), "objective"}


def test_cores_cuts_and_pattern_kinds_carry_the_third_dimension(q3, default_catalog):
    """O3: a type whose platform lists cpu_cores gets ``pack.cores(t,j)`` cuts, and its
    server patterns count kinds of (GPUs, RAM, cores) within the platform's cores."""
    cand = enumerate_candidates(q3, default_catalog)
    m = build(q3, default_catalog, cand, budget=None)
    key = next(k for k in m.types if m.on_type[k] and m.types[k].platform.cpu_cores)
    assert add_packing_cuts(m, key, q3.policy) > 0
    assert any(family(name) == "pack.cores" for name in m.prob.constraints)
    assert disaggregate(m, key, q3.policy)
    pm = m.patterns[key]
    assert pm.cores_cap == m.types[key].platform.cpu_cores
    assert pm.kinds and all(len(kind) == 3 for kind in pm.kinds)
    assert _unnamed(m) == []
