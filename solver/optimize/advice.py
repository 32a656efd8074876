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

from dataclasses import dataclass

from ..estimate.replica import estimate
from ..inputs.catalog import Catalog
from ..inputs.policy import PARALLEL_DEGREES, Policy
from ..inputs.workload import Workload, WorkloadFile
from .replicas import degrees_on, max_slots

TRAINING = ("train", "lora", "qlora")
"""Kinds whose activations checkpointing shrinks."""
NAMED_GPUS = 3
"""GPUs named in a note, cheapest first."""
LISTED = 5
"""Workloads a note names at most, the largest cuts first."""


@dataclass(frozen=True)
class Fewest:
    """The fewest GPUs one replica fits on, and the GPU SKUs that need that few."""

    gpus: int
    skus: tuple[str, ...]
    """Cheapest first."""

    def text(self) -> str:
        """"4 GPUs (h200-sxm)", "1 GPU (a100-80g-pcie, a100-80g-sxm, h100-pcie or 2 others)"."""
        named = ", ".join(self.skus[:NAMED_GPUS])
        more = len(self.skus) - NAMED_GPUS
        if more > 0:
            named += f" or {more} other{'s' if more > 1 else ''}"
        return f"{_count(self.gpus)} ({named})"

    def to_json(self) -> dict:
        return {"fewest_gpus": self.gpus, "gpus": list(self.skus)}


@dataclass(frozen=True)
class CheckpointingGain:
    """A training workload written without activation checkpointing whose replica would fit
    on fewer GPUs with it."""

    workload: str
    now: Fewest | None
    """As written (None: it fits on no GPU the policy allows)."""
    then: Fewest
    """With ``activation_checkpointing: true``: fewer GPUs."""

    @property
    def saved(self) -> int:
        """GPUs per replica the setting saves (fitting at all counts as the most)."""
        return 10**6 if self.now is None else self.now.gpus - self.then.gpus

    def text(self) -> str:
        """"on 1 GPU (a100-80g-pcie, ...) instead of at least 4 GPUs (h200-sxm)"."""
        before = ("none (it fits on no GPU the policy allows without it)" if self.now is None
                  else f"at least {self.now.text()}")
        return f"on {self.then.text()} instead of {before}"

    def to_json(self) -> dict:
        """``checkpointing[]`` of ``estimate --json`` (docs/json.md)."""
        now = self.now.to_json() if self.now is not None else {"fewest_gpus": None, "gpus": []}
        return {"workload": self.workload, **now, "with_checkpointing": self.then.to_json()}


@dataclass(frozen=True)
class DegreeAdvice:
    """What keeps a replica from spanning more GPUs, and the fix that would let it fit."""

    binds: str
    """"max_pcie_parallel_degree caps a replica at 2 GPUs outside an NVLink domain", or the
    servers: "a replica runs within one server, and no server ... holds more than 8 GPUs"."""
    fix: str
    """"raise max_pcie_parallel_degree to 8 (it would fit on 8 x a100-80g-pcie), "; "" where
    no degree any server holds would fit it."""


def fewest_gpus(w: Workload, catalog: Catalog, policy: Policy) -> Fewest | None:
    """The fewest GPUs one replica of ``w`` fits on, over every GPU and degree the policy
    allows (``degrees_on``), and the GPUs that need that few; None where it fits nowhere."""
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
    return Fewest(least, tuple(sku for _, sku in sorted(skus)))


def with_checkpointing(w: Workload, catalog: Catalog, policy: Policy) -> Fewest | None:
    """``fewest_gpus`` of a training workload written without activation checkpointing,
    were it on; None where it is on already, or the workload does not train."""
    if w.kind not in TRAINING or w.activation_checkpointing:
        return None
    return fewest_gpus(w.model_copy(update={"activation_checkpointing": True}), catalog,
                       policy)


def checkpointing_gain(w: Workload, catalog: Catalog,
                       policy: Policy) -> CheckpointingGain | None:
    """What checkpointing would save a training workload written without it; None where
    it is on, or would not need fewer GPUs."""
    if w.kind not in TRAINING or w.activation_checkpointing:
        return None
    now = fewest_gpus(w, catalog, policy)
    if now is not None and now.gpus == 1:
        return None  # one GPU already: checkpointing cannot need fewer
    then = with_checkpointing(w, catalog, policy)
    if then is None or (now is not None and then.gpus >= now.gpus):
        return None
    return CheckpointingGain(w.name, now, then)


def checkpointing_gains(wf: WorkloadFile, catalog: Catalog) -> list[CheckpointingGain]:
    """``checkpointing_gain`` of each workload that has one, in file order."""
    return [gain for w in wf.workloads
            if (gain := checkpointing_gain(w, catalog, wf.policy)) is not None]


def checkpointing_note(wf: WorkloadFile, catalog: Catalog) -> str | None:
    """One note on the training workloads written without activation checkpointing whose
    replicas would fit on fewer GPUs with it; None where none would."""
    gains = checkpointing_gains(wf, catalog)
    if not gains:
        return None
    one = len(gains) == 1
    who = (f"{gains[0].workload} would fit on fewer GPUs per replica with "
           "activation_checkpointing: true in its entry" if one else
           f"{len(gains)} training workloads would fit on fewer GPUs per replica with "
           "activation_checkpointing: true in their entries")
    # The largest cuts first; a long mix lists a few (its estimate shows every one).
    shown = sorted(gains, key=lambda g: -g.saved)[:LISTED]
    cuts = "; ".join(("" if one else f"{g.workload} ") + g.text() for g in shown)
    if len(gains) > len(shown):
        cuts += f"; and {len(gains) - len(shown)} more (plan-buy estimate shows each)"
    return (f"written without activation checkpointing, {who} (each training step then "
            "takes longer, as it recomputes the activations; this plan is for the file as "
            f"written): {cuts}")


def parallel_advice(w: Workload, catalog: Catalog, policy: Policy) -> DegreeAdvice:
    """For a workload that fits on no GPU and degree the policy allows: what keeps a replica
    from spanning more GPUs, and the fix that would let it fit.

    A degree the policy refuses on a GPU (``max_parallel_degree``, or
    ``max_pcie_parallel_degree`` beyond its NVLink domain) but that a catalog server holds is
    tried: where the replica fits there, the fix names the setting and the value ("raise
    max_pcie_parallel_degree to 8 (it would fit on 8 x a100-80g-pcie)"); where it fits at
    none, the servers bind and raising a cap would only send the user in a circle."""
    allowed = [g for g in catalog.gpus if g.sku not in policy.exclude]
    most = max((max_slots(catalog, g, policy.exclude) for g in allowed), default=0)
    found: tuple[int, float, str, list[str]] | None = None
    """(degree, GPU price, GPU, the settings that refuse it) of the least degree that fits."""
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
        return DegreeAdvice(f"a replica runs within one server, and no server of the catalog "
                            f"holds more than {most} GPUs", "")
    d, _, sku, knobs = found
    caps = {"max_parallel_degree": f"max_parallel_degree caps a replica at "
                                   f"{_count(policy.max_parallel_degree)}",
            "max_pcie_parallel_degree": f"max_pcie_parallel_degree caps a replica at "
                                        f"{_count(policy.max_pcie_parallel_degree)} outside "
                                        "an NVLink domain"}
    return DegreeAdvice(" and ".join(caps[k] for k in knobs),
                        f"raise {' and '.join(f'{k} to {d}' for k in knobs)} (it would fit "
                        f"on {d} x {sku}), ")


def _count(n: int) -> str:
    """"1 GPU", "4 GPUs"."""
    return f"{n} GPU{'s' if n != 1 else ''}"
