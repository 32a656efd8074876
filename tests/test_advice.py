"""Advice beside a plan: activation checkpointing (solver/optimize/advice.py).

Real estimator and the default catalog: QLoRA of Llama-3.1-70B at 4,096 tokens, global batch
16, needs 4 x H200 per replica without checkpointing (250.9 GB of activations and weights on
one GPU, 62.7 GB on each of four) and fits on one A100 80GB with it
(``plan-buy estimate``).
"""

from __future__ import annotations

import json

import openpyxl
import pytest
from click.testing import CliRunner
from conftest import DATA

from cli import main
from solver.errors import InfeasibleError
from solver.inputs.loading import load_workloads
from solver.optimize.advice import checkpointing_note
from solver.optimize.pipeline import plan

QLORA = (DATA / "qlora-70b.yaml").read_text(encoding="utf-8")
ADVICE = ("written without activation checkpointing, qlora-llama70 would fit on fewer GPUs "
          "per replica with activation_checkpointing: true in its entry (each training step "
          "then takes longer, as it recomputes the activations; this plan is for the file as "
          "written): on 1 GPU (a100-80g-pcie, a100-80g-sxm, h100-pcie or 2 others) instead "
          "of at least 4 GPUs (h200-sxm)")


def _file(tmp_path, extra: str = "", policy: str = ""):
    path = tmp_path / "tuning.yaml"
    path.write_text(QLORA + extra + policy)
    return path


def test_a_job_that_needs_gpus_only_for_activations_is_told_so(tmp_path, default_catalog):
    wf = load_workloads(_file(tmp_path))
    assert checkpointing_note(wf, default_catalog) == ADVICE


def test_no_advice_with_checkpointing_on_or_on_one_gpu_already(tmp_path, default_catalog, q3):
    on = load_workloads(_file(tmp_path, "    activation_checkpointing: true\n"))
    assert checkpointing_note(on, default_catalog) is None
    assert checkpointing_note(q3, default_catalog) is None  # q3's jobs gain nothing


def test_a_long_mix_names_a_few_jobs_and_counts_the_rest(tmp_path, default_catalog):
    body = "".join(f"""\
  - name: job-{i}
    kind: qlora
    model: llama-3.1-70b
    seq_len: 4096
    lora_rank: 16
    global_batch: 16
""" for i in range(7))
    path = tmp_path / "many.yaml"
    path.write_text("name: many\nworkloads:\n" + body)
    note = checkpointing_note(load_workloads(path), default_catalog)
    assert note.startswith("written without activation checkpointing, 7 training workloads "
                           "would fit on fewer GPUs per replica")
    assert note.count("instead of at least 4 GPUs (h200-sxm)") == 5
    assert note.endswith("; and 2 more (plan-buy estimate shows each)")


def test_the_plan_carries_the_advice_in_json_and_workbook(tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(main, [str(_file(tmp_path)), "--json", "--top", "1",
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert ADVICE in json.loads(res.stdout)["notes"]
    cells = [c.value for row in openpyxl.load_workbook(out / "tuning.xlsx")["Summary"]
             .iter_rows() for c in row if isinstance(c.value, str)]
    assert any(ADVICE in c for c in cells)


def test_the_estimate_says_what_checkpointing_would_fit_on(tmp_path):
    res = CliRunner().invoke(main, ["estimate", str(_file(tmp_path))], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert " ".join(res.stdout.split()).endswith(
        "-> with activation_checkpointing: true a replica would fit on 1 GPU (a100-80g-pcie, "
        "a100-80g-sxm, h100-pcie or 2 others) instead of at least 4 GPUs (h200-sxm) (each "
        "training step then takes longer)")


def test_the_estimate_json_carries_the_same_facts(tmp_path):
    res = CliRunner().invoke(main, ["estimate", str(_file(tmp_path)), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["checkpointing"] == [{
        "workload": "qlora-llama70", "fewest_gpus": 4, "gpus": ["h200-sxm"],
        "with_checkpointing": {"fewest_gpus": 1, "gpus": [
            "a100-80g-pcie", "a100-80g-sxm", "h100-pcie", "h100-sxm", "h200-sxm"]}}]
    on = CliRunner().invoke(main, ["estimate", str(_file(tmp_path, "    activation_checkpointing: true\n")), "--json"])
    assert "checkpointing" not in json.loads(on.stdout)


def test_a_job_that_fits_nowhere_is_told_that_checkpointing_fits_it(tmp_path,
                                                                    default_catalog):
    """Without the SXM GPUs (the only ones allowed 4 per replica), it fits nowhere."""
    policy = "policy:\n  exclude: [h200-sxm, h100-sxm, a100-80g-sxm]\n"
    wf = load_workloads(_file(tmp_path, policy=policy))
    with pytest.raises(InfeasibleError) as err:
        plan(wf, default_catalog, top=1, with_baseline=False)
    text = str(err.value)
    assert "set activation_checkpointing: true (it would fit on 1 x a100-80g-pcie)" in text
    # The PCIe cards left are held to 2 per replica; 8 x A100 80GB PCIe would hold it.
    assert ("the largest usable VRAM among the GPUs not excluded is 64.0 GB (a100-80g-pcie "
            "80 GB x 0.8) — max_pcie_parallel_degree caps a replica at 2 GPUs outside an NVLink "
            "domain"
            in text)
    assert "raise max_pcie_parallel_degree to 8 (it would fit on 8 x a100-80g-pcie)" in text
