"""N2: what data parallelism costs a training run in time.

The replicas of one run all-reduce their gradients every optimizer step. With n = s · m
replicas on s servers of m replicas each, the all-reduce is hierarchical: a ring among the m
replicas of a server over its GPU link (NVLink inside the card's NVLink domain, else PCIe),
then a ring among the s servers over the server's network (the Gb/s of its fastest fabric's
NICs, every port in use). Each ring moves 2(k − 1)/k × the gradient bytes (``comms``).
A share ``policy.comm_overlap`` hides behind the backward pass; the rest is exposed:

    step compute  t_c = global_batch × seq_len ÷ (n × τ)      (τ one replica's tokens/s)
    efficiency    η   = t_c ÷ (t_c + (1 − overlap) × t_comm),  at most
                        ``policy.data_parallel_efficiency`` (stragglers, imbalance)

A single replica has no data-parallel traffic: η = 1. Gradients travel in the training
precision (2 bytes in bf16/fp16, 4 in fp32), as DeepSpeed and FSDP's bf16 reduce do; LoRA
and QLoRA all-reduce their adapters' gradients only.
"""

from __future__ import annotations

from ..inputs.catalog import Catalog, GpuSku, Platform
from ..inputs.policy import Policy
from ..inputs.workload import Workload
from ..rules.fabric import network_gbps as ports_gbps
from ..rules.fabric import platform_ports
from .comms import Link, allreduce_seconds, tp_link
from .weights import lora_params, lora_targets

NETWORK_HOP_LATENCY_S = 5e-6
"""Latency of one ring step between servers, s: RDMA over InfiniBand or RoCE is 1–2 µs per
message; NCCL's software and the switch hop bring one step to a few µs (nccl-tests over
IB report ~5–10 µs for small all-reduces on two nodes)."""
DEFAULT_OVERLAP = 0.5
"""Share of the all-reduce hidden behind the backward pass when the policy does not say
(PyTorch DDP and DeepSpeed bucket gradients and reduce them while later layers' backward
runs; about half is the usual figure for large models)."""


def gradient_bytes(w: Workload) -> float:
    """Bytes all-reduced per step: the trainable parameters' gradients in the training
    precision."""
    per = 4.0 if w.precision == "fp32" else 2.0
    a = w.arch
    if w.kind in ("lora", "qlora"):
        return lora_params(a, w.lora_rank or 0, lora_targets(w)) * per
    return a.params_b * 1e9 * per


def network_gbps(platform: Platform, catalog: Catalog) -> float:
    """A server's network with its included NICs, Gb/s: the ports × rate of its fastest
    fabric (Ethernet and InfiniBand are not bonded together); 0 when the catalog says none.
    A plan may add NICs (N3, ``rules/fabric.py``)."""
    return ports_gbps(platform_ports(platform, catalog))


def dp_efficiency(w: Workload, gpu: GpuSku, degree: int, tokens_per_s: float, per_server: int,
                  servers: int, net_gbps: float, policy: Policy) -> float:
    """η of ``servers`` × ``per_server`` replicas of ``degree`` GPUs each (module docstring)."""
    n = per_server * servers
    if n <= 1:
        return 1.0
    cap = policy.data_parallel_efficiency
    grad = gradient_bytes(w)
    comm = 0.0
    if per_server > 1:
        link = tp_link(gpu, per_server * degree) or Link("PCIe", 31.5, 0.0)
        comm += allreduce_seconds(link, per_server, grad)
    if servers > 1:
        if net_gbps <= 0:
            return 0.0
        comm += allreduce_seconds(Link("network", net_gbps / 8, NETWORK_HOP_LATENCY_S),
                                  servers, grad)
    overlap = getattr(policy, "comm_overlap", None)
    exposed = (1 - (DEFAULT_OVERLAP if overlap is None else overlap)) * comm
    compute = (w.global_batch or 1) * (w.seq_len or 1) / (n * tokens_per_s)
    return min(cap, compute / (compute + exposed))
