"""Server patterns that carry their datasets and drives (O4 exact on one type): a relaxation
for the drive bound, never a plan."""

from __future__ import annotations

import itertools

from ...inputs.catalog import Catalog
from ...inputs.workload import WorkloadFile
from ...rules import headroom_line, usable
from ..candidates import ServerType
from ..lp import pulp
from ..patterns import MAX_PATTERNS, maximal_patterns
from .columns import bare_gpu, pattern_kind, takes_nothing
from .host_room import drives_and_readers
from .model import Model
from .names import row_name
from .storage import holding

MAX_DRIVE_SETS = 64
"""Sets of local datasets whose server patterns ``disaggregate_drives`` lists at most (a
type reading six local datasets has 64)."""


def disaggregate_drives(m: Model, key: str, wf: WorkloadFile, catalog: Catalog,
                        limit: int = MAX_PATTERNS) -> bool:
    """Model one bought type by server patterns that carry their datasets and drives (O4
    exact there; a relaxation for the bound of ``bounds.drive_bound``, never a plan).

    Kinds are as in ``disaggregate`` (GPUs, host RAM[, cores]; a shared GPU one GPU and
    nothing else, its replicas' RAM and cores left to the sum rows, as ``optimistic``), and
    an exclusive replica of a workload w with a local dataset (ds_w > 0) is a kind of its
    own. A pattern π is a set S of those workloads and a maximal multiset of the kinds of
    the other workloads and of S's that one server holds, with at least one replica of each
    w ∈ S; its server needs a drive configuration holding D_π = Σ_{w ∈ S} ds_w under the
    line λ. With p_π ∈ ℤ≥0 the servers built to it:

        n_t = Σ_π p_π                                          (``drive.link(t)``)
        Σ_π a_kπ p_π ≥ Σ_{o ∈ k} x_wot          for each kind  (``drive.cover(t,k)``)
        Σ_{k: λ TB_k ≥ τ} z_tk ≥ Σ_{π: D_π ≥ τ} p_π   for each τ among the D_π
                                                               (``drive.holds(t,j)``)

    A real server holding the set S' of local datasets and a multiset a of replicas sits
    under a maximal pattern of S' (a ≤ π), and its drives hold D_π = Σ_{S'} ds: every plan
    is covered at its own price, so the program stays a relaxation, now one that sees GPUs,
    RAM, cores and datasets together (a 187.5 GB preprocess replica fits once beside a
    564 GB 8-GPU replica on an 819.2 GB server: two servers with drives, where the rows, one
    dimension at a time, allowed one). The type's other rows stay (valid). False, and the
    program unchanged, for a type without drive configurations or local datasets, with
    more than MAX_DRIVE_SETS sets of them, past ``limit`` patterns, or modelled so already."""
    t = m.types[key]
    line = headroom_line(wf.policy)
    local = {w.name: w.local_tb for w in wf.workloads if w.local_tb > 0}
    configs, readers = drives_and_readers(m, key, catalog, local)
    if (not configs or not readers or 2 ** len(readers) > MAX_DRIVE_SETS
            or row_name("drive.link", key) in m.prob.constraints):
        return False
    cores_cap = t.platform.cpu_cores
    kinds: dict[tuple, list[pulp.LpVariable]] = {}
    for (w, oi, k), v in m.x.items():
        o = m.options[(w, oi)]
        if k != key or o.shared:
            continue
        if takes_nothing(o, cores_cap):
            continue
        kinds.setdefault((*pattern_kind(o, cores_cap), w if w in local else ""),
                         []).append(v)
    if key in m.shared:
        kinds.setdefault((*bare_gpu(cores_cap), ""), []).append(m.shared[key])
    shape = list(kinds)
    patterns = _drive_set_patterns(shape, t, readers, local, configs, line,
                                   usable(t.ram_gb, wf.policy), limit)
    if patterns is None:
        return False
    ti = m.index[key]
    p = [pulp.LpVariable(f"dp_{ti}_{j}", 0, m.n_ub, cat="Integer") for j in range(len(patterns))]
    m.prob += m.n[key] == pulp.lpSum(p), row_name("drive.link", key)
    for i, members in enumerate(kinds.values()):
        m.prob += (pulp.lpSum(pat[i] * v for (pat, _), v in zip(patterns, p, strict=True)
                              if pat[i]) >= pulp.lpSum(members)), row_name("drive.cover", key, i)
    for j, tau in enumerate(sorted({need for _, need in patterns if need > 0})):
        m.prob += (pulp.lpSum(holding(configs, tau, line))
                   >= pulp.lpSum(v for (_, need), v in zip(patterns, p, strict=True)
                                 if need >= tau - 1e-12)), row_name("drive.holds", key, j)
    return True


def _drive_set_patterns(shape: list[tuple], t: ServerType, readers: list[str],
                        local: dict[str, float], configs: list[tuple[float, pulp.LpVariable]],
                        line: float, ram_cap: float,
                        limit: int) -> list[tuple[tuple[int, ...], float]] | None:
    """The patterns of ``disaggregate_drives``, as (count of each kind in ``shape``, D_π):
    for each set S of ``readers`` whose datasets some configuration holds together, the
    maximal patterns of the kinds of S and of the other workloads with a replica of each
    w ∈ S. None past ``limit`` patterns."""
    cores_cap = t.platform.cpu_cores
    patterns: list[tuple[tuple[int, ...], float]] = []
    for size in range(len(readers) + 1):
        for chosen in itertools.combinations(readers, size):
            need = sum(local[w] for w in chosen)
            if not holding(configs, need, line):
                continue  # no configuration holds these datasets together
            allowed = [i for i, kind in enumerate(shape) if kind[-1] in ("", *chosen)]
            found = maximal_patterns([shape[i][:-1] for i in allowed], t.gpu_slots, ram_cap,
                                     limit, cores_cap)
            if found is None:
                return None
            for counts in found:
                full = [0] * len(shape)
                for i, c in zip(allowed, counts, strict=True):
                    full[i] = c
                present = {shape[i][-1] for i, c in enumerate(full) if c}
                if set(chosen) <= present:
                    patterns.append((tuple(full), need))
            if len(patterns) > limit:
                return None
    return patterns
