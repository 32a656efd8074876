"""N2 end to end: a pre-training run spread over workstations pays for its 10 GbE network,
in the plan, its JSON and its words.

Only 2-GPU workstations (2 x 10 GbE included) and A100 80GB PCIe may be bought, renting is
off: 100B tokens of a 7B model in 14 days need 18 workstations, whose ring all-reduce over
20 Gb/s brings the data-parallel efficiency under the policy's 0.9.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cli import main
from solver.estimate.data_parallel import dp_efficiency, network_gbps
from solver.inputs.loading import load_catalog
from solver.inputs.policy import Policy

ROOT = Path(__file__).resolve().parent.parent
FILE = """
name: n2
policy:
  horizon: {start: '2027-01-04', months: 3}
  rent: never
  exclude: [srv-4gpu-ddr4, srv-8gpu-ddr5, hgx-a100-8gpu-ddr4, hgx-h100-8gpu-ddr5, rtx-4090,
            l40s, a100-40g, h100-pcie, a100-80g-sxm, h100-sxm, h200-sxm]
workloads:
  - {name: pre, kind: train, model: llama-2-7b, seq_len: 4096, global_batch: 1024,
     activation_checkpointing: true, tokens: 1.0e+11, deadline_days: 14}
"""


def _plan(tmp_path: Path, *args: str):
    path = tmp_path / "n2.yaml"
    path.write_text(FILE)
    return CliRunner().invoke(main, ["plan", str(path), "--no-workbook", *args])


def test_a_run_over_workstations_pays_for_its_network(tmp_path):
    out = _plan(tmp_path, "--json")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    (run,) = doc["options"][0]["runs"]
    servers = set(run["servers"])
    assert len(servers) > 1 and run["dp_efficiency"] < 0.9
    # The figure is the estimator's for those servers, and finishes the run in its window.
    catalog = load_catalog(ROOT / "catalogs" / "default.yaml")
    ws = catalog.platform("ws-2gpu-ddr4")
    from solver.inputs.workload import Workload
    w = Workload.model_validate({"name": "pre", "kind": "train", "model": "llama-2-7b",
                                 "seq_len": 4096, "global_batch": 1024,
                                 "activation_checkpointing": True, "tokens": 1e11,
                                 "deadline_days": 14})
    eff = dp_efficiency(w, catalog.gpu("a100-80g-pcie"), run["gpus"], run["tokens_per_s"],
                        1, len(servers), network_gbps(ws, catalog), Policy())
    assert run["dp_efficiency"] == round(eff, 4)
    hours = 1e11 / (run["replicas"] * run["tokens_per_s"] * eff * 3600)
    assert abs((run["end_h"] - run["begin_h"]) - hours) < 0.01 and run["end_h"] <= 14 * 24


def test_the_schedule_says_over_what_network_and_why(tmp_path):
    out = _plan(tmp_path)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "servers of ws-2gpu-ddr4 train together over their network (1 x 2 x 10 GbE" in text
    assert "each step's gradient all-reduce" in text
