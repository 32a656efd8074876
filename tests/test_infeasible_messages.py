"""Exit 3 names what cannot be met, and the advice names the setting that blocks.

Uses the table estimator of tests/solver_fixtures.py (needs known by hand).
"""

from __future__ import annotations

import pytest
import solver_fixtures as fx

from solver.errors import InfeasibleError
from solver.optimize.pipeline import plan

NO_BAYS = [
    {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 4,
     "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 0, "price": 2000},
    {"sku": "cpu", "gpu_slots": 0, "dimm_slots": 4, "memory_type": "ddr4",
     "memory_channels": 4, "drive_bays": 0, "price": 500},
]


def test_storage_without_drive_bays_names_the_storage_and_the_bays(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10), "b": (15, 10)})
    wf = fx.workloads({"name": "a", "data": {"dataset_tb": 3, "checkpoints_tb": 1}},
                      {"name": "b"})
    with pytest.raises(InfeasibleError) as err:
        plan(wf, fx.catalog(platforms=NO_BAYS), top=1, with_baseline=False)
    text = str(err.value)
    assert "keep 4 TB on disk" in text and "of a)" in text
    assert "every platform in the catalog has drive_bays: 0" in text
    assert "no plan satisfies every constraint together" not in text


def test_no_storage_needs_no_bays(monkeypatch):
    fx.install(monkeypatch, {"a": (15, 10)})
    result = plan(fx.workloads({"name": "a"}), fx.catalog(platforms=NO_BAYS), top=1,
                  with_baseline=False)
    assert result.options


@pytest.mark.parametrize(("need", "ram", "field"), [(15, 10, "VRAM"), (0, 30, "RAM")])
def test_headroom_that_blocks_is_named(monkeypatch, need, ram, field):
    fx.install(monkeypatch, {"a": (need, ram)})
    kind = "inference" if need else "preprocess"
    wf = fx.workloads({"name": "a", "kind": kind}, headroom=0.9999)
    with pytest.raises(InfeasibleError) as err:
        plan(wf, fx.catalog(), top=1, with_baseline=False)
    assert "To fix: lower policy.headroom (now 0.9999; it would fit at" in str(err.value), field


def test_headroom_is_not_blamed_when_the_card_is_too_small(monkeypatch):
    fx.install(monkeypatch, {"huge": (200, 10)})
    with pytest.raises(InfeasibleError) as err:
        plan(fx.workloads({"name": "huge"}), fx.catalog(), top=1, with_baseline=False)
    assert "headroom (now" not in str(err.value)


def test_owned_hardware_at_price_zero_plans(monkeypatch):
    """A 0 price on some SKUs is legitimate (hardware already owned)."""
    fx.install(monkeypatch, {"a": (15, 10)})
    gpus = [{"sku": "small", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100,
             "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0, "price": 0}]
    result = plan(fx.workloads({"name": "a"}), fx.catalog(gpus=gpus), top=1,
                  with_baseline=False)
    assert result.options[0].total_cost == 2000 + 2 * 100
