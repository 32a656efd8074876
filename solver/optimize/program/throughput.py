"""Throughput targets (T3) and one GPU type per training job with a target (T4)."""

from __future__ import annotations

from ...inputs.workload import WorkloadFile
from ..candidates import Candidates
from ..lp import pulp
from ..replicas import ReplicaOption
from .model import Model
from .names import row_name


def define_targets(m: Model, wf: WorkloadFile, cand: Candidates) -> None:
    """Throughput targets (T3), for each workload w with a target T_w (tokens/s):

        Σ_{o,t} η_w τ_o x_wot ≥ T_w × growth × u_w      (``target_{w}``)
        Σ_{o,t} x_wot ≤ U_w u_w                          (``target_most_{w}``)

    τ_o is one replica's tokens/s on option o (the estimator's), η_w the data-parallel
    efficiency for training kinds and 1 for inference (load-balanced replicas add up), U_w
    the most replicas worth running (``Candidates.most_replicas``). With ``define_placements``'
    Σ x ≥ ⌈replicas × growth⌉ u_w, the replica count lies between the two.
    """
    by_workload: dict[str, list[tuple[ReplicaOption, pulp.LpVariable]]] = {}
    for (name, oi, _), v in m.x.items():
        if name in cand.targets:
            by_workload.setdefault(name, []).append((m.options[(name, oi)], v))
    for wi, w in enumerate(wf.workloads):
        need = cand.targets.get(w.name)
        if need is None:
            continue
        eta = cand.fraction[w.name]
        mine = by_workload.get(w.name, [])
        m.prob += (pulp.lpSum(eta * (o.tokens_per_s or 0.0) * v for o, v in mine)
                   >= need * m.serve[w.name]), row_name("target", w.name)
        m.prob += (pulp.lpSum(v for _, v in mine)
                   <= cand.most_replicas(w.name) * m.serve[w.name]), row_name("target.most", w.name)


def define_one_gpu_type(m: Model, wf: WorkloadFile, cand: Candidates) -> None:
    """One GPU SKU and degree per training job with a target (T4: data-parallel ranks match).

    y_wo ∈ {0, 1} per option o of w;  Σ_t x_wot ≤ M_wo y_wo  (``one_type_{w}_{o}``);
    Σ_o y_wo = u_w  (``one_type_{w}``), with M_wo = max(⌈replicas × growth⌉,
    ⌈T_w × growth / (η_w τ_o)⌉), the most replicas of o worth running. Inference may mix.
    """
    for wi, w in enumerate(wf.workloads):
        if w.name not in cand.targets or w.kind == "inference":
            continue
        by_option: dict[int, list[pulp.LpVariable]] = {}
        for (name, i, _), v in m.x.items():
            if name == w.name:
                by_option.setdefault(i, []).append(v)
        flags = []
        for oi, o in enumerate(cand.options[w.name]):
            xs = by_option.get(oi, [])
            if not xs:
                continue
            y = pulp.LpVariable(f"y_{wi}_{oi}", cat="Binary")
            m.prob += (pulp.lpSum(xs) <= cand.option_most(w.name, o) * y,
                       row_name("one.type.option", w.name, oi))
            flags.append(y)
        m.prob += pulp.lpSum(flags) == m.serve[w.name], row_name("one.type", w.name)
