"""The servers of a plan are real ones: catalog SKUs, no negative count, GPUs in slots of
a platform that takes their form factor, DIMMs of its memory type filling whole channels
(R14), drives in its bays."""

from __future__ import annotations

from ..inputs.catalog import Platform
from ..plan_types import Server
from .subject import Skus, Subject


def check_servers(sub: Subject) -> list[str]:
    """Every server of the catalog's SKUs and within its platform (R14 for its DIMMs)."""
    skus = sub.skus
    ids = [s.id for s in sub.option.servers]
    errs = ["server ids repeat"] if len(set(ids)) != len(ids) else []
    for s in sub.option.servers:
        p = skus.platforms.get(s.platform)
        if p is None:
            errs.append(f"{s.id}: unknown platform {s.platform}")
            continue
        if s.gpu_count < 0 or s.dimm_count < 0 or s.drive_count < 0:
            errs.append(f"{s.id}: negative count")
        errs += _server_gpus(s, p, skus)
        errs += check_r14(s, p, skus)
        if s.drive_count:
            if s.storage is None or s.storage not in skus.storage:
                errs.append(f"{s.id}: unknown storage {s.storage}")
            if s.drive_count > p.drive_bays:
                errs.append(f"{s.id}: {s.drive_count} drives > {p.drive_bays} bays")
    return errs


def _server_gpus(s: Server, p: Platform, skus: Skus) -> list[str]:
    if not s.gpu_count:
        return []
    errs = []
    g = skus.gpu(s.gpu)
    if g is None:
        errs.append(f"{s.id}: unknown GPU {s.gpu}")
    elif not p.takes(g):
        errs.append(f"{s.id}: {s.gpu} form factor not taken by {p.sku}")
    if s.gpu_count > p.gpu_slots:
        errs.append(f"{s.id}: {s.gpu_count} GPUs > {p.gpu_slots} slots")
    return errs


def check_r14(s: Server, p: Platform, skus: Skus) -> list[str]:
    """R14: one server's DIMMs are of its platform's memory type and fill whole channels,
    within its slots."""
    errs = []
    dimm = skus.memory.get(s.memory)
    if dimm is None:
        errs.append(f"{s.id}: unknown memory {s.memory}")
    elif dimm.type != p.memory_type:
        errs.append(f"{s.id}: {s.memory} is not {p.memory_type}")
    if s.dimm_count <= 0 or s.dimm_count % p.memory_channels or s.dimm_count > p.dimm_slots:
        errs.append(
            f"{s.id}: {s.dimm_count} DIMMs must be a positive multiple of "
            f"{p.memory_channels} channels within {p.dimm_slots} slots (R14)"
        )
    return errs
