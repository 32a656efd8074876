"""Plan metrics: counts, cost by kind, installed vs planned memory, R14 bandwidth, R18 targets."""

from __future__ import annotations

import dataclasses

import pytest
from test_report import CATALOG, _option, sample_plan

from solver.inputs.loading import load_catalog
from solver.optimize.plan import Placement, Server
from solver.report import metrics
from solver.report.metrics import option_metrics, target_label, target_status


@pytest.fixture(scope="module")
def option1():
    result, _, catalog = sample_plan()
    return option_metrics(result.options[0], catalog)


def test_counts_and_costs(option1):
    m = option1
    assert m.gpu_count == 12 and m.gpus_by_sku == {"h100-sxm": 8, "l40s": 4}
    assert m.servers == 3 and m.gpu_servers == 2 and m.max_degree == 2
    assert set(m.cost_by_kind) == {"platform", "gpu", "memory", "storage"}
    assert m.cost_by_kind["gpu"] == 8 * 28000 + 4 * 7500
    assert sum(m.cost_by_kind.values()) == pytest.approx(m.total_cost)
    assert dataclasses.is_dataclass(m)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.servers = 1  # type: ignore[misc]


def test_installed_and_planned_memory(option1):
    m = option1
    assert m.installed_vram_gb == 8 * 80 + 4 * 48
    # shareable embeddings: two replicas on one L40S add up (6 + 6 GB)
    planned = 2 * 60 * 2 + 2 * 50 * 2 + 30 * 2 + 6 * 3
    assert m.planned_vram_gb == pytest.approx(planned)
    assert m.vram_util == pytest.approx(planned / (8 * 80 + 4 * 48))
    assert m.installed_ram_gb == 32 * 64 + 16 * 64 + 24 * 128
    assert m.planned_ram_gb == pytest.approx(200 * 2 + 80 * 2 + 45 * 2 + 3 * 3 + 900)
    assert m.ram_util == pytest.approx(m.planned_ram_gb / m.installed_ram_gb)
    assert m.installed_storage_tb == pytest.approx(2 * 7.68 + 2 * 3.84 + 2 * 7.68)


def test_host_bandwidth_is_the_worst_gpu_server(option1):
    # HGX H100: 16 ch x 4800 MT/s x 8 B = 614.4 GB/s over 8 GPUs = 76.8;
    # 4-GPU DDR4 server: 16 x 3200 x 8 = 409.6 over 4 = 102.4; the CPU node is not counted.
    assert option1.host_bw_gbps_per_gpu == pytest.approx(76.8)


def test_cpu_only_option_has_no_gpu_figures():
    catalog = load_catalog(CATALOG)
    s = Server("c", "cpu-node-ddr5", None, 0, "ddr5-4800-64g", 24, None, 0)
    p = Placement("tokenize-and-dedup", 1, "c", None, 0, 0.0, 1000.0)
    m = option_metrics(_option(1, [s], [p], catalog), catalog)
    assert m.vram_util is None and m.vram_status is None
    assert m.host_bw_gbps_per_gpu is None
    assert m.ram_util == pytest.approx(1000 / (24 * 64))


@pytest.mark.parametrize(
    "metric, value, status",
    [
        ("vram", 0.84, "below"),
        ("vram", 0.85, "within"),
        ("vram", 0.99, "within"),
        ("ram", 0.69, "below"),
        ("ram", 0.70, "within"),
        ("ram", 0.80, "within"),
        ("ram", 0.81, "above"),
        ("compute", 0.9, "within"),
        ("bandwidth", 0.5, "below"),
        ("ram", None, None),
    ],
)
def test_r18_target_status(metric, value, status):
    assert target_status(metric, value) == status


def test_r18_constants_and_labels():
    assert metrics.VRAM_UTIL_TARGET == 0.85
    assert metrics.RAM_UTIL_TARGET == (0.70, 0.80)
    assert metrics.COMPUTE_UTIL_TARGET == 0.90
    assert metrics.BANDWIDTH_UTIL_TARGET == 0.60
    assert target_label("vram") == ">= 85%"
    assert target_label("ram") == "70%-80%"
