"""policy.network and a workload's own network (N2, N3, runs only): the fabric a run spread
over servers may use, the least Gb/s per server, and keeping a run inside one server; each
read the same way by the run program, the checker (every plan passes it) and the time brute
force, and bad uses exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench.bruteforce_servers import Config, usable_net
from solver.errors import InfeasibleError
from solver.inputs.policy import NetworkPolicy
from solver.inputs.workload import WorkloadFile
from solver.optimize.runs.plan import plan_over_time
from solver.rules.fabric import run_gbps, server_ports

ROOT = Path(__file__).resolve().parents[1]


def _startup(network: dict | None = None, own: dict | None = None) -> WorkloadFile:
    """startup.yaml's pre-training run, bought (no renting), over two months."""
    data = yaml.safe_load((ROOT / "workloads" / "startup.yaml").read_text(encoding="utf-8"))
    data["policy"]["horizon"]["months"] = 2
    data["policy"]["rent"] = "never"
    if network is not None:
        data["policy"]["network"] = network
    data["workloads"] = [w for w in data["workloads"] if w["name"] == "pretrain-7b"]
    if own is not None:
        data["workloads"][0]["network"] = own
    return WorkloadFile.model_validate(data)


def _spread(option, catalog):
    servers = {s.id: s for s in option.servers}
    return [[servers[sid] for sid in sorted(set(r.servers))] for r in option.runs
            if r.servers and len(set(r.servers)) > 1]


def test_the_rule_reads_the_fabric_the_least_gbps_and_one_server():
    ports = {"ethernet": {25.0: 2}, "infiniband": {400.0: 8}}
    assert run_gbps(ports, NetworkPolicy()) == 3200
    assert run_gbps(ports, NetworkPolicy(fabric="ethernet")) == 50
    assert run_gbps(ports, NetworkPolicy(fabric="ethernet", min_gbps=100)) == 0
    assert run_gbps(ports, NetworkPolicy(span_servers=False)) == 0
    assert run_gbps({"ethernet": {10.0: 2}}, NetworkPolicy(fabric="infiniband")) == 0
    cfg = Config("p", "g", 8, 0, 0, None, 0, 0, 3200,
                 ports=(("ethernet", 25.0, 2), ("infiniband", 400.0, 8)))
    assert [usable_net(cfg, NetworkPolicy(**k)) for k in (
        {}, {"fabric": "ethernet"}, {"min_gbps": 5000}, {"span_servers": False})] == \
        [3200, 50, 0, 0]


def test_infiniband_only_spreads_runs_over_infiniband(default_catalog):
    option = plan_over_time(_startup({"fabric": "infiniband"}), default_catalog,
                            top=1, with_baseline=False).options[0]
    spread = _spread(option, default_catalog)
    assert spread, "the 30-day pre-training needs more than one server"
    for group in spread:
        for s in group:
            assert "infiniband" in server_ports(s, default_catalog)


def test_a_floor_on_the_network_is_kept(default_catalog):
    option = plan_over_time(_startup({"min_gbps": 200}), default_catalog,
                            top=1, with_baseline=False).options[0]
    for group in _spread(option, default_catalog):
        for s in group:
            by = server_ports(s, default_catalog)
            assert max(sum(g * n for g, n in k.items()) for k in by.values()) >= 200


def test_a_run_kept_inside_one_server_that_cannot_finish_there_is_out_of_reach(default_catalog):
    with pytest.raises(InfeasibleError):
        plan_over_time(_startup(own={"span_servers": False}), default_catalog, top=1,
                       with_baseline=False)


def test_network_on_a_job_that_is_not_a_run_exits_2(tmp_path, capsys):
    from cli import main

    data = {"name": "t", "policy": {"horizon": {"start": "2027-01-04", "months": 12}},
            "workloads": [{"name": "chat", "kind": "inference", "model": "llama-3.1-8b",
                           "replicas": 1, "context": 4096, "batch": 1,
                           "network": {"fabric": "ethernet"}}]}
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(SystemExit) as exc:
        main(["plan", str(path), "--no-workbook"], standalone_mode=True)
    assert exc.value.code == 2
    assert "network applies to runs" in capsys.readouterr().err
