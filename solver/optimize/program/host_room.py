"""O4 cuts added where a plan's drives showed the per-type sums too loose (host-room and
floor rows), and taking the optional O4 rows out of the program and back."""

from __future__ import annotations

import math

from ...inputs.catalog import Catalog
from ...inputs.workload import WorkloadFile
from ...rules import headroom_line
from ..lp import pulp
from .model import Model
from .names import row_name
from .room import resources
from .storage import holding


def add_host_room_rows(m: Model, keys: tuple[str, ...], wf: WorkloadFile,
                       catalog: Catalog) -> int:
    """O4 cuts on types whose drives, whole per server, cost more than the program's disk
    rows said (``Expansion.disk_types``), once per type: for each τ among the local datasets
    on t, the replicas reading ≥ τ sit on the servers whose configuration holds τ, whose
    resources (GPU slots, a shared replica taking v_o / U_g; usable RAM; cores, O3) hold
    them one resource at a time:

        Σ_{w: ds_w ≥ τ} Σ_o take_r(o) x_wot ≤ room_r Σ_{k: λ TB_k ≥ τ} z_tk
                                                                (``hosts.room(t,j,r)``)

    and the datasets, counted in whole τ's, fit in the whole τ's of the drives under the
    line, server by server:

        Σ_{w ∈ L on t} ⌊ds_w / τ⌋ h_wt ≤ Σ_k ⌊λ TB_k / τ⌋ z_tk          (``disk.floor(t,j)``)

    ``hosts.all`` says M_tτ Σ z ≥ Σ x with M_tτ counting each resource by the option that
    takes least of it, which a CPU-light option (a preprocess job) makes large; ``disk(t)``
    adds TB over the type's servers, so two 2 TB datasets may share 3.2 TB of one server's
    drive in its sums and a 10 TB dataset another's 11.2 TB, where a server holds whole
    datasets only. Both hold for every plan: a server's datasets fit under its line, and
    Σ_w ⌊ds_w / τ⌋ ≤ ⌊Σ_w ds_w / τ⌋ ≤ ⌊λ TB_k / τ⌋ (floors add up to at most the floor of
    the sum). So the program stays a relaxation; but 81 host rows on q3 made it 1.12 times
    slower, so they are added only where a plan's drives showed the sums too loose; like
    the pair rows, the alternatives are solved without them (``hold_pair_rows``). Returns
    how many rows were added."""
    line = headroom_line(wf.policy)
    local = {w.name: w.local_tb for w in wf.workloads if w.local_tb > 0}
    added = 0
    for key in keys:
        if key in m.room_types:
            continue
        m.room_types.add(key)
        configs, names = drives_and_readers(m, key, catalog, local)
        if not configs or not names:
            continue
        for j, tau in enumerate(sorted({local[w] for w in names})):
            reading = {w for w in names if local[w] >= tau - 1e-12}
            mine = [(o, v) for o, v in m.on_type[key] if o.workload in reading]
            fit = pulp.lpSum(holding(configs, tau, line))
            rows = [(row_name("hosts.room", key, j, r),
                     pulp.lpSum(take(o) * v for o, v in mine) <= room * fit)
                    for r, (take, room) in enumerate(resources(m.types[key], wf.policy))]
            rows.append((row_name("disk.floor", key, j), _disk_floor(m, key, names, local, configs,
                                                               tau, line)))
            for name, row in rows:
                m.prob += row, name
                m.pair_rows.append(name)
            added += len(rows)
    return added


def drives_and_readers(m: Model, key: str, catalog: Catalog, local: dict[str, float]
                        ) -> tuple[list[tuple[float, pulp.LpVariable]], list[str]]:
    """A bought type's drive configurations, as (TB of all their drives, z_tk), and the
    workloads with a local dataset (``local``: name -> TB) it may host, by name."""
    configs = [(c * catalog.drive(sku).size_tb, v) for (k, sku, c), v in m.z.items()
               if k == key]
    return configs, sorted({w for w, k in m.hosts if k == key and w in local})


def _disk_floor(m: Model, key: str, names: list[str], local: dict[str, float],
                configs: list[tuple[float, pulp.LpVariable]], tau: float,
                line: float) -> pulp.LpConstraint:
    """``disk.floor``: Σ_w ⌊ds_w / τ⌋ h_wt ≤ Σ_k ⌊λ TB_k / τ⌋ z_tk (``add_host_room_rows``).
    Both floors read 1e-9 over, as ``holding`` does: 0.6 / 0.3 is 1.999... in floats."""
    held = pulp.lpSum(math.floor(local[w] / tau + 1e-9) * m.hosts[(w, key)] for w in names)
    room = pulp.lpSum(math.floor((line * size + 1e-9) / tau) * z for size, z in configs)
    return held <= room


def hold_pair_rows(m: Model) -> dict[str, pulp.LpConstraint]:
    """Take the O4 pair rows (and host and floor rows, ``add_host_room_rows``) out of
    the program (``restore_rows`` puts them back): the alternatives are solved without
    them. They only tighten the bound, which an alternative does not claim; its plan is
    expanded, its drives bought per server and checked, and the slack judged on that cost.
    On q3 they cost the alternatives ~0.4 s of HiGHS's root."""
    return {name: m.prob.constraints.pop(name) for name in m.pair_rows
            if name in m.prob.constraints}


def restore_rows(m: Model, held: dict[str, pulp.LpConstraint]) -> None:
    """Put back rows ``hold_pair_rows`` took out."""
    for name, row in held.items():
        m.prob += row, name
