"""A latency-only service (TPOT/TTFT limits, no tokens/s target) shows its latencies in
``plan``: the terminal, the JSON placements and the workbook's Placement sheet; the batch
``batch: auto`` chose is said in words."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from cli import main
from solver.estimate.replica import estimate
from solver.inputs.loading import load_workloads
from solver.optimize.pipeline import plan
from solver.report.running import serving_lines

MIX = """\
name: lat
workloads:
  - {name: chat, kind: inference, model: llama-3.1-8b, prompt_tokens: 1024,
     output_tokens: 256, batch: auto, max_tpot_ms: 40, max_ttft_ms: 800}
  - {name: fixed, kind: inference, model: llama-3.1-8b, context: 1280, batch: 4}
"""


@pytest.fixture(scope="module")
def mix(tmp_path_factory):
    path = tmp_path_factory.mktemp("lat") / "lat.yaml"
    path.write_text(MIX)
    return path


def test_terminal_shows_latencies_limits_and_the_auto_batch(mix, default_catalog):
    wf = load_workloads(mix)
    option = plan(wf, default_catalog, top=1).options[0]
    (p,) = [p for p in option.placements if p.workload == "chat"]
    batch = estimate(wf.workloads[0], default_catalog.gpu(p.gpu), p.gpus, wf.policy).batch
    lines = serving_lines(option, wf, default_catalog)
    # 'fixed' (batch 4, no limit) has nothing to add to its table row: no line
    assert lines == [(f"chat: 1 replica on {p.gpus} x {p.gpu}, batch {batch} (chosen by "
                     f"batch: auto), {p.tpot_ms:.1f} ms per output token (limit 40), first "
                     f"token in {p.ttft_ms:.0f} ms (limit 800)")]
    assert p.tpot_ms <= 40 and p.ttft_ms <= 800  # the limits the line sets beside them


def test_plan_cli_terminal_json_and_workbook_carry_them(mix, tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["plan", str(mix), "--out", str(tmp_path), "--top", "1"],
                        env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    assert "Serving, option 1 (per replica, at the batch it serves):" in out.output
    assert "(chosen by batch: auto)" in out.output and "(limit 40)" in out.output
    doc = json.loads(runner.invoke(main, ["plan", str(mix), "--json", "--no-workbook",
                                          "--top", "1"]).output)
    chat = [p for p in doc["options"][0]["placements"] if p["workload"] == "chat"]
    assert chat and all(0 < p["tpot_ms"] <= 40 and 0 < p["ttft_ms"] <= 800 for p in chat)
    df = pd.read_excel(tmp_path / "lat.xlsx", sheet_name="Placement", header=3)
    row = df[df["Workload"] == "chat"].iloc[0]
    assert row["Time per output token (ms)"] == pytest.approx(chat[0]["tpot_ms"], abs=0.01)
    assert row["Time to first token (ms)"] == pytest.approx(chat[0]["ttft_ms"], abs=0.1)
    assert row["Serving batch"] >= 1
    assert df[df["Workload"] == "fixed"].iloc[0]["Serving batch"] == 4

