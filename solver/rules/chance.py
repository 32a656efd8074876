"""U1: a plan that holds with a chosen chance, over the file's sampled scenarios.

The rule (docs/solver.md, "A plan that holds with a chosen chance (U1)"), with
``uncertainty.robust: P`` (or ``plan --robust P``) and N = ``uncertainty.samples``:

- Scenario s is a *world* (``uncertainty/scenario.world``): the file at the drawn growth
  g_s, each estimate's true figure in place of the estimate (as a team's measurement
  enters, E2), the memory line the card's whole VRAM (``memory_line: vram``, the default)
  or the headroom line.
- A plan *holds* in a world when, keeping its servers and placements, every replica's true
  need fits its GPU (R15), every workload has at least ⌈replicas × g_s⌉ replicas (R19; a
  replica more is spare capacity, not a break), every target is met at the world's tokens/s
  (η Σ τ_s ≥ T × g_s, T3), what shares a GPU stays under its line (R17) and every other
  rule still holds there.
- The plan keeps every rule at the file's own figures, and holds in at least
  k = ⌈P × N⌉ of the N worlds. It is the cheapest such plan.

This module is the arithmetic the program reads: ``required`` (k), and per world and
replica option (workload, GPU, degree) what the option is there (``option_in``). The
checker counts the worlds a plan holds in with its own checks (``check/chance.py``); the
brute force recomputes both (``bench/bruteforce_chance.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..estimate.replica import estimate, replica_throughput
from ..estimate.throughput import latency_misses, planned_target
from ..inputs.catalog import Catalog, GpuSku
from ..inputs.workload import Workload, WorkloadFile


def robust_share(wf: WorkloadFile) -> float | None:
    """P, the share of scenarios the plan must hold in (None: a plain plan)."""
    return wf.uncertainty.robust if wf.uncertainty is not None else None


def required(share: float, samples: int) -> int:
    """k = ⌈P × N⌉, the scenarios a plan must hold in."""
    return max(1, math.ceil(share * samples - 1e-9))


@dataclass(frozen=True)
class World:
    """One sampled scenario as the plan is held to it."""

    index: int
    wf: WorkloadFile
    """The file as the world sees it: growth g_s, true figures as measurements, the memory
    line's headroom, and no ``uncertainty`` section (a world is certain)."""

    @property
    def growth(self) -> float:
        return self.wf.policy.growth

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
    from ..uncertainty.draws import draw
    from ..uncertainty.scenario import Cells, world

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
