"""U1's figures for the program: each sampled world's demand and what each replica option
is there (``rules/chance.py``), computed once where the candidates are enumerated. The
expansion packs shared GPUs by them too (``expand._held_size``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..estimate.throughput import delivered_fraction
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..rules import usable
from ..rules.chance import required, robust_share
from ..uncertainty.worlds import OptionThere, World, option_in, worlds
from .replicas import ReplicaOption, replicas_for


@dataclass(frozen=True)
class WorldNeeds:
    """One world as the program's rows read it."""

    index: int
    replicas: dict[str, int]
    """R19 there: ⌈replicas × g_s⌉ per workload."""
    targets: dict[str, float]
    """T3 there: T × g_s per workload with a target."""
    fraction: dict[str, float]
    """η per workload with a target."""
    options: dict[str, tuple[OptionThere, ...]]
    """Per workload, each of its candidate options there (the order of ``Candidates.options``)."""
    line: dict[str, float]
    """Per GPU SKU, the VRAM line shared replicas stay under there (R15, R17)."""


@dataclass(frozen=True)
class Chance:
    """The worlds a plan is held to, and how many it must hold in."""

    share: float
    """P."""
    need: int
    """k = ⌈P × N⌉."""
    worlds: tuple[WorldNeeds, ...]
    most: dict[str, int]
    """Most replicas of a workload any world can need (the bounds of its x_wot)."""
    line: dict[str, float]
    """Per GPU SKU, the file's own VRAM line (R15)."""


def chance_of(wf: WorkloadFile, catalog: Catalog,
              options: dict[str, tuple[ReplicaOption, ...]]) -> Chance | None:
    """U1's figures for ``wf`` (None without ``uncertainty.robust``)."""
    share = robust_share(wf)
    if share is None or wf.uncertainty is None:
        return None
    gpus = {g.sku: g for g in catalog.gpus}
    out = tuple(_needs(world, wf, gpus, options) for world in worlds(wf, catalog))
    most: dict[str, int] = {}
    for needs in out:
        for w in wf.workloads:
            n = needs.replicas[w.name]
            target = needs.targets.get(w.name)
            rates = [o.tokens_per_s * needs.fraction.get(w.name, 1.0)
                     for o in needs.options[w.name] if o.fits and o.tokens_per_s > 0]
            if target is not None and rates:
                n = max(n, int(replicas_for(target, min(rates))))
            most[w.name] = max(most.get(w.name, 0), n)
    line = {sku: usable(g.vram_gb, wf.policy) for sku, g in gpus.items()}
    return Chance(share, required(share, len(out)), out, most, line)


def _needs(world: World, wf: WorkloadFile, gpus: dict,
           options: dict[str, tuple[ReplicaOption, ...]]) -> WorldNeeds:
    replicas, targets, fraction, there = {}, {}, {}, {}
    for w in wf.workloads:
        replicas[w.name] = world.replicas(w)
        target = world.target(w)
        if target is not None:
            targets[w.name] = target
            fraction[w.name] = delivered_fraction(world.workload(w.name), world.wf.policy)
        there[w.name] = tuple(option_in(world, w, gpus.get(o.gpu) if o.gpu else None, o.degree)
                              for o in options[w.name])
    line = {sku: usable(g.vram_gb, world.wf.policy) for sku, g in gpus.items()}
    return WorldNeeds(world.index, replicas, targets, fraction, there, line)
