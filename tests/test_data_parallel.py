"""N2: data-parallel efficiency from where a run's replicas are, by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from solver.estimate.comms import NCCL_PROTOCOL_EFFICIENCY, PCIE_GBPS, PCIE_HOP_LATENCY_S
from solver.estimate.data_parallel import (
    NETWORK_HOP_LATENCY_S,
    dp_efficiency,
    gradient_bytes,
    network_gbps,
)
from solver.inputs.loading import load_catalog
from solver.inputs.policy import Policy
from solver.inputs.workload import Workload

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog(ROOT / "catalogs" / "default.yaml")
JOB = Workload.model_validate({"name": "pre", "kind": "train", "model": "llama-2-7b",
                               "seq_len": 4096, "global_batch": 1024, "tokens": 2e11,
                               "deadline_days": 30})


def _platform(sku: str):
    return next(p for p in CATALOG.platforms if p.sku == sku)


def test_a_server_network_is_its_fastest_fabric():
    # 2 x 10 GbE on the workstation; 8 x 400 Gb/s InfiniBand (not bonded with its 2 x 25 GbE)
    # on the HGX H100.
    assert network_gbps(_platform("ws-2gpu-ddr4"), CATALOG) == 20
    assert network_gbps(_platform("hgx-h100-8gpu-ddr5"), CATALOG) == 3200


def test_one_replica_has_no_data_parallel_traffic():
    gpu = CATALOG.gpu("a100-80g-pcie")
    assert dp_efficiency(JOB, gpu, 2, 4000.0, 1, 1, 20, Policy()) == 1.0


def test_two_workstations_over_10_gbe_by_hand():
    # 16 servers x 1 replica: the ring between servers moves 2 x 15/16 x 13.5 GB over
    # 20 Gb/s = 2.5 GB/s x 0.8 (NCCL), plus 30 hops of 5 us; half is exposed.
    gpu = CATALOG.gpu("a100-80g-pcie")
    grad = gradient_bytes(JOB)
    assert grad == pytest.approx(JOB.arch.params_b * 1e9 * 2)
    comm = 30 * NETWORK_HOP_LATENCY_S + 30 / 16 * grad / (2.5e9 * NCCL_PROTOCOL_EFFICIENCY)
    tau = 4000.0
    compute = 1024 * 4096 / (16 * tau)
    expected = compute / (compute + 0.5 * comm)
    got = dp_efficiency(JOB, gpu, 2, tau, 1, 16, 20, Policy(data_parallel_efficiency=1.0))
    assert got == pytest.approx(expected)
    # The policy's figure stays a cap.
    assert dp_efficiency(JOB, gpu, 2, tau, 1, 16, 3200, Policy()) == 0.9


def test_replicas_inside_one_server_use_its_gpu_link():
    # 4 replicas of 2 PCIe GPUs on one server: a ring of 4 over PCIe, no network.
    gpu = CATALOG.gpu("a100-80g-pcie")
    grad = gradient_bytes(JOB)
    comm = 6 * PCIE_HOP_LATENCY_S + 6 / 4 * grad / (PCIE_GBPS * 1e9 * NCCL_PROTOCOL_EFFICIENCY)
    compute = 1024 * 4096 / (4 * 4000.0)
    got = dp_efficiency(JOB, gpu, 2, 4000.0, 4, 1, 0, Policy(data_parallel_efficiency=1.0,
                                                              comm_overlap=0.25))
    assert got == pytest.approx(compute / (compute + 0.75 * comm))


def test_servers_without_a_network_cannot_share_a_run():
    gpu = CATALOG.gpu("a100-80g-pcie")
    assert dp_efficiency(JOB, gpu, 2, 4000.0, 1, 2, 0, Policy()) == 0.0
