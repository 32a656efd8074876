"""Expand an aggregate solution into physical servers and a replica-by-replica placement.

The program decides *how many* servers of each type and *how many* replicas of each option
go on that type. Here every replica gets its server and GPU indices:

1. shareable replicas are packed onto shared GPUs (first-fit decreasing by VRAM);
2. GPU items (exclusive replicas of d GPUs, shared GPUs of 1) and CPU-only replicas are packed
   into the type's servers, largest degree first, then largest host RAM (first fit);
3. drives are spread over the servers of each platform, one drive SKU per server.

GPU slots always pack (power-of-two degrees, docs/solver.md Lemma 1). Host RAM, CPU cores
(O3, a third dimension of every server) and shared VRAM are summed per type in the program, so in rare cases first fit needs one more server
than the program bought: then a server is added ("repair") and the plan is reported as
feasible with the gap to the program's bound, never as optimal.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from .candidates import Candidates, ReplicaOption, ServerType, usable
from .outcome import Outcome
from .plan import BomLine, Placement, Server


@dataclass
class _Box:
    """A server being filled."""

    type: ServerType
    gpus_used: int = 0
    ram_used: float = 0.0
    items: list = field(default_factory=list)  # (option, [replica ids], gpu count)
    cores_used: float = 0.0


def _cores(payload) -> float:
    """CPU cores the replicas of one packing item need (O3)."""
    if payload[0] == "shared":
        return sum(o.cores for o, _ in payload[1])
    return payload[1].cores


def _cores_cap(t: ServerType) -> float:
    cores = t.platform.cpu_cores
    return float("inf") if cores is None else float(cores)


@dataclass(frozen=True)
class Expansion:
    servers: tuple[Server, ...]
    placements: tuple[Placement, ...]
    lines: tuple[BomLine, ...]
    cost: float
    repaired: int
    """Servers and shared GPUs added beyond the program's counts (0 when exact)."""
    failed_types: tuple[str, ...] = ()
    """Server types whose replicas did not pack into the servers the program bought."""


def _pack_shared(opts: list[tuple[ReplicaOption, int]], cap: float, gpus: int,
                 cores_cap: float = float("inf")):
    """First-fit decreasing of shareable replicas onto GPUs of usable VRAM ``cap``, each
    GPU's replicas within one server's ``cores_cap`` cores (O3)."""
    replicas = sorted(
        ((o, i) for o, count in opts for i in range(count)), key=lambda r: -r[0].vram_gb
    )
    loads: list[list] = []  # [vram, ram, [(option, idx)]]
    for o, i in replicas:
        for load in loads:
            cores = sum(m.cores for m, _ in load[2])
            if load[0] + o.vram_gb <= cap + 1e-9 and cores + o.cores <= cores_cap + 1e-9:
                load[0] += o.vram_gb
                load[1] += o.ram_gb
                load[2].append((o, i))
                break
        else:
            loads.append([o.vram_gb, o.ram_gb, [(o, i)]])
    return loads, max(0, len(loads) - gpus)


# Orders tried when packing a type's replicas into its servers (first fit each time).
_ORDERS = (
    lambda it: (-it[0], -it[1]),  # most GPUs first, then most RAM
    lambda it: (-it[1], -it[0]),  # most RAM first
    lambda it: (-_cores(it[2]), -it[0], -it[1]),  # most CPU cores first (O3)
)


def _pack(items: list, start: list[_Box], t: ServerType, ram_cap: float) -> tuple[list[_Box], int]:
    """First-fit items (gpus, ram, payload) into the bought servers ``start``.

    Returns the filled servers and how many had to be added.
    """
    bought = len(start)
    best: list[_Box] | None = None
    for order in _ORDERS:
        boxes = [_Box(t, b.gpus_used, b.ram_used, list(b.items), b.cores_used) for b in start]
        for gpus, ram, payload in sorted(items, key=order):
            box = _first_fit(boxes, gpus, ram, t, ram_cap, _cores(payload))
            if box is None:
                box = _Box(t)
                boxes.append(box)
            box.gpus_used += gpus
            box.ram_used += ram
            box.cores_used += _cores(payload)
            box.items.append((gpus, ram, payload))
        if best is None or len(boxes) < len(best):
            best = boxes
        if len(best) <= bought:
            break
    return best, len(best) - bought


def _fill_patterns(items: list, patterns, t: ServerType) -> tuple[list[_Box], list]:
    """Build the program's servers pattern by pattern; return them and the items left over.

    Items are matched to a pattern's slots by kind (GPUs, host RAM), the key the program
    grouped them by; a shared GPU fills the one-GPU shared kind whatever its RAM.
    """
    index, built, shared_kind = patterns
    queues: dict[int, list] = {k: [] for k in set(index.values())}
    left = []
    with_cores = t.platform.cpu_cores is not None
    for it in items:
        kind = (it[0], round(it[1], 6)) + ((round(_cores(it[2]), 6),) if with_cores else ())
        k = index.get(kind) if it[2][0] == "one" else shared_kind
        (queues[k] if k is not None else left).append(it)
    boxes = []
    for pattern, servers in built:
        for _ in range(servers):
            box = _Box(t)
            for k, count in enumerate(pattern):
                for _ in range(count):
                    if queues[k]:
                        gpus, ram, payload = queues[k].pop()
                        box.gpus_used += gpus
                        box.ram_used += ram
                        box.cores_used += _cores(payload)
                        box.items.append((gpus, ram, payload))
            boxes.append(box)
    left += [it for q in queues.values() for it in q]
    return boxes, left


def _first_fit(boxes: list[_Box], gpus: int, ram: float, t: ServerType, ram_cap: float,
               cores: float = 0.0) -> _Box | None:
    slots = t.gpu_slots
    cores_cap = _cores_cap(t)
    for box in boxes:
        if (box.gpus_used + gpus <= slots and box.ram_used + ram <= ram_cap + 1e-9
                and box.cores_used + cores <= cores_cap + 1e-9):
            return box
    return None


def _items(opts: list[tuple[ReplicaOption, int]], t: ServerType, shared_gpus: int, policy):
    """Packing items (gpus, ram, payload) of some replicas: shared ones grouped onto GPUs."""
    items = []
    extra = 0
    shared = [(o, c) for o, c in opts if o.shared]
    if shared:
        loads, extra = _pack_shared(shared, usable(t.gpu.vram_gb, policy), shared_gpus,
                                    _cores_cap(t))
        items += [(1, ram, ("shared", members)) for _vram, ram, members in loads]
    for o, c in opts:
        if not o.shared:
            items += [(o.degree, o.ram_gb, ("one", o)) for _ in range(c)]
    return items, extra


def expand(outcome: Outcome, cand: Candidates, wf: WorkloadFile, catalog: Catalog) -> Expansion:
    """Turn an aggregate outcome into servers and placements that a checker can verify."""
    policy = wf.policy
    counters = {w.name: 0 for w in wf.workloads}
    by_type: dict[str, list[tuple[ReplicaOption, int]]] = {}
    for (wname, oi, key), count in sorted(outcome.x.items()):
        by_type.setdefault(key, []).append((cand.options[wname][oi], count))

    types = {t.key: t for t in cand.types}
    boxes_by_type: dict[str, list[_Box]] = {}
    repaired = 0
    failed: list[str] = []
    for key in sorted(set(by_type) | {k for k, v in outcome.n.items() if v}):
        t = types[key]
        ram_cap = usable(t.ram_gb, policy)
        opts = by_type.get(key, [])
        items, extra_gpus = _items(opts, t, outcome.shared.get(key, 0), policy)
        if key in outcome.patterns:
            boxes, items = _fill_patterns(items, outcome.patterns[key], t)
        else:
            boxes = [_Box(t) for _ in range(outcome.n.get(key, 0))]
        boxes, extra = _pack(items, boxes, t, ram_cap)
        if extra or extra_gpus:
            repaired += extra + extra_gpus
            failed.append(key)
        boxes_by_type[key] = boxes

    servers, placements = [], []
    platform_servers: dict[str, list[int]] = {}
    for key, boxes in boxes_by_type.items():
        for box in boxes:
            sid = f"s{len(servers) + 1}"
            gpu_index = 0
            for gpus, _ram, payload in box.items:
                indices = tuple(range(gpu_index, gpu_index + gpus))
                gpu_index += gpus
                members = payload[1] if payload[0] == "shared" else [(payload[1], None)]
                for o, _ in members:
                    counters[o.workload] += 1
                    e = o.estimate
                    placements.append(Placement(
                        workload=o.workload, replica=counters[o.workload], server=sid,
                        gpu=o.gpu, gpus=o.degree, vram_gb_per_gpu=o.vram_gb,
                        host_ram_gb=o.ram_gb, gpu_indices=indices,
                        micro_batch=e.micro_batch, grad_accum_steps=e.grad_accum_steps,
                    ))
            t = box.type
            has_gpus = t.gpu is not None and (box.gpus_used > 0 or bool(t.gpu_count))
            # O1: a type of fixed GPU count is bought with all k GPUs, idle ones included.
            count = t.gpu_count if t.gpu_count is not None else box.gpus_used
            servers.append(Server(
                id=sid, platform=t.platform.sku, gpu=t.gpu.sku if has_gpus else None,
                gpu_count=count if has_gpus else 0, memory=t.memory_sku,
                dimm_count=t.dimm_count, storage=None, drive_count=0,
            ))
            platform_servers.setdefault(t.platform.sku, []).append(len(servers) - 1)

    servers = _place_drives(servers, platform_servers, outcome, catalog)
    lines = bom_lines(servers, catalog)
    cost = round(sum(ln.extended for ln in lines), 2)
    return Expansion(tuple(servers), tuple(placements), lines, cost, repaired, tuple(failed))


def _place_drives(servers: list[Server], platform_servers: dict[str, list[int]],
                  outcome: Outcome, catalog: Catalog) -> list[Server]:
    """Give each platform's drives to its servers, one drive SKU per server, within bays."""
    servers = list(servers)
    for (psku, ssku), count in sorted(outcome.drives.items()):
        if count <= 0:
            continue
        bays = catalog.platform(psku).drive_bays
        free = [i for i in platform_servers.get(psku, []) if servers[i].drive_count == 0]
        for i in free:
            if count <= 0:
                break
            take = min(bays, count)
            servers[i] = replace(servers[i], storage=ssku, drive_count=take)
            count -= take
        while count > 0:  # more drives than the bought servers hold: a drives-only server
            take = min(bays, count)
            p = catalog.platform(psku)
            dimm = min((m for m in catalog.memory if m.type == p.memory_type),
                       key=lambda m: m.price)
            servers.append(Server(f"s{len(servers) + 1}", psku, None, 0, dimm.sku,
                                  p.memory_channels, ssku, take))
            count -= take
    return servers


def bom_lines(servers: list[Server] | tuple[Server, ...], catalog: Catalog) -> tuple[BomLine, ...]:
    """The bill of materials of a list of servers: one line per SKU, in kind order."""
    qty: dict[str, int] = {}
    for s in servers:
        qty[s.platform] = qty.get(s.platform, 0) + 1
        if s.gpu and s.gpu_count:
            qty[s.gpu] = qty.get(s.gpu, 0) + s.gpu_count
        qty[s.memory] = qty.get(s.memory, 0) + s.dimm_count
        if s.storage and s.drive_count:
            qty[s.storage] = qty.get(s.storage, 0) + s.drive_count
    order = {"platform": 0, "gpu": 1, "memory": 2, "storage": 3}
    lines = [BomLine(sku, catalog.kind_of(sku), q, catalog.price_of(sku)) for sku, q in qty.items() if q]
    return tuple(sorted(lines, key=lambda ln: (order[ln.kind], ln.sku)))
