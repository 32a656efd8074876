"""The run program (H3–H6): which way each run is done, and how many run servers of each
configuration to buy. One ``define_*`` per row family; docs/solver.md derives them.

Notation:
    r ∈ R       runs; j ∈ J_r its ways (``options.PoolWay`` / ``RentWay``)
    c ∈ C       run-server configurations (``fleet.RunServer``): price π_c, power w_c, units u_c
    p ∈ P       periods of the grid; j covers p when its first ≤ p ≤ its last period
    y_rj        1 if run r is done way j                                  (binary)
    N_c         run servers of configuration c bought                     (integer)
    s_j         servers of a pool way; g_j GPUs of a rented way; k_j its rent cost

    F           the run servers' fabric (N3, ``program/fabric.py``): its capex F_$, its
                switches' power F_W and rack units F_U, over the N_c (pod "runs")

Objective (H6): min φ·(1 + σ)·(Σ_c π_c N_c + F_$) + φ·e·F_W/1000 + Σ_rj (k_j + e_j) y_rj
                + ε Σ_c N_c
    φ the capex share of the horizon (H1); σ support over the horizon and e_j the energy of
    a pool way (s_j · w_c/1000 kW · its hours · utilisation · PUE · kWh price), and e the
    energy of one kW over the hardware's life (the switches run all the time), all three
    only under objective tco; ε = 1e-3 prefers fewer servers among equal costs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ...inputs.catalog import Catalog
from ...inputs.ownership import TcoPolicy
from ...rules.fabric import RUN_POD
from ..lp import pulp
from ..program.fabric import FabricRows, Member, define_fabric
from .fleet import RunServer
from .options import PoolWay, RentWay, Way

SERVER_EPSILON = 1e-3


@dataclass(frozen=True)
class Room:
    """What the always-on plan leaves the run servers (None: no limit)."""

    capex: float | None = None
    """Budget left, currency."""
    units: int | None = None
    """Rack units left on the site (P3)."""
    watts: float | None = None
    """Site power left, W (P3; counted per period for run servers that run)."""


@dataclass
class RunModel:
    """The run program and its variables by validated ids."""

    prob: pulp.LpProblem
    configs: tuple[RunServer, ...]
    ways: dict[str, list[Way]]
    n: list[pulp.LpVariable] = field(default_factory=list)
    y: dict[str, list[pulp.LpVariable]] = field(default_factory=dict)
    fabric: FabricRows | None = None
    """N3: the run servers' fabric (``define_run_fabric``)."""

    def capex(self) -> pulp.LpAffineExpression:
        """Σ_c π_c N_c + F_$: what the run servers and their fabric cost."""
        servers = pulp.lpSum(c.price * n for c, n in zip(self.configs, self.n))
        return servers + (self.fabric.cost if self.fabric is not None else 0)

    def units(self) -> pulp.LpAffineExpression:
        """Σ_c u_c N_c + F_U: their rack units (P3)."""
        servers = pulp.lpSum(c.units * n for c, n in zip(self.configs, self.n))
        return servers + (self.fabric.units if self.fabric is not None else 0)

    def covering(self) -> dict[int, list[tuple[Way, pulp.LpVariable]]]:
        """Per period, the ways that occupy it and their variables."""
        out: dict[int, list[tuple[Way, pulp.LpVariable]]] = defaultdict(list)
        for key, ways in self.ways.items():
            for w, v in zip(ways, self.y[key]):
                for p in range(w.periods[0], w.periods[1] + 1):
                    out[p].append((w, v))
        return out


def build(configs: tuple[RunServer, ...], ways: dict[str, list[Way]], catalog: Catalog,
          capex_share: float, tco: TcoPolicy | None, room: Room) -> RunModel:
    """The whole run program: variables, H3, H4, H5 and the site and budget left, objective."""
    m = RunModel(pulp.LpProblem("runs", pulp.LpMinimize), configs, ways)
    most = _most_servers(configs, ways)
    m.n = [pulp.LpVariable(f"N_{i}", 0, most[i], cat="Integer") for i in range(len(configs))]
    for key, options in ways.items():
        m.y[key] = [pulp.LpVariable(f"y_{len(m.y)}_{j}", cat="Binary")
                    for j in range(len(options))]
    define_one_way(m)
    covering = m.covering()
    define_servers_in_time(m, covering)
    define_run_fabric(m, catalog, most)
    define_rent_caps(m, covering, catalog)
    define_room(m, covering, room)
    define_objective(m, capex_share, tco)
    return m


def _most_servers(configs: tuple[RunServer, ...], ways: dict[str, list[Way]]) -> list[int]:
    """N̄_c: Σ over runs of the most servers one of its ways takes on c (a bound on N_c: no
    plan needs more of c than every run on it at once at its largest)."""
    most = [0] * len(configs)
    for options in ways.values():
        top: dict[int, int] = {}
        for w in options:
            if isinstance(w, PoolWay):
                top[w.config] = max(top.get(w.config, 0), w.servers)
        for c, k in top.items():
            most[c] += k
    return most


def define_run_fabric(m: RunModel, catalog: Catalog, most: list[int]) -> None:
    """N3: the fabric of the run servers (pod "runs"): ``program.fabric.define_fabric`` over
    the N_c, each with the NIC ports of its configuration (included and added cards)."""
    members = [Member(n, most[c], cfg.port_map())
               for c, (cfg, n) in enumerate(zip(m.configs, m.n))]
    m.fabric = define_fabric(m.prob, RUN_POD, members, catalog)


def define_one_way(m: RunModel) -> None:
    """H3: every run is done exactly one way: Σ_j y_rj = 1 (each way reaches the run's tokens
    inside its window by construction, ``options``)."""
    for i, key in enumerate(m.ways):
        m.prob += pulp.lpSum(m.y[key]) == 1, f"one_way_{i}"


def define_servers_in_time(m: RunModel, covering: dict[int, list[tuple[Way, pulp.LpVariable]]]
                           ) -> None:
    """H4: in every period p, the run servers of configuration c that runs occupy fit those
    bought: Σ_{pool j of c covering p} s_j y_rj ≤ N_c (bought once, shared in time)."""
    for p, ways in sorted(covering.items()):
        by_config: dict[int, list] = defaultdict(list)
        for w, v in ways:
            if isinstance(w, PoolWay):
                by_config[w.config].append(w.servers * v)
        for c, terms in sorted(by_config.items()):
            m.prob += pulp.lpSum(terms) <= m.n[c], f"servers_in_time_{c}_{p}"


def define_rent_caps(m: RunModel, covering: dict[int, list[tuple[Way, pulp.LpVariable]]],
                     catalog: Catalog) -> None:
    """H5: in every period, the GPUs of a SKU rented at once stay within its max_gpus:
    Σ_{rented j of g covering p} g_j y_rj ≤ max_gpus_g."""
    caps = {c.gpu: c.max_gpus for c in catalog.cloud if c.max_gpus is not None}
    for p, ways in sorted(covering.items()):
        by_gpu: dict[str, list] = defaultdict(list)
        for w, v in ways:
            if isinstance(w, RentWay) and w.option.gpu in caps:
                by_gpu[w.option.gpu].append(w.replicas * w.option.degree * v)
        for i, (gpu, terms) in enumerate(sorted(by_gpu.items())):
            m.prob += pulp.lpSum(terms) <= caps[gpu], f"rent_cap_{i}_{p}"


def define_room(m: RunModel, covering: dict[int, list[tuple[Way, pulp.LpVariable]]],
                room: Room) -> None:
    """P3 and the budget with the always-on plan's share taken: Σ_c π_c N_c + F_$ ≤ budget
    left; Σ_c u_c N_c + F_U ≤ rack units left; in every period Σ_{pool j covering p} s_j w_c
    y_rj + F_W ≤ power left (a run server draws power only while it runs, its switches
    always)."""
    if room.capex is not None:
        m.prob += m.capex() <= room.capex, "budget_left"
    if room.units is not None:
        m.prob += m.units() <= room.units, "units_left"
    if room.watts is not None:
        switches = m.fabric.power if m.fabric is not None else 0
        for p, ways in sorted(covering.items()):
            terms = [w.servers * m.configs[w.config].power_w * v for w, v in ways
                     if isinstance(w, PoolWay)]
            if terms:
                m.prob += pulp.lpSum(terms) + switches <= room.watts, f"power_left_{p}"


def define_objective(m: RunModel, capex_share: float, tco: TcoPolicy | None) -> None:
    """H6: min φ(1 + σ) Σ π_c N_c + Σ (k_j + e_j) y_rj + ε Σ N_c (module docstring)."""
    support = tco.support_rate() if tco is not None else 0.0
    capex = (capex_share * (1 + support) * m.capex()
             + SERVER_EPSILON * pulp.lpSum(m.n))
    if tco is not None and m.fabric is not None:
        capex += capex_share * tco.energy_per_kw() / 1000 * m.fabric.power
    terms = []
    for key, ways in m.ways.items():
        for w, v in zip(ways, m.y[key]):
            terms.append(way_cost(w, m.configs, tco) * v)
    m.prob += capex + pulp.lpSum(terms)


def way_cost(w: Way, configs: tuple[RunServer, ...], tco: TcoPolicy | None) -> float:
    """What a way costs beyond the servers: its rent, or (under tco) its servers' energy."""
    if isinstance(w, RentWay):
        return w.cost
    if tco is None:
        return 0.0
    kw = w.servers * configs[w.config].power_w / 1000
    return kw * (w.end_h - w.begin_h) * tco.utilisation * tco.pue * tco.kwh_price
