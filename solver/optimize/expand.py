"""Expand an aggregate solution into physical servers and a replica-by-replica placement.

The program decides *how many* servers of each type and *how many* replicas of each option
go on that type. Here every replica gets its server and GPU indices:

1. shareable replicas are packed onto shared GPUs (first-fit decreasing by VRAM);
2. GPU items (exclusive replicas of d GPUs, shared GPUs of 1) and CPU-only replicas are packed
   into the type's servers, largest degree first, then largest host RAM (first fit);
3. drives are spread over the servers of each platform, one drive SKU per server.

GPU slots always pack (power-of-two degrees, docs/solver.md Lemma 1). Host RAM, CPU cores
(O3, a third dimension of every server whose platform lists them) and shared VRAM are
summed per type in the program, so in rare cases first fit needs one more server
than the program bought: then a server is added ("repair") and the plan is reported as
feasible with the gap to the program's bound, never as optimal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..inputs.catalog import Catalog
from ..inputs.workload import Policy, WorkloadFile
from .candidates import Candidates, ReplicaOption, ServerType, cores_of, usable
from .outcome import BuiltPatterns, Outcome
from .plan import BomLine, Placement, Server


@dataclass(frozen=True)
class _Item:
    """What packs into a server: one exclusive replica, or one shared GPU and its replicas."""

    gpus: int
    ram_gb: float
    replicas: tuple[ReplicaOption, ...]
    """The exclusive replica's option, or the options of the replicas on the shared GPU."""
    shared: bool = False

    @property
    def cores(self) -> float:
        """CPU cores its replicas need (O3)."""
        return sum(o.cores for o in self.replicas)


@dataclass
class _SharedGpu:
    """A shared GPU being filled: VRAM and host RAM of the replicas on it, GB."""

    vram_gb: float
    ram_gb: float
    replicas: list[ReplicaOption]

    @property
    def cores(self) -> float:
        return sum(o.cores for o in self.replicas)


@dataclass
class _Box:
    """A server being filled."""

    type: ServerType
    gpus_used: int = 0
    ram_used: float = 0.0
    items: list[_Item] = field(default_factory=list)
    cores_used: float = 0.0

    def add(self, item: _Item) -> None:
        self.gpus_used += item.gpus
        self.ram_used += item.ram_gb
        self.cores_used += item.cores
        self.items.append(item)


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
    idle: tuple[Server, ...] = ()
    """P4: owned servers the plan leaves idle."""


def _pack_shared(opts: list[tuple[ReplicaOption, int]], cap: float, gpus: int,
                 cores_cap: float = float("inf")) -> tuple[list[_SharedGpu], int]:
    """First-fit decreasing of shareable replicas onto GPUs of usable VRAM ``cap``, each
    GPU's replicas within one server's ``cores_cap`` cores (O3).

    Returns the shared GPUs filled and how many more than the ``gpus`` bought they are.
    """
    replicas = sorted((o for o, count in opts for _ in range(count)), key=lambda o: -o.vram_gb)
    loads: list[_SharedGpu] = []
    for o in replicas:
        for load in loads:
            if (load.vram_gb + o.vram_gb <= cap + 1e-9
                    and load.cores + o.cores <= cores_cap + 1e-9):
                load.vram_gb += o.vram_gb
                load.ram_gb += o.ram_gb
                load.replicas.append(o)
                break
        else:
            loads.append(_SharedGpu(o.vram_gb, o.ram_gb, [o]))
    return loads, max(0, len(loads) - gpus)


# Orders tried when packing a type's replicas into its servers (first fit each time).
_ORDERS: tuple[Callable[[_Item], tuple[float, ...]], ...] = (
    lambda it: (-it.gpus, -it.ram_gb),  # most GPUs first, then most RAM
    lambda it: (-it.ram_gb, -it.gpus),  # most RAM first
    lambda it: (-it.cores, -it.gpus, -it.ram_gb),  # most CPU cores first (O3)
)


def _pack(items: list[_Item], start: list[_Box], t: ServerType,
          ram_cap: float) -> tuple[list[_Box], int]:
    """First-fit ``items`` into the bought servers ``start``.

    Returns the filled servers and how many had to be added.
    """
    bought = len(start)
    best: list[_Box] = []
    for n, order in enumerate(_ORDERS):
        boxes = [_Box(t, b.gpus_used, b.ram_used, list(b.items), b.cores_used) for b in start]
        for item in sorted(items, key=order):
            box = _first_fit(boxes, item, t, ram_cap)
            if box is None:
                box = _Box(t)
                boxes.append(box)
            box.add(item)
        if n == 0 or len(boxes) < len(best):
            best = boxes
        if len(best) <= bought:
            break
    return best, len(best) - bought


def _fill_patterns(items: list[_Item], patterns: BuiltPatterns,
                   t: ServerType) -> tuple[list[_Box], list[_Item]]:
    """Build the program's servers pattern by pattern; return them and the items left over.

    Items are matched to a pattern's slots by kind (GPUs, host RAM[, CPU cores]), the key the
    program grouped them by; a shared GPU fills the one-GPU shared kind whatever its RAM.
    """
    queues: dict[int, list[_Item]] = {k: [] for k in set(patterns.kind_index.values())}
    left: list[_Item] = []
    for it in items:
        k = (patterns.shared_kind if it.shared
             else patterns.kind(it.gpus, it.ram_gb, it.cores))
        (queues[k] if k is not None else left).append(it)
    boxes = []
    for pattern, servers in patterns.built:
        for _ in range(servers):
            box = _Box(t)
            for k, count in enumerate(pattern):
                for _ in range(count):
                    if queues[k]:
                        box.add(queues[k].pop())
            boxes.append(box)
    left += [it for q in queues.values() for it in q]
    return boxes, left


def _first_fit(boxes: list[_Box], item: _Item, t: ServerType, ram_cap: float) -> _Box | None:
    slots = t.gpu_slots
    cores_cap = cores_of(t)
    for box in boxes:
        if (box.gpus_used + item.gpus <= slots and box.ram_used + item.ram_gb <= ram_cap + 1e-9
                and box.cores_used + item.cores <= cores_cap + 1e-9):
            return box
    return None


def _items(opts: list[tuple[ReplicaOption, int]], t: ServerType, shared_gpus: int,
           policy: Policy) -> tuple[list[_Item], int]:
    """Packing items of some replicas, shared ones grouped onto GPUs; and the shared GPUs
    needed beyond the ``shared_gpus`` bought."""
    items: list[_Item] = []
    extra = 0
    shared = [(o, c) for o, c in opts if o.shared]
    if shared and t.gpu is not None:
        loads, extra = _pack_shared(shared, usable(t.gpu.vram_gb, policy), shared_gpus,
                                    cores_of(t))
        items += [_Item(1, load.ram_gb, tuple(load.replicas), shared=True) for load in loads]
    for o, c in opts:
        if not o.shared:
            items += [_Item(o.degree, o.ram_gb, (o,)) for _ in range(c)]
    return items, extra


def expand(outcome: Outcome, cand: Candidates, wf: WorkloadFile, catalog: Catalog) -> Expansion:
    """Turn an aggregate outcome into servers and placements that a checker can verify."""
    boxes_by_type, repaired, failed = _fill_types(outcome, cand, wf.policy)
    servers, placements, platform_servers = _number_servers(boxes_by_type, wf)
    servers = _place_drives(servers, platform_servers, outcome, catalog)
    lines = bom_lines(servers, catalog)
    cost = round(sum(ln.extended for ln in lines), 2)
    idle = _idle_owned(boxes_by_type, cand, len(servers))
    return Expansion(tuple(servers), tuple(placements), lines, cost, repaired, tuple(failed),
                     idle)


def _idle_owned(boxes_by_type: dict[str, list[_Box]], cand: Candidates,
                numbered: int) -> tuple[Server, ...]:
    """P4: the owned servers of each inventory configuration the plan does not use
    (numbered after the plan's servers); they draw no power."""
    idle: list[Server] = []
    for t in cand.types:
        for _ in range(max(0, t.owned - len(boxes_by_type.get(t.key, [])))):
            sid = f"s{numbered + len(idle) + 1}"
            idle.append(_server(sid, _Box(t)))
    return tuple(idle)


def _fill_types(outcome: Outcome, cand: Candidates,
                policy: Policy) -> tuple[dict[str, list[_Box]], int, list[str]]:
    """Each bought type's servers, filled with its replicas; servers and shared GPUs added
    beyond the program's counts; the types that needed them."""
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
    return boxes_by_type, repaired, failed


def _number_servers(
    boxes_by_type: dict[str, list[_Box]], wf: WorkloadFile
) -> tuple[list[Server], list[Placement], dict[str, list[int]]]:
    """Servers s1, s2, ... in type order, every replica placed on its GPU indices, and the
    positions of each platform's servers (for the drives)."""
    counters = {w.name: 0 for w in wf.workloads}
    servers: list[Server] = []
    placements: list[Placement] = []
    platform_servers: dict[str, list[int]] = {}
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
            servers.append(_server(sid, box))
            if not box.type.owned:  # owned servers keep their drives (P4)
                platform_servers.setdefault(box.type.platform.sku, []).append(len(servers) - 1)
    return servers, placements, platform_servers


def _placement(o: ReplicaOption, replica: int, sid: str, indices: tuple[int, ...]) -> Placement:
    e = o.estimate
    return Placement(
        workload=o.workload, replica=replica, server=sid, gpu=o.gpu, gpus=o.degree,
        vram_gb_per_gpu=o.vram_gb, host_ram_gb=o.ram_gb, gpu_indices=indices,
        micro_batch=e.micro_batch, grad_accum_steps=e.grad_accum_steps,
        tokens_per_s=o.tokens_per_s,
        tpot_ms=o.rate.tpot_ms if o.rate is not None else None,
        ttft_ms=o.rate.ttft_ms if o.rate is not None else None,
    )


def _server(sid: str, box: _Box) -> Server:
    """A filled box as a server without drives (a GPU type left without GPUs has none).

    O1: a type of fixed GPU count is bought with all its k GPUs, idle ones included.
    P4: an owned server is as listed in the inventory, drives included.
    """
    t = box.type
    fixed = t.gpu_count
    has_gpus = t.gpu is not None and (box.gpus_used > 0 or bool(fixed))
    gpu = t.gpu.sku if t.gpu is not None and has_gpus else None
    count = fixed if fixed is not None else box.gpus_used
    return Server(
        id=sid, platform=t.platform.sku, gpu=gpu, gpu_count=count if gpu else 0,
        memory=t.memory_sku, dimm_count=t.dimm_count, storage=t.storage,
        drive_count=t.drive_count, owned=bool(t.owned),
    )


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
    """The bill of materials of a list of servers: one line per SKU, in kind order (owned
    servers, P4, are not bought and not listed)."""
    qty: dict[str, int] = {}
    for server in servers:
        if server.owned:
            continue
        for sku, q in server.parts():
            qty[sku] = qty.get(sku, 0) + q
    order = {"platform": 0, "gpu": 1, "memory": 2, "storage": 3}
    lines = [BomLine(sku, catalog.kind_of(sku), q, catalog.price_of(sku))
             for sku, q in qty.items()]
    return tuple(sorted(lines, key=lambda ln: (order[ln.kind], ln.sku)))
