"""GPUs and slots: a replica's GPUs sit in one server (R8), fixed GPU counts (O1), and
shareable replicas on one GPU under the headroom line (R15, R17)."""

from __future__ import annotations

import math

from ...inputs.workload import WorkloadFile
from ...rules import usable
from ..candidates import Candidates
from ..lp import pulp
from .model import Model, gpu_of
from .names import row_name


def define_gpu_slots(m: Model, cand: Candidates) -> None:
    """GPUs fit the slots (R8: a replica's d GPUs sit in one server).

    G_t ≤ K_t n_t, and for every level 2^j ≤ K_t: Σ_{d_o ≥ 2^j} d_o x + [j=0] s_t ≤
    2^j ⌊K_t / 2^j⌋ n_t. With power-of-two degrees these levels are exactly the condition
    for the replicas to pack into n_t servers of K_t slots (docs/solver.md, Lemma 1).
    """
    for key, t in m.types.items():
        items = m.on_type[key]
        gpu_items = [(o, v) for o, v in items if o.degree > 0 and not o.shared]
        has_shared = any(o.shared for o, _ in items)
        if has_shared:
            m.shared[key] = pulp.LpVariable(f"s_{m.index[key]}", 0, cat="Integer")
        s_t = m.shared.get(key, 0)
        m._gpu_expr[key] = pulp.lpSum(o.degree * v for o, v in gpu_items) + s_t
        if t.gpu is None:
            continue
        k = t.gpu_slots
        level = 1
        while level <= k:
            big = [(o, v) for o, v in gpu_items if o.degree >= level]
            lhs = pulp.lpSum(o.degree * v for o, v in big) + (s_t if level == 1 else 0)
            if level == 1 or big:
                m.prob += lhs <= level * (k // level) * m.n[key], row_name("slots", key, level)
            level *= 2


def define_fixed_gpu_counts(m: Model) -> None:
    """O1: a type whose platform sells only some GPU counts holds exactly k_t GPUs a server.

    G_t = k_t n_t (idle GPUs are bought and paid), while the slot levels above already
    keep the GPUs the replicas use within k_t per server (Lemma 1 with K = k_t). Types with
    a free count keep G_t = Σ d_o x_wot + s_t ≤ K_t n_t.
    """
    for key, t in m.types.items():
        if t.gpu is not None and t.gpu_count is not None:
            m._gpu_expr[key] = t.gpu_count * m.n[key]


def define_shared_vram(m: Model, cand: Candidates, wf: WorkloadFile) -> None:
    """Shareable replicas on one GPU add up under the headroom line (R15, R17).

    Σ_w v_w y_wt ≤ U_g s_t, and y_wt ≤ ⌊U_g / v_w⌋ s_t for each shareable w.
    """
    for key, s_t in m.shared.items():
        cap = usable(gpu_of(m, key).vram_gb, wf.policy)
        shared = [(o, v) for o, v in m.on_type[key] if o.shared]
        m.prob += (pulp.lpSum(o.vram_gb * v for o, v in shared) <= cap * s_t,
                   row_name("shared.vram", key))
        # No empty shared GPU.
        m.prob += s_t <= pulp.lpSum(v for _, v in shared), row_name("shared.used", key)
        for o, v in shared:
            # Named after its x_wot: (workload, option, type).
            row = v <= math.floor(cap / o.vram_gb + 1e-9) * s_t if o.vram_gb > 0 else v >= 0
            m.prob += row, row_name("shared.fit", *m.x_ids(v))
