"""The program's structure pinned: golden LP files of a few small inputs (tests/golden/lp/).

Each case builds the program, adds the cuts, server patterns and exclusions the search adds
later, and writes it with PuLP's ``writeLP``: every row with its name, its coefficients and
its order, every variable's bounds. A change that means to alter the program (a new row, a
row renamed) re-records them on purpose and shows the difference in its commit:

    .venv/bin/python tests/test_program_lp.py --update
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import solver_fixtures as fx

from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.pipeline import plan
from solver.optimize.program import (
    Model,
    add_host_room_rows,
    add_packing_cuts,
    add_pattern_cut,
    add_shared_big_rows,
    build,
    disaggregate,
    disaggregate_drives,
    exclude_bom,
    fix_priority,
    pattern_cut_kinds,
    price_patterns,
    require_reference,
)
from solver.optimize.program.board_cuts import define_full_boards
from solver.optimize.program.names import FAMILIES, escape, family, row_name

GOLDEN = ROOT / "tests" / "golden" / "lp"
CATALOG = ROOT / "catalogs" / "default.yaml"


def _with_cuts(m: Model, wf, catalog) -> None:
    """What the search adds to a program: packing and pattern cuts, server patterns (one
    type priced from duals), drive patterns, host-room rows and a purchase exclusion."""
    define_full_boards(m, wf)
    add_shared_big_rows(m, wf.policy)
    used = [key for key in m.types if m.on_type[key]]
    for key in used:
        add_packing_cuts(m, key, wf.policy)
        kinds = pattern_cut_kinds(m, key)
        add_pattern_cut(m, key, {kind: 0.5 for kind in kinds})
    for i, key in enumerate(used[:2]):
        disaggregate(m, key, wf.policy, limit=1 if i else 10_000, optimistic=bool(i))
    price_patterns(m, {row: 1.0 for row in m.pattern_rows()})
    add_host_room_rows(m, tuple(sorted({key for _, key in m.hosts})), wf, catalog)
    for key in used[:2]:
        disaggregate_drives(m, key, wf, catalog)
    exclude_bom(m, {"a100-80g-sxm": 2}, ub=m.n_ub)
    exclude_bom(m, {}, ub=m.n_ub, platforms=True)


def _small(monkeypatch) -> Model:
    """workloads/small.yaml on the default catalog, with its cuts."""
    wf, catalog = load_workloads(ROOT / "workloads" / "small.yaml"), load_catalog(CATALOG)
    m = build(wf, catalog, enumerate_candidates(wf, catalog), None)
    _with_cuts(m, wf, catalog)
    return m


def _storage(monkeypatch) -> Model:
    """Two local-data jobs and a preprocess job on the tiny catalog, under a budget."""
    fx.install(monkeypatch, {"a": (15, 10), "b": (15, 10), "c": (0, 5)})
    data = {"dataset_tb": 1}
    wf = fx.workloads({"name": "a", "replicas": 2, "data": data}, {"name": "b", "data": data},
                      {"name": "c", "kind": "preprocess", "data": data})
    catalog = fx.catalog()
    m = build(wf, catalog, enumerate_candidates(wf, catalog), 20_000)
    _with_cuts(m, wf, catalog)
    fix_priority(m, 3)
    return m


def _shared(monkeypatch) -> Model:
    """Shareable jobs with local datasets and a reference restriction (brute-force seed 697)."""
    from bench.bruteforce import tiny_storage_instance

    wf, catalog = tiny_storage_instance(697, load_catalog(CATALOG))
    m = build(wf, catalog, enumerate_candidates(wf, catalog), None)
    _with_cuts(m, wf, catalog)
    keys = [key for key in m.types if m.on_type[key]]
    require_reference(m, set(keys[:1]), {key: 1 for key in keys[:1] if m.types[key].gpu})
    return m


def _site(monkeypatch) -> Model:
    """Throughput targets (an inference job, a training job of one GPU type) and a
    preprocess job too large to ride beside every GPU replica, in the racks of a site,
    minimising the cost of ownership."""
    fx.install(monkeypatch, {"a": (15, 10), "t": (30, 20), "p": (0, 45)})
    fx.install_rates(monkeypatch, {"a": {"small": 100.0, "big": 1000.0},
                                   "t": {"small": 50.0, "big": 400.0}})
    train = {"kind": "lora", "seq_len": 16, "global_batch": 1, "lora_rank": 8}
    wf = fx.workloads({"name": "a", "tokens_per_s": 250},
                      {"name": "t", **train, "tokens": 900 * 86400, "deadline_days": 1},
                      {"name": "p", "kind": "preprocess", "replicas": 3})
    data = wf.model_dump(mode="json", exclude_none=True)
    data["policy"].update(objective="tco", tco={"kwh_price": 0.5, "years": 3, "pue": 1.0,
                                                "utilisation": 1.0, "rack_cost_per_year": 1000})
    data["site"] = {"racks": 2, "rack_kw": 10, "rack_units": 42}
    wf = type(wf).model_validate(data)
    catalog = fx.catalog()
    m = build(wf, catalog, enumerate_candidates(wf, catalog), None)
    _with_cuts(m, wf, catalog)
    return m


CASES: dict[str, Callable[..., Model]] = {"small": _small, "storage": _storage,
                                          "shared": _shared, "site": _site}


def _lp_text(m: Model, tmp: Path) -> str:
    """The program as an LP file, normalised: PuLP writes nothing run-dependent but the
    problem's name line, which is left as is; line ends are made Unix."""
    path = tmp / "program.lp"
    m.prob.writeLP(str(path))
    return path.read_text(encoding="utf-8").replace("\r\n", "\n")


@pytest.mark.parametrize("case", sorted(CASES))
def test_program_is_unchanged(case: str, monkeypatch, tmp_path: Path) -> None:
    recorded = GOLDEN / f"{case}.lp"
    assert recorded.exists(), f"no recorded program: run {Path(__file__).name} --update"
    assert _lp_text(CASES[case](monkeypatch), tmp_path) == recorded.read_text(encoding="utf-8")


_ROW = re.compile(r"(?P<family>[a-z][a-z0-9.]*)(\((?P<ids>[A-Za-z0-9._/~,]+)\))?")


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_recorded_row_has_a_family_name(case: str) -> None:
    """Each row of a golden program is ``family(ids)`` (or a bare family), the family one
    of ``names.FAMILIES``: no counter-named or unnamed (``_C1``) rows."""
    text = (GOLDEN / f"{case}.lp").read_text(encoding="utf-8")
    rows = text.split("Subject To\n", 1)[1]
    names = re.findall(r"^([^\s:]+):", rows, flags=re.MULTILINE)
    assert names
    for name in names:
        match = _ROW.fullmatch(name)
        assert match and match["family"] in FAMILIES, name
        assert family(name) == match["family"]


@given(st.text(), st.text())
def test_escaping_is_injective(a: str, b: str) -> None:
    if a != b:
        assert escape(a) != escape(b)
        assert row_name("ram", a) != row_name("ram", b)
    assert set(escape(a)) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/~")


def test_ids_that_pulp_would_merge_name_distinct_rows(monkeypatch) -> None:
    """GPUs ``a-b`` and ``a_b``, workloads ``w-1`` and ``w_1``: PuLP writes ``-`` as ``_``,
    so names built by hand would overlap; the escaped ones do not, and the program plans."""
    fx.install(monkeypatch, {"w-1": (15, 10), "w_1": (15, 10)})
    gpu = {"vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100, "power_w": 300,
           "form_factor": "pcie", "nvlink_gbps": 0}
    catalog = fx.catalog(gpus=[{"sku": "a-b", "price": 1000, **gpu},
                               {"sku": "a_b", "price": 1200, **gpu}])
    wf = fx.workloads({"name": "w-1"}, {"name": "w_1", "replicas": 2})
    m = build(wf, catalog, enumerate_candidates(wf, catalog), None)
    names = list(m.prob.constraints)
    assert row_name("demand", "w-1") in names and row_name("demand", "w_1") in names
    slots = {name for name in names if family(name) == "slots"}
    for sku in ("a-b", "a_b"):
        keys = [key for key, t in m.types.items() if t.gpu is not None and t.gpu.sku == sku]
        assert keys and all(row_name("slots", key, 1) in slots for key in keys)
    assert len(slots) == len({key for key, t in m.types.items() if t.gpu is not None})
    result = plan(wf, catalog, top=1, with_baseline=False)
    assert result.status == "optimal"
    assert result.options[0].total_cost > 0


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    for case, make in CASES.items():
        with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
            (GOLDEN / f"{case}.lp").write_text(_lp_text(make(mp), Path(tmp)), encoding="utf-8")
        print("recorded", (GOLDEN / f"{case}.lp").relative_to(ROOT))
