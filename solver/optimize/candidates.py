"""What the integer program chooses between: server types, and which accepts which option.

A *server type* is (platform, GPU SKU or none, DIMM SKU, DIMM count): everything about a
server except how many GPUs and drives it holds, which the program decides in aggregate.
A *replica option* (``replicas.py``) is (workload, GPU SKU, parallel degree, shared?) with
the estimator's per-GPU VRAM and host-RAM need; ``enumerate_candidates`` gathers both.

Pre-filtering (each keeps the optimum, see docs/solver.md):
- per workload and GPU SKU only the *smallest* degree that fits is kept: a larger degree
  uses more GPUs and, by R12, at least as much host RAM, so it is never needed;
- a shareable job whose degree-1 need fits is offered only as shared (a shared GPU that
  holds just that job is the exclusive placement, with less RAM reserved);
- a server type is offered to a replica only if that replica alone fits its usable RAM.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace

from ..estimate.memory import Estimate
from ..estimate.throughput import delivered_fraction, planned_target
from ..inputs.catalog import Catalog, GpuSku, Platform, StorageSku
from ..inputs.ownership import Site
from ..inputs.policy import Policy
from ..inputs.workload import WorkloadFile
from ..rules import usable
from ..rules.chance import robust_share
from ..rules.power import power_w, rack_gpus, rack_holds, rack_units
from ..rules.storage import disk_holds
from .chance import Chance, chance_of
from .replicas import ReplicaOption, replica_options, replicas_for


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
    max_gpus: int | None = None
    """P3: most GPUs one server may hold so that it stays within a rack's power
    (⌊(rack_kw − platform kW) ÷ GPU kW⌋); None: the slots."""
    owned: int = 0
    """P4: servers of this exact configuration already owned (at most this many are used,
    at no capital cost); 0: a type that is bought."""
    storage: str | None = None
    """P4: drive SKU an owned server already holds."""
    drive_count: int = 0
    """P4: drives an owned server already holds."""
    disk_tb: float = 0.0
    """O4: most TB of drives one server can hold: an owned server's own drives (P4), else
    all the platform's bays filled with the largest drive allowed (0 without bays)."""

    @property
    def gpu_slots(self) -> int:
        """GPUs one server of this type can hold: its fixed count (O1), else the platform's
        slots within the rack's power (P3); none when CPU-only."""
        if not self.gpu:
            return 0
        slots = self.gpu_count if self.gpu_count is not None else self.platform.gpu_slots
        return slots if self.max_gpus is None else min(slots, self.max_gpus)

    def power_w(self, gpus: int) -> float:
        """P1: power of one server of this type holding ``gpus`` GPUs, W."""
        return power_w(self.platform, self.gpu, gpus)

    def dimm_cost(self, catalog: Catalog) -> float:
        """Price of this type's DIMMs (currency units); 0 for an owned server (P4)."""
        if self.owned:
            return 0.0
        return self.dimm_count * catalog.dimm(self.memory_sku).price

    def server_price(self, catalog: Catalog, gpus: int = 0) -> float:
        """Price of one server of this type: platform and DIMMs, plus ``gpus`` of its GPU
        (drives are priced apart, as the program spreads them over a platform's servers).
        An owned server (P4) costs nothing."""
        if self.owned:
            return 0.0
        price = self.platform.price + self.dimm_cost(catalog)
        return price + gpus * self.gpu.price if self.gpu is not None and gpus else price


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


def server_types(catalog: Catalog, exclude: tuple[str, ...] | frozenset[str] = (),
                 site: Site | None = None) -> list[ServerType]:
    """Every useful (platform, GPU or none, DIMM, DIMM count) (R14: full channels).

    SKUs in ``exclude`` are never part of a type (allowed SKUs). A platform that sells only
    some GPU counts (O1) gets one type per count.

    A memory configuration is dropped when another one of the same platform and GPU has at
    least as much RAM for at most the price (e.g. 32 x 32 GB vs 16 x 64 GB): a plan using it
    can swap to the other at no extra cost, so the optimum is kept and the program shrinks.
    """
    types: list[ServerType] = []
    largest = max_drive_tb(catalog, exclude)
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
                        t = within_site(ServerType(key, p, g, m.sku, n, n * m.size_gb, k,
                                                   disk_tb=p.drive_bays * largest), site)
                        if t is not None:
                            types.append(t)
    return [t for t in types if not any(_dominates(o, t, catalog) for o in types)]


def allowed_drives(catalog: Catalog, exclude: Collection[str] = ()) -> list[StorageSku]:
    """The drive SKUs a plan may buy: the catalog's, less those ``exclude`` names."""
    return [s for s in catalog.storage if s.sku not in exclude]


def max_drive_tb(catalog: Catalog, exclude: Collection[str] = ()) -> float:
    """Size of the largest drive the plan may buy, TB (0 when every drive is excluded)."""
    return max((s.size_tb for s in allowed_drives(catalog, exclude)), default=0.0)


def within_site(t: ServerType, site: Site | None) -> ServerType | None:
    """P3: the type as one rack can hold it: None when even its smallest server is over the
    rack's power or height; a free GPU count capped at ⌊(rack_kw − base) ÷ GPU kW⌋."""
    if site is None:
        return t
    least = t.gpu_count or (1 if t.gpu is not None else 0)
    if not rack_holds(site, t.power_w(least), rack_units(t.platform)):
        return None
    if t.gpu is None or t.gpu_count is not None:
        return t
    fit = rack_gpus(site, t.platform, t.gpu) if t.gpu.power_w > 0 else t.gpu_slots
    return replace(t, max_gpus=fit) if fit < t.platform.gpu_slots else t


def owned_types(wf: WorkloadFile, catalog: Catalog) -> list[ServerType]:
    """P4: one type per inventory entry, of its exact configuration, n_t ≤ count, priced 0.

    Owned servers are used as they are (GPUs, DIMMs and drives as listed): exempt from
    ``exclude``, held to every other rule, including the site's (a server over a rack's
    power or height cannot be used).
    """
    types = []
    for i, inv in enumerate(wf.inventory):
        p = catalog.platform(inv.platform)
        g = catalog.gpu(inv.gpu) if inv.gpu is not None else None
        ram = inv.dimm_count * catalog.dimm(inv.memory).size_gb
        key = f"owned{i}|{p.sku}|{g.sku if g else 'cpu'}|{inv.memory}x{inv.dimm_count}"
        key += f"|{inv.gpu_count}gpu" if g is not None else ""
        disk = inv.drive_count * catalog.drive(inv.storage).size_tb if inv.storage else 0.0
        t = ServerType(key, p, g, inv.memory, inv.dimm_count, ram,
                       inv.gpu_count if g is not None else None, owned=inv.count,
                       storage=inv.storage, drive_count=inv.drive_count, disk_tb=disk)
        fitted = within_site(t, wf.site)
        if fitted is not None and fitted.gpu_slots == t.gpu_slots:
            types.append(t)
    return types


def owned_skus(wf: WorkloadFile) -> set[str]:
    """Platform and GPU SKUs of owned servers: usable even when excluded (P4)."""
    return {sku for inv in wf.inventory for sku in (inv.platform, inv.gpu) if sku}


def _dominates(a: ServerType, b: ServerType, catalog: Catalog) -> bool:
    """Same platform and GPU, at least b's RAM, at most b's DIMM cost, and not b itself."""
    if (a is b or a.platform.sku != b.platform.sku or a.gpu != b.gpu
            or a.gpu_count != b.gpu_count or a.max_gpus != b.max_gpus):
        return False
    cost_a = a.dimm_cost(catalog)
    cost_b = b.dimm_cost(catalog)
    if (a.ram_gb, cost_a) == (b.ram_gb, cost_b):
        return a.key < b.key  # identical offers: keep one
    return a.ram_gb >= b.ram_gb and cost_a <= cost_b


@dataclass(frozen=True)
class Candidates:
    """Everything the program needs: types, options per workload, demand and storage."""

    types: tuple[ServerType, ...]
    options: dict[str, tuple[ReplicaOption, ...]]
    replicas: dict[str, int]
    tried: dict[str, tuple[Estimate, ...]]
    targets: dict[str, float] = field(default_factory=dict)
    """T3: tokens/s each workload with a target must deliver (target x growth)."""
    fraction: dict[str, float] = field(default_factory=dict)
    """T3: share of summed replica tokens/s that counts (data-parallel efficiency)."""
    most: dict[str, int] = field(default_factory=dict)
    """T3: most replicas a workload with a target can usefully run (see ``most_replicas``)."""
    chance: Chance | None = None
    """U1: the sampled worlds the plan is held to (``uncertainty.robust``); None: none."""

    def most_replicas(self, name: str) -> int:
        """Upper bound on a workload's replicas: its fixed count without a target; with one,
        max(⌈replicas × growth⌉, ⌈target / slowest effective replica⌉): a plan with more can
        drop a replica and still meet both, at no extra cost."""
        return self.most.get(name, self.replicas[name])

    def option_most(self, name: str, o: ReplicaOption) -> int:
        """Most replicas of one option worth running (the big-M of T4)."""
        if self.chance is not None:
            return self.most_replicas(name)  # a world may need more than the file does
        if name not in self.targets:
            return self.replicas[name]
        per = (o.tokens_per_s or 0.0) * self.fraction[name]
        need = replicas_for(self.targets[name], per)
        return int(max(self.replicas[name], min(need, self.most_replicas(name))))


def enumerate_candidates(wf: WorkloadFile, catalog: Catalog) -> Candidates:
    """Server types (bought and owned) and replica options for a whole workload file.

    Replica options are enumerated under the exclude list less the SKUs of owned servers
    (P4): an excluded GPU an owned server holds is offered, and only owned types accept it.
    """
    options: dict[str, tuple[ReplicaOption, ...]] = {}
    tried: dict[str, tuple[Estimate, ...]] = {}
    mine = owned_skus(wf)
    policy = wf.policy
    if mine & set(policy.exclude):
        policy = policy.model_copy(
            update={"exclude": tuple(s for s in policy.exclude if s not in mine)})
    every = robust_share(wf) is not None and wf.policy.horizon is None
    for w in wf.workloads:
        opts, est = replica_options(w, catalog, policy, every)
        options[w.name] = tuple(opts)
        tried[w.name] = tuple(est)
    replicas = {w.name: wf.planned_replicas(w) for w in wf.workloads}
    targets: dict[str, float] = {}
    fraction: dict[str, float] = {}
    most: dict[str, int] = {}
    for w in wf.workloads:
        need = planned_target(w, wf.policy)
        if need is None:
            continue
        targets[w.name] = need
        fraction[w.name] = delivered_fraction(w, wf.policy)
        rates = [(o.tokens_per_s or 0.0) * fraction[w.name] for o in options[w.name]]
        slowest = replicas_for(need, min(rates)) if rates else 0
        most[w.name] = int(max(replicas[w.name], slowest))
    chance = chance_of(wf, catalog, options) if wf.policy.horizon is None else None
    if chance is not None:
        for name, n in chance.most.items():
            most[name] = max(most.get(name, replicas[name]), n)
    return Candidates(
        types=tuple(server_types(catalog, wf.policy.exclude, wf.site)
                    + owned_types(wf, catalog)),
        options=options,
        replicas=replicas,
        tried=tried,
        targets=targets,
        fraction=fraction,
        most=most,
        chance=chance,
    )


def type_accepts(t: ServerType, o: ReplicaOption, policy: Policy) -> bool:
    """Whether one replica of this option can sit on one server of this type on its own:
    its GPUs, host RAM and cores, and (O4) its local dataset under the headroom line of the
    most TB one such server can hold (``ServerType.disk_tb``)."""
    if o.gpu is None:
        pass
    elif t.gpu is None or t.gpu.sku != o.gpu or o.degree > t.gpu_slots:
        return False
    return (o.ram_gb <= usable(t.ram_gb, policy) + 1e-9 and o.cores <= cores_of(t) + 1e-9
            and fits_disk(o.local_tb, t, policy))


def fits_disk(local_tb: float, t: ServerType, policy: Policy) -> bool:
    """O4: ``local_tb`` of local datasets fit one server of type ``t`` under the headroom
    line, its bays filled with the largest drive (an owned server: its own drives)."""
    return disk_holds(local_tb, t.disk_tb, policy)


def cores_unchecked(catalog: Catalog, exclude: tuple[str, ...] = ()) -> list[str]:
    """Platforms (not excluded) whose catalog entry has no cpu_cores: O3 is not checked there."""
    return [p.sku for p in catalog.platforms if p.cpu_cores is None and p.sku not in exclude]


def cores_of(t: ServerType) -> float:
    """CPU cores one server of this type offers (O3); unbounded when the catalog omits them."""
    cores = t.platform.cpu_cores
    return float("inf") if cores is None else float(cores)
