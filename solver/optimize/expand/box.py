"""What expansion packs and into what: a replica item, a server being filled, and the tests
every step shares (room in a server, its price, its memory family).

An ``Item`` is one exclusive replica, or one shared GPU and its replicas; a ``Box`` is one
server being filled, counting GPU slots, host RAM, CPU cores (O3) and the distinct local
datasets it holds (O4). ``fits`` is the one room test of every step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...rules.storage import local_datasets
from ..candidates import ServerType, cores_of, fits_disk
from ..replicas import ReplicaOption


@dataclass(frozen=True)
class Item:
    """What packs into a server: one exclusive replica, or one shared GPU and its replicas."""

    gpus: int
    ram_gb: float
    replicas: tuple[ReplicaOption, ...]
    """The exclusive replica's option, or the options of the replicas on the shared GPU."""
    shared: bool = False

    @cached_property
    def cores(self) -> float:
        """CPU cores its replicas need (O3)."""
        return sum(o.cores for o in self.replicas)

    @cached_property
    def datasets(self) -> dict[str, float]:
        """O4: the local dataset (TB) of each workload among its replicas that reads one
        (read, never changed)."""
        return local_datasets(self.replicas)


@dataclass
class Box:
    """A server being filled."""

    type: ServerType
    gpus_used: int = 0
    ram_used: float = 0.0
    items: list[Item] = field(default_factory=list)
    cores_used: float = 0.0
    datasets: dict[str, float] = field(default_factory=dict)
    """O4: local datasets of the workloads it runs, TB, by workload (each held once)."""

    def add(self, item: Item) -> None:
        self.gpus_used += item.gpus
        self.ram_used += item.ram_gb
        self.cores_used += item.cores
        self.items.append(item)
        self.datasets.update(item.datasets)

    def copy(self) -> Box:
        return Box(self.type, self.gpus_used, self.ram_used, list(self.items), self.cores_used,
                   dict(self.datasets))

    @property
    def local_tb(self) -> float:
        """O4: TB of local datasets this server holds."""
        return sum(self.datasets.values())

    def disk_fits(self, item: Item, policy: Policy) -> bool:
        """O4: with ``item`` its distinct local datasets stay under the headroom line of
        the most TB its bays (or an owned server's drives) hold."""
        more = sum(tb for name, tb in item.datasets.items() if name not in self.datasets)
        return not more or fits_disk(self.local_tb + more, self.type, policy)


def family(t: ServerType) -> tuple | None:
    """Types that differ only in memory (same platform, GPU and GPU capacity) form a family
    whose servers can trade replicas; owned types (P4) stay as they are."""
    if t.owned:
        return None
    return (t.platform.sku, t.gpu.sku if t.gpu is not None else None, t.gpu_count,
            t.gpu_slots)


def box_price(box: Box, catalog: Catalog) -> float:
    """What one server costs: platform, DIMMs and GPUs (all k of a fixed count, O1)."""
    t = box.type
    gpus = t.gpu_count if t.gpu_count is not None else box.gpus_used
    return t.server_price(catalog, gpus if t.gpu is not None else 0)


def fits(box: Box, item: Item, ram_cap: float, policy: Policy) -> bool:
    """GPU slots, RAM up to ``ram_cap``, cores and (O4) local datasets on its disk."""
    t = box.type
    return (box.gpus_used + item.gpus <= t.gpu_slots
            and box.ram_used + item.ram_gb <= ram_cap + 1e-9
            and box.cores_used + item.cores <= cores_of(t) + 1e-9
            and box.disk_fits(item, policy))
