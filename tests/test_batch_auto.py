"""``batch: auto`` for inference: the largest batch that fits and meets the TPOT limit."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli import main
from solver.check import check_plan
from solver.estimate.replica import MAX_AUTO_BATCH, estimate, replica_throughput
from solver.estimate.throughput import decode_step
from solver.inputs.loading import load_workloads
from solver.optimize.pipeline import plan

MIX = """\
name: auto
workloads:
  - {name: chat, kind: inference, model: llama-3.1-8b, prompt_tokens: 1024, output_tokens: 256,
     batch: auto, max_tpot_ms: 40, tokens_per_s: 3000}
  - {name: free, kind: inference, model: llama-3.1-8b, context: 1280, batch: auto}
"""


@pytest.fixture
def wf(tmp_path):
    path = tmp_path / "auto.yaml"
    path.write_text(MIX)
    return load_workloads(path)


def _at(w, batch):
    return w.model_copy(update={"batch": batch})


@pytest.mark.parametrize("sku, degree", [("rtx-4090", 1), ("l40s", 1), ("a100-40g", 2)])
def test_auto_batch_is_the_largest_that_fits_and_meets_tpot(wf, default_catalog, sku, degree):
    gpu = default_catalog.gpu(sku)
    chat = wf.workloads[0]
    e = estimate(chat, gpu, degree, wf.policy)
    b = e.batch
    assert e.fits and 1 <= b < MAX_AUTO_BATCH
    # Memory is sized for the batch chosen ...
    assert e.vram_gb_per_gpu == estimate(_at(chat, b), gpu, degree, wf.policy).vram_gb_per_gpu
    # ... and one more sequence either does not fit or is too slow per token.
    bigger = _at(chat, b + 1)
    too_slow = decode_step(bigger, gpu, degree, b + 1)[0] * 1e3 > chat.max_tpot_ms
    assert too_slow or not estimate(bigger, gpu, degree, wf.policy).fits
    assert decode_step(_at(chat, b), gpu, degree, b)[0] * 1e3 <= chat.max_tpot_ms
    # Throughput is estimated at that same batch.
    assert replica_throughput(chat, gpu, degree, wf.policy, e).batch == b


def test_without_a_latency_limit_auto_fills_the_usable_vram(wf, default_catalog):
    gpu = default_catalog.gpu("l40s")
    free = wf.workloads[1]
    e = estimate(free, gpu, 1, wf.policy)
    assert e.fits and e.batch > 1
    assert not estimate(_at(free, e.batch + 1), gpu, 1, wf.policy).fits


def test_auto_batch_plans_and_passes_the_checker(wf, default_catalog):
    result = plan(wf, default_catalog, top=1, with_baseline=False)
    option = result.options[0]
    assert check_plan(option, wf, default_catalog) == []
    chat = next(f for f in option.throughput if f.workload == "chat")
    assert chat.tokens_per_s >= 3000 and chat.tpot_ms <= 40


def test_bad_batch_value_is_exit_2(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: b\nworkloads:\n  - {name: s, kind: inference, model: gpt2, "
                    "context: 512, batch: lots}\n")
    result = CliRunner().invoke(main, ["estimate", str(path)])
    assert result.exit_code == 2
    assert "batch must be 'auto' or a whole number" in result.output
