"""The checker's own reading of N2: the data-parallel efficiency a scheduled run gets from
where its replicas are (one server's GPU link, and the servers' network between them).

Its own arithmetic on purpose (``estimate/data_parallel.py`` is what it checks): the ring
all-reduce of the gradients, hierarchical over a server's GPUs then its NICs, a share hidden
behind the backward pass, the rest added to the step's compute; at most the policy's cap,
and 1 for a single replica. The estimator's constants (link rates, latencies) are inputs,
like a GPU's datasheet."""

from __future__ import annotations

from collections import Counter

from ..estimate.comms import (
    NCCL_PROTOCOL_EFFICIENCY,
    NVLINK_HOP_LATENCY_S,
    PCIE_GBPS,
    PCIE_HOP_LATENCY_S,
)
from ..estimate.data_parallel import DEFAULT_OVERLAP, NETWORK_HOP_LATENCY_S
from ..estimate.weights import lora_params, lora_targets
from ..inputs.catalog import GpuSku
from ..inputs.policy import Policy
from ..inputs.workload import Workload
from ..plan_types import Server
from ..run_types import RunEntry
from .network import ports_of
from .subject import Skus


def _ring(k: int, nbytes: float, gb_per_s: float, hop_s: float) -> float:
    if k <= 1:
        return 0.0
    return 2 * (k - 1) * hop_s + 2 * (k - 1) / k * nbytes / (gb_per_s * 1e9
                                                           * NCCL_PROTOCOL_EFFICIENCY)


def _nic_gbps(server: Server, skus: Skus) -> float:
    """The summed rate of the server's fastest kind of NIC ports, included and added (N3)."""
    return max((sum(g * n for g, n in by.items()) for by in ports_of(server, skus).values()),
               default=0.0)


def _usable_gbps(server: Server, skus: Skus, net) -> float:
    """What the run's policy.network lets it use of the server's network: the fastest
    kind or the one named; 0 where spanning servers is not allowed or under min_gbps."""
    if not net.span_servers:
        return 0.0
    by = ports_of(server, skus)
    if net.fabric == "auto":
        gbps = _nic_gbps(server, skus)
    else:
        gbps = sum(g * n for g, n in by.get(net.fabric, {}).items())
    return 0.0 if net.min_gbps is not None and gbps < net.min_gbps - 1e-9 else gbps


def expected_efficiency(r: RunEntry, w: Workload, g: GpuSku, servers: dict[str, Server],
                        skus: Skus, policy: Policy) -> float:
    """η the run's replicas get where the schedule puts them (module docstring)."""
    if r.replicas <= 1:
        return 1.0
    cap = policy.data_parallel_efficiency
    if r.servers is None:
        return cap
    per = 4.0 if w.precision == "fp32" else 2.0
    params = (lora_params(w.arch, w.lora_rank or 0, lora_targets(w))
              if w.kind in ("lora", "qlora") else w.arch.params_b * 1e9)
    grad = params * per
    held = Counter(r.servers)
    m, s = max(held.values()), len(held)
    comm = 0.0
    if m > 1:
        nvlink = g.nvlink_gbps > 0 and m * r.gpus <= g.nvlink_gpus
        comm += _ring(m, grad, g.nvlink_gbps / 2 if nvlink else PCIE_GBPS,
                      NVLINK_HOP_LATENCY_S if nvlink else PCIE_HOP_LATENCY_S)
    if s > 1:
        slowest = min(_usable_gbps(servers[sid], skus, w.network or policy.network)
                      for sid in held if sid in servers)
        if slowest <= 0:
            return 0.0
        comm += _ring(s, grad, slowest / 8, NETWORK_HOP_LATENCY_S)
    overlap = DEFAULT_OVERLAP if policy.comm_overlap is None else policy.comm_overlap
    compute = (w.global_batch or 1) * (w.seq_len or 1) / (r.replicas * r.tokens_per_s)
    return min(cap, compute / (compute + (1 - overlap) * comm))
