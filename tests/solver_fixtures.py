"""Tiny hand-made catalogs and a table-driven estimator, so solver tests know their optimum.

The real estimator's figures move as the memory model improves; the solver's tests must
not. ``fake_estimates`` replaces ``estimate`` in the solver and the checker with a table:
per-GPU need = need_gb / degree, host RAM = ram_gb x degree (R12-like: more GPUs, more RAM).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from solver.estimate.memory import Estimate, MemoryBreakdown
from solver.estimate.throughput import Throughput
from solver.inputs.catalog import Catalog
from solver.inputs.workload import WorkloadFile

NEEDS: dict[str, tuple[float, float]] = {}
"""workload name -> (VRAM need at degree 1, GB; host RAM per GPU used, GB)."""


def fake_estimate(w, gpu, degree, policy):
    need, ram = NEEDS[w.name]
    if w.kind == "preprocess" or gpu is None:
        return Estimate(w.name, None, 0, True, 0.0, 0.0, ram, None, None, MemoryBreakdown())
    per_gpu = need / degree
    usable = gpu.vram_gb * (1 - policy.headroom)
    return Estimate(w.name, gpu.sku, degree, per_gpu <= usable + 1e-9, per_gpu, usable,
                    ram * degree, 1, 1, MemoryBreakdown(weights_gb=per_gpu))


RATES: dict[str, dict[str, float]] = {}
"""workload name -> GPU SKU -> tokens/s per GPU (a replica of degree d does d times it)."""
TPOT: dict[str, dict[str, float]] = {}
"""workload name -> GPU SKU -> time per output token, ms (any degree)."""


def fake_throughput(w, gpu, degree, policy, est=None):
    rate = RATES.get(w.name, {}).get(gpu.sku, 1.0) * degree
    tpot = TPOT.get(w.name, {}).get(gpu.sku)
    return Throughput(w.name, gpu.sku, degree, rate, 1.0, 1, "mfu", 0.5, 0.5,
                      tpot_ms=tpot, ttft_ms=0.0 if tpot is not None else None)


def install_rates(monkeypatch, rates: dict[str, dict[str, float]],
                  tpot: dict[str, dict[str, float]] | None = None) -> None:
    """Use the table throughput (``RATES``, ``TPOT``) in candidates and checker."""
    RATES.clear()
    RATES.update(rates)
    TPOT.clear()
    TPOT.update(tpot or {})
    monkeypatch.setattr("solver.optimize.replicas.replica_throughput", fake_throughput)
    monkeypatch.setattr("solver.check.throughput.replica_throughput", fake_throughput)
    monkeypatch.setattr("solver.check.time.replica_throughput", fake_throughput)


def install(monkeypatch, needs: dict[str, tuple[float, float]]) -> None:
    """Use the table estimator in candidates and checker for this test."""
    NEEDS.clear()
    NEEDS.update(needs)
    monkeypatch.setattr("solver.optimize.replicas.estimate", fake_estimate)
    monkeypatch.setattr("solver.check.subject.estimate", fake_estimate)


def one_workstation(base: Catalog) -> Catalog:
    """``base`` (the default catalog) cut to one L40S 2-GPU DDR4 workstation, its 32 GB
    DIMM, its 2 TB drive and the L40S's rental price: a brute force's hand-solved case."""
    data = base.model_dump(mode="json")
    data.update(
        gpus=[g for g in data["gpus"] if g["sku"] == "l40s"],
        platforms=[p for p in data["platforms"] if p["sku"] == "ws-2gpu-ddr4"],
        memory=[m for m in data["memory"] if m["sku"] == "ddr4-3200-32g"],
        storage=[s for s in data["storage"] if s["sku"] == "nvme-m2-2t"],
        cloud=[c for c in data["cloud"] if c["gpu"] == "l40s"],
    )
    return Catalog.model_validate(data)


def catalog(gpus=None, platforms=None, memory=None, storage=None) -> Catalog:
    """A small catalog; every argument replaces that list."""
    return Catalog.model_validate({
        "currency": "USD",
        "prices_as_of": dt.date(2026, 10, 1),
        "gpus": gpus or [
            {"sku": "small", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100,
             "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0, "price": 1000},
            {"sku": "big", "vram_gb": 80, "mem_bw_gbps": 2000, "bf16_tflops": 300,
             "power_w": 400, "form_factor": "pcie", "nvlink_gbps": 600, "price": 10000},
        ],
        "platforms": platforms or [
            {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 4,
             "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000},
            {"sku": "cpu", "gpu_slots": 0, "dimm_slots": 4, "memory_type": "ddr4",
             "memory_channels": 4, "drive_bays": 4, "price": 500},
        ],
        "memory": memory or [
            {"sku": "d32", "type": "ddr4", "speed_mts": 3200, "size_gb": 32, "price": 100},
            {"sku": "d64", "type": "ddr4", "speed_mts": 3200, "size_gb": 64, "price": 300},
        ],
        "storage": storage or [
            {"sku": "ssd4", "size_tb": 4, "price": 400},
        ],
    })


def workloads(*jobs: dict, **policy) -> WorkloadFile:
    """A workload file of inference-shaped jobs (the fake estimator ignores the model)."""
    model = {"params_b": 1, "hidden": 1024, "layers": 2, "heads": 8, "vocab": 1000}
    items = []
    for job in jobs:
        item = {"kind": "inference", "model": model, "context": 16, "batch": 1}
        item.update(job)
        if item["kind"] == "preprocess":
            item.pop("model"), item.pop("context"), item.pop("batch")
        items.append(item)
    return WorkloadFile.model_validate({"name": "t", "policy": policy, "workloads": items})


def returns(monkeypatch, owner: Any, name: str) -> list:
    """Spy on ``owner.name``: the list it returns collects each call's result, in order."""
    seen: list = []
    real = getattr(owner, name)

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        seen.append(out)
        return out

    monkeypatch.setattr(owner, name, spy)
    return seen
