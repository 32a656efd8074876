"""The program's state: the PuLP problem and its variables keyed by validated ids (``Model``),
and the server types modelled by server patterns (``PatternModel``, ``PricedType``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...inputs.catalog import GpuSku
from ...inputs.ownership import TcoPolicy
from ..candidates import ServerType
from ..lp import pulp
from ..outcome import BuiltPatterns, Kind
from ..replicas import ReplicaOption


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
    chance_z: dict[int, pulp.LpVariable] = field(default_factory=dict)
    """z_s (U1): 1 where the plan must hold in sampled world s, by the world's index."""
    serve: dict[str, pulp.LpVariable | int] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)
    on_type: dict[str, list[tuple[ReplicaOption, pulp.LpVariable]]] = field(default_factory=dict)
    cost: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    objective_cost: pulp.LpAffineExpression | None = None
    """What the cost phase minimises: ``cost`` (capex) unless ``define_tco`` set the TCO."""
    power: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    """W: rated power of the servers used, W (P1)."""
    fabric_units: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    """Rack units of the pool's switches (N3, ``define_pool_fabric``)."""
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

    def x_ids(self, v: pulp.LpVariable) -> tuple[str, int, str]:
        """(workload, option index, type key) of an x_wot variable: the ids that name the
        rows bounding one replica option on one type (``names.row_name``)."""
        if len(self._x_ids) != len(self.x):
            self._x_ids = {x.name: ids for ids, x in self.x.items()}
        return self._x_ids[v.name]

    def pattern_rows(self) -> list[str]:
        """Names of the rows whose duals price new patterns (those of priced types)."""
        return [name for key in self.priced
                for name in (self.patterns[key].link_row, *self.patterns[key].cover_rows)]

    _gpu_expr: dict[str, pulp.LpAffineExpression] = field(default_factory=dict)
    _x_ids: dict[str, tuple[str, int, str]] = field(default_factory=dict)


def gpu_of(m: Model, key: str) -> GpuSku:
    """The GPU SKU of a type that holds GPUs (only such types get GPU rows)."""
    gpu = m.types[key].gpu
    assert gpu is not None, f"server type {key} has no GPU"
    return gpu
