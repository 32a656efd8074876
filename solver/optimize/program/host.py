"""Host RAM (R11, R12, R15) and CPU cores (O3): per-type sums under each server's room."""

from __future__ import annotations

import math

from ...inputs.workload import WorkloadFile
from ...rules import usable
from ..candidates import Candidates
from ..lp import pulp
from .model import Model
from .names import row_name


def define_host_ram(m: Model, cand: Candidates, wf: WorkloadFile) -> None:
    """Σ_{o} r_o x_wot ≤ (1 − headroom) R_t n_t (R11, R12, R15), and
    n_t ≥ Σ_{r_o > C/2} x_wot: a replica needing over half a server's usable RAM sits alone
    (the first of the bin-packing cuts below; valid for every plan, so added up front)."""
    for key, t in m.types.items():
        items = m.on_type[key]
        if items:
            cap = usable(t.ram_gb, wf.policy)
            m.prob += (pulp.lpSum(o.ram_gb * v for o, v in items) <= cap * m.n[key],
                       row_name("ram", key))
            big = [v for o, v in items if o.ram_gb > cap / 2 + 1e-9]
            if big:
                m.prob += m.n[key] >= pulp.lpSum(big), row_name("ram.big", key)


def define_cpu_cores(m: Model) -> None:
    """O3: Σ_o c_o x_wot ≤ cores_p n_t, and n_t ≥ Σ_{c_o > cores_p / 2} x_wot (a replica
    needing over half a server's cores sits alone; valid for every plan, as for RAM).
    Shared GPUs (R17): x_wot ≤ ⌊cores_p / c_o⌋ s_t per shareable option, and
    Σ_{shared o} c_o x_wot ≤ cores_p s_t (each shared GPU sits in one server).

    c_o is a replica's core need (training d (workers + 1), inference 2d, preprocess
    max(1, workers), or the workload's data.cpu_cores). A platform without cpu_cores in the
    catalog is not checked. Like RAM this is a per-type sum: expansion packs cores as a
    third dimension, and cuts and server patterns tighten a type whose sums lie.
    """
    for key, t in m.types.items():
        cap = t.platform.cpu_cores
        items = [(o, v) for o, v in m.on_type[key] if o.cores > 0]
        if cap is None or not items:
            continue
        m.prob += (pulp.lpSum(o.cores * v for o, v in items) <= cap * m.n[key],
                   row_name("cores", key))
        big = [v for o, v in items if o.cores > cap / 2 + 1e-9]
        if big:
            m.prob += m.n[key] >= pulp.lpSum(big), row_name("cores.big", key)
        # A shared GPU sits in one server: it holds at most ⌊cores_p / c_o⌋ such replicas,
        # and all shared replicas together use at most cores_p per shared GPU (the servers
        # that hold shared GPUs are at most s_t, each with cores_p cores).
        shared = [(o, v) for o, v in items if o.shared and key in m.shared]
        for j, (o, v) in enumerate(shared):
            m.prob += (v <= math.floor(cap / o.cores + 1e-9) * m.shared[key],
                       row_name("cores.shared", *m.x_ids(v)))
        if shared:
            m.prob += (pulp.lpSum(o.cores * v for o, v in shared) <= cap * m.shared[key],
                       row_name("cores.shared.sum", key))
