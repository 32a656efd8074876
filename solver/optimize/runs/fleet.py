"""Servers for runs (H4): the configurations a run can fill, and how many of its replicas
one server of a configuration holds.

A run server is a whole orderable server (O1 GPU count, R14 DIMMs even per channel, drives)
bought for finite runs; a run on it fills it with replicas of one GPU SKU and degree. There
is one configuration per platform and GPU SKU that some run can use: the platform's largest
GPU count, with the cheapest DIMMs and drives that let it hold every such run at its fullest
(as many replicas as its GPUs take, fewer where no DIMMs or cores allow it), shared by every
run it fits. This is a restriction of the time model (docs/solver.md): a run server is
bought full, as servers shared in time usually are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ...inputs.catalog import Catalog, GpuSku, MemorySku, Platform, StorageSku
from ...inputs.fabric import NicSku
from ...inputs.policy import Policy
from ...inputs.workload import Workload
from ...rules.fabric import network_gbps, platform_ports
from ...rules.headroom import usable
from ...rules.power import power_w, rack_units
from ..replicas import ReplicaOption


@dataclass(frozen=True)
class RunServer:
    """A server configuration S bought for runs."""

    platform: str
    gpu: str
    gpu_count: int
    memory: str
    dimm_count: int
    ram_gb: float
    storage: str | None
    drive_count: int
    disk_tb: float
    cores: int | None
    price: float
    power_w: float
    units: int
    nics: tuple[tuple[str, int], ...] = ()
    """N3: NICs added to the platform's included ones, (SKU, count)."""
    ports: tuple[tuple[str, float, int], ...] = ()
    """N3: NIC ports of one server, (kind, Gb/s, count)."""
    net_gbps: float = 0.0
    """N2: its network for data-parallel traffic, Gb/s (``rules.fabric.network_gbps``)."""

    @property
    def key(self) -> str:
        added = "".join(f"+{sku}x{n}" for sku, n in self.nics)
        return (f"{self.platform}/{self.gpu}x{self.gpu_count}/{self.memory}x{self.dimm_count}"
                f"/{self.storage or 'nodisk'}x{self.drive_count}{added}")

    def port_map(self) -> dict[str, dict[float, int]]:
        """NIC ports of one server by kind and Gb/s."""
        out: dict[str, dict[float, int]] = {}
        for kind, gbps, n in self.ports:
            out.setdefault(kind, {})[gbps] = n
        return out


def holds(s: RunServer, o: ReplicaOption, w: Workload, policy: Policy) -> int:
    """Replicas of option ``o`` one server of ``s`` holds: whole replicas of its degree in
    its GPUs, their host RAM (R11, R12) and CPU cores (O3) under the headroom line, and the
    run's dataset and checkpoints on its disk (O4); 0 when none fits."""
    if o.gpu != s.gpu or o.degree < 1 or o.degree > s.gpu_count:
        return 0
    m = s.gpu_count // o.degree
    if o.ram_gb > 0:
        m = min(m, int(usable(s.ram_gb, policy) / o.ram_gb + 1e-9))
    if s.cores is not None and o.cores > 0:
        m = min(m, int(s.cores / o.cores + 1e-9))
    if w.local_tb + w.pool_tb > usable(s.disk_tb, policy) + 1e-9:
        return 0
    return max(m, 0)


def run_servers(runs: Iterable[tuple[Workload, list[ReplicaOption]]], catalog: Catalog,
                policy: Policy) -> tuple[RunServer, ...]:
    """One configuration per (platform, GPU SKU) some run can use: the platform's largest
    GPU count (O1), and the cheapest DIMMs and drives with which it holds every run option of
    that GPU at its fullest (as many replicas as its GPUs take), where any DIMMs can."""
    gpus = {g.sku: g for g in catalog.gpus}
    users: dict[tuple[str, str], list[tuple[Workload, ReplicaOption]]] = {}
    for w, options in runs:
        for o in options:
            if o.gpu is None:
                continue
            for p in catalog.platforms:
                if (p.sku not in policy.exclude and p.takes(gpus[o.gpu])
                        and o.degree <= max(p.allowed_gpu_counts())):
                    users.setdefault((p.sku, o.gpu), []).append((w, o))
    platforms = {p.sku: p for p in catalog.platforms}
    out = [v for (p, g), used in sorted(users.items())
           if (s := _configure(platforms[p], gpus[g], used, catalog, policy)) is not None
           for v in nic_variants(s, platforms[p], catalog, policy)]
    return tuple(sorted(out, key=lambda s: (s.price, s.key)))


def nic_variants(s: RunServer, p: Platform, catalog: Catalog,
                 policy: Policy) -> list[RunServer]:
    """N3: the configuration with its included NICs, and, per NIC kind, with its free NIC
    slots (``nic_slots`` − the included cards) filled with the catalog's fastest card of
    that kind (most Gb/s over its ports; of equal, the cheaper), where that makes its network
    faster (N2). A restriction of the time model (docs/solver.md): a run server's network is
    its own, or the fastest Ethernet or InfiniBand its slots take."""
    base = _with_nics(s, p, (), catalog)
    out = [base]
    free = (p.nic_slots or 0) - sum(i.count for i in p.included_nics)
    if free < 1:
        return out
    for nic in fastest_nics(catalog, policy.exclude):
        v = _with_nics(s, p, ((nic.sku, free),), catalog)
        if v.net_gbps > base.net_gbps + 1e-9:
            out.append(v)
    return out


def fastest_nics(catalog: Catalog, exclude: Iterable[str] = ()) -> list[NicSku]:
    """Per NIC kind, the card of most Gb/s over its ports (of equal, the cheaper; then the
    first listed), not excluded."""
    best: dict[str, NicSku] = {}
    skip = set(exclude)
    for nic in catalog.network.nics:
        if nic.sku in skip:
            continue
        old = best.get(nic.kind)
        if old is None or (nic.gbps * nic.ports, -nic.price) > (old.gbps * old.ports, -old.price):
            best[nic.kind] = nic
    return [best[k] for k in sorted(best)]


def _with_nics(s: RunServer, p: Platform, nics: tuple[tuple[str, int], ...],
               catalog: Catalog) -> RunServer:
    ports = platform_ports(p, catalog, nics)
    cards = [(catalog.network.nic(sku), n) for sku, n in nics]
    return replace(s, nics=nics,
                   ports=tuple((k, g, n) for k, by in sorted(ports.items())
                               for g, n in sorted(by.items())),
                   net_gbps=network_gbps(ports),
                   price=s.price + sum(c.price * n for c, n in cards if c is not None),
                   power_w=s.power_w + sum(c.power_w * n for c, n in cards if c is not None))


def _configure(p: Platform, gpu: GpuSku, used: list[tuple[Workload, ReplicaOption]],
               catalog: Catalog, policy: Policy) -> RunServer | None:
    """The cheapest full server of ``p`` and ``gpu`` that holds the most replicas of every
    option in ``used`` its DIMMs allow (None when its bays cannot hold some run's data)."""
    k = max(p.allowed_gpu_counts())
    disks = _disks(p, max(w.local_tb + w.pool_tb for w, _ in used), catalog, policy)
    if disks is None:
        return None
    storage, drives, tb = disks
    best: tuple[tuple[int, float], RunServer] | None = None
    for mem, count in _dimm_choices(p, catalog, policy):
        s = RunServer(p.sku, gpu.sku, k, mem.sku, count, mem.size_gb * count,
                      storage.sku if storage else None, drives, tb, p.cpu_cores,
                      p.price + k * gpu.price + count * mem.price
                      + (drives * storage.price if storage else 0.0),
                      power_w(p, gpu, k), rack_units(p))
        held = sum(holds(s, o, w, policy) for w, o in used)
        rank = (-held, s.price)
        if held and (best is None or rank < best[0]):
            best = (rank, s)
    return best[1] if best else None


def _dimm_choices(p: Platform, catalog: Catalog,
                  policy: Policy) -> list[tuple[MemorySku, int]]:
    """(DIMM, count) pairs the platform takes: its type, a positive multiple of its channels
    (R14), not excluded."""
    return [(m, c) for m in catalog.memory
            if m.type == p.memory_type and m.sku not in policy.exclude
            for c in range(p.memory_channels, p.dimm_slots + 1, p.memory_channels)]


def _disks(p: Platform, need_tb: float, catalog: Catalog,
           policy: Policy) -> tuple[StorageSku | None, int, float] | None:
    """The cheapest drives holding ``need_tb`` under the headroom line in the platform's bays
    (no drives when nothing is stored); None when no drive count does."""
    if need_tb <= 0:
        return None, 0, 0.0
    best: tuple[float, StorageSku, int] | None = None
    for d in catalog.storage:
        if d.sku in policy.exclude:
            continue
        for q in range(1, p.drive_bays + 1):
            if usable(q * d.size_tb, policy) + 1e-9 >= need_tb:
                if best is None or q * d.price < best[0]:
                    best = (q * d.price, d, q)
                break
    return None if best is None else (best[1], best[2], best[2] * best[1].size_tb)
