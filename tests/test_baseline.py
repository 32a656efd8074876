"""The seed's reference configuration is priced from the plan its program actually solved.

Regression for an ordinary two-workload mix that exited 5: the "1x A100 40GB" reference was
priced with one A100 per workstation while its program installed two.
"""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from cli import main
from solver.check import check_plan
from solver.inputs.loading import load_workloads
from solver.optimize.baseline import SCENARIOS, baseline_cost
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.pipeline import plan
from solver.result import Baseline

TWO = textwrap.dedent("""\
    name: two
    workloads:
      - {name: a, kind: inference, model: llama-3.1-8b, context: 4096, batch: 8}
      - {name: b, kind: lora, model: llama-2-7b, lora_rank: 16, seq_len: 2048, global_batch: 16}
""")


@pytest.fixture
def two(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(TWO)
    return path


def test_two_workload_mix_plans_and_beats_reference(two, default_catalog):
    wf = load_workloads(two)
    result = plan(wf, default_catalog, top=1)
    assert result.status == "optimal"
    assert check_plan(result.options[0], wf, default_catalog) == []
    assert result.warnings == ()
    assert result.options[0].total_cost <= result.baseline.total_cost


def test_one_gpu_reference_holds_one_gpu(two, default_catalog):
    """Remove G_t ≤ k_ref · n_t and the 1 x A100 reference packs both jobs on one
    two-slot workstation priced as if it held one A100 (4,000 + 1 x 8,000 + DIMMs)."""
    wf = load_workloads(two)
    cand = enumerate_candidates(wf, default_catalog)
    one_a100 = SCENARIOS["small"][1]
    assert one_a100.gpus == 1
    only = {"small": (one_a100,)}
    from solver.optimize import baseline

    saved = baseline.SCENARIOS
    baseline.SCENARIOS = only
    try:
        ref = baseline_cost(wf, default_catalog, cand, "highs")
    finally:
        baseline.SCENARIOS = saved
    # Each job needs its own A100 40GB, so two whole one-GPU reference servers.
    assert ref.servers == 2 and ref.gpus == 2
    platform = default_catalog.platform(one_a100.platform)
    gpu = default_catalog.gpu(one_a100.gpu)
    assert ref.total_cost >= 2 * (platform.price + gpu.price)


def test_cli_exits_0_on_two_workload_mix(two, tmp_path):
    result = CliRunner().invoke(main, [str(two), "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output


def test_reference_disagreement_is_a_warning_not_exit_5(two, tmp_path, monkeypatch):
    """If the reference ever undercuts a proven optimum, the plan is still written."""
    from solver.optimize import pipeline

    def cheap(*args, **kwargs):
        return Baseline(scenario="small", name="test reference", servers=1, gpus=1,
                        gpu="a100-40g", total_cost=1.0)

    monkeypatch.setattr(pipeline, "baseline_cost", cheap)
    result = CliRunner().invoke(main, [str(two), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Warning:" in result.output and "please report" in result.output
    assert (tmp_path / "two.xlsx").exists()
    doc = CliRunner().invoke(main, [str(two), "--json", "--no-workbook"])
    assert doc.exit_code == 0


def test_a_catalog_of_its_own_skus_says_once_that_the_reference_is_not_priced(two,
                                                                               default_catalog):
    """A vendor's quote as the catalog names its own SKUs: one note for the scenario, not
    one paragraph per reference server; a catalog lacking only some keeps one per server."""
    from solver.optimize.baseline import scenario_of, why_no_reference

    wf = load_workloads(two)
    refs = SCENARIOS[scenario_of(wf)]
    renamed = {r.gpu for r in refs}
    own = default_catalog.model_copy(update={"gpus": [
        g.model_copy(update={"sku": f"quoted-{g.sku}"}) if g.sku in renamed else g
        for g in default_catalog.gpus]})
    notes = why_no_reference(wf, own, enumerate_candidates(wf, own))
    assert len(notes) == 1 and "not priced, the catalog has none of its reference" in notes[0]
    assert all(f"{r.platform} with {r.gpu}" in notes[0] for r in refs)
    first = {refs[0].gpu}
    some = default_catalog.model_copy(update={"gpus": [
        g.model_copy(update={"sku": f"quoted-{g.sku}"}) if g.sku in first else g
        for g in default_catalog.gpus]})
    lacks = [n for n in why_no_reference(wf, some, enumerate_candidates(wf, some))
             if "the catalog lacks" in n]
    assert len(lacks) == sum(r.gpu in first for r in refs)
