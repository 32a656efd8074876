"""Filled servers numbered into the plan's servers and placements (s1, s2, ... with each
replica's GPU indices), the owned servers left idle (P4), and the bill of materials.
"""

from __future__ import annotations

from ...estimate.measured import measured_keys
from ...inputs.catalog import Catalog
from ...inputs.workload import WorkloadFile
from ...plan_types import BomLine, FabricPod, Placement, Server
from ...rules.fabric import fabric_lines, fabric_of
from ..candidates import Candidates
from ..replicas import ReplicaOption
from .box import Box


def idle_owned(boxes_by_type: dict[str, list[Box]], cand: Candidates,
              numbered: int) -> tuple[Server, ...]:
    """P4: the owned servers of each inventory configuration the plan does not use
    (numbered after the plan's servers); they draw no power."""
    idle: list[Server] = []
    for t in cand.types:
        for _ in range(max(0, t.owned - len(boxes_by_type.get(t.key, [])))):
            sid = f"s{numbered + len(idle) + 1}"
            idle.append(bare_server(sid, Box(t), t.disk_tb))
    return tuple(idle)


def number_servers(
   boxes_by_type: dict[str, list[Box]], wf: WorkloadFile
) -> tuple[list[Server], list[Placement], list[float], list[str]]:
    """Servers s1, s2, ... in type order, every replica placed on its GPU indices, and each
    server's local datasets, TB, and type (O4, for the drives)."""
    counters = {w.name: 0 for w in wf.workloads}
    servers: list[Server] = []
    placements: list[Placement] = []
    needs: list[float] = []
    keys: list[str] = []
    for boxes in boxes_by_type.values():
        for box in boxes:
            sid = f"s{len(servers) + 1}"
            gpu_index = 0
            for item in box.items:
                indices = tuple(range(gpu_index, gpu_index + item.gpus))
                gpu_index += item.gpus
                for o in item.replicas:
                    counters[o.workload] += 1
                    placements.append(_placement(o, counters[o.workload], sid, indices))
            servers.append(bare_server(sid, box, box.type.disk_tb if box.type.owned else 0.0))
            needs.append(box.local_tb)
            keys.append(box.type.key)
    return servers, placements, needs, keys


def _placement(o: ReplicaOption, replica: int, sid: str, indices: tuple[int, ...]) -> Placement:
    e = o.estimate
    return Placement(
        workload=o.workload, replica=replica, server=sid, gpu=o.gpu, gpus=o.degree,
        vram_gb_per_gpu=o.vram_gb, host_ram_gb=o.ram_gb, gpu_indices=indices,
        micro_batch=e.micro_batch, grad_accum_steps=e.grad_accum_steps,
        tokens_per_s=o.tokens_per_s,
        tpot_ms=o.rate.tpot_ms if o.rate is not None else None,
        ttft_ms=o.rate.ttft_ms if o.rate is not None else None,
        measured=measured_keys(e, o.rate),
    )


def bare_server(sid: str, box: Box, disk_tb: float) -> Server:
    """A filled box as a server without drives (a GPU type left without GPUs has none).

    O1: a type of fixed GPU count is bought with all its k GPUs, idle ones included.
    P4: an owned server is as listed in the inventory, drives (``disk_tb``) included.
    """
    t = box.type
    fixed = t.gpu_count
    has_gpus = t.gpu is not None and (box.gpus_used > 0 or bool(fixed))
    gpu = t.gpu.sku if t.gpu is not None and has_gpus else None
    count = fixed if fixed is not None else box.gpus_used
    return Server(
        id=sid, platform=t.platform.sku, gpu=gpu, gpu_count=count if gpu else 0,
        memory=t.memory_sku, dimm_count=t.dimm_count, storage=t.storage,
        drive_count=t.drive_count, owned=bool(t.owned), disk_tb=disk_tb,
        disk_used_tb=box.local_tb,
    )


def bom_lines(servers: list[Server] | tuple[Server, ...], catalog: Catalog,
              fabric: tuple[FabricPod, ...] | None = None) -> tuple[BomLine, ...]:
    """The bill of materials of a list of servers: one line per SKU, in kind order (owned
    servers, P4, are not bought and not listed), the fabric their pods need last (N3):
    ``fabric`` where the caller has it already, else ``rules.fabric.fabric_of``."""
    qty: dict[str, int] = {}
    for server in servers:
        if server.owned:
            continue
        for sku, q in server.parts():
            qty[sku] = qty.get(sku, 0) + q
    order = {"platform": 0, "gpu": 1, "memory": 2, "storage": 3, "network": 4}
    lines = [BomLine(sku, catalog.kind_of(sku), q, catalog.price_of(sku))
             for sku, q in qty.items()]
    lines += fabric_lines(fabric_of(servers, catalog) if fabric is None else fabric, catalog)
    return tuple(sorted(lines, key=lambda ln: (order[ln.kind], ln.sku)))
