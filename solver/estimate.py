"""Memory estimator (PLACEHOLDER VERSION — being replaced by the full model of docs/memory-model.md).

Interface contract (kept by the full version):
    estimate(workload, gpu, degree, policy) -> Estimate
    data_ram_gb(workload) -> float
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .catalog import GpuSku
from .workload import Policy, Workload

GB = 1e9
BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}


@dataclass(frozen=True)
class MemoryBreakdown:
    """Per-GPU VRAM by component, GB."""

    weights_gb: float = 0.0
    gradients_gb: float = 0.0
    optimizer_gb: float = 0.0
    master_weights_gb: float = 0.0
    activations_gb: float = 0.0
    kv_cache_gb: float = 0.0
    overhead_gb: float = 0.0

    @property
    def total_gb(self) -> float:
        return sum(asdict(self).values())

    def to_json(self) -> dict:
        return {k: round(v, 3) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Estimate:
    """What one replica of a workload needs on one GPU SKU at one parallel degree."""

    workload: str
    gpu: str | None
    degree: int
    fits: bool
    vram_gb_per_gpu: float
    usable_vram_gb: float
    host_ram_gb: float
    micro_batch: int | None
    grad_accum_steps: int | None
    breakdown: MemoryBreakdown
    note: str = ""

    def to_json(self) -> dict:
        return {
            "workload": self.workload,
            "gpu": self.gpu,
            "degree": self.degree,
            "fits": self.fits,
            "vram_gb_per_gpu": round(self.vram_gb_per_gpu, 3),
            "host_ram_gb": round(self.host_ram_gb, 3),
            "micro_batch": self.micro_batch,
            "grad_accum_steps": self.grad_accum_steps,
            "breakdown": self.breakdown.to_json(),
        }


def data_ram_gb(w: Workload) -> float:
    d = w.data
    return d.in_memory_gb * d.expansion * (1 + 0.05 * d.workers) * 1.2


def _train(w: Workload, d: int, mb: int) -> MemoryBreakdown:
    a = w.arch
    p = a.params_b * 1e9
    wb = BYTES[w.precision]
    opt = {"adamw": 8, "adam": 8, "sgd": 4, "adamw8bit": 2}[w.optimizer]
    act = mb * w.seq_len * a.hidden * a.layers * 2 * (2 if w.activation_checkpointing else 17)
    return MemoryBreakdown(
        weights_gb=p * wb / GB / d,
        gradients_gb=p * wb / GB / d,
        optimizer_gb=p * opt / GB / d,
        master_weights_gb=(p * 4 / GB / d) if w.uses_master_weights and wb < 4 else 0.0,
        activations_gb=act / GB / d,
        overhead_gb=1.0,
    )


def estimate(w: Workload, gpu: GpuSku | None, degree: int, policy: Policy) -> Estimate:
    if w.kind == "preprocess" or gpu is None:
        return Estimate(w.name, None, 0, True, 0.0, 0.0, data_ram_gb(w), None, None,
                        MemoryBreakdown())
    usable = gpu.vram_gb * (1 - policy.headroom)
    a = w.arch
    mb_used, accum = None, None
    if w.kind == "inference":
        kv = 2 * a.layers * a.n_kv_heads * a.d_head * w.context * w.batch * 2
        bd = MemoryBreakdown(weights_gb=a.params_b * BYTES[w.precision] / degree,
                             kv_cache_gb=kv / GB / degree, overhead_gb=1.0)
        ratio = policy.ram_ratio_inference
    else:
        per_dp = max(1, w.global_batch)
        if w.micro_batch == "auto":
            mb = per_dp
            while mb > 1 and _train(w, degree, mb).total_gb > usable:
                mb //= 2
        else:
            mb = w.micro_batch
        bd = _train(w, degree, mb)
        mb_used, accum = mb, math.ceil(w.global_batch / mb)
        ratio = policy.ram_ratio_single_gpu_train if degree == 1 else policy.ram_ratio_multi_gpu_train
    need = bd.total_gb
    vram_basis = need if w.shareable else gpu.vram_gb * degree
    host = max(data_ram_gb(w), ratio * vram_basis)
    return Estimate(w.name, gpu.sku, degree, need <= usable + 1e-9, need, usable, host, mb_used,
                    accum, bd)
