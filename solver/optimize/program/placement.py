"""Servers bought and replicas placed: n_t, x_wot and u_w, and the demand rows (R19, P4)."""

from __future__ import annotations

import math

from ...inputs.catalog import Catalog
from ...inputs.workload import WorkloadFile
from ...rules import usable
from ...rules.storage import stored_tb
from ..candidates import Candidates, type_accepts
from ..lp import pulp
from .model import Model
from .names import row_name


def define_servers(m: Model, wf: WorkloadFile, cand: Candidates, catalog: Catalog) -> None:
    """n_t ∈ ℤ≥0, bounded by one server per replica plus the servers drives could need (one
    drive of the smallest size each, under the headroom line, for every TB of the mix)."""
    storage = stored_tb(wf.workloads)
    smallest = min(s.size_tb for s in catalog.storage)
    m.drive_servers_ub = math.ceil(storage / usable(smallest, wf.policy) - 1e-9) + 1
    ub = sum(cand.most_replicas(name) for name in cand.replicas) + m.drive_servers_ub
    m.n_ub = ub
    for i, (key, t) in enumerate(m.types.items()):
        m.index[key] = i
        m.on_type[key] = []
        # P4: at most the servers owned of an owned configuration.
        m.n[key] = pulp.LpVariable(f"n_{i}", 0, min(ub, t.owned) if t.owned else ub,
                                   cat="Integer")


def define_placements(m: Model, wf: WorkloadFile, cand: Candidates, budget: bool) -> None:
    """x_wot for every option o of w and every type t that holds one replica alone.

    Demand (R19): Σ_{o,t} x_wot = ⌈replicas_w × growth⌉ · u_w; with a throughput target
    (T3) the count is a decision and this row reads ≥ (``define_targets`` adds the rest),
    as it does for every workload of a plan held to sampled worlds (U1: spare replicas).
    """
    policy = wf.policy
    for wi, w in enumerate(wf.workloads):
        need = cand.replicas[w.name]
        if budget:
            m.serve[w.name] = pulp.LpVariable(f"u_{wi}", cat="Binary")
        else:
            m.serve[w.name] = 1
        terms = []
        for oi, o in enumerate(cand.options[w.name]):
            m.options[(w.name, oi)] = o
            for key, t in m.types.items():
                if type_accepts(t, o, policy):
                    v = pulp.LpVariable(f"x_{wi}_{oi}_{m.index[key]}", 0,
                                        cand.option_most(w.name, o), cat="Integer")
                    m.x[(w.name, oi, key)] = v
                    m.on_type[key].append((o, v))
                    terms.append(v)
        if w.name in cand.targets or cand.chance is not None:
            m.prob += pulp.lpSum(terms) >= need * m.serve[w.name], row_name("demand", w.name)
        else:
            m.prob += pulp.lpSum(terms) == need * m.serve[w.name], row_name("demand", w.name)
