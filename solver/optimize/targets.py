"""What a plan delivers for each workload with a throughput target (T5), read off its
placements: the report, the JSON and the workbook show these figures."""

from __future__ import annotations

from ..estimate.throughput import (
    SECONDS_PER_DAY,
    delivered_fraction,
    planned_target,
)
from ..inputs.workload import WorkloadFile
from ..plan_types import Placement, TargetFigure


def target_figures(placements: tuple[Placement, ...], wf: WorkloadFile,
                   unserved: tuple[str, ...] = ()) -> tuple[TargetFigure, ...]:
    """One figure per served workload with a target, in file order.

    delivered = η Σ_replicas tokens/s (η: ``policy.data_parallel_efficiency`` for training,
    1 for inference); training: days to finish = tokens × growth ÷ (delivered × 86,400);
    inference: TPOT and TTFT of its slowest replica.
    """
    out = []
    for w in wf.workloads:
        need = planned_target(w, wf.policy)
        if need is None or w.name in unserved:
            continue
        mine = [p for p in placements if p.workload == w.name]
        eta = delivered_fraction(w, wf.policy)
        delivered = eta * sum(p.tokens_per_s or 0.0 for p in mine)
        tokens = days = tpot = ttft = None
        if w.kind == "inference":
            tpot = max((p.tpot_ms for p in mine if p.tpot_ms is not None), default=None)
            ttft = max((p.ttft_ms for p in mine if p.ttft_ms is not None), default=None)
        elif w.tokens is not None:
            tokens = w.tokens * wf.policy.growth
            days = tokens / (delivered * SECONDS_PER_DAY) if delivered > 0 else None
        out.append(TargetFigure(
            workload=w.name, kind=w.kind, target_tokens_per_s=need, tokens_per_s=delivered,
            replicas=len(mine), gpus=sum(p.gpus for p in mine), fraction=eta,
            tokens=tokens, days_to_finish=days, tpot_ms=tpot, ttft_ms=ttft,
            output_tokens=w.output_tokens if w.requests_per_s is not None else None,
        ))
    return tuple(out)
