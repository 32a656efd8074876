"""U1: the plan holds in at least k of the N sampled worlds (``rules/chance.py``)."""

from __future__ import annotations

import math

from ...inputs.workload import WorkloadFile
from ..candidates import Candidates
from ..chance import WorldNeeds
from ..lp import pulp
from .model import Model, gpu_of
from .names import row_name


def define_chance(m: Model, wf: WorkloadFile, cand: Candidates) -> None:
    """z_s ∈ {0, 1} per world s (1: the plan must hold there), and

        Σ_s z_s ≥ k = ⌈P × N⌉                                         (``chance.count``)
        Σ_{o ∉ F_sw} Σ_t x_wot ≤ U_w (1 − z_s)                          (``chance.fit``)
        Σ_{o,t} x_wot ≥ ⌈replicas_w × g_s⌉ (z_s + u_w − 1)              (``chance.demand``)
        Σ_{o ∈ F_sw,t} η_sw τ_swo x_wot ≥ T_w g_s (z_s + u_w − 1)       (``chance.target``)
        Σ_{o shared} v_swo x_wot ≤ Λ_sg s_t + M_st (1 − z_s)            (``chance.shared``)
        x_wot ≤ ⌊Λ_sg / v_swo⌋ s_t + U_w (1 − z_s)  per shared o         (``chance.shared.fit``)

    F_sw: w's options whose true need fits their GPU's line in world s and that meet their
    latency limits (R15, T3); U_w the most replicas of w any world needs
    (``Candidates.most_replicas``); τ_swo and η_sw the world's tokens/s and efficiency;
    v_swo = max(v_o, the world's need) what a shared replica reserves there, Λ_sg the
    world's line on GPU g, M_st = Σ v_swo × the variable's bound. A demand row is left
    out where the file's own row already asks as much; the demand rows of workloads
    without a target read ≥ (``define_placements``): more replicas are spare capacity.
    """
    chance = cand.chance
    if chance is None:
        return
    xs: dict[str, list[tuple[int, str, pulp.LpVariable]]] = {}
    for (name, oi, key), v in m.x.items():
        xs.setdefault(name, []).append((oi, key, v))
    flags = []
    for world in chance.worlds:
        z = pulp.LpVariable(f"z_{world.index}", cat="Binary")
        flags.append(z)
        m.chance_z[world.index] = z
        for w in wf.workloads:
            mine = xs.get(w.name, [])
            there = world.options[w.name]
            served = m.serve[w.name]
            ids = (str(world.index), w.name)
            bad = [v for oi, _, v in mine if not there[oi].fits]
            if bad:
                m.prob += (pulp.lpSum(bad) <= cand.most_replicas(w.name) * (1 - z),
                           row_name("chance.fit", *ids))
            need = world.replicas[w.name]
            if need > cand.replicas[w.name]:
                m.prob += (pulp.lpSum(v for _, _, v in mine) >= need * (z + served - 1),
                           row_name("chance.demand", *ids))
            target = world.targets.get(w.name)
            if target is not None:
                eta = world.fraction[w.name]
                m.prob += (pulp.lpSum(eta * there[oi].tokens_per_s * v for oi, _, v in mine
                                      if there[oi].fits) >= target * (z + served - 1),
                           row_name("chance.target", *ids))
        _shared_rows(m, cand, world, z)
    m.prob += pulp.lpSum(flags) >= chance.need, row_name("chance.count")


def _shared_rows(m: Model, cand: Candidates, world: WorldNeeds, z: pulp.LpVariable) -> None:
    """R15, R17 in one world: shared replicas at what they reserve there."""
    for key, s_t in m.shared.items():
        line = world.line[gpu_of(m, key).sku]
        terms, grew = [], False
        for (name, oi, k), v in m.x.items():
            o = m.options[(name, oi)]
            if k != key or not o.shared:
                continue
            need = max(o.vram_gb, world.options[name][oi].need_gb)
            grew = grew or need > o.vram_gb + 1e-9
            terms.append((name, oi, need, v))
        if not grew:
            continue  # what the file's own rows hold (Λ_sg ≥ the file's line)
        big = sum(need * (v.upBound or cand.most_replicas(name)) for name, _, need, v in terms)
        m.prob += (pulp.lpSum(need * v for _, _, need, v in terms)
                   <= line * s_t + big * (1 - z), row_name("chance.shared", str(world.index), key))
        for name, oi, need, v in terms:
            per = math.floor(line / need + 1e-9) if need > 0 else cand.most_replicas(name)
            m.prob += (v <= per * s_t + cand.most_replicas(name) * (1 - z),
                       row_name("chance.shared.fit", str(world.index), name, oi, key))
