"""Alternatives that differ in kind: near-optimal plans that each push one direction.

Modelling to generate alternatives, as energy-system planners do it (PyPSA's MGA, Calliope's
SPORES): once the cheapest plan of cost C* is known, the same program is solved again with
its cost held within a slack,

    cost ≤ (1 + slack) · C*                                   (``cost_slack``)

and a second objective f that pushes one direction as far as it goes: lowest TCO, fewest
servers, fewest distinct SKUs, fewest consumer GPUs, lowest power, most spare VRAM. Among
plans equally good in that direction the cheaper is preferred:

    min  f / step + (cost − L) / S,    S = (1 + slack) · C* − L + 1

"cost" is what the program minimises (``build.minimised_cost``): capital cost, or TCO under
``policy.objective: tco``, so C* is the best plan's TCO there and the slack is on TCO.
L is the best plan's proven lower bound (≤ C*), so the cost term lies in [0, 1) over
every plan the slack allows: one ``step`` of f (a currency unit of TCO, a server, a SKU, a
consumer GPU, 100 W, 10 GB) outweighs any cost difference inside the slack, and within less
than a step the two trade at that rate. A direction is data (``Direction``): its expression
on the program and the same figure measured on an expanded plan; ``directions`` lists the
ones that apply to a policy ("lowest TCO" only with ``policy.tco`` and ``objective: capex``;
under ``objective: tco`` the best plan already has the lowest TCO).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..inputs.catalog import Catalog
from ..inputs.policy import Policy
from ..plan_types import DirectionFigure, PlanOption, amount_in
from ..rules.power import plan_power_w as servers_power_w
from .lp import pulp
from .program import Model, minimised_cost, tco_expression

DEFAULT_SLACK = 0.05
"""Alternatives may cost up to this fraction more than the cheapest plan (5%)."""
MODES = ("kinds", "gpu-mix", "hardware")
"""``--alternatives``: directions within the slack, or the next cheapest GPU / hardware mix."""


@dataclass(frozen=True)
class Direction:
    """One way an alternative may differ from the cheapest plan."""

    key: str
    """Short name (``servers``)."""
    label: str
    """What the alternative optimises, in the summary's words (``fewest servers``)."""
    step: float
    """One unit of the objective worth the whole cost slack (see the module docstring)."""
    objective: Callable[[Model, Catalog], pulp.LpAffineExpression]
    """f on the program: the expression minimised (``define_*``)."""
    measure: Callable[[PlanOption, Catalog], float]
    """f on an expanded plan, in the same units (lower is better)."""
    applies: Callable[[PlanOption, Catalog], str | None] = lambda option, catalog: None
    """Why the direction has nothing to offer against the cheapest plan, said of that plan
    ("has none"; None: try it)."""
    counted: bool = False
    """f counts whole things (servers, GPUs, SKUs) with ``step`` 1: a search's bound then
    proves a least value of f rounded up to a whole one (``least_in_direction``)."""
    unit: str = ""
    """What f is counted in, for the notes (``amount``): "W", "GB", "server"; "" for the
    catalog's currency."""
    more_is_better: bool = False
    """``measure`` is minus the figure a person reads (spare VRAM: the most is sought)."""

    def amount(self, value: float, currency: str) -> str:
        """``value`` of f in its unit: "140 W", "2 servers", "USD 1,200" (``amount_in``)."""
        return amount_in(value, self.unit or currency, self.counted, currency=not self.unit)


def define_cost_slack(m: Model, cheapest: float, slack: float, less: float = 0.0) -> None:
    """cost ≤ (1 + slack) · C* − less (``cost_slack``), cost what the program minimises
    (capex, or TCO under ``objective: tco``) and C* the best plan's value of it; replaced
    when called again. ``less``: room kept below the slack for what packing adds (a
    direction's retry, ``near_optimal.search_kinds``)."""
    m.prob.constraints.pop("cost_slack", None)
    m.prob += minimised_cost(m) <= (1 + slack) * cheapest - less, "cost_slack"


def set_direction_objective(m: Model, direction: Direction, catalog: Catalog,
                            cheapest: float, lower: float, slack: float) -> None:
    """min f / step + (cost − L) / S with S = (1 + slack) · C* − L + 1 (module docstring)."""
    scale = _cost_scale(cheapest, lower, slack)
    m.prob.sense = pulp.LpMinimize
    m.prob.setObjective((1.0 / direction.step) * direction.objective(m, catalog)
                        + (1.0 / scale) * (minimised_cost(m) - lower))


def direction_value(direction: Direction, option: PlanOption, catalog: Catalog, cost: float,
                    cheapest: float, lower: float, slack: float) -> float:
    """f / step + (cost − L) / S measured on an expanded plan whose minimised cost is
    ``cost``: the objective of ``set_direction_objective``, in the same units."""
    return (direction.measure(option, catalog) / direction.step
            + (cost - lower) / _cost_scale(cheapest, lower, slack))


def least_in_direction(direction: Direction, bound: float | None, cheapest: float,
                       lower: float, slack: float) -> float | None:
    """The least f any plan within the slack can have, proven by a search's bound B on
    min f / step + (cost − L) / S (a relaxation's, over the whole slack); None without a
    bound, but for a count (``counted``), which is never below 0.

    For a plan within the slack L ≤ cost ≤ (1 + slack) · C* = S + L − 1, so its cost term
    is at most 1 − 1/S and f ≥ step · (B − 1 + 1/S − ε) (ε = 1e-6 · max(1, |B|), HiGHS's
    tolerances); a whole count f ≥ max(0, ⌈B − 1 + 1/S − ε⌉)."""
    if bound is None:
        return 0.0 if direction.counted else None
    least = bound - 1 + 1 / _cost_scale(cheapest, lower, slack) - 1e-6 * max(1.0, abs(bound))
    if direction.counted:
        return float(max(0, math.ceil(least)))
    return direction.step * least


def direction_figure(direction: Direction, option: PlanOption, catalog: Catalog,
                     least: float | None, cheapest: PlanOption) -> DirectionFigure:
    """The option's figure in ``direction`` as a person reads it (spare VRAM positive), with
    ``least``, the least f any plan within the slack can have (``least_in_direction``; None:
    not proven), and the ``cheapest`` plan's figure, read the same way."""
    sign = -1.0 if direction.more_is_better else 1.0
    return DirectionFigure(direction.key, sign * direction.measure(option, catalog),
                           direction.unit or catalog.currency, direction.counted,
                           direction.more_is_better,
                           None if least is None else sign * least,
                           sign * direction.measure(cheapest, catalog))


def _cost_scale(cheapest: float, lower: float, slack: float) -> float:
    """S = (1 + slack) · C* − L + 1 (at least 1)."""
    return max(1.0, (1 + slack) * cheapest - lower + 1)


def define_tco(m: Model, catalog: Catalog) -> pulp.LpAffineExpression:
    """f = TCO (``build.tco_expression``, P2): capex with support, energy and racks over the
    horizon; needs ``m.tco`` (``directions`` offers it only with ``policy.tco``)."""
    assert m.tco is not None
    return tco_expression(m, m.tco)


def define_servers_count(m: Model, catalog: Catalog) -> pulp.LpAffineExpression:
    """f = Σ_t n_t: servers bought."""
    return pulp.lpSum(m.n.values())


def define_sku_count(m: Model, catalog: Catalog) -> pulp.LpAffineExpression:
    """f = Σ_c b_c, b_c ∈ {0, 1} per platform, GPU, DIMM and drive SKU c:
    n_t ≤ U b_c for each SKU c of type t (``sku_{c}_{t}``) and z_ps ≤ U_s b_s for drives
    (``sku_drive_{p}_{s}``), U the most servers the program may buy."""
    flags = m.sku_flags  # made once per program: a second call reuses them

    def flag(sku: str) -> pulp.LpVariable:
        if sku not in flags:
            flags[sku] = pulp.LpVariable(f"b_{len(flags)}", cat="Binary")
        return flags[sku]

    for key, t in m.types.items():
        if t.owned:
            continue  # owned servers (P4) are not purchases: their SKUs are not bought
        i = m.index[key]
        skus = [t.platform.sku, t.memory_sku] + ([t.gpu.sku] if t.gpu is not None else [])
        for j, sku in enumerate(skus):
            _replace(m, m.n[key] <= m.n_ub * flag(sku), f"sku_{j}_{i}")
    for j, ((_, sku, _), z) in enumerate(m.z.items()):
        ub = z.upBound if z.upBound is not None else m.n_ub
        _replace(m, z <= ub * flag(sku), f"sku_drive_{j}")
    return pulp.lpSum(flags.values())


def define_consumer_gpus(m: Model, catalog: Catalog) -> pulp.LpAffineExpression:
    """f = Σ_{t: g_t consumer} G_t: consumer GPUs installed (``consumer: true``)."""
    return pulp.lpSum(m.gpus(key) for key, t in m.types.items()
                      if t.gpu is not None and t.gpu.consumer)


def define_power(m: Model, catalog: Catalog) -> pulp.LpAffineExpression:
    """f = W = Σ_t n_t · power_p + G_t · power_g, W: rated power of platforms and GPUs
    (``build.define_power``, P1; owned servers in use included)."""
    return m.power


def define_spare_vram(m: Model, catalog: Catalog) -> pulp.LpAffineExpression:
    """f = −(Σ_t V_g G_t − Σ_{w,o,t} d_o v_o x_wot), GB: minus the VRAM installed and not
    needed by any replica (v_o per GPU, d_o = 1 for a replica on a shared GPU), which is
    what a workload can grow into (larger batches, longer contexts) without new cards."""
    installed = pulp.lpSum(t.gpu.vram_gb * m.gpus(key) for key, t in m.types.items()
                           if t.gpu is not None)
    used = pulp.lpSum(m.options[(w, oi)].degree * m.options[(w, oi)].vram_gb * v
                      for (w, oi, _), v in m.x.items() if m.options[(w, oi)].degree > 0)
    return used - installed


def _replace(m: Model, row: Any, name: str) -> None:
    m.prob.constraints.pop(name, None)
    m.prob += row, name


def _servers(o: PlanOption, catalog: Catalog) -> float:
    return len(o.servers)


def _skus(o: PlanOption, catalog: Catalog) -> float:
    return len({line.sku for line in o.lines})


def _consumer(o: PlanOption, catalog: Catalog) -> float:
    consumer = {g.sku for g in catalog.gpus if g.consumer}
    return sum(s.gpu_count for s in o.servers if s.gpu in consumer)


def _power(o: PlanOption, catalog: Catalog) -> float:
    return plan_power_w(o, catalog)


def plan_power_w(o: PlanOption, catalog: Catalog) -> float:
    """Rated power of a plan, W: each server's platform plus its GPUs, and its fabric's
    switches (P1, N3)."""
    return servers_power_w(o.servers, catalog)


def _tco(o: PlanOption, catalog: Catalog) -> float:
    own = o.own
    return own.tco if own is not None and own.tco is not None else o.total_cost


def _spare(o: PlanOption, catalog: Catalog) -> float:
    return -spare_vram_gb(o, catalog)


def spare_vram_gb(o: PlanOption, catalog: Catalog) -> float:
    """VRAM installed and not needed by any replica, GB."""
    vram = {g.sku: g.vram_gb for g in catalog.gpus}
    installed = sum(vram[s.gpu] * s.gpu_count for s in o.servers if s.gpu)
    return installed - sum(p.gpus * p.vram_gb_per_gpu for p in o.placements)


def _has_consumer(o: PlanOption, catalog: Catalog) -> str | None:
    if _consumer(o, catalog) == 0:
        return "has none"
    return None


def _has_gpus(o: PlanOption, catalog: Catalog) -> str | None:
    """Spare VRAM is room for growth on GPUs the plan uses: a plan without any (a mix of
    preprocessing jobs) would buy idle GPUs for it alone."""
    if not any(s.gpu and s.gpu_count for s in o.servers):
        return "has no GPU"
    return None


TCO = Direction("tco", "lowest TCO", 1.0, define_tco, _tco, unit="")
"""Lowest total cost of ownership: offered with ``policy.tco`` under ``objective: capex``."""

DIRECTIONS: tuple[Direction, ...] = (
    Direction("servers", "fewest servers", 1.0, define_servers_count, _servers,
              counted=True, unit="server"),
    Direction("consumer", "no consumer GPUs", 1.0, define_consumer_gpus, _consumer,
              _has_consumer, counted=True, unit="consumer GPU"),
    Direction("skus", "fewest SKUs", 1.0, define_sku_count, _skus, counted=True, unit="SKU"),
    Direction("power", "lowest power", 100.0, define_power, _power, unit="W"),
    Direction("vram", "most spare VRAM", 10.0, define_spare_vram, _spare, _has_gpus,
              unit="GB", more_is_better=True),
)
"""The directions tried, in this order, until ``--top`` options are found."""


def directions(policy: Policy | None = None) -> tuple[Direction, ...]:
    """The directions an alternative may push under ``policy``: lowest TCO first when
    ``policy.tco`` prices ownership but the program minimises capex, then ``DIRECTIONS``."""
    if policy is not None and policy.tco is not None and policy.objective == "capex":
        return (TCO, *DIRECTIONS)
    return DIRECTIONS


def server_key(o: PlanOption) -> tuple:
    """The servers of a plan as a multiset, their drives counted together: two options with
    the same key are one purchase. Drives moved from one server to another of the same plan
    are not another plan: the bill of materials is the same (a TCO mix under a budget showed
    "fewest consumer GPUs" and "lowest power" at the same cost, on the same servers, but for
    one server's two drives)."""
    drives: dict[str, int] = {}
    for s in o.servers:
        if s.storage and s.drive_count:
            drives[s.storage] = drives.get(s.storage, 0) + s.drive_count
    return (tuple(sorted((s.platform, s.gpu or "", s.gpu_count, s.memory, s.dimm_count,
                          s.owned) for s in o.servers)),
            tuple(sorted(drives.items())))


def improves(direction: Direction, option: PlanOption, cheapest: PlanOption,
             catalog: Catalog) -> bool:
    """The option is better than the cheapest plan in its direction (not just different)."""
    return direction.measure(option, catalog) < direction.measure(cheapest, catalog) - 1e-6


def label_of(direction: Direction, option: PlanOption, catalog: Catalog) -> str:
    """The label shown for an alternative; a consumer direction that could not reach zero
    says "fewest consumer GPUs" instead."""
    if direction.key == "consumer" and _consumer(option, catalog) > 0:
        return "fewest consumer GPUs"
    return direction.label
