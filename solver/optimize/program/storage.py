"""O4, storage where the data is read: drive configurations per bought type, the hosts of
each local dataset and the disk rows under the headroom line (R15 on disks)."""

from __future__ import annotations

from ...inputs.catalog import Catalog, StorageSku
from ...inputs.policy import Policy
from ...inputs.workload import Workload, WorkloadFile
from ...rules import headroom_line
from ..candidates import Candidates, allowed_drives
from ..lp import pulp
from .model import Model
from .names import row_name
from .room import most_beside, most_on_one


def define_storage(m: Model, wf: WorkloadFile, cand: Candidates, catalog: Catalog) -> None:
    """O4: storage where the data is read, under the headroom line (R15 on disks).

    L = {w : dataset_tb_w > 0, data.storage local}, ds_w its dataset; λ = 1 − headroom;
    P = Σ_w u_w (ckpt_w + [shared_w] ds_w), what the pool holds once. On a bought type t
    whose platform has drive bays, k = (s, c) is one server's drive configuration: c drives
    of one SKU s, 1 ≤ c ≤ bays_p, TB_k = c · size_s (excluded drives never; left out too:
    configs another beats, at least its TB for at most its price, and those above the
    cheapest holding D_t = (Σ_{w ∈ L on t} ds_w + Σ_w ckpt_w + [shared_w] ds_w) / λ, all
    a server of t could ever hold: a plan swaps them for a kept one at no extra cost). An
    owned type (P4) keeps its T_t TB of drives per server.

        Σ_k z_tk ≤ n_t                                              (``drive.servers(t)``)
        M_wt h_wt ≥ Σ_o x_wot                                       (``hosts(w,t)``)
        Σ_{w ∈ L} ds_w h_wt ≤ λ Σ_k TB_k z_tk    (owned: ≤ λ T_t n_t) (``disk(t)``)
        Σ_{k: λ TB_k ≥ ds_w} z_tk ≥ h_wt                            (``disk.fit(w,t)``)
        M_tτ Σ_{k: λ TB_k ≥ τ} z_tk ≥ Σ_{ds_w ≥ τ} Σ_o x_wot         (``hosts.all(t,j)``)
        Σ_{w ∈ L, t} ds_w h_wt + P ≤ λ (Σ_tk TB_k z_tk + Σ_{owned t} T_t n_t)   (``storage``)

    h_wt counts the servers of type t hosting a replica of w ∈ L; each needs a config
    holding ds_w under the line. For τ over the local datasets on t, the servers hosting a
    dataset of at least τ (at least max_{ds_w ≥ τ} h_wt, and their replicas over M_tτ) each
    need a config holding τ: the rows above say so without a variable for that count (a
    config holding ds_w holds every τ ≤ ds_w, so one ``disk.fit`` row per w covers the
    first bound for every τ; ``hosts.all`` is left out when one workload is that large,
    the ``hosts`` and ``disk.fit`` rows of w then implying it). M_wt
    (M_tτ) bounds the replicas of w (of all workloads with ds_w ≥ τ) one server of t holds:
    each resource over the least any of their options there takes (GPU slots, a shared
    replica taking v_o / U_g of a GPU; usable RAM; cores), at most the replicas planned.
    Pairs of local workloads on one type get two more rows (``_define_disk_pairs``): how
    many replicas of w fit beside one of v, and a config holding both datasets on the
    servers that must host both. Every real plan meets each row (each server
    hosting w holds its own copy, one config per server, distinct datasets add up per
    server and over the pool), so the program stays a relaxation. An option whose dataset
    fits no server of a type under the line is not offered there (``type_accepts``).
    """
    line = headroom_line(wf.policy)
    local = [(wi, w) for wi, w in enumerate(wf.workloads) if w.local_tb > 0]
    pooled = [(w.pool_tb, m.serve[w.name]) for w in wf.workloads if w.pool_tb > 0]
    if not local and not pooled:
        return
    drives = allowed_drives(catalog, set(wf.policy.exclude))
    pool_tb = sum(tb for tb, _ in pooled)
    placed: dict[tuple[str, str], list[pulp.LpVariable]] = {}  # (w, t) -> x_wot
    for (name, _, key), v in m.x.items():
        placed.setdefault((name, key), []).append(v)
    installed = []
    copies = []
    for key, t in m.types.items():
        mine = [(wi, w) for wi, w in local if (w.name, key) in placed]
        configs: list[tuple[float, pulp.LpVariable]] = []  # (TB of all c drives, z_tk)
        if t.owned:
            if not t.disk_tb:
                continue  # type_accepts: no local dataset runs here
            tb = t.disk_tb * m.n[key]
        elif t.platform.drive_bays and drives and (mine or pool_tb):
            most_tb = (sum(w.local_tb for _, w in mine) + pool_tb) / line
            configs = _define_drive_configs(m, key, drives, catalog, most_tb)
            tb = pulp.lpSum(size * v for size, v in configs)
        else:
            continue
        installed.append(tb)
        hosting = _define_hosts(m, key, mine, placed, cand, wf.policy)
        if not hosting:
            continue
        used = pulp.lpSum(ds * h for ds, h, _ in hosting)
        copies.append(used)
        m.prob += used <= line * tb, row_name("disk", key)
        if not t.owned:  # type_accepts: each of its datasets fits one owned server alone
            _define_disk_fit(m, key, hosting, configs, placed, line, cand, wf.policy)
    m.prob += (pulp.lpSum(copies) + pulp.lpSum(tb * u for tb, u in pooled)
               <= line * pulp.lpSum(installed)), row_name("storage")


def _define_drive_configs(m: Model, key: str, drives: list[StorageSku], catalog: Catalog,
                          most_tb: float) -> list[tuple[float, pulp.LpVariable]]:
    """z_tk for the drive configurations kept on a bought type (``drive_configs``), and
    Σ_k z_tk ≤ n_t (``drive.servers(t)``). Returns them as (TB of all c drives, z_tk)."""
    ti = m.index[key]
    configs: list[tuple[float, pulp.LpVariable]] = []
    for sku, c, size in drive_configs(m.types[key].platform.drive_bays, drives, most_tb):
        v = pulp.LpVariable(f"z_{ti}_{_drive_index(catalog, sku)}_{c}", 0, m.n_ub,
                            cat="Integer")
        m.z[(key, sku, c)] = v
        configs.append((size, v))
    m.prob += pulp.lpSum(v for _, v in configs) <= m.n[key], row_name("drive.servers", key)
    return configs


def _define_hosts(m: Model, key: str, mine: list[tuple[int, Workload]],
                  placed: dict[tuple[str, str], list[pulp.LpVariable]], cand: Candidates,
                  policy: Policy) -> list[tuple[float, pulp.LpVariable, str]]:
    """h_wt for each local-data workload w placed on type t, and M_wt h_wt ≥ Σ_o x_wot
    (``hosts(w,t)``). Returns them as (ds_w, h_wt, w)."""
    ti = m.index[key]
    hosting: list[tuple[float, pulp.LpVariable, str]] = []
    for wi, w in mine:
        h = pulp.LpVariable(f"h_{wi}_{ti}", 0, cand.most_replicas(w.name), cat="Integer")
        m.hosts[(w.name, key)] = h
        most = most_on_one(m, {w.name}, key, cand, policy)
        m.prob += most * h >= pulp.lpSum(placed[(w.name, key)]), row_name("hosts", w.name, key)
        hosting.append((w.local_tb, h, w.name))
    return hosting


def _define_disk_fit(m: Model, key: str, hosting: list[tuple[float, pulp.LpVariable, str]],
                     configs: list[tuple[float, pulp.LpVariable]],
                     placed: dict[tuple[str, str], list[pulp.LpVariable]], line: float,
                     cand: Candidates, policy: Policy) -> None:
    """On a bought type, the servers hosting local datasets need configurations holding
    them: ``disk.fit(w,t)``, ``hosts.all(t,j)`` and the pair rows (``define_storage``)."""
    # Servers hosting w each need a config holding ds_w under the line; a config that
    # holds ds_w holds every smaller τ too, so this one row per w covers every τ ≤ ds_w.
    for ds, h, name in hosting:
        m.prob += pulp.lpSum(holding(configs, ds, line)) >= h, row_name("disk.fit", name, key)
    for j, tau in enumerate(sorted({ds for ds, _, _ in hosting})):
        names = {name for ds, _, name in hosting if ds >= tau - 1e-12}
        if len(names) == 1:
            continue  # M_wt h_wt ≥ Σ_o x_wot and the row above already say it
        most = most_on_one(m, names, key, cand, policy)
        fit = holding(configs, tau, line)
        m.prob += (most * pulp.lpSum(fit) >= pulp.lpSum(v for name in sorted(names)
                                                        for v in placed[(name, key)]),
                   row_name("hosts.all", key, j))
    if len(hosting) <= MAX_PAIR_HOSTS:
        _define_disk_pairs(m, key, hosting, configs, placed, line, cand, policy)


def holding(configs: list[tuple[float, pulp.LpVariable]], tb: float,
             line: float) -> list[pulp.LpVariable]:
    """The z_tk of the drive configurations that hold ``tb`` under the headroom line."""
    return [z for size, z in configs if line * size + 1e-9 >= tb]


MAX_PAIR_HOSTS = 12
"""O4 pair rows only on types that can host at most this many local-data workloads: the rows
grow with the square of that number (88,000 ``beside`` rows on a generated 200-workload mix,
where HiGHS then found no useful plan in 30 s), and they are optional valid cuts, so leaving
them out keeps the program a relaxation."""


def _define_disk_pairs(m: Model, key: str, hosting: list[tuple[float, pulp.LpVariable, str]],
                       configs: list[tuple[float, pulp.LpVariable]],
                       placed: dict[tuple[str, str], list[pulp.LpVariable]], line: float,
                       cand: Candidates, policy: Policy) -> None:
    """O4 on pairs of local workloads w ≠ v on one type t (``define_storage``):

        Σ_o x_wot ≤ M_w|v h_wt + (M_wt − M_w|v)(n_t − h_vt)     if M_w|v < M_wt  (``beside_…``)
        Σ_{k: λ TB_k ≥ ds_w + ds_v} z_tk ≥ h_wt + h_vt − n_t     if fewer configs hold
                                                    ds_w + ds_v than max(ds_w, ds_v) (``disk_pair_…``)

    M_w|v bounds the replicas of w on a server of t that also holds one of v (each resource
    less the least v's options there take, over the least w's take; 0: they never share
    one). The servers hosting w number h_w; at most n_t − h_v of them hold no v, each with
    at most M_wt replicas, the others at most M_w|v: the first row. At least h_w + h_v − n_t
    servers host both, each needing a config holding both datasets: the second. Both hold
    for every real plan (h the true counts), so the program stays a relaxation; they see
    what the per-type sums miss: on q3 two 1,200 GB tokenize replicas on two 2 TB servers
    leave room for one chat-sft each (so h = 2, not 1), and each of those servers holds
    8.5 TB (six drives, not five)."""
    n = m.n[key]
    most = {name: most_on_one(m, {name}, key, cand, policy) for _, _, name in hosting}
    for ds_w, h_w, w in hosting:
        for ds_v, h_v, v in hosting:
            if v == w:
                continue
            beside = min(most[w], most_beside(m, w, v, key, cand, policy))
            if beside < most[w]:
                name = row_name("beside", w, v, key)
                m.prob += (pulp.lpSum(placed[(w, key)])
                           <= beside * h_w + (most[w] - beside) * (n - h_v)), name
                m.pair_rows.append(name)
            if v < w:
                continue  # the pair row once per unordered pair
            both = holding(configs, ds_w + ds_v, line)
            either = holding(configs, max(ds_w, ds_v), line)
            if len(both) < len(either):
                name = row_name("disk.pair", w, v, key)
                m.prob += pulp.lpSum(both) >= h_w + h_v - n, name
                m.pair_rows.append(name)


def drive_configs(bays: int, drives: list[StorageSku],
                  most_tb: float) -> list[tuple[str, int, float]]:
    """O4: the drive configurations (SKU, drives c, TB) one server of ``bays`` bays may
    carry, one SKU per server, 1 ≤ c ≤ bays; left out: those another beats (at least its TB
    for at most its price) and those above the cheapest one holding ``most_tb`` (the whole
    mix's data). A plan swaps a left-out config for a kept one at no extra cost, so the
    optimum is kept. Ordered by price, then TB."""
    every = sorted((c * d.price, -c * d.size_tb, d.sku, c) for d in drives
                    for c in range(1, bays + 1))
    kept: list[tuple[str, int, float]] = []
    best = 0.0
    for _, neg_tb, sku, c in every:  # cheapest first: keep each that adds TB
        if -neg_tb > best + 1e-9:
            kept.append((sku, c, -neg_tb))
            best = -neg_tb
            if best + 1e-9 >= most_tb:
                break
    return kept


def _drive_index(catalog: Catalog, sku: str) -> int:
    """A drive SKU's position in the catalog (names a variable by validated indices)."""
    return next(i for i, d in enumerate(catalog.storage) if d.sku == sku)
