"""U1: a plan held to sampled scenarios holds in at least ⌈P × N⌉ of them.

The checker's own count: each world (the file as the scenario sees it, ``uncertainty/worlds.World``)
is checked by every other check of this package, the option's replicas reserving what they
truly need there (``uncertainty.evaluate.verdict``, the sweep's reading); the worlds with no
violation are counted. Nothing of the program's rows is read.
"""

from __future__ import annotations

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..rules.chance import required
from ..uncertainty.worlds import World, worlds
from .subject import Subject
from .verdict import held_in

_LAST: list[tuple[WorkloadFile, Catalog, tuple[World, ...]]] = []
"""The worlds of the last file checked (every option of a plan is checked against them)."""


def check_u1(sub: Subject) -> list[str]:
    """``uncertainty.robust`` P: the option holds in at least ⌈P × N⌉ of the N worlds."""
    unc = sub.wf.uncertainty
    if unc is None or unc.robust is None or sub.timed is not None or sub.catalog is None:
        return []
    catalog = sub.catalog
    held = held_in(sub.option, (world.wf for world in _worlds(sub.wf, catalog)), catalog)
    need = required(unc.robust, unc.samples)
    if held >= need:
        return []
    msg = (f"holds in {held} of {unc.samples} sampled scenarios, fewer than the {need} "
           f"(⌈{unc.robust:g} × {unc.samples}⌉) uncertainty.robust asks (U1)")
    return [msg]


def _worlds(wf: WorkloadFile, catalog: Catalog) -> tuple[World, ...]:
    for seen_wf, seen_cat, out in _LAST:
        if seen_wf is wf and seen_cat is catalog:
            return out
    out = worlds(wf, catalog)
    _LAST[:] = [(wf, catalog, out)]
    return out
