"""Communication inside one replica and the serving framework's per-step floor (N4).

A replica on ``d`` GPUs splits every layer Megatron-style (tensor parallelism): after the
attention block and after the MLP, each GPU holds a partial sum of the layer's output and
the ``d`` GPUs all-reduce it (Shoeybi et al. 2019, operators f and g: 2 all-reduces per layer
in the forward pass, 2 more in the backward). An all-reduce of ``n`` bytes over a ring of
``d`` GPUs takes

    t = 2 (d - 1) x hop latency  +  2 (d - 1) / d x n / (link GB/s x NCCL protocol efficiency)

(the ring's 2(d - 1) steps each pay the link's latency; each GPU sends 2(d - 1)/d of the
buffer, NCCL's "bus bandwidth"). The link is NVLink inside the card's NVLink domain (the
catalog's ``nvlink_gbps`` is both directions together, so one direction carries half) and
PCIe beyond it. On top of the GPU time, a serving framework spends a fixed time per step
(scheduling, sampling, launching the step's kernels): ``step_overhead_ms``.

Every constant and its source is in ``docs/throughput-model.md`` section 5. Pure functions,
no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..inputs.catalog import GpuSku
from ..inputs.model import ModelArch
from ..inputs.workload import Workload

GBPS = 1e9
"""Bytes/s per GB/s."""
PCIE_GBPS = 31.5
"""PCIe 4.0 x16, one direction: 16 GT/s x 16 lanes x 128/130 / 8 (PCI-SIG). The link of the
all-reduces of a replica that spans GPUs beyond its NVLink domain."""
NCCL_PROTOCOL_EFFICIENCY = 0.8
"""Share of a link's line rate NCCL's ring moves as payload: NVLink4's 450 GB/s per direction
gives an effective 370 GB/s "with the protocol overhead (~20%)" (NCCL maintainer,
NVIDIA/nccl-tests issue #212, 2024-05)."""
NVLINK_HOP_LATENCY_S = 33.7e-6 / 14
"""One ring step over NVLink, seconds: an 8-byte all-reduce on a DGX A100's 8 GPUs takes
33.7 us over the ring's 2 x 7 = 14 steps (NVIDIA/nccl-tests issue #123, 2022-12, NCCL_ALGO=Ring;
the maintainer confirms the 2(d - 1) x latency model there)."""
PCIE_HOP_LATENCY_S = 42.56e-6 / 14
"""One ring step over PCIe, seconds: an 8-byte all-reduce on 8 RTX 4090s over PCIe takes
42.56 us (NVIDIA/nccl issue #1530, 2024-12), over 14 steps as above."""
TP_ALLREDUCES_PER_LAYER_PASS = 2
"""Megatron tensor parallelism: one all-reduce after attention, one after the MLP, per layer
and pass (forward; the backward has two more)."""
ACTIVATION_BYTES = 2.0
"""Bytes of one activation value all-reduced in serving: 16-bit, whatever the weight format
(FP8, int8 and int4 serving quantise weights; TensorRT-LLM and vLLM all-reduce in 16 bits)."""
STEP_OVERHEAD_MS = 0.5
"""Default time a serving framework adds to every step (decode step, and a prompt's prefill)
beyond its kernels, ms: vLLM measured a ~4 ms GPU bubble per scheduler call (CPU-side
scheduling, input preparation, sampled-token transfer and detokenisation) and amortises it
over 8 steps with multi-step scheduling, the default stance since v0.6 (vLLM RFC #6854,
2024-07: "the 4ms only needs to be incurred once for every 8 decode"): 4 / 8 = 0.5 ms."""


@dataclass(frozen=True)
class Link:
    """The link one replica's all-reduces cross: ``name`` (NVLink or PCIe), one direction's
    line rate ``gbps`` (GB/s) and the latency of one ring step ``hop_s`` (seconds)."""

    name: str
    gbps: float
    hop_s: float


def tp_link(gpu: GpuSku, degree: int) -> Link | None:
    """The link of a replica on ``degree`` GPUs: NVLink inside the card's NVLink domain (half
    the catalog's both-ways ``nvlink_gbps``), PCIe beyond it; None on one GPU."""
    if degree <= 1:
        return None
    if gpu.nvlink_gbps > 0 and degree <= gpu.nvlink_gpus:
        return Link("NVLink", gpu.nvlink_gbps / 2, NVLINK_HOP_LATENCY_S)
    return Link("PCIe", PCIE_GBPS, PCIE_HOP_LATENCY_S)


def beyond_nvlink(gpu: GpuSku, degree: int) -> bool:
    """Whether a replica on ``degree`` GPUs spans GPUs no NVLink joins (its link is PCIe)."""
    link = tp_link(gpu, degree)
    return link is not None and link.name == "PCIe"


def allreduce_seconds(link: Link, degree: int, nbytes: float) -> float:
    """One ring all-reduce of ``nbytes`` on ``degree`` GPUs: 2(d - 1) hops of latency plus
    2(d - 1)/d x bytes at the link's rate x NCCL's protocol efficiency."""
    steps = 2 * (degree - 1)
    payload = steps / degree * nbytes
    return steps * link.hop_s + payload / (link.gbps * GBPS * NCCL_PROTOCOL_EFFICIENCY)


def tp_seconds(a: ModelArch, gpu: GpuSku, degree: int, tokens: float, passes: int,
               value_bytes: float = ACTIVATION_BYTES) -> float:
    """All-reduces of one tensor-parallel pass over ``tokens`` tokens at once: 2 per layer
    per pass, each of tokens x hidden values; 0 on one GPU."""
    link = tp_link(gpu, degree)
    if link is None:
        return 0.0
    n = TP_ALLREDUCES_PER_LAYER_PASS * passes * a.layers
    return n * allreduce_seconds(link, degree, tokens * a.hidden * value_bytes)


def tp_latency_seconds(a: ModelArch, gpu: GpuSku, degree: int, passes: int = 1) -> float:
    """The latency part of a pass's all-reduces (no payload): the floor no batch removes."""
    link = tp_link(gpu, degree)
    if link is None:
        return 0.0
    return TP_ALLREDUCES_PER_LAYER_PASS * passes * a.layers * 2 * (degree - 1) * link.hop_s


def step_overhead_s(w: Workload) -> float:
    """The serving framework's time per step, seconds: the workload's ``step_overhead_ms``
    where it gives one, else :data:`STEP_OVERHEAD_MS`."""
    ms = getattr(w, "step_overhead_ms", None)
    return (STEP_OVERHEAD_MS if ms is None else ms) / 1e3
