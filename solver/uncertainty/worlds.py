"""U1's worlds (``rules/chance.py``): the file as each sampled scenario sees it, and what
one replica option (workload, GPU, degree) is in it, through the estimator's one entry
point (a world's true figures are measurements there, E2)."""

from __future__ import annotations

from dataclasses import dataclass

from ..estimate.replica import estimate, replica_throughput
from ..estimate.throughput import latency_misses, planned_target
from ..inputs.catalog import Catalog, GpuSku
from ..inputs.workload import Workload, WorkloadFile


@dataclass(frozen=True)
class World:
    """One sampled scenario as the plan is held to it."""

    index: int
    wf: WorkloadFile
    """The file as the world sees it: growth g_s, true figures as measurements, the memory
    line's headroom, and no ``uncertainty`` section (a world is certain)."""

    def replicas(self, w: Workload) -> int:
        """R19 in the world: ⌈replicas × g_s⌉."""
        return self.wf.planned_replicas(w)

    def target(self, w: Workload) -> float | None:
        """T3 in the world: T × g_s (None without a target)."""
        return planned_target(w, self.wf.policy)

    def workload(self, name: str) -> Workload:
        return next(w for w in self.wf.workloads if w.name == name)


@dataclass(frozen=True)
class OptionThere:
    """A replica option (workload, GPU, degree) in one world."""

    fits: bool
    """Its true need fits the GPU's line, and it meets its latency limits."""
    need_gb: float
    """True VRAM need per GPU, GB."""
    tokens_per_s: float
    """True tokens/s of one replica (0 where it has no rate or does not fit)."""


def worlds(wf: WorkloadFile, catalog: Catalog) -> tuple[World, ...]:
    """The N worlds of ``wf``'s ``uncertainty`` section (its seed: the same every call)."""
    from .draws import draw
    from .scenario import Cells, world

    unc = wf.uncertainty
    if unc is None:
        return ()
    cells = Cells.of(wf, catalog)
    return tuple(World(i, world(wf, cells, unc, draw(unc, wf, i))) for i in range(unc.samples))


def option_in(world: World, w: Workload, gpu: GpuSku | None, degree: int) -> OptionThere:
    """What one replica of ``w`` on ``degree`` GPUs ``gpu`` is in ``world`` (no GPU:
    preprocess, which no error touches)."""
    mine = world.workload(w.name)
    policy = world.wf.policy
    if gpu is None:
        return OptionThere(True, 0.0, 0.0)
    e = estimate(mine, gpu, degree, policy)
    fits = e.fits
    rate = 0.0
    try:
        t = replica_throughput(mine, gpu, degree, policy, e)
    except ValueError:
        t = None
    if t is not None:
        rate = t.tokens_per_s
        fits = fits and not latency_misses(mine, t)
    return OptionThere(fits, e.vram_gb_per_gpu, rate if fits else 0.0)
