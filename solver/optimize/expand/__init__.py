"""Expand an aggregate solution into physical servers and a replica-by-replica placement.

The program decides *how many* servers of each type and *how many* replicas of each option
go on that type. Here every replica gets its server and GPU indices, one step per module:

1. ``pack``: shareable replicas are packed onto shared GPUs (first-fit decreasing by VRAM);
   GPU items (exclusive replicas of d GPUs, shared GPUs of 1) and CPU-only replicas are
   packed into the type's servers, largest degree first, then largest host RAM (first fit);
2. repair, when first fit needs more servers than the program bought: ``repack`` (a failed
   type's whole family packed again as one pool, its memory chosen by ``memory``), then
   ``rehome`` (servers emptied into room left elsewhere);
3. ``gather`` (O4): replicas reading one local dataset gathered onto fewer servers' drives,
   by moves and swaps (``moves``) between servers of a family;
4. ``servers``: servers numbered and replicas placed on GPU indices; then ``drives`` (O4):
   every bought server gets one drive SKU, enough under the headroom line for the distinct
   local datasets of the replicas it runs, and the pool enough for those copies, the shared
   datasets and the checkpoints.

``box`` holds what all steps share: the packed item, the server being filled, the room test.

GPU slots always pack (power-of-two degrees, docs/solver.md Lemma 1). Host RAM, CPU cores
(O3, a third dimension of every server whose platform lists them) and shared VRAM are
summed per type in the program, so in rare cases first fit needs one more server
than the program bought: then a server is added ("repair") and the plan is reported as
feasible with the gap to the program's bound, never as optimal. Repair packs a failed type's
whole family again (``repack``), its seeded packing then covered afresh by the cheapest
server patterns (``repack.cover``, ``family_pack``). Packing also never puts on
one server more distinct local data than its bays hold under the line (O4). The program's
disk rows are sums too: when a server's drives, rounded per server, cost more than the
program's, the plan is reported feasible with its gap.

This module owns the step order (``expand``) and its result (``Expansion``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...inputs.workload import WorkloadFile
from ...plan_types import BomLine, FabricPod, Placement, Server
from ...rules.fabric import fabric_of
from ..candidates import Candidates
from ..outcome import Outcome
from ..replicas import ReplicaOption
from .box import Box
from .drives import drive_costs, drives_price, place_drives
from .gather import gather_datasets
from .pack import fill_patterns, pack_type, to_items
from .rehome import dissolve, empty_into_idle
from .repack import repack_families
from .servers import bom_lines, idle_owned, number_servers


@dataclass(frozen=True)
class Expansion:
    """An aggregate outcome as physical servers: each numbered server with its drives, each
    replica on its GPU indices, the bill of materials and its cost, and what repair added."""

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
    disk_types: tuple[str, ...] = ()
    """O4: server types whose servers' drives, rounded per server, cost more than the
    program's drive configurations for that type (the program's disk rows are sums)."""
    drive_extra: float = 0.0
    """O4: what the plan's drives cost beyond the program's drive configurations (per-server
    rounding, and drive-only servers for the shared pool; negative when they cost less)."""
    fabric: tuple[FabricPod, ...] = ()
    """N3: the switches and cables of its pods (on ``lines`` too)."""


def expand(outcome: Outcome, cand: Candidates, wf: WorkloadFile, catalog: Catalog) -> Expansion:
    """Turn an aggregate outcome into servers and placements that a checker can verify."""
    boxes_by_type, repaired, failed = _fill_types(outcome, cand, wf.policy, catalog,
                                                  site=wf.site is not None)
    servers, placements, needs, keys = number_servers(boxes_by_type, wf)
    served = {p.workload for p in placements}
    pooled = sum(w.pool_tb for w in wf.workloads if w.name in served)
    numbered = len(servers)
    servers = place_drives(servers, needs, keys, pooled, outcome, catalog, wf.policy,
                           wf.site)
    fabric = fabric_of(servers, catalog)
    lines = bom_lines(servers, catalog, fabric)
    cost = round(sum(ln.extended for ln in lines), 2)
    idle = idle_owned(boxes_by_type, cand, len(servers))
    bought, planned = drive_costs(servers[:numbered], keys, outcome, catalog)
    over = tuple(sorted(key for key, c in bought.items() if c > planned.get(key, 0.0) + 0.005))
    extra = sum(drives_price(s, catalog) for s in servers) - sum(planned.values())
    return Expansion(tuple(servers), tuple(placements), lines, cost, repaired, tuple(failed),
                     idle, over, round(extra, 2), fabric)


def _fill_types(outcome: Outcome, cand: Candidates, policy: Policy, catalog: Catalog,
                site: bool = False) -> tuple[dict[str, list[Box]], int, list[str]]:
    """Each bought type's servers, filled with its replicas; servers and shared GPUs added
    beyond the program's counts; the types that needed them.

    Where a type's replicas do not pack, its whole family (the types of the same platform,
    GPU and GPU count, which differ only in memory) is packed again as one pool, each
    server then taking the cheapest memory configuration its load needs
    (``repack.repack_families``).
    """
    by_type: dict[str, list[tuple[ReplicaOption, int]]] = {}
    for (wname, oi, key), count in sorted(outcome.x.items()):
        by_type.setdefault(key, []).append((cand.options[wname][oi], count))

    types = {t.key: t for t in cand.types}
    boxes_by_type: dict[str, list[Box]] = {}
    repaired = 0
    failed: list[str] = []
    for key in sorted(set(by_type) | {k for k, v in outcome.n.items() if v}):
        t = types[key]
        opts = by_type.get(key, [])
        items, extra_gpus = to_items(opts, t, outcome.shared.get(key, 0), policy,
                                     _held_size(cand, outcome))
        if key in outcome.patterns:
            boxes, items = fill_patterns(items, outcome.patterns[key], t, policy)
        else:
            boxes = [Box(t) for _ in range(outcome.n.get(key, 0))]
        boxes, extra = pack_type(items, boxes, t, policy)
        if extra or extra_gpus:
            repaired += extra + extra_gpus
            failed.append(key)
        boxes_by_type[key] = boxes
    if failed:
        repaired -= repack_families(boxes_by_type, set(failed), cand, policy, catalog, outcome)
        repaired -= dissolve(boxes_by_type, outcome, cand, policy, catalog, site)
        repaired -= empty_into_idle(boxes_by_type, cand, policy, catalog, site)
    gather_datasets(boxes_by_type, policy, catalog)
    return boxes_by_type, repaired, failed


def _held_size(cand: Candidates, outcome: Outcome) -> Callable[[ReplicaOption], float] | None:
    """U1 in the expansion: what a shared replica takes of its GPU's usable VRAM Λ when
    packed, the most it needs in the file and in every world the plan holds in, each
    scaled to the file's line: max(v_o, max_s v_so × Λ / Λ_s). GPUs whose replicas' sizes
    stay under Λ then stay under Λ_s in each of those worlds (Σ v_so ≤ Λ_s). None: the
    file's own needs (no U1, or no world held)."""
    chance = cand.chance
    if chance is None or not outcome.held:
        return None
    held = [w for w in chance.worlds if w.index in outcome.held]
    sizes: dict[int, float] = {}
    for name, opts in cand.options.items():
        for oi, o in enumerate(opts):
            if o.shared and o.gpu is not None:
                line = chance.line[o.gpu]
                sizes[id(o)] = max([o.vram_gb, *(w.options[name][oi].need_gb * line
                                                 / w.line[o.gpu] for w in held)])
    return lambda o: sizes.get(id(o), o.vram_gb)
