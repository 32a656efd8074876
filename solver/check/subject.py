"""What every check reads: the plan under check, its file, the catalog by SKU, and the
figures a pass gathers once for the checks after it (replicas per workload, VRAM per GPU,
host RAM per server, the workloads served).

Over a horizon (H1) the file is split: ``wf`` holds the always-on workloads, which the
checks of today verify on the placements as before, and ``timed`` the whole file, whose
finite runs the time checks (H3–H6) verify on the schedule.

Every catalog lookup goes through ``Skus``, which answers None for an unknown SKU: a plan
the checker exists to catch is a violation line, never an exception.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from ..estimate.memory import Estimate
from ..estimate.replica import estimate
from ..inputs.catalog import Catalog, GpuSku, MemorySku, Platform, StorageSku
from ..inputs.fabric import LINK_SKU, CloudPrice, NicSku, SwitchSku
from ..inputs.kinds import TRAINING_KINDS
from ..inputs.policy import Policy
from ..inputs.workload import Workload, WorkloadFile
from ..plan_types import PlanOption

TOL = 1e-6
"""Slack of every comparison of GB, TB, W and tokens/s."""

T = TypeVar("T")


@functools.lru_cache(maxsize=4096)
def estimate_once(w: Workload, g: GpuSku | None, d: int, policy: Policy) -> Estimate:
    """The estimator's figures, once per (workload, GPU, degree, policy) within one check:
    replicas of one option share them (51,000 replicas were 8 s of re-estimating)."""
    return estimate(w, g, d, policy)


@dataclass(frozen=True)
class Skus:
    """The catalog by SKU, looked up without raising (None for an unknown SKU)."""

    platforms: dict[str, Platform]
    gpus: dict[str, GpuSku]
    memory: dict[str, MemorySku]
    storage: dict[str, StorageSku]
    cloud: dict[str, CloudPrice] = field(default_factory=dict)
    """H5: the rental price of a GPU SKU, by SKU."""
    nics: dict[str, NicSku] = field(default_factory=dict)
    """N1: the catalog's network cards, by SKU."""
    switches: dict[str, SwitchSku] = field(default_factory=dict)
    """N1: the catalog's switches, by SKU."""
    link_price: float = 0.0
    """N1: one cable or pair of transceivers of the fabric (``LINK_SKU``)."""

    @classmethod
    def of(cls, catalog: Catalog) -> Skus:
        """The catalog's SKUs by kind."""
        return cls(
            platforms={p.sku: p for p in catalog.platforms},
            gpus={g.sku: g for g in catalog.gpus},
            memory={m.sku: m for m in catalog.memory},
            storage={s.sku: s for s in catalog.storage},
            cloud={c.gpu: c for c in catalog.cloud},
            nics={n.sku: n for n in catalog.network.nics},
            switches={w.sku: w for w in catalog.network.switches},
            link_price=catalog.network.link_price,
        )

    def price(self, sku: str) -> float | None:
        """The catalog price of any SKU (a NIC, a switch, ``LINK_SKU``: one cable), None when
        the catalog lacks it."""
        for kind in (self.gpus, self.platforms, self.memory, self.storage, self.nics,
                     self.switches):
            item = kind.get(sku)
            if item is not None:
                return item.price
        return self.link_price if sku == LINK_SKU else None

    def gpu(self, sku: str | None) -> GpuSku | None:
        """The GPU of that SKU (None for no GPU or an unknown one)."""
        return self.gpus.get(sku) if sku is not None else None


@dataclass
class Usage:
    """What the placements take, gathered for the per-GPU and per-server checks."""

    replicas: dict[str, int] = field(default_factory=dict)
    """Replicas placed per workload."""
    gpu_load: dict[tuple[str, int], list[tuple[Workload, float]]] = field(default_factory=dict)
    """(server, GPU index) -> (workload, VRAM GB reserved) of each replica on that GPU."""
    ram_used: dict[str, float] = field(default_factory=dict)
    """Host RAM GB reserved per server."""


@dataclass(frozen=True)
class Subject:
    """One plan option under check, with its workload file and catalog."""

    option: PlanOption
    wf: WorkloadFile
    skus: Skus
    memo: dict[str, object] = field(default_factory=dict, compare=False)
    """Figures a pass gathered, by the pass's name (``once``)."""
    timed: WorkloadFile | None = None
    """The whole file when it has a horizon (``wf`` then holds its always-on workloads);
    None without one."""
    catalog: Catalog | None = None
    """The catalog itself (U1 checks the option in each sampled world against it)."""
    spare: bool = False
    """R19 counts replicas beyond ⌈replicas × growth⌉ as spare capacity, not a break: a
    plan held to sampled scenarios (U1) buys them for the scenarios' demand, and a scenario
    whose demand is below the plan's has them to spare."""

    @classmethod
    def of(cls, option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> Subject:
        """A fresh subject: the estimator's cache is emptied (it may have changed). Over a
        horizon, ``wf`` keeps the always-on workloads and ``timed`` the whole file."""
        estimate_once.cache_clear()
        spare = wf.uncertainty is not None and wf.uncertainty.robust is not None
        if wf.policy.horizon is None:
            return cls(option, wf, Skus.of(catalog), catalog=catalog, spare=spare)
        always = [w for w in wf.workloads if not is_run(w, wf)]
        return cls(option, wf.model_copy(update={"workloads": always}), Skus.of(catalog),
                   timed=wf, catalog=catalog, spare=spare)

    def once(self, key: str, gather: Callable[[Subject], T]) -> T:
        """``gather(self)``, computed on the first call for ``key`` and kept."""
        if key not in self.memo:
            self.memo[key] = gather(self)
        return cast(T, self.memo[key])


def is_run(w: Workload, wf: WorkloadFile) -> bool:
    """H2: over a horizon, a training workload with tokens and a deadline is a series of
    finite runs; every other workload runs all the time."""
    return (wf.policy.horizon is not None and w.kind in TRAINING_KINDS
            and w.tokens is not None and (w.deadline is not None or w.deadline_days is not None))
