"""Advice: what a change to the file would do, where the plan or its refusal cannot show it.

Activation checkpointing (``activation_checkpointing: true``) keeps one input per layer
instead of every layer's activations (docs/memory-model.md). A training job written without
it may need several GPUs per replica only for its activations: QLoRA of a 70B model at
4,096 tokens needs 4 x H200 without it and one H200 with it. The plan is made for the file
as written; the note says what the change would do, so the reader decides.

A workload that fits on no GPU is refused (exit 3); ``parallel_advice`` says which degree
cap keeps it from more GPUs and the value at which it would fit, or that the servers bind.
"""

from __future__ import annotations

from ..estimate.memory import estimate
from ..inputs.catalog import Catalog
from ..inputs.workload import PARALLEL_DEGREES, Policy, Workload, WorkloadFile
from .candidates import degrees_on, max_slots

TRAINING = ("train", "lora", "qlora")
"""Kinds whose activations checkpointing shrinks."""
NAMED_GPUS = 3
"""GPUs named in a note, cheapest first."""
LISTED = 5
"""Workloads a note names at most, the largest cuts first."""
Least = tuple[int, list[str]]
"""The fewest GPUs per replica and the GPU SKUs that need that few (``fewest_gpus``)."""


def fewest_gpus(w: Workload, catalog: Catalog, policy: Policy) -> Least | None:
    """The fewest GPUs one replica of ``w`` fits on, over every GPU and degree the policy
    allows (``degrees_on``), and the GPU SKUs that need that few, cheapest first; None
    where it fits nowhere."""
    least: int | None = None
    skus: list[tuple[float, str]] = []
    for g in catalog.gpus:
        if g.sku in policy.exclude:
            continue
        for d in degrees_on(g, catalog, policy):
            if least is not None and d > least:
                break
            if estimate(w, g, d, policy).fits:
                if least is None or d < least:
                    least, skus = d, []
                skus.append((g.price, g.sku))
                break
    if least is None:
        return None
    return least, [sku for _, sku in sorted(skus)]


def with_checkpointing(w: Workload, catalog: Catalog, policy: Policy) -> Least | None:
    """``fewest_gpus`` of a training workload written without activation checkpointing,
    were it on; None where it is on already, or the workload does not train."""
    if w.kind not in TRAINING or w.activation_checkpointing:
        return None
    return fewest_gpus(w.model_copy(update={"activation_checkpointing": True}), catalog,
                       policy)


def checkpointing_gain(w: Workload, catalog: Catalog,
                       policy: Policy) -> tuple[Least | None, Least] | None:
    """For a training workload written without activation checkpointing: the fewest GPUs a
    replica fits on now (None: none) and with it, where it is fewer; else None."""
    if w.kind not in TRAINING or w.activation_checkpointing:
        return None
    now = fewest_gpus(w, catalog, policy)
    if now is not None and now[0] == 1:
        return None  # one GPU already: checkpointing cannot need fewer
    then = with_checkpointing(w, catalog, policy)
    if then is None or (now is not None and then[0] >= now[0]):
        return None
    return now, then


def gain_text(gain: tuple[Least | None, Least]) -> str:
    """"on 1 GPU (a100-80g-pcie, ...) instead of at least 4 GPUs (h200-sxm)"."""
    now, then = gain
    return (f"on {_gpus(then)} instead of " + ("at least " if now is not None else "")
            + _gpus(now))


def checkpointing_gains(wf: WorkloadFile,
                        catalog: Catalog) -> list[tuple[str, tuple[Least | None, Least]]]:
    """(workload, ``checkpointing_gain``) for each workload that has one, in file order."""
    return [(w.name, gain) for w in wf.workloads
            if (gain := checkpointing_gain(w, catalog, wf.policy)) is not None]


def gain_json(name: str, gain: tuple[Least | None, Least]) -> dict:
    """``checkpointing[]`` of ``estimate --json`` (docs/json.md)."""
    now, then = gain
    return {"workload": name,
            "fewest_gpus": None if now is None else now[0],
            "gpus": [] if now is None else now[1],
            "with_checkpointing": {"fewest_gpus": then[0], "gpus": then[1]}}


def checkpointing_note(wf: WorkloadFile, catalog: Catalog) -> str | None:
    """One note on the training workloads written without activation checkpointing whose
    replicas would fit on fewer GPUs with it; None where none would."""
    items = checkpointing_gains(wf, catalog)
    if not items:
        return None
    one = len(items) == 1
    who = (f"{items[0][0]} would fit on fewer GPUs per replica with activation_checkpointing: "
           "true in its entry" if one else
           f"{len(items)} training workloads would fit on fewer GPUs per replica with "
           "activation_checkpointing: true in their entries")
    # The largest cuts first; a long mix lists a few (its estimate shows every one).
    shown = sorted(items, key=lambda it: -_saved(it[1]))[:LISTED]
    cuts = "; ".join(("" if one else f"{name} ") + gain_text(gain) for name, gain in shown)
    if len(items) > len(shown):
        cuts += f"; and {len(items) - len(shown)} more (plan-buy estimate shows each)"
    return (f"written without activation checkpointing, {who} (each training step then "
            "takes longer, as it recomputes the activations; this plan is for the file as "
            f"written): {cuts}")


def _saved(gain: tuple[Least | None, Least]) -> int:
    """GPUs per replica the setting saves (fitting at all counts as the most)."""
    now, then = gain
    return 10**6 if now is None else now[0] - then[0]


def _gpus(least: Least | None) -> str:
    """"4 GPUs (h200-sxm)", "1 GPU (a100-80g-pcie, a100-80g-sxm, h100-pcie or 3 others)", "none
    (it fits on no GPU the policy allows without it)"."""
    if least is None:
        return "none (it fits on no GPU the policy allows without it)"
    count, skus = least
    named = ", ".join(skus[:NAMED_GPUS])
    more = len(skus) - NAMED_GPUS
    if more > 0:
        named += f" or {more} other{'s' if more > 1 else ''}"
    return f"{_count(count)} ({named})"


def _count(n: int) -> str:
    """"1 GPU", "4 GPUs"."""
    return f"{n} GPU{'s' if n != 1 else ''}"


def parallel_advice(w: Workload, catalog: Catalog, policy: Policy) -> tuple[str, str]:
    """For a workload that fits on no GPU and degree the policy allows: what keeps a replica
    from spanning more GPUs, and the fix that would let it fit ("" where none would).

    A degree the policy refuses on a GPU (``max_parallel_degree``, or
    ``max_pcie_parallel_degree`` beyond its NVLink domain) but that a catalog server holds is
    tried: where the replica fits there, the fix names the setting and the value ("raise
    max_pcie_parallel_degree to 8 (it would fit on 8 x a100-80g-pcie)"); where it fits at
    none, the servers bind and raising a cap would only send the user in a circle."""
    allowed = [g for g in catalog.gpus if g.sku not in policy.exclude]
    most = max((max_slots(catalog, g, policy.exclude) for g in allowed), default=0)
    found: tuple[int, float, str, list[str]] | None = None
    for g in allowed:
        slots = max_slots(catalog, g, policy.exclude)
        reach = max(degrees_on(g, catalog, policy), default=0)
        for d in PARALLEL_DEGREES:
            if d <= reach or d > slots or (found is not None and d > found[0]):
                continue
            if estimate(w, g, d, policy).fits:
                knobs = [k for k, binds in (
                    ("max_parallel_degree", d > policy.max_parallel_degree),
                    ("max_pcie_parallel_degree",
                     d > g.nvlink_gpus and d > policy.max_pcie_parallel_degree)) if binds]
                if found is None or (d, g.price) < found[:2]:
                    found = (d, g.price, g.sku, knobs)
                break
    if found is None:
        servers = (f"a replica runs within one server, and no server of the catalog holds "
                   f"more than {most} GPUs")
        return servers, ""
    d, _, sku, knobs = found
    caps = {"max_parallel_degree": f"max_parallel_degree caps a replica at "
                                   f"{_count(policy.max_parallel_degree)}",
            "max_pcie_parallel_degree": f"max_pcie_parallel_degree caps a replica at "
                                        f"{_count(policy.max_pcie_parallel_degree)} outside "
                                        "an NVLink domain"}
    return (" and ".join(caps[k] for k in knobs),
            f"raise {' and '.join(f'{k} to {d}' for k in knobs)} (it would fit on {d} x {sku}), ")

