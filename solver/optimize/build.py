"""Build the purchase integer program in PuLP (one of the two modules that import PuLP).

Notation (docs/solver.md has the full derivation):
    t ∈ T   server types (platform p, GPU SKU g or none, DIMM SKU, DIMM count); RAM R_t
    o ∈ O_w replica options of workload w: GPU g_o, degree d_o, per-GPU VRAM v_o, host RAM r_o
    n_t     servers of type t bought                              (integer)
    x_wot   replicas of w run as option o on servers of type t       (integer)
    s_t     GPUs of type t given over to shared jobs (R17)           (integer)
    z_psc   servers of platform p carrying c drives of SKU s (O4)    (integer)
    h_wg    servers of group g hosting a replica of w, whose dataset
            is read locally (O4)                                      (integer)
    u_w     1 if workload w is served (fixed to 1 without a budget)  (binary)
    G_t     = Σ_{exclusive o} d_o x_wot + s_t      GPUs installed on type t
              (= k_t n_t for a type of fixed GPU count k_t, O1)

    W       = Σ_t (power_p n_t + power_g G_t)  rated power, W (P1)
    r       racks used (with a site, P3)                              (integer)

capex = Σ_t n_t (price_p + dimms_t·price_m) + Σ_t G_t price_g + Σ_psc c·price_s·z_psc
        (owned types, P4, cost nothing and have n_t ≤ count_t)
Objective (policy.objective: capex, the default): min capex + ε Σ_t n_t
Objective (policy.objective: tco, P2):
    min (1 + pct·Y) capex + e·W/1000 + c_rack·Y·r + ε Σ_t n_t,
    e = 8,760 · Y · utilisation · PUE · kwh_price   (ε: fewer servers among equal costs)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..inputs.catalog import Catalog, GpuSku, StorageSku
from ..inputs.ownership import Site, TcoPolicy
from ..inputs.workload import Policy, WorkloadFile
from .candidates import (
    Candidates,
    ReplicaOption,
    ServerType,
    allowed_drives,
    type_accepts,
    usable,
)
from .lp import pulp
from .outcome import BuiltPatterns, Kind, Outcome, kind_of
from .patterns import (
    MAX_PATTERNS,
    best_pattern,
    greedy_patterns,
    maximal_patterns,
    most_value,
)

SERVER_EPSILON = 1e-3
"""Tie-break weight per server (currency units): far below any real price difference."""


@dataclass
class PatternModel:
    """One server type modelled by server patterns (after its summed RAM failed to pack).

    Rows: n_t − Σ_π p_π = 0 (``link_row``) and Σ_π a_kπ p_π − Σ_{o ∈ k} x_wot ≥ 0 for every
    kind k (``cover_rows``); ``price_patterns`` reads their duals by these names.
    """

    kinds: tuple[Kind, ...]
    """Each kind's (GPUs, host RAM GB rounded to 1e-6[, CPU cores]); a kind is its index
    here. Kinds carry cores exactly when ``cores_cap`` is set."""
    covers: tuple[list[pulp.LpVariable], ...]
    """Per kind, the variables its servers must cover (x_wot, or s_t for the shared kind)."""
    shared_kind: int | None
    """Index of the one-GPU kind that stands for a shared GPU; None without shared GPUs."""
    link_row: str
    cover_rows: tuple[str, ...]
    cores_cap: int | None = None
    """CPU cores of one server, a third pattern dimension (O3); None when the catalog omits
    the platform's cores (not checked)."""
    patterns: list[tuple[int, ...]] = field(default_factory=list)
    """Patterns π so far: how many of each kind one server holds."""
    counts: list[pulp.LpVariable] = field(default_factory=list)
    """p_π: servers built to each pattern."""

    def solved(self, value: Callable[[pulp.LpVariable], int]) -> BuiltPatterns:
        """The servers a solve built to each pattern (patterns with none left out)."""
        built = tuple((pat, value(p)) for pat, p in zip(self.patterns, self.counts) if value(p))
        return BuiltPatterns({kind: k for k, kind in enumerate(self.kinds)}, built,
                             self.shared_kind, with_cores=self.cores_cap is not None)


@dataclass(frozen=True)
class PricedType:
    """A pattern-modelled type whose patterns are generated from LP duals (too many to list)."""

    kinds: tuple[Kind, ...]
    slots: int
    """GPU slots of one server."""
    ram_cap: float
    """Usable host RAM of one server, GB (the headroom line)."""
    cores_cap: int | None = None
    """CPU cores of one server (O3); None: not a dimension of the kinds."""


@dataclass
class Model:
    """The PuLP problem and its variables, keyed by validated ids (never parsed back)."""

    prob: pulp.LpProblem
    types: dict[str, ServerType]
    n: dict[str, pulp.LpVariable] = field(default_factory=dict)
    x: dict[tuple[str, int, str], pulp.LpVariable] = field(default_factory=dict)
    shared: dict[str, pulp.LpVariable] = field(default_factory=dict)
    z: dict[tuple[str, str, int], pulp.LpVariable] = field(default_factory=dict)
    """z_psc (O4), by (platform, drive SKU, drives per server)."""
    hosts: dict[tuple[str, str], pulp.LpVariable] = field(default_factory=dict)
    """h_wg (O4), by (workload, storage group: a platform's SKU or an owned type's key)."""
    serve: dict[str, pulp.LpVariable | int] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)
    on_type: dict[str, list[tuple[ReplicaOption, pulp.LpVariable]]] = field(default_factory=dict)
    cost: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    objective_cost: pulp.LpAffineExpression | None = None
    """What the cost phase minimises: ``cost`` (capex) unless ``define_tco`` set the TCO."""
    power: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    """W: rated power of the servers used, W (P1)."""
    racks: pulp.LpVariable | None = None
    """r: racks used (P3; only with a site)."""
    tco: TcoPolicy | None = None
    """policy.tco, when given (P2): how energy, support and racks are priced."""
    priority: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    cuts: int = 0
    patterns: dict[str, PatternModel] = field(default_factory=dict)
    """Server types modelled by server patterns (after their sums failed to pack)."""
    priced: dict[str, PricedType] = field(default_factory=dict)
    """Types whose patterns are generated from duals."""
    failures: dict[str, int] = field(default_factory=dict)
    """How often each type's replicas failed to pack (the pipeline tightens it each time)."""
    conservative: bool = False
    """True once a pattern model reserves more RAM than needed (shared GPUs): the program
    is then no longer a relaxation and neither its bound nor its LP bound is a proof."""
    lp_bound: float | None = None
    """LP value once pattern pricing converged: a valid lower bound when not conservative."""
    nogoods: list[str] = field(default_factory=list)
    """Rows of ``exclude_disk_choice`` cuts now in the program (a restriction while any)."""
    nogood_flags: list[pulp.LpVariable] = field(default_factory=list)
    """Their binaries (``drop_disk_choices`` removes them with the rows)."""
    sku_flags: dict[str, pulp.LpVariable] = field(default_factory=dict)
    """b_c of the fewest-SKUs objective, by SKU (``alternatives.define_sku_count``), made
    once: the objective is set again each time that direction is aimed at."""
    room_types: set[str] = field(default_factory=set)
    """Types given O4 host rows per resource and floor rows (``add_host_room_rows``), once
    each."""
    pair_rows: list[str] = field(default_factory=list)
    """O4 pair rows (``_define_disk_pairs``), host rows per resource and floor rows
    (``add_host_room_rows``): valid, so they tighten rank 1's bound, but alternatives, whose
    bound proves nothing, are solved without them (``hold_pair_rows``)."""
    root_cuts: bool = False
    """Pattern-LP cuts at the LP relaxation's point were added (once per program)."""
    disk_rows: int = 0
    """Rows ``define_storage`` added (O4): they grow with the drive catalog, not the mix, so
    the size thresholds of the solve rounds leave them out."""
    n_ub: int = 0
    drive_servers_ub: int = 0
    on_found: Callable[[float], None] | None = None
    """Told the objective of each better plan a HiGHS search finds (the progress line),
    while the pipeline sets it: only where the objective is what the plan costs."""
    options: dict[tuple[str, int], ReplicaOption] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Rows of the program without its O4 disk rows (which grow with the drive catalog,
        not the mix): what the work budget and the size thresholds of the rounds compare."""
        return len(self.prob.constraints) - self.disk_rows

    @property
    def exact(self) -> bool:
        """The integer program is a relaxation of the plan rules: its bound is a proof."""
        return not self.conservative and not self.priced and not self.nogoods

    def gpus(self, key: str) -> pulp.LpAffineExpression:
        """G_t: GPUs installed on servers of type ``key``."""
        return self._gpu_expr[key]

    def pattern_rows(self) -> list[str]:
        """Names of the rows whose duals price new patterns (those of priced types)."""
        return [name for key in self.priced
                for name in (self.patterns[key].link_row, *self.patterns[key].cover_rows)]

    _gpu_expr: dict[str, pulp.LpAffineExpression] = field(default_factory=dict)


def define_servers(m: Model, wf: WorkloadFile, cand: Candidates, catalog: Catalog) -> None:
    """n_t ∈ ℤ≥0, bounded by one server per replica plus the servers drives could need (one
    drive of the smallest size each, under the headroom line, for every TB of the mix)."""
    storage = sum(w.storage_tb for w in wf.workloads)
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
    (T3) the count is a decision and this row reads ≥ (``define_targets`` adds the rest).
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
        if w.name in cand.targets:
            m.prob += pulp.lpSum(terms) >= need * m.serve[w.name], f"demand_{wi}"
        else:
            m.prob += pulp.lpSum(terms) == need * m.serve[w.name], f"demand_{wi}"


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
                   >= need * m.serve[w.name]), f"target_{wi}"
        m.prob += (pulp.lpSum(v for _, v in mine)
                   <= cand.most_replicas(w.name) * m.serve[w.name]), f"target_most_{wi}"


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
                       f"one_type_{wi}_{oi}")
            flags.append(y)
        m.prob += pulp.lpSum(flags) == m.serve[w.name], f"one_type_{wi}"


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
                m.prob += lhs <= level * (k // level) * m.n[key], f"slots_{m.index[key]}_{level}"
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
        i = m.index[key]
        cap = usable(_gpu_of(m, key).vram_gb, wf.policy)
        shared = [(o, v) for o, v in m.on_type[key] if o.shared]
        m.prob += pulp.lpSum(o.vram_gb * v for o, v in shared) <= cap * s_t, f"shared_vram_{i}"
        # No empty shared GPU.
        m.prob += s_t <= pulp.lpSum(v for _, v in shared), f"shared_used_{i}"
        for o, v in shared:
            # Named after its x_wot (x_{w}_{o}_{t}: validated indices).
            row = v <= math.floor(cap / o.vram_gb + 1e-9) * s_t if o.vram_gb > 0 else v >= 0
            m.prob += row, f"shared_fit_{v.name}"


def define_host_ram(m: Model, cand: Candidates, wf: WorkloadFile) -> None:
    """Σ_{o} r_o x_wot ≤ (1 − headroom) R_t n_t (R11, R12, R15), and
    n_t ≥ Σ_{r_o > C/2} x_wot: a replica needing over half a server's usable RAM sits alone
    (the first of the bin-packing cuts below; valid for every plan, so added up front)."""
    for key, t in m.types.items():
        items = m.on_type[key]
        if items:
            cap = usable(t.ram_gb, wf.policy)
            m.prob += pulp.lpSum(o.ram_gb * v for o, v in items) <= cap * m.n[key], f"ram_{m.index[key]}"
            big = [v for o, v in items if o.ram_gb > cap / 2 + 1e-9]
            if big:
                m.prob += m.n[key] >= pulp.lpSum(big), f"ram_big_{m.index[key]}"


def define_blockers(m: Model, wf: WorkloadFile) -> None:
    """CPU-only replicas too large to ride beside a GPU replica (valid for every plan).

    On a type t with K GPU slots and usable RAM C, take a threshold θ (the RAM of some GPU
    option on t): a CPU-only replica needing r > C − θ (a *blocker*) cannot share a server
    with any GPU replica needing ≥ θ. The servers holding blockers hold no such replica and at
    most C of blockers' RAM each, the others at most K of their GPUs, so

        Σ_{excl o: r_o ≥ θ} d_o x_ot / K + Σ_{blockers} r_o x_ot / C ≤ n_t   (``block_{t}_{j}``)
        Σ_{excl o: r_o ≥ θ} d_o x_ot / K + Σ_{blockers, r_o > C/2} x_ot ≤ n_t  (``block_alone_…``)

    (two blockers above C/2 never share a server). For each set of blockers only the least θ
    that gives it is used, the strongest. The RAM sum alone lets a 1,500 GB preprocess job
    fill the RAM an 8-GPU board's replicas leave, which no server can do.

    And GPU room: take a density ρ (the RAM per GPU, r_o / d_o, of some exclusive GPU option
    on t), and S_ρ the options at least that dense; a server holding a CPU-only replica of
    r > C/2 (at most one such per server) holds at most g_o(ρ) GPUs of S_ρ replicas, the most
    GPUs g ≤ K whose cheapest fill from S_ρ (in RAM; any multiplicities, a small dynamic
    programme over g) fits within C − r_o:

        Σ_{excl o: r_o/d_o ≥ ρ} d_o x_ot + Σ_{CPU-only o: r_o > C/2} (K − g_o(ρ)) x_ot ≤ K n_t
                                                                        (``gpu_room_{t}_{j}``)

    one row per distinct set of losses K − g_o(ρ), each at the least ρ giving it.
    """
    for key, t in m.types.items():
        if t.gpu is None or not t.gpu_slots:
            continue
        cap = usable(t.ram_gb, wf.policy)
        items = m.on_type[key]
        cpu = [(o, v) for o, v in items if o.degree == 0 and o.ram_gb > 0]
        gpu = [(o, v) for o, v in items if o.degree > 0 and not o.shared]
        if not cpu or not gpu:
            continue
        k = t.gpu_slots
        big = [(o, v) for o, v in cpu if o.ram_gb > cap / 2 + 1e-9]
        losses: set[tuple[int, ...]] = set()
        for rho in sorted({o.ram_gb / o.degree for o, _ in gpu if o.ram_gb > 0}):
            fill = _least_ram_fill([o for o, _ in gpu if o.ram_gb / o.degree >= rho - 1e-9], k)
            lost = tuple(k - max(g for g in range(k + 1) if fill[g] <= cap - o.ram_gb + 1e-9)
                         for o, _ in big)
            if not any(lost) or lost in losses:
                continue
            losses.add(lost)
            dense = pulp.lpSum(o.degree * v for o, v in gpu if o.ram_gb / o.degree >= rho - 1e-9)
            m.prob += (dense + pulp.lpSum(g * v for g, (_, v) in zip(lost, big, strict=True) if g)
                       <= k * m.n[key]), f"gpu_room_{m.index[key]}_{len(losses) - 1}"
        seen: set[frozenset[str]] = set()
        j = 0
        for theta in sorted({o.ram_gb for o, _ in gpu}):
            blockers = [(o, v) for o, v in cpu if o.ram_gb > cap - theta + 1e-9]
            names = frozenset(v.name for _, v in blockers)
            if not blockers or names in seen:
                continue
            seen.add(names)
            large = pulp.lpSum((o.degree / t.gpu_slots) * v for o, v in gpu
                               if o.ram_gb >= theta - 1e-9)
            i = m.index[key]
            m.prob += (large + pulp.lpSum((o.ram_gb / cap) * v for o, v in blockers)
                       <= m.n[key]), f"block_{i}_{j}"
            alone = [v for o, v in blockers if o.ram_gb > cap / 2 + 1e-9]
            if alone:
                m.prob += large + pulp.lpSum(alone) <= m.n[key], f"block_alone_{i}_{j}"
            j += 1


def define_full_boards(m: Model, wf: WorkloadFile) -> None:
    """Servers filled by one GPU replica hold nothing else that needs a GPU (valid for
    every plan).

    On a type t with K GPUs a server and usable RAM C, a *full* replica (exclusive, d_o =
    K) takes all of its server's GPUs. Take a threshold r among the RAM needs of t's full
    options and F_r = Σ_{full o: r_o ≥ r} x_ot, the servers holding such a replica (one
    each). Beside one sits no replica that needs a GPU (exclusive or shared) and no CPU-only
    replica of r_o > C − r; so those, E_r, sit on the other n_t − F_r servers, at most C of
    RAM each:

        Σ_{o ∈ E_r} r_o x_ot ≤ C (n_t − F_r)                            (``full_{t}_{j}``)
        Σ_{o ∈ E_r} c_o x_ot ≤ cores_p (n_t − F_r)                (``full_cores_{t}_{j}``)

    the second where the platform's cores are checked (O3); one row per distinct r (at most
    ``MAX_CUT_LEVELS``, evenly sampled). The sums let the
    RAM an 8-GPU replica leaves on its board hold the 2-GPU replicas that sit beside a
    2,880 GB preprocess job elsewhere: on the generated 1,000-workload mix eleven such jobs
    on H200 boards left 4,365 GB for 6,060 GB of 2-GPU replicas, and repair bought boards.
    """
    for key, t in m.types.items():
        k = t.gpu_slots if t.gpu is not None else 0
        items = m.on_type[key]
        full = [(o, v) for o, v in items if k and o.degree == k and not o.shared]
        if not full:
            continue
        cap = usable(t.ram_gb, wf.policy)
        levels = sorted({o.ram_gb for o, _ in full})
        if len(levels) > MAX_CUT_LEVELS:
            step = len(levels) / MAX_CUT_LEVELS
            levels = [levels[int(i * step)] for i in range(MAX_CUT_LEVELS)]
        i, cores = m.index[key], t.platform.cpu_cores
        for j, r in enumerate(levels):
            holding = [(o, v) for o, v in full if o.ram_gb >= r - 1e-9]
            held = {v.name for _, v in holding}
            elsewhere = [(o, v) for o, v in items
                         if (o.degree > 0 and v.name not in held)
                         or (o.degree == 0 and o.ram_gb > cap - r + 1e-9)]
            if any(o.ram_gb > 0 for o, _ in elsewhere):
                m.prob += (pulp.lpSum(o.ram_gb * v for o, v in elsewhere)
                           <= cap * (m.n[key] - pulp.lpSum(v for _, v in holding))), f"full_{i}_{j}"
            if cores and any(o.cores > 0 for o, _ in elsewhere):
                m.prob += (pulp.lpSum(o.cores * v for o, v in elsewhere)
                           <= cores * (m.n[key] - pulp.lpSum(v for _, v in holding)),
                           f"full_cores_{i}_{j}")


def _least_ram_fill(options: list[ReplicaOption], slots: int) -> list[float]:
    """fill[g]: the least host RAM any multiset of ``options`` filling exactly g GPUs needs
    (inf when none does), g = 0..slots."""
    fill = [0.0] + [math.inf] * slots
    for g in range(1, slots + 1):
        fill[g] = min((fill[g - o.degree] + o.ram_gb for o in options if o.degree <= g),
                      default=math.inf)
    return fill


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
        i = m.index[key]
        m.prob += pulp.lpSum(o.cores * v for o, v in items) <= cap * m.n[key], f"cores_{i}"
        big = [v for o, v in items if o.cores > cap / 2 + 1e-9]
        if big:
            m.prob += m.n[key] >= pulp.lpSum(big), f"cores_big_{i}"
        # A shared GPU sits in one server: it holds at most ⌊cores_p / c_o⌋ such replicas,
        # and all shared replicas together use at most cores_p per shared GPU (the servers
        # that hold shared GPUs are at most s_t, each with cores_p cores).
        shared = [(o, v) for o, v in items if o.shared and key in m.shared]
        for j, (o, v) in enumerate(shared):
            m.prob += v <= math.floor(cap / o.cores + 1e-9) * m.shared[key], f"cores_shared_{i}_{j}"
        if shared:
            m.prob += (pulp.lpSum(o.cores * v for o, v in shared) <= cap * m.shared[key],
                       f"cores_shared_sum_{i}")


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

        Σ_k z_tk ≤ n_t                                              (``drive_servers_{t}``)
        M_wt h_wt ≥ Σ_o x_wot                                       (``hosts_{w}_{t}``)
        Σ_{w ∈ L} ds_w h_wt ≤ λ Σ_k TB_k z_tk    (owned: ≤ λ T_t n_t) (``disk_{t}``)
        Σ_{k: λ TB_k ≥ ds_w} z_tk ≥ h_wt                            (``disk_fit_{h_wt}``)
        M_tτ Σ_{k: λ TB_k ≥ τ} z_tk ≥ Σ_{ds_w ≥ τ} Σ_o x_wot         (``hosts_all_{t}_{j}``)
        Σ_{w ∈ L, t} ds_w h_wt + P ≤ λ (Σ_tk TB_k z_tk + Σ_{owned t} T_t n_t)   (``storage``)

    h_wt counts the servers of type t hosting a replica of w ∈ L; each needs a config
    holding ds_w under the line. For τ over the local datasets on t, the servers hosting a
    dataset of at least τ (at least max_{ds_w ≥ τ} h_wt, and their replicas over M_tτ) each
    need a config holding τ: the rows above say so without a variable for that count (a
    config holding ds_w holds every τ ≤ ds_w, so one ``disk_fit`` row per w covers the
    first bound for every τ; ``hosts_all`` is left out when one workload is that large,
    the ``hosts`` and ``disk_fit`` rows of w then implying it). M_wt
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
    line = 1 - wf.policy.headroom
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
        ti = m.index[key]
        mine = [(wi, w) for wi, w in local if (w.name, key) in placed]
        configs: list[tuple[float, pulp.LpVariable]] = []  # (TB of all c drives, z_tk)
        if t.owned:
            if not t.disk_tb:
                continue  # type_accepts: no local dataset runs here
            tb = t.disk_tb * m.n[key]
        elif t.platform.drive_bays and drives and (mine or pool_tb):
            most_tb = (sum(w.local_tb for _, w in mine) + pool_tb) / line
            for sku, c, size in drive_configs(t.platform.drive_bays, drives, most_tb):
                v = pulp.LpVariable(f"z_{ti}_{_drive_index(catalog, sku)}_{c}", 0, m.n_ub,
                                    cat="Integer")
                m.z[(key, sku, c)] = v
                configs.append((size, v))
            m.prob += pulp.lpSum(v for _, v in configs) <= m.n[key], f"drive_servers_{ti}"
            tb = pulp.lpSum(size * v for size, v in configs)
        else:
            continue
        installed.append(tb)
        hosting: list[tuple[float, pulp.LpVariable, str]] = []  # (ds_w, h_wt, w)
        for wi, w in mine:
            h = pulp.LpVariable(f"h_{wi}_{ti}", 0, cand.most_replicas(w.name), cat="Integer")
            m.hosts[(w.name, key)] = h
            most = _most_on_one(m, {w.name}, key, cand, wf.policy)
            m.prob += most * h >= pulp.lpSum(placed[(w.name, key)]), f"hosts_{wi}_{ti}"
            hosting.append((w.local_tb, h, w.name))
        if not hosting:
            continue
        used = pulp.lpSum(ds * h for ds, h, _ in hosting)
        copies.append(used)
        m.prob += used <= line * tb, f"disk_{ti}"
        if t.owned:
            continue  # type_accepts: each of its datasets fits one owned server alone
        # Servers hosting w each need a config holding ds_w under the line; a config that
        # holds ds_w holds every smaller τ too, so this one row per w covers every τ ≤ ds_w.
        for ds, h, name in hosting:
            m.prob += pulp.lpSum(_holding(configs, ds, line)) >= h, f"disk_fit_{h.name}"
        for j, tau in enumerate(sorted({ds for ds, _, _ in hosting})):
            names = {name for ds, _, name in hosting if ds >= tau - 1e-12}
            if len(names) == 1:
                continue  # M_wt h_wt ≥ Σ_o x_wot and the row above already say it
            most = _most_on_one(m, names, key, cand, wf.policy)
            fit = _holding(configs, tau, line)
            m.prob += (most * pulp.lpSum(fit) >= pulp.lpSum(v for name in sorted(names)
                                                            for v in placed[(name, key)]),
                       f"hosts_all_{ti}_{j}")
        if len(hosting) <= MAX_PAIR_HOSTS:
            _define_disk_pairs(m, key, hosting, configs, placed, line, cand, wf.policy)
    m.prob += (pulp.lpSum(copies) + pulp.lpSum(tb * u for tb, u in pooled)
               <= line * pulp.lpSum(installed)), "storage"


def _holding(configs: list[tuple[float, pulp.LpVariable]], tb: float,
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
    most = {name: _most_on_one(m, {name}, key, cand, policy) for _, _, name in hosting}
    for ds_w, h_w, w in hosting:
        for ds_v, h_v, v in hosting:
            if v == w:
                continue
            beside = min(most[w], _most_beside(m, w, v, key, cand, policy))
            if beside < most[w]:
                name = f"beside_{h_w.name}_{h_v.name}"
                m.prob += (pulp.lpSum(placed[(w, key)])
                           <= beside * h_w + (most[w] - beside) * (n - h_v)), name
                m.pair_rows.append(name)
            if v < w:
                continue  # the pair row once per unordered pair
            both = _holding(configs, ds_w + ds_v, line)
            either = _holding(configs, max(ds_w, ds_v), line)
            if len(both) < len(either):
                name = f"disk_pair_{h_w.name}_{h_v.name}"
                m.prob += pulp.lpSum(both) >= h_w + h_v - n, name
                m.pair_rows.append(name)


def add_host_room_rows(m: Model, keys: tuple[str, ...], wf: WorkloadFile,
                       catalog: Catalog) -> int:
    """O4 cuts on types whose drives, whole per server, cost more than the program's disk
    rows said (``Expansion.disk_types``), once per type: for each τ among the local datasets
    on t, the replicas reading ≥ τ sit on the servers whose configuration holds τ, whose
    resources (GPU slots, a shared replica taking v_o / U_g; usable RAM; cores, O3) hold
    them one resource at a time:

        Σ_{w: ds_w ≥ τ} Σ_o take_r(o) x_wot ≤ room_r Σ_{k: λ TB_k ≥ τ} z_tk
                                                                (``hosts_room_{t}_{j}_{r}``)

    and the datasets, counted in whole τ's, fit in the whole τ's of the drives under the
    line, server by server:

        Σ_{w ∈ L on t} ⌊ds_w / τ⌋ h_wt ≤ Σ_k ⌊λ TB_k / τ⌋ z_tk          (``disk_floor_{t}_{j}``)

    ``hosts_all`` says M_tτ Σ z ≥ Σ x with M_tτ counting each resource by the option that
    takes least of it, which a CPU-light option (a preprocess job) makes large; ``disk_t``
    adds TB over the type's servers, so two 2 TB datasets may share 3.2 TB of one server's
    drive in its sums and a 10 TB dataset another's 11.2 TB, where a server holds whole
    datasets only. Both hold for every plan: a server's datasets fit under its line, and
    Σ_w ⌊ds_w / τ⌋ ≤ ⌊Σ_w ds_w / τ⌋ ≤ ⌊λ TB_k / τ⌋ (floors add up to at most the floor of
    the sum). So the program stays a relaxation; but 81 host rows on q3 made it 1.12 times
    slower, so they are added only where a plan's drives showed the sums too loose; like
    the pair rows, the alternatives are solved without them (``hold_pair_rows``). Returns
    how many rows were added."""
    line = 1 - wf.policy.headroom
    local = {w.name: w.local_tb for w in wf.workloads if w.local_tb > 0}
    added = 0
    for key in keys:
        if key in m.room_types:
            continue
        m.room_types.add(key)
        configs, names = _drives_and_readers(m, key, catalog, local)
        if not configs or not names:
            continue
        ti = m.index[key]
        for j, tau in enumerate(sorted({local[w] for w in names})):
            reading = {w for w in names if local[w] >= tau - 1e-12}
            mine = [(o, v) for o, v in m.on_type[key] if o.workload in reading]
            fit = pulp.lpSum(_holding(configs, tau, line))
            rows = [(f"hosts_room_{ti}_{j}_{r}",
                     pulp.lpSum(take(o) * v for o, v in mine) <= room * fit)
                    for r, (take, room) in enumerate(_resources(m.types[key], wf.policy))]
            rows.append((f"disk_floor_{ti}_{j}", _disk_floor(m, key, names, local, configs,
                                                               tau, line)))
            for name, row in rows:
                m.prob += row, name
                m.pair_rows.append(name)
            added += len(rows)
    return added


def _drives_and_readers(m: Model, key: str, catalog: Catalog, local: dict[str, float]
                        ) -> tuple[list[tuple[float, pulp.LpVariable]], list[str]]:
    """A bought type's drive configurations, as (TB of all their drives, z_tk), and the
    workloads with a local dataset (``local``: name -> TB) it may host, by name."""
    configs = [(c * catalog.drive(sku).size_tb, v) for (k, sku, c), v in m.z.items()
               if k == key]
    return configs, sorted({w for w, k in m.hosts if k == key and w in local})


def _disk_floor(m: Model, key: str, names: list[str], local: dict[str, float],
                configs: list[tuple[float, pulp.LpVariable]], tau: float,
                line: float) -> pulp.LpConstraint:
    """``disk_floor``: Σ_w ⌊ds_w / τ⌋ h_wt ≤ Σ_k ⌊λ TB_k / τ⌋ z_tk (``add_host_room_rows``).
    Both floors read 1e-9 over, as ``_holding`` does: 0.6 / 0.3 is 1.999... in floats."""
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


def _most_beside(m: Model, w: str, v: str, key: str, cand: Candidates, policy: Policy) -> int:
    """M_w|v: most replicas of ``w`` one server of type ``key`` holds beside one replica of
    ``v``, by each resource less the least any option of v there takes, over the least any
    option of w takes (as ``_most_on_one``); 0 when none fits beside it."""
    mine = [o for o, _ in m.on_type[key] if o.workload == w]
    theirs = [o for o, _ in m.on_type[key] if o.workload == v]
    most = _room_bound(m.types[key], mine, float(cand.most_replicas(w)), policy, theirs)
    return max(0, math.floor(most + 1e-9))


def _room_bound(t: ServerType, mine: list[ReplicaOption], most: float, policy: Policy,
                beside: list[ReplicaOption] | None = None) -> float:
    """``most`` capped, for each resource of one server of ``t`` (GPU slots, where a shared
    replica takes v_o / U_g of a GPU; usable RAM; CPU cores where checked), by its room, less
    the least any option of ``beside`` takes, over the least any of ``mine`` takes."""
    for take, room in _resources(t, policy):
        per = min(map(take, mine))
        if per > 0:
            taken = min(map(take, beside)) if beside else 0.0
            most = min(most, (room - taken) / per)
    return most


def _resources(t: ServerType,
               policy: Policy) -> list[tuple[Callable[[ReplicaOption], float], float]]:
    """What one server of ``t`` offers, as (what a replica's option takes, room): GPU slots
    (a shared replica takes v_o / U_g of a GPU), usable RAM, and CPU cores where the
    catalog lists them (O3)."""
    resources: list[tuple[Callable[[ReplicaOption], float], float]] = []
    if t.gpu is not None:
        cap = usable(t.gpu.vram_gb, policy)
        resources.append((lambda o: o.vram_gb / cap if o.shared else float(o.degree),
                          float(t.gpu_slots)))
    resources.append((lambda o: o.ram_gb, usable(t.ram_gb, policy)))
    if t.platform.cpu_cores is not None:
        resources.append((lambda o: float(o.cores), float(t.platform.cpu_cores)))
    return resources


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


def _most_on_one(m: Model, names: set[str], key: str, cand: Candidates, policy: Policy) -> int:
    """M_wt (M_tτ for several workloads): most replicas of the workloads ``names`` one server
    of type ``key`` can hold together, by each resource over the least any of their options
    there takes (a valid bound for any mix of them): GPU slots (a shared replica takes
    v_o / U_g of a GPU), usable RAM and CPU cores; at most the replicas they may run."""
    opts = [o for o, _ in m.on_type[key] if o.workload in names]
    most = _room_bound(m.types[key], opts, float(sum(cand.most_replicas(n) for n in names)),
                       policy)
    return max(1, math.floor(most + 1e-9))


def define_cost(m: Model, catalog: Catalog) -> None:
    """capex = Σ platforms + GPUs + DIMMs + drives bought, Σ_psc c·price_s·z_psc (owned
    types, P4, cost nothing)."""
    terms = []
    for key, t in m.types.items():
        if t.owned:
            continue
        terms.append(t.server_price(catalog) * m.n[key])
        if t.gpu is not None:
            terms.append(t.gpu.price * m.gpus(key))
    terms += [c * catalog.drive(s).price * v for (_, s, c), v in m.z.items()]
    m.cost = pulp.lpSum(terms)


def define_power(m: Model) -> None:
    """P1: W = Σ_t (power_p n_t + power_g G_t), rated watts of the servers used.

    G_t counts the GPUs installed (k_t n_t for a fixed count, O1), so W is each physical
    server's platform power_w + gpu_count × GPU power_w, summed; idle owned servers
    (n_t below the count owned) draw nothing.
    """
    terms = []
    for key, t in m.types.items():
        if t.platform.power_w:
            terms.append(t.platform.power_w * m.n[key])
        if t.gpu is not None and t.gpu.power_w:
            terms.append(t.gpu.power_w * m.gpus(key))
    m.power = pulp.lpSum(terms)


def define_site(m: Model, site: Site | None) -> None:
    """P3: racks used r ∈ ℤ, r ≤ racks, and

        1000 · rack_kw · r ≥ W                 (``site_power``)
        rack_units · r ≥ Σ_t U_p n_t           (``site_space``)

    so Σ power ≤ racks × rack_kw and Σ U ≤ racks × rack_units. No single server above
    rack_kw (or taller than a rack): ``candidates.within_site`` caps each type's GPUs at
    ⌊(rack_kw − platform kW) ÷ GPU kW⌋ and drops types whose smallest server is over.
    Without a site, nothing is added.
    """
    if site is None:
        return
    m.racks = r = pulp.LpVariable("racks", 0, site.racks, cat="Integer")
    m.prob += 1000 * site.rack_kw * r >= m.power, "site_power"
    m.prob += site.rack_units * r >= rack_space(m), "site_space"


def rack_space(m: Model) -> pulp.LpAffineExpression:
    """Σ_t U_p n_t: the rack units of the servers bought (P3, ``define_site``)."""
    return pulp.lpSum((t.platform.rack_units or 0) * m.n[key] for key, t in m.types.items()
                      if t.platform.rack_units)


def define_tco(m: Model, policy: Policy) -> None:
    """P2, ``objective: tco``: what the cost phase minimises becomes

        TCO = (1 + pct · Y) capex + e · W / 1000 + c_rack · Y · r,
        e = 8,760 · Y · utilisation · PUE · kwh_price  (currency per kW over the horizon)

    with Y the years, pct the support share of capex per year and c_rack a rack's cost per
    year (r from ``define_site``). Under ``objective: capex`` nothing changes: TCO is then
    reported, and minimised only by the "lowest TCO" alternative (``alternatives.py``).
    """
    m.tco = policy.tco
    if policy.objective != "tco" or policy.tco is None:
        return
    m.objective_cost = tco_expression(m, policy.tco)


def tco_expression(m: Model, tco: TcoPolicy) -> pulp.LpAffineExpression:
    """TCO = (1 + pct · Y) capex + e · W / 1000 + c_rack · Y · r (P2, ``define_tco``); also
    the "lowest TCO" alternative's objective under ``objective: capex``."""
    expr = (1 + tco.support_rate()) * m.cost + (tco.energy_per_kw() / 1000) * m.power
    if m.racks is not None and tco.rack_rate():
        expr += tco.rack_rate() * m.racks
    return expr


def minimised_cost(m: Model) -> pulp.LpAffineExpression:
    """What the cost phase minimises (without ε): capex, or TCO under ``objective: tco``."""
    return m.cost if m.objective_cost is None else m.objective_cost


def define_budget(m: Model, budget: float | None) -> None:
    """cost ≤ budget."""
    if budget is not None:
        m.prob += m.cost <= budget, "budget"


def define_priority(m: Model, wf: WorkloadFile, cand: Candidates) -> None:
    """Served priority = Σ_w priority_w · ⌈replicas_w × growth⌉ · u_w."""
    m.priority = pulp.lpSum(
        w.priority * cand.replicas[w.name] * m.serve[w.name] for w in wf.workloads
    )


def set_cost_objective(m: Model) -> None:
    """Minimise capex, or TCO under ``objective: tco`` (``define_tco``), + ε per server."""
    m.prob.sense = pulp.LpMinimize
    m.prob.setObjective(minimised_cost(m) + SERVER_EPSILON * pulp.lpSum(m.n.values()))


def set_priority_objective(m: Model) -> None:
    m.prob.sense = pulp.LpMaximize
    m.prob.setObjective(m.priority)


def fix_priority(m: Model, at_least: float) -> None:
    """Keep the served priority found in phase one while minimising cost."""
    m.prob += m.priority >= at_least - 1e-6, "keep_priority"


def bom_vector(m: Model, platforms: bool) -> dict[str, pulp.LpAffineExpression]:
    """The purchase list that distinguishes options: GPUs by SKU (and platforms, if asked)."""
    vec: dict[str, list] = {}
    for key, t in m.types.items():
        if t.owned:
            continue  # owned servers (P4) are not purchases
        if platforms:
            vec.setdefault(t.platform.sku, []).append(m.n[key])
        if t.gpu is not None:
            vec.setdefault(t.gpu.sku, []).append(m.gpus(key))
    return {sku: pulp.lpSum(terms) for sku, terms in vec.items()}


def exclude_bom(m: Model, counts: dict[str, int], ub: int, platforms: bool = False) -> None:
    """Cut off one purchase list: at least one SKU count must differ from ``counts``.

    By default options must differ in their GPU mix (what finance compares: 4 x A100 80GB
    vs 8 x A100 40GB); with ``platforms`` a different server mix alone is enough.

    For each SKU c with value c*: lo_c → c ≤ c* − 1, hi_c → c ≥ c* + 1, Σ (lo + hi) ≥ 1.
    """
    m.cuts += 1
    flags = []
    for i, (sku, expr) in enumerate(bom_vector(m, platforms).items()):
        star = counts.get(sku, 0)
        hi = pulp.LpVariable(f"hi_{m.cuts}_{i}", cat="Binary")
        m.prob += expr >= (star + 1) * hi, f"distinct_{m.cuts}_hi_{i}"
        flags.append(hi)
        if star > 0:
            lo = pulp.LpVariable(f"lo_{m.cuts}_{i}", cat="Binary")
            m.prob += expr <= star - 1 + (ub + 1) * (1 - lo), f"distinct_{m.cuts}_lo_{i}"
            flags.append(lo)
    m.prob += pulp.lpSum(flags) >= 1, f"distinct_{m.cuts}"


def exclude_disk_choice(m: Model, keys: tuple[str, ...], out: Outcome) -> None:
    """O4: cut off the solve's choice on types whose drives, rounded per server, cost more
    than its disk rows said: at least one of n_t and X_wt = Σ_o x_wot (w reading its data
    locally) differs from its value in ``out`` for some t in ``keys`` (binaries as in
    ``exclude_bom``). This cuts off real plans too, so the program is a *restriction* while
    such rows are in it (``Model.exact`` is False: its bounds prove nothing, those proven
    before stand); ``drop_disk_choices`` removes them."""
    m.cuts += 1
    exprs: list[tuple[pulp.LpAffineExpression, int]] = []
    for key in keys:
        exprs.append((pulp.lpSum([m.n[key]]), out.n.get(key, 0)))
        for name in sorted({w for w, k in m.hosts if k == key}):
            xs = [(i, v) for (w, i, k), v in m.x.items() if w == name and k == key]
            exprs.append((pulp.lpSum(v for _, v in xs),
                          sum(out.x.get((name, i, key), 0) for i, _ in xs)))
    ub = m.n_ub  # at least every n_t and every workload's replicas
    flags = []
    for i, (expr, star) in enumerate(exprs):
        hi = pulp.LpVariable(f"dhi_{m.cuts}_{i}", cat="Binary")
        m.nogood_flags.append(hi)
        m.prob += expr >= (star + 1) * hi, f"disk_choice_{m.cuts}_hi_{i}"
        m.nogoods.append(f"disk_choice_{m.cuts}_hi_{i}")
        flags.append(hi)
        if star > 0:
            lo = pulp.LpVariable(f"dlo_{m.cuts}_{i}", cat="Binary")
            m.nogood_flags.append(lo)
            m.prob += expr <= star - 1 + (ub + 1) * (1 - lo), f"disk_choice_{m.cuts}_lo_{i}"
            m.nogoods.append(f"disk_choice_{m.cuts}_lo_{i}")
            flags.append(lo)
    m.prob += pulp.lpSum(flags) >= 1, f"disk_choice_{m.cuts}"
    m.nogoods.append(f"disk_choice_{m.cuts}")


def drop_disk_choices(m: Model) -> None:
    """Remove every ``exclude_disk_choice`` row and its binaries: the program is a
    relaxation again."""
    for name in m.nogoods:
        m.prob.constraints.pop(name, None)
    m.nogoods.clear()
    # PuLP 3.3 keeps a variable once it has been in a row, and writes its bounds to the MPS
    # file CBC reads even when no row holds it any more, which CBC refuses ("No match for
    # column"); it has no public call to forget one.
    gone = {id(v) for v in m.nogood_flags}
    m.prob._variables = [v for v in m.prob._variables if id(v) not in gone]
    for v in m.nogood_flags:
        m.prob._variable_ids.pop(v.hash, None)
    m.nogood_flags.clear()


def build(wf: WorkloadFile, catalog: Catalog, cand: Candidates, budget: float | None) -> Model:
    """The whole program: a fixed list of define_* steps."""
    types = {t.key: t for t in cand.types}
    m = Model(prob=pulp.LpProblem("plan_buy", pulp.LpMinimize), types=types)
    define_servers(m, wf, cand, catalog)
    define_placements(m, wf, cand, budget is not None)
    define_targets(m, wf, cand)
    define_one_gpu_type(m, wf, cand)
    define_gpu_slots(m, cand)
    define_fixed_gpu_counts(m)
    define_shared_vram(m, cand, wf)
    define_host_ram(m, cand, wf)
    define_cpu_cores(m)
    define_blockers(m, wf)
    size = len(m.prob.constraints)  # what the gates below are measured on
    if size > FULL_BOARD_MIN_ROWS:
        define_full_boards(m, wf)
    rows = len(m.prob.constraints)
    define_storage(m, wf, cand, catalog)
    if size > HOST_ROOM_MIN_ROWS:
        # The O4 cuts a plan whose drives cost more than the sums said would bring, on
        # every type that may host a local dataset, from the start.
        add_host_room_rows(m, tuple(sorted({key for _, key in m.hosts})), wf, catalog)
    m.disk_rows = len(m.prob.constraints) - rows
    define_cost(m, catalog)
    define_power(m)
    define_site(m, wf.site)
    define_tco(m, wf.policy)
    define_budget(m, budget)
    define_priority(m, wf, cand)
    set_cost_objective(m)
    return m


FULL_BOARD_MIN_ROWS = 2000
"""``define_full_boards`` is added to programs of more rows than this by then (the
generated 200-workload mix has 2,085, the 1,000-workload one 7,358). Below, rank 1 is
proven with or without them and they only move HiGHS's search: on q3 rank 1 took 68
checkpoints instead of 37 and the alternatives 1.4 times as long, and the capped
fewest-servers search of the generated 10-workload mix of seed 5 ended on 19 servers
instead of 8 with some of them. At N = 1,000 they bring rank 1 from 1.25-1.37% above the
bound to 1.07-1.10%."""
HOST_ROOM_MIN_ROWS = 2000
"""Programs of more rows than this before ``define_full_boards`` get ``add_host_room_rows``
on every type that may host a local dataset as they are built, instead of on the types a
plan's drives showed too loose: at N = 1,000 (1,056 rows) the LP after the root cuts rises
from 86,968,079 to 86,996,930 and rank 1 under --time-limit 120 ends 0.89-0.94% above its
bound, not 1.03-1.12%; at N = 200 under 30 s 0.416%, not 0.444%. On small programs the rows
only move the search (81 of them made q3 1.12 times slower)."""
MAX_CUT_LEVELS = 40
"""Most thresholds used per packing cut family (distinct item sizes, evenly sampled)."""


def _bin_packing_cuts(count: pulp.LpVariable, items: list[tuple[float, pulp.LpVariable]],
                      cap: float) -> list[pulp.LpConstraint]:
    """Martello-Toth L2 lower bounds on bins, as linear cuts ``count ≥ ...``.

    For a threshold α ≤ C/2: J1 = {size > C − α}, J2 = {C/2 < size ≤ C − α},
    J3 = {α ≤ size ≤ C/2}. J1 items sit alone, J2 items need a bin each, and J3 items fill
    at most what J2 bins leave:  bins ≥ |J1| + |J2| + (Σ_J3 size − Σ_J2 (C − size)) / C.
    Every term is linear in the item counts, so the cut is valid for any assignment.
    """
    cuts = [count >= pulp.lpSum(_over_half(items, cap))]
    alphas = sorted({size for size, _ in items if 0 < size <= cap / 2 + 1e-9})
    if len(alphas) > MAX_CUT_LEVELS:
        step = len(alphas) / MAX_CUT_LEVELS
        alphas = [alphas[int(i * step)] for i in range(MAX_CUT_LEVELS)]
    for a in alphas:
        j12 = _over_half(items, cap)
        j2 = [(size, v) for size, v in items if cap / 2 + 1e-9 < size <= cap - a + 1e-9]
        j3 = [(size, v) for size, v in items if a - 1e-9 <= size <= cap / 2 + 1e-9]
        if not j3:
            continue
        fill = pulp.lpSum(size * v for size, v in j3) - pulp.lpSum((cap - size) * v for size, v in j2)
        cuts.append(count >= pulp.lpSum(j12) + (1.0 / cap) * fill)
    return cuts


def _over_half(items: list[tuple[float, pulp.LpVariable]], cap: float) -> list[pulp.LpVariable]:
    """The items of size over half of ``cap``: no two share a bin."""
    return [v for size, v in items if size > cap / 2 + 1e-9]


def _shared_vram(m: Model, key: str,
                 policy: Policy) -> tuple[list[tuple[float, pulp.LpVariable]], float]:
    """A type's shared replicas as (VRAM, y_ot), and a GPU's usable VRAM."""
    return ([(o.vram_gb, v) for o, v in m.on_type[key] if o.shared],
            usable(_gpu_of(m, key).vram_gb, policy))


def add_shared_big_rows(m: Model, policy: Policy) -> list[str]:
    """s_t ≥ Σ_{v_o > U_g/2} y_ot on every type with shared GPUs: no two shared replicas of
    over half a GPU's usable VRAM share one (the first of the bin-packing cuts on shared
    VRAM, valid for every plan). Returns the rows' names (``shared_big_{t}``), so a caller
    can take them out again."""
    names = []
    for key, s_t in m.shared.items():
        big = _over_half(*_shared_vram(m, key, policy))
        name = f"shared_big_{m.index[key]}"
        if big and name not in m.prob.constraints:
            m.prob += s_t >= pulp.lpSum(big), name
            names.append(name)
    return names


def add_packing_cuts(m: Model, key: str, policy: Policy) -> int:
    """Tighten one server type after its replicas failed to pack (host RAM, CPU cores where
    the platform's are checked (O3), and shared VRAM).

    Returns the number of cuts added. Cuts are valid for every solution, so optimality holds.
    Rows ``pack_ram_{t}_{j}``, ``pack_cores_{t}_{j}`` and ``pack_vram_{t}_{j}``; added once
    per type.
    """
    t = m.types[key]
    i = m.index[key]
    ram_items = [(o.ram_gb, v) for o, v in m.on_type[key]]
    cuts = [(f"pack_ram_{i}_{j}", cut) for j, cut in
            enumerate(_bin_packing_cuts(m.n[key], ram_items, usable(t.ram_gb, policy)))]
    if t.platform.cpu_cores:  # None: unchecked; 0: no replica needing cores is offered
        core_items = [(o.cores, v) for o, v in m.on_type[key]]
        cuts += [(f"pack_cores_{i}_{j}", cut) for j, cut in
                 enumerate(_bin_packing_cuts(m.n[key], core_items, float(t.platform.cpu_cores)))]
    if key in m.shared:
        cuts += [(f"pack_vram_{i}_{j}", cut) for j, cut in
                 enumerate(_bin_packing_cuts(m.shared[key], *_shared_vram(m, key, policy)))]
    for name, cut in cuts:
        m.prob += cut, name
    return len(cuts)


def pattern_cut_kinds(m: Model, key: str) -> dict[Kind, list[pulp.LpVariable]]:
    """The exclusive replica kinds (GPUs, RAM[, cores]) of one type with their x_wot, as
    ``add_pattern_cut`` weighs them (shared replicas are left out: a weight of 0 is valid)."""
    cores_cap = m.types[key].platform.cpu_cores
    kinds: dict[Kind, list[pulp.LpVariable]] = {}
    for o, v in m.on_type[key]:
        if o.shared or _takes_nothing(o, cores_cap):
            continue
        kinds.setdefault(pattern_kind(o, cores_cap), []).append(v)
    return kinds


def add_pattern_cut(m: Model, key: str, weights: dict[Kind, float]) -> bool:
    """A pattern-LP cut on one type:  n_t ≥ Σ_k w_k Σ_{o ∈ k} x_wot  (``pack_lp_{t}_{j}``).

    The weights satisfy Σ_k a_k w_k ≤ 1 for every pattern a one server of the type holds
    (GPU slots, usable RAM and, where checked, cores; ``solve.pattern_cut_weights``), so each
    server carries replicas of total weight at most 1 and every plan satisfies the cut: the
    program stays a relaxation. They are the duals of the type's pattern LP at the counts of
    the last solve, so the cut is as strong as server patterns there, at the cost of one row.
    """
    kinds = pattern_cut_kinds(m, key)
    terms = [w * v for kind, w in weights.items() if w > 1e-9 for v in kinds.get(kind, [])]
    if not terms:
        return False
    j = sum(1 for name in m.prob.constraints if name.startswith(f"pack_lp_{m.index[key]}_"))
    m.prob += m.n[key] >= pulp.lpSum(terms), f"pack_lp_{m.index[key]}_{j}"
    return True


def require_reference(m: Model, type_keys: set[str], gpus_per_server: dict[str, int]) -> None:
    """Only the reference server types may be bought (R20), each with its reference GPUs.

    n_t = 0 for t ∉ reference types;  G_t ≤ k_ref · n_t for the reference GPU types.
    The caller prices each bought server with k_ref GPUs.
    """
    for key, v in m.n.items():
        if key not in type_keys:
            m.prob += v == 0, f"reference_only_{m.index[key]}"
    for key, k in gpus_per_server.items():
        m.prob += m.gpus(key) <= k * m.n[key], f"reference_gpus_{m.index[key]}"


def disaggregate(m: Model, key: str, policy: Policy, limit: int = MAX_PATTERNS,
                 optimistic: bool = False) -> bool:
    """Model one server type by server *patterns*: exact where summed RAM failed to pack.

    Replicas of the type are grouped into kinds of equal (GPUs, host RAM); a pattern π is a
    maximal multiset of kinds one server holds (Σ d ≤ K_t, Σ r ≤ (1 − h) R_t, and with
    the platform's cores known, Σ c ≤ cores_p: kinds are then (d, r, c)), and
    p_π ∈ ℤ≥0 counts servers built to it:  n_t = Σ_π p_π,  Σ_π a_kπ p_π ≥ Σ_{o ∈ k} x_wot.
    Patterns are downward closed, so any x covered this way packs server by server; every
    real plan is covered, so the program stays a relaxation (the bound stays valid).
    Shared GPUs count as a kind of one GPU carrying the most RAM a full shared GPU can need
    (conservative: ``m.conservative`` turns True, as the bound then proves nothing). With
    ``optimistic``, a shared GPU is a kind of one GPU and no RAM or cores instead: every
    real server is still covered (its shared replicas' RAM and cores stay in the type's sum
    rows), so the program stays a relaxation, though its plan may not pack: a bound for
    plans the conservative kind found (``rounds.pattern_bound``).

    When the maximal patterns exceed ``limit``, the type starts from one greedy pattern per
    kind and more are *priced* from the LP duals (``price_patterns``, column generation).
    The program then chooses among the patterns generated so far, a restriction: its MIP
    bound proves nothing, but once pricing finds no better pattern the LP value is a valid
    lower bound (``m.lp_bound``), which plans are reported against.
    """
    if key in m.patterns:
        return True
    t = m.types[key]
    kinds, shared_kind = _pattern_kinds(m, key, policy, optimistic)
    if not kinds:
        return False
    shape = tuple(kinds)
    ram_cap = usable(t.ram_gb, policy)
    cores_cap = t.platform.cpu_cores
    patterns = maximal_patterns(shape, t.gpu_slots, ram_cap, limit, cores_cap)
    if patterns is None:
        patterns = greedy_patterns(shape, t.gpu_slots, ram_cap, cores_cap)
        m.priced[key] = PricedType(shape, t.gpu_slots, ram_cap, cores_cap)
    i = m.index[key]
    m.patterns[key] = PatternModel(
        kinds=shape,
        covers=tuple(kinds[kind] for kind in shape),
        shared_kind=shape.index(shared_kind) if shared_kind is not None else None,
        link_row=f"pattern_link_{i}",
        cover_rows=tuple(f"pattern_cover_{i}_{k}" for k in range(len(shape))),
        cores_cap=cores_cap,
    )
    for pat in patterns:
        _add_pattern(m, key, pat)
    _write_pattern_rows(m, key)
    return True


MAX_DRIVE_SETS = 64
"""Sets of local datasets whose server patterns ``disaggregate_drives`` lists at most (a
type reading six local datasets has 64)."""


def disaggregate_drives(m: Model, key: str, wf: WorkloadFile, catalog: Catalog,
                        limit: int = MAX_PATTERNS) -> bool:
    """Model one bought type by server patterns that carry their datasets and drives (O4
    exact there; a relaxation for the bound of ``rounds.drive_bound``, never a plan).

    Kinds are as in ``disaggregate`` (GPUs, host RAM[, cores]; a shared GPU one GPU and
    nothing else, its replicas' RAM and cores left to the sum rows, as ``optimistic``), and
    an exclusive replica of a workload w with a local dataset (ds_w > 0) is a kind of its
    own. A pattern π is a set S of those workloads and a maximal multiset of the kinds of
    the other workloads and of S's that one server holds, with at least one replica of each
    w ∈ S; its server needs a drive configuration holding D_π = Σ_{w ∈ S} ds_w under the
    line λ. With p_π ∈ ℤ≥0 the servers built to it:

        n_t = Σ_π p_π                                          (``drive_link_{t}``)
        Σ_π a_kπ p_π ≥ Σ_{o ∈ k} x_wot          for each kind  (``drive_cover_{t}_{k}``)
        Σ_{k: λ TB_k ≥ τ} z_tk ≥ Σ_{π: D_π ≥ τ} p_π   for each τ among the D_π
                                                               (``drive_holds_{t}_{j}``)

    A real server holding the set S' of local datasets and a multiset a of replicas sits
    under a maximal pattern of S' (a ≤ π), and its drives hold D_π = Σ_{S'} ds: every plan
    is covered at its own price, so the program stays a relaxation, now one that sees GPUs,
    RAM, cores and datasets together (a 187.5 GB preprocess replica fits once beside a
    564 GB 8-GPU replica on an 819.2 GB server: two servers with drives, where the rows, one
    dimension at a time, allowed one). The type's other rows stay (valid). False, and the
    program unchanged, for a type without drive configurations or local datasets, with
    more than MAX_DRIVE_SETS sets of them, past ``limit`` patterns, or modelled so already."""
    t = m.types[key]
    line = 1 - wf.policy.headroom
    local = {w.name: w.local_tb for w in wf.workloads if w.local_tb > 0}
    configs, readers = _drives_and_readers(m, key, catalog, local)
    if (not configs or not readers or 2 ** len(readers) > MAX_DRIVE_SETS
            or f"drive_link_{m.index[key]}" in m.prob.constraints):
        return False
    cores_cap = t.platform.cpu_cores
    kinds: dict[tuple, list[pulp.LpVariable]] = {}
    for (w, oi, k), v in m.x.items():
        o = m.options[(w, oi)]
        if k != key or o.shared:
            continue
        if _takes_nothing(o, cores_cap):
            continue
        kinds.setdefault((*pattern_kind(o, cores_cap), w if w in local else ""),
                         []).append(v)
    if key in m.shared:
        kinds.setdefault((*_bare_gpu(cores_cap), ""), []).append(m.shared[key])
    shape = list(kinds)
    ram_cap = usable(t.ram_gb, wf.policy)
    patterns: list[tuple[tuple[int, ...], float]] = []
    for size in range(len(readers) + 1):
        for chosen in itertools.combinations(readers, size):
            need = sum(local[w] for w in chosen)
            if not _holding(configs, need, line):
                continue  # no configuration holds these datasets together
            allowed = [i for i, kind in enumerate(shape) if kind[-1] in ("", *chosen)]
            found = maximal_patterns([shape[i][:-1] for i in allowed], t.gpu_slots, ram_cap,
                                     limit, cores_cap)
            if found is None:
                return False
            for counts in found:
                full = [0] * len(shape)
                for i, c in zip(allowed, counts, strict=True):
                    full[i] = c
                present = {shape[i][-1] for i, c in enumerate(full) if c}
                if set(chosen) <= present:
                    patterns.append((tuple(full), need))
            if len(patterns) > limit:
                return False
    ti = m.index[key]
    p = [pulp.LpVariable(f"dp_{ti}_{j}", 0, m.n_ub, cat="Integer") for j in range(len(patterns))]
    m.prob += m.n[key] == pulp.lpSum(p), f"drive_link_{ti}"
    for i, members in enumerate(kinds.values()):
        m.prob += (pulp.lpSum(pat[i] * v for (pat, _), v in zip(patterns, p, strict=True)
                              if pat[i]) >= pulp.lpSum(members)), f"drive_cover_{ti}_{i}"
    for j, tau in enumerate(sorted({need for _, need in patterns if need > 0})):
        m.prob += (pulp.lpSum(_holding(configs, tau, line))
                   >= pulp.lpSum(v for (_, need), v in zip(patterns, p, strict=True)
                                 if need >= tau - 1e-12)), f"drive_holds_{ti}_{j}"
    return True


def _takes_nothing(o: ReplicaOption, cores_cap: int | None) -> bool:
    """No GPU, no host RAM and, where cores are checked, no cores: no pattern counts it."""
    return o.degree == 0 and o.ram_gb <= 0 and (cores_cap is None or o.cores <= 0)


def _bare_gpu(cores_cap: int | None) -> Kind:
    """A shared GPU as an optimistic pattern kind: one GPU and nothing else (its replicas'
    RAM and cores stay in the type's sum rows)."""
    return kind_of(1, 0.0, None if cores_cap is None else 0.0)


def _pattern_kinds(m: Model, key: str, policy: Policy, optimistic: bool = False,
                   ) -> tuple[dict[Kind, list[pulp.LpVariable]], Kind | None]:
    """A type's replicas grouped by kind (GPUs, host RAM[, CPU cores where the platform's are
    checked, O3]), each with the variables it covers, and the one-GPU kind standing for a
    shared GPU (None without one).

    A shared GPU carries the most RAM a full one can need: conservative, so this marks the
    program as no longer a relaxation (``m.conservative``); with ``optimistic``, none (a
    relaxation: ``disaggregate``).
    """
    entries = [((w, oi), v) for (w, oi, k), v in m.x.items() if k == key]
    exclusive = [(wk, v) for wk, v in entries if not m.options[wk].shared]
    shared = [(wk, v) for wk, v in entries if m.options[wk].shared]
    cores_cap = m.types[key].platform.cpu_cores
    kinds: dict[Kind, list[pulp.LpVariable]] = {}
    for wk, v in exclusive:
        o = m.options[wk]
        if _takes_nothing(o, cores_cap):
            continue
        kinds.setdefault(pattern_kind(o, cores_cap), []).append(v)
    shared_kind = None
    if shared and key in m.shared and optimistic:
        shared_kind = _bare_gpu(cores_cap)
        kinds.setdefault(shared_kind, []).append(m.shared[key])
    elif shared and key in m.shared:
        vram_cap = usable(_gpu_of(m, key).vram_gb, policy)
        opts = [m.options[wk] for wk, _ in shared]
        # The most RAM (and cores) one full shared GPU can need, over every mix of the
        # shareable options that fits its VRAM (and the server's cores): a knapsack, since
        # two different jobs on one GPU can need more RAM than a GPU full of either.
        per_gpu = _most_on_shared_gpu(opts, [o.ram_gb for o in opts], vram_cap, cores_cap)
        shared_kind = kind_of(1, per_gpu, None if cores_cap is None else _most_on_shared_gpu(
            opts, [o.cores for o in opts], vram_cap, cores_cap))
        kinds.setdefault(shared_kind, []).append(m.shared[key])
        m.conservative = True
    return kinds, shared_kind


def _gpu_of(m: Model, key: str) -> GpuSku:
    """The GPU SKU of a type that holds GPUs (only such types get GPU rows)."""
    gpu = m.types[key].gpu
    assert gpu is not None, f"server type {key} has no GPU"
    return gpu


def _most_on_shared_gpu(opts: list[ReplicaOption], values: list[float], vram_cap: float,
                        cores_cap: int | None) -> float:
    """max Σ_o n_o value_o over replica counts n_o that one shared GPU holds together:
    Σ n_o vram_o ≤ vram_cap and, where cores are checked, Σ n_o c_o ≤ cores_p (the GPU's
    replicas all run on its one server). The knapsack of ``best_pattern``, with the cores
    as its first dimension and VRAM as its second."""
    kinds = [(o.cores if cores_cap is not None else 0.0, o.vram_gb) for o in opts]
    # Exact within SHARED_KNAPSACK_NODES, else an upper bound (still conservative): many
    # small shareable jobs make the exact search explode (seconds per type at N = 200).
    return most_value(kinds, values, (cores_cap if cores_cap is not None else 0, vram_cap),
                      SHARED_KNAPSACK_NODES)


SHARED_KNAPSACK_NODES = 20_000
"""Nodes the exact shared-GPU knapsack may visit before its fractional bound is used."""


def pattern_kind(o: ReplicaOption, cores_cap: int | None) -> Kind:
    """The kind a replica option is grouped under in server patterns: (GPUs, RAM[, cores]),
    cores only where the platform's are checked (``cores_cap`` not None, O3)."""
    return kind_of(o.degree, o.ram_gb, None if cores_cap is None else o.cores)


def _add_pattern(m: Model, key: str, pattern: tuple[int, ...]) -> None:
    pm = m.patterns[key]
    pm.patterns.append(pattern)
    pm.counts.append(
        pulp.LpVariable(f"p_{m.index[key]}_{len(pm.counts)}", 0, m.n_ub, cat="Integer"))


def _write_pattern_rows(m: Model, key: str) -> None:
    """(Re)write n_t = Σ p and the coverage rows of a pattern-modelled type."""
    pm = m.patterns[key]
    for name in (pm.link_row, *pm.cover_rows):
        m.prob.constraints.pop(name, None)
    m.prob += m.n[key] - pulp.lpSum(pm.counts) == 0, pm.link_row
    for k, (members, row) in enumerate(zip(pm.covers, pm.cover_rows)):
        covered = pulp.lpSum(pat[k] * p for pat, p in zip(pm.patterns, pm.counts))
        m.prob += covered - pulp.lpSum(members) >= 0, row


def price_patterns(m: Model, duals: dict[str, float]) -> int:
    """Add, per priced type, the pattern of most negative reduced cost (column generation).

    With duals y of n_t − Σ p = 0 (y_link) and of the coverage rows (y_k ≥ 0), a new pattern
    a has reduced cost y_link − Σ_k a_k y_k; the best one solves a knapsack over GPU slots
    and RAM. ``duals`` holds each row's dual by name (``Model.pattern_rows``). Returns how
    many patterns were added.
    """
    added = 0
    for key, priced in m.priced.items():
        pm = m.patterns[key]
        link = duals.get(pm.link_row, 0.0)
        values = [max(0.0, duals.get(row, 0.0)) for row in pm.cover_rows]
        value, pattern = best_pattern(list(priced.kinds), values, priced.slots, priced.ram_cap,
                                      priced.cores_cap)
        if value > link + 1e-6 and pattern not in pm.patterns:
            _add_pattern(m, key, pattern)
            _write_pattern_rows(m, key)
            added += 1
    return added
