"""Enumerate what the integer program chooses between: server types and replica options.

A *server type* is (platform, GPU SKU or none, DIMM SKU, DIMM count): everything about a
server except how many GPUs and drives it holds, which the program decides in aggregate.
A *replica option* is (workload, GPU SKU, parallel degree, shared?) with the estimator's
per-GPU VRAM and host-RAM need.

Pre-filtering (each keeps the optimum, see docs/solver.md):
- per workload and GPU SKU only the *smallest* degree that fits is kept: a larger degree
  uses more GPUs and, by R12, at least as much host RAM, so it is never needed;
- a shareable job whose degree-1 need fits is offered only as shared (a shared GPU that
  holds just that job is the exclusive placement, with less RAM reserved);
- a server type is offered to a replica only if that replica alone fits its usable RAM.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..estimate.memory import Estimate, estimate
from ..inputs.catalog import Catalog, GpuSku, Platform
from ..inputs.workload import PARALLEL_DEGREES, Policy, Workload, WorkloadFile
from ..rules import usable


@dataclass(frozen=True)
class ServerType:
    """A server shape whose GPU and drive counts the program chooses."""

    key: str
    platform: Platform
    gpu: GpuSku | None
    memory_sku: str
    dimm_count: int
    ram_gb: float
    gpu_count: int | None = None
    """GPUs every server of this type is bought with, when its platform sells only some
    counts (O1: an 8-GPU baseboard comes whole); None: any count up to the slots, which
    the program decides in aggregate."""

    @property
    def gpu_slots(self) -> int:
        """GPUs one server of this type can hold: its fixed count (O1), else the platform's
        slots; none when CPU-only."""
        if not self.gpu:
            return 0
        return self.gpu_count if self.gpu_count is not None else self.platform.gpu_slots

    def dimm_cost(self, catalog: Catalog) -> float:
        """Price of this type's DIMMs (currency units)."""
        return self.dimm_count * catalog.dimm(self.memory_sku).price

    def server_price(self, catalog: Catalog, gpus: int = 0) -> float:
        """Price of one server of this type: platform and DIMMs, plus ``gpus`` of its GPU
        (drives are priced apart, as the program spreads them over a platform's servers)."""
        price = self.platform.price + self.dimm_cost(catalog)
        return price + gpus * self.gpu.price if self.gpu is not None and gpus else price


@dataclass(frozen=True)
class ReplicaOption:
    """One way to run a replica of a workload: on ``degree`` GPUs of one SKU (or none)."""

    workload: str
    gpu: str | None
    degree: int
    shared: bool
    vram_gb: float
    """Per-GPU VRAM need, GB."""
    ram_gb: float
    """Host RAM need of one replica, GB."""
    estimate: Estimate
    cores: float = 0.0
    """CPU cores one replica needs (O3)."""


def policy_degrees(gpu: GpuSku, policy: Policy,
                   degrees: tuple[int, ...] = PARALLEL_DEGREES) -> tuple[int, ...]:
    """Parallel degrees the policy allows on this GPU (R8, R10).

    Powers of two up to max_parallel_degree; beyond the GPU's NVLink domain a job talks
    over PCIe, so max_pcie_parallel_degree applies there.
    """
    return tuple(
        d for d in degrees
        if d <= policy.max_parallel_degree
        and (d <= gpu.nvlink_gpus or d <= policy.max_pcie_parallel_degree)
    )


def allowed_degrees(gpu: GpuSku, policy: Policy, max_slots: int) -> list[int]:
    """Degrees a replica may use on this GPU: the policy's, within the largest server."""
    return [d for d in policy_degrees(gpu, policy) if d <= max_slots]


def _gpu_count_choices(p: Platform, g: GpuSku | None) -> list[int | None]:
    """The fixed GPU counts to make types for (O1); [None] when the program chooses freely.

    A platform bought without GPUs needs 0 among its counts. A platform that sells only
    some counts gets one type per positive count k, holding exactly k GPUs (idle ones paid).
    """
    counts = p.allowed_gpu_counts()
    if g is None:
        return [None] if 0 in counts else []
    if not p.restricts_gpu_counts:
        return [None]
    return [k for k in counts if k > 0]


def server_types(catalog: Catalog, exclude: tuple[str, ...] | frozenset[str] = ()) -> list[ServerType]:
    """Every useful (platform, GPU or none, DIMM, DIMM count) (R14: full channels).

    SKUs in ``exclude`` are never part of a type (allowed SKUs). A platform that sells only
    some GPU counts (O1) gets one type per count.

    A memory configuration is dropped when another one of the same platform and GPU has at
    least as much RAM for at most the price (e.g. 32 x 32 GB vs 16 x 64 GB): a plan using it
    can swap to the other at no extra cost, so the optimum is kept and the program shrinks.
    """
    types: list[ServerType] = []
    for p in catalog.platforms:
        if p.sku in exclude:
            continue
        gpus: list[GpuSku | None] = [g for g in catalog.gpus if p.takes(g) and g.sku not in exclude]
        gpus.append(None)  # a platform may also serve as a CPU-only node
        for g in gpus:
            for m in catalog.memory:
                if m.type != p.memory_type or m.sku in exclude:
                    continue
                for n in p.dimm_counts():
                    for k in _gpu_count_choices(p, g):
                        key = f"{p.sku}|{g.sku if g else 'cpu'}|{m.sku}x{n}"
                        key += f"|{k}gpu" if k is not None else ""
                        types.append(ServerType(key, p, g, m.sku, n, n * m.size_gb, k))
    return [t for t in types if not any(_dominates(o, t, catalog) for o in types)]


def _dominates(a: ServerType, b: ServerType, catalog: Catalog) -> bool:
    """Same platform and GPU, at least b's RAM, at most b's DIMM cost, and not b itself."""
    if a is b or a.platform.sku != b.platform.sku or a.gpu != b.gpu or a.gpu_count != b.gpu_count:
        return False
    cost_a = a.dimm_cost(catalog)
    cost_b = b.dimm_cost(catalog)
    if (a.ram_gb, cost_a) == (b.ram_gb, cost_b):
        return a.key < b.key  # identical offers: keep one
    return a.ram_gb >= b.ram_gb and cost_a <= cost_b


def _max_slots(catalog: Catalog, gpu: GpuSku, exclude: tuple[str, ...] = ()) -> int:
    """Most GPUs of this SKU one allowed server can be bought with (O1 counts)."""
    return max((max(p.allowed_gpu_counts()) for p in catalog.platforms
                if p.takes(gpu) and p.sku not in exclude), default=0)


def replica_options(
    w: Workload, catalog: Catalog, policy: Policy
) -> tuple[list[ReplicaOption], list[Estimate]]:
    """The useful options for one workload, and every estimate tried (for error messages)."""
    if w.kind == "preprocess":
        e = estimate(w, None, 0, policy)
        return [ReplicaOption(w.name, None, 0, False, 0.0, e.host_ram_gb, e,
                              w.cpu_cores_per_replica(0))], [e]
    options: list[ReplicaOption] = []
    tried: list[Estimate] = []
    for g in catalog.gpus:
        if g.sku in policy.exclude:
            continue
        least_ram = float("inf")
        for d in allowed_degrees(g, policy, _max_slots(catalog, g, policy.exclude)):
            e = estimate(w, g, d, policy)
            tried.append(e)
            # A larger degree uses more GPUs; it is only worth offering if it needs
            # strictly less host RAM (possible only with custom R12 ratios).
            if e.fits and e.host_ram_gb < least_ram - 1e-9:
                shared = w.shareable and d == 1
                options.append(ReplicaOption(w.name, g.sku, d, shared, e.vram_gb_per_gpu,
                                             e.host_ram_gb, e, w.cpu_cores_per_replica(d)))
                least_ram = e.host_ram_gb
    return options, tried


@dataclass(frozen=True)
class Candidates:
    """Everything the program needs: types, options per workload, demand and storage."""

    types: tuple[ServerType, ...]
    options: dict[str, tuple[ReplicaOption, ...]]
    replicas: dict[str, int]
    tried: dict[str, tuple[Estimate, ...]]


def enumerate_candidates(wf: WorkloadFile, catalog: Catalog) -> Candidates:
    """Server types and replica options for a whole workload file."""
    options: dict[str, tuple[ReplicaOption, ...]] = {}
    tried: dict[str, tuple[Estimate, ...]] = {}
    for w in wf.workloads:
        opts, est = replica_options(w, catalog, wf.policy)
        options[w.name] = tuple(opts)
        tried[w.name] = tuple(est)
    return Candidates(
        types=tuple(server_types(catalog, wf.policy.exclude)),
        options=options,
        replicas={w.name: wf.planned_replicas(w) for w in wf.workloads},
        tried=tried,
    )


def type_accepts(t: ServerType, o: ReplicaOption, policy: Policy) -> bool:
    """Whether one replica of this option can sit on one server of this type on its own."""
    if o.gpu is None:
        pass
    elif t.gpu is None or t.gpu.sku != o.gpu or o.degree > t.gpu_slots:
        return False
    return o.ram_gb <= usable(t.ram_gb, policy) + 1e-9 and o.cores <= cores_of(t) + 1e-9


def cores_unchecked(catalog: Catalog, exclude: tuple[str, ...] = ()) -> list[str]:
    """Platforms (not excluded) whose catalog entry has no cpu_cores: O3 is not checked there."""
    return [p.sku for p in catalog.platforms if p.cpu_cores is None and p.sku not in exclude]


def cores_of(t: ServerType) -> float:
    """CPU cores one server of this type offers (O3); unbounded when the catalog omits them."""
    cores = t.platform.cpu_cores
    return float("inf") if cores is None else float(cores)
