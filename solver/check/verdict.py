"""An option judged in one world (U1, a Monte Carlo scenario): the plan checker run on it
with its replicas reserving what they truly need there (``verdict``).

It is the checker's own reading of "the option still holds", used by ``check_u1`` to count
the worlds a plan holds in and by the sweep for each scenario. The lines that compare a
figure the plan reports with the recomputed one ("reports ...") are left out (the plan's
stale bookkeeping, not a break); replicas beyond demand are spare (``Subject.spare``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..plan_types import PlanOption
from .subject import Skus, Subject, estimate_once

RULE_LABELS = {
    "check_servers": "servers", "check_r8_r10": "VRAM", "check_r17": "VRAM",
    "check_r11_r12": "host RAM", "check_r19": "demand", "check_o4": "VRAM",
    "check_t3_t4": "throughput", "check_bom": "budget", "check_exclude": "excluded SKU",
    "check_o1": "orderable", "check_o3": "storage", "check_p4": "owned servers",
    "check_p3": "site", "check_p1_p2": "power", "check_h3": "deadline",
    "check_h4": "deadline", "check_h5": "rent", "check_h6": "horizon cost",
    "check_u1": "chance",
}
"""What each check of the checker tests, as a finance reader would name it."""


def rule_ids(check_name: str) -> str:
    """``R11, R12, R15``: the rule ids a check verifies (``check.RULES``)."""
    from . import RULES

    return ", ".join(r for r, checks in RULES.items()
                     if any(c.__name__ == check_name for c in checks))


def verdict(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> dict:
    """``holds`` and, when not, each break as {workload, rule, ids, message}, checker order."""
    from . import CHECKS  # imported while the package builds its table: read at call time

    sub = replace(Subject.of(reserved_as_needed(option, wf, catalog), wf, catalog), spare=True)
    breaks = []
    for check in CHECKS:
        for msg in check(sub):
            if "reports " in msg:
                continue  # the plan's stale figure beside the recomputed one, not a break
            breaks.append({"workload": culprit(msg, option, wf), "rule":
                           RULE_LABELS.get(check.__name__, check.__name__.removeprefix("check_")),
                           "ids": rule_ids(check.__name__), "message": msg})
    return {"holds": not breaks, "breaks": breaks[:5], "break_count": len(breaks)}


def held_in(option: PlanOption, worlds: Iterable[WorkloadFile], catalog: Catalog) -> int:
    """How many of the files ``worlds`` (U1's worlds, ``World.wf``) ``option`` holds in."""
    return sum(verdict(option, wf, catalog)["holds"] for wf in worlds)


def reserved_as_needed(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> PlanOption:
    """``option`` whose replicas reserve what they need in ``wf`` (never less than they
    did) and report no tokens/s (the checker recomputes it)."""
    skus = Skus.of(catalog)
    by_name = {w.name: w for w in wf.workloads}
    placements = []
    for pl in option.placements:
        w, g = by_name.get(pl.workload), skus.gpu(pl.gpu)
        vram, ram = pl.vram_gb_per_gpu, pl.host_ram_gb
        if w is not None and (g is not None or w.kind == "preprocess") and pl.gpus >= 0:
            try:
                e = estimate_once(w, g, pl.gpus if g is not None else 0, wf.policy)
                vram, ram = max(vram, e.vram_gb_per_gpu if g else 0.0), max(ram, e.host_ram_gb)
            except ValueError:
                pass  # a placement too broken to estimate: the checker says so
        placements.append(replace(pl, vram_gb_per_gpu=vram, host_ram_gb=ram, tokens_per_s=None))
    return replace(option, placements=tuple(placements))


def culprit(message: str, option: PlanOption, wf: WorkloadFile) -> str:
    """The workload a checker line is about: the one it names, else the first placed on
    the server (or GPU) it names, else ``pool``."""
    head = message.split(":", 1)[0].strip()
    names = {w.name for w in wf.workloads}
    for cut in ("#", " run ", " on "):
        head_name = head.split(cut, 1)[0]
        if head_name in names:
            return head_name
    server = head.split(" GPU ", 1)[0]
    on = sorted(p.workload for p in option.placements if p.server == server)
    return on[0] if on else "pool"
