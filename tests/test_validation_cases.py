"""Accuracy against published measurements (tests/data/memory_cases.yaml).

Goal (issue): every measured case within +-15%, median |error| <= 7%; formula cases exact
(+-1%), or a case's own ``tolerance`` field where it sets one. The comparison basis per
metric is in bench/accuracy.py (nvml_used: total; max_allocated: total minus the CUDA
context and the allocator cache).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import accuracy

CASES = Path(__file__).parent / "data" / "memory_cases.yaml"

CASE_LIST = accuracy.load_cases(CASES)


@pytest.mark.parametrize("case", CASE_LIST, ids=[c["id"] for c in CASE_LIST])
def test_case_within_tolerance(case):
    r = accuracy.evaluate(case)
    assert abs(r.error) <= r.tolerance, (
        f"{r.id}: estimate {r.estimate_gb:.3f} GB vs measured {r.measured_gb:.3f} GB "
        f"({r.error:+.1%}, tolerance {r.tolerance:.0%}, basis {r.basis})"
    )


def test_median_error_of_measured_cases():
    results = accuracy.evaluate_all(CASES)
    assert accuracy.median_abs_error(results) <= accuracy.MEDIAN_TOLERANCE


def test_every_case_is_evaluated_and_measured_cases_exist():
    results = accuracy.evaluate_all(CASES)
    assert len(results) == len(CASE_LIST)
    assert sum(r.metric != "formula" for r in results) >= 5


def test_context_adjusted_case_is_documented():
    doc = (Path(__file__).parents[1] / "docs" / "memory-model.md").read_text(encoding="utf-8")
    for case_id in accuracy.CONTEXT_INCLUDED:
        assert case_id in doc


def test_bench_table_lists_every_case_and_the_median():
    text = accuracy.render(accuracy.evaluate_all(CASES))
    for c in CASE_LIST:
        assert c["id"] in text
    assert "median |error|" in text


DOC = Path(__file__).parents[1] / "docs" / "memory-model.md"


def test_doc_accuracy_table_is_the_command_output():
    # `python bench/accuracy.py --markdown` prints exactly the table between the doc's markers;
    # `--write-doc` regenerates it after a model or case change.
    doc = DOC.read_text(encoding="utf-8")
    assert doc.count(accuracy.DOC_BEGIN) == 1 and doc.count(accuracy.DOC_END) == 1
    assert accuracy.doc_table(doc) == accuracy.markdown(accuracy.evaluate_all(CASES)), (
        "docs/memory-model.md accuracy table is stale: run python bench/accuracy.py --write-doc"
    )


def test_markdown_table_has_every_case_and_the_median():
    text = accuracy.markdown(accuracy.evaluate_all(CASES))
    for c in CASE_LIST:
        assert f"`{c['id']}`" in text
    assert "median |error|" in text and "OUT" not in text


def test_every_constant_has_a_row_in_the_constants_table():
    from solver.estimate import activations, host_ram, memory, weights
    from solver.inputs import kinds

    doc = DOC.read_text(encoding="utf-8")
    table = doc[doc.index("## 10. Constants"):doc.index("## Sources")]
    names = [n for m in (weights, activations, host_ram, memory) for n in vars(m)
             if n.isupper() and not n.startswith("_") and not hasattr(kinds, n)]
    assert names
    missing = [n for n in names if f"`{n}`" not in table and n not in ("GB", "FIT_EPS_GB")]
    assert not missing, f"constants without a source/fitted-on row: {missing}"
    assert "**calibrated**" in table
