"""N3: the fabric a pod buys, as rows of the purchase program and of the run program.

``rules/fabric.py`` states the rule; these rows state it for server counts the program
chooses. Per pod and NIC kind κ (members m: a server type or run-server configuration, its
count n_m ≤ ū_m, ports q_m of κ, its fastest port v_m):

    P_κ = Σ_m q_m n_m                                   ports in use
    y_κ ∈ {0,1}:  Σ_{m: q_m>0} n_m ≤ 1 + (Σ ū_m) y_κ       a switch once two servers have κ ports
    per switch SKU s of κ (ports p_s, half h_s = ⌊p_s/2⌋, uplinks u_s = p_s − h_s, speed v_s):
      b_s ∈ {0,1} leaves are s;  a_s ∈ {0,1} one leaf;  L_s ∈ ℤ≥0 leaves of a two-tier fabric
      d_s ∈ {0,1} spines are s;  S_s ∈ ℤ≥0 spines
      Σ_s b_s ≤ 1,   a_s + L_s / L̄_s ≤ b_s,   Σ_s d_s ≤ 1,   S_s ≤ S̄ d_s
      n_m ≤ ū_m (1 − b_s)         for m with v_m > v_s      (a leaf at least as fast as its ports)
      b_s + d_q ≤ 1               for v_q < v_s             (a spine at least as fast as its leaves)
    Σ_s (p_s a_s + h_s L_s) ≥ P_κ − q̂ (1 − y_κ)            every port on a leaf
    Σ_s p_s S_s ≥ Σ_s u_s L_s                              every uplink on a spine
    C_κ ≥ P_κ − q̂ (1 − y_κ),  C_κ ≥ 0                      cables to the servers
    (q̂ = max_m q_m, the ports of one server: when y_κ = 0 at most one server has κ ports,
    so P_κ ≤ q̂ and the rows are void; a tighter constant than the ports of every server
    keeps the fabric's cost in the LP relaxation: q3's search took 2.5 times as long with it)
    cost  = Σ_s price_s (a_s + L_s + S_s) + λ (C_κ + Σ_s u_s L_s)
    power = Σ_s power_s (a_s + L_s + S_s);  units = Σ_s U_s (a_s + L_s + S_s)

A two-tier fabric where one leaf of the same SKU would do costs more than that leaf, so the
optimum is the rule's fabric; the cheapest (leaf, spine) pair is what ``rules.fabric``
computes for the plan's servers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ...inputs.catalog import Catalog
from ...rules.fabric import platform_ports
from ..candidates import Candidates
from ..lp import pulp
from .model import Model
from .names import row_name


@dataclass(frozen=True)
class Member:
    """Servers of one type (or run configuration) in a pod: their count and NIC ports."""

    count: pulp.LpVariable | pulp.LpAffineExpression
    most: int
    """ū: an upper bound of the count."""
    ports: dict[str, dict[float, int]]
    """NIC ports of one server, by kind and Gb/s."""


@dataclass
class FabricRows:
    """What the fabric adds to the program's capex, power and rack units."""

    cost: pulp.LpAffineExpression
    power: pulp.LpAffineExpression
    units: pulp.LpAffineExpression


def define_fabric(prob: pulp.LpProblem, pod: str, members: Sequence[Member],
                  catalog: Catalog, two_or_more: bool = False) -> FabricRows:
    """N3: the leaves, spines and cables of ``pod`` (module docstring); nothing when the
    catalog prices no fabric. ``two_or_more``: every plan has two servers or more in the
    pod, so a kind every member has ports of gets y_κ = 1 (valid, and it keeps the switch's
    price in the LP relaxation, where y_κ is otherwise near 0)."""
    out = FabricRows(pulp.LpAffineExpression(), pulp.LpAffineExpression(),
                     pulp.LpAffineExpression())
    if not catalog.network.switches:
        return out
    for kind in ("ethernet", "infiniband"):
        on = [(m, sum(m.ports.get(kind, {}).values()), max(m.ports.get(kind, {}), default=0.0))
              for m in members if sum(m.ports.get(kind, {}).values()) and m.most > 0]
        if sum(m.most for m, _, _ in on) < 2:
            continue
        everyone = two_or_more and len(on) == len([m for m in members if m.most > 0])
        _define_kind(prob, f"{pod}_{kind}", on, catalog, out, everyone)
    return out


def _define_kind(prob: pulp.LpProblem, tag: str,
                 on: list[tuple[Member, int, float]], catalog: Catalog,
                 out: FabricRows, needed: bool = False) -> None:
    pod, kind = tag.rsplit("_", 1)
    switches = [s for s in catalog.network.switches if s.kind == kind]
    servers_ub = sum(m.most for m, _, _ in on)
    ports = pulp.lpSum(q * m.count for m, q, _ in on)
    ports_ub = sum(q * m.most for m, q, _ in on)
    y = pulp.LpVariable(f"fab_y_{tag}", cat="Binary")
    if needed:
        y.lowBound = 1
    prob += pulp.lpSum(m.count for m, _, _ in on) <= 1 + servers_ub * y, row_name("fabric.two", pod, kind)
    b, a, L, d, S = {}, {}, {}, {}, {}
    for i, s in enumerate(switches):
        half = s.ports // 2
        b[i] = pulp.LpVariable(f"fab_b_{tag}_{i}", cat="Binary")
        a[i] = pulp.LpVariable(f"fab_a_{tag}_{i}", cat="Binary")
        most = math.ceil(ports_ub / half) if half else 0
        L[i] = pulp.LpVariable(f"fab_L_{tag}_{i}", 0, most, cat="Integer")
        d[i] = pulp.LpVariable(f"fab_d_{tag}_{i}", cat="Binary")
        prob += a[i] + (L[i] * (1 / most) if most else 0) <= b[i], row_name("fabric.leaf", pod, kind, i)
        for j, (m, _, fastest) in enumerate(on):
            if fastest > s.gbps + 1e-9:
                prob += m.count <= m.most * (1 - b[i]), row_name("fabric.speed", pod, kind, i, j)
    uplinks_ub = sum((s.ports - s.ports // 2) * L[i].upBound for i, s in enumerate(switches))
    for i, s in enumerate(switches):
        S[i] = pulp.LpVariable(f"fab_S_{tag}_{i}", 0, math.ceil(uplinks_ub / s.ports),
                               cat="Integer")
        prob += S[i] <= S[i].upBound * d[i], row_name("fabric.spine", pod, kind, i)
        for k, leaf in enumerate(switches):
            if s.gbps + 1e-9 < leaf.gbps:
                prob += b[k] + d[i] <= 1, row_name("fabric.spine.speed", pod, kind, k, i)
    prob += pulp.lpSum(b.values()) <= 1, row_name("fabric.leaf.sku", pod, kind)
    prob += pulp.lpSum(d.values()) <= 1, row_name("fabric.spine.sku", pod, kind)
    one = max(q for _, q, _ in on)
    prob += (pulp.lpSum(s.ports * a[i] + (s.ports // 2) * L[i] for i, s in enumerate(switches))
             >= ports - one * (1 - y)), row_name("fabric.ports", pod, kind)
    uplinks = pulp.lpSum((s.ports - s.ports // 2) * L[i] for i, s in enumerate(switches))
    prob += pulp.lpSum(s.ports * S[i] for i, s in enumerate(switches)) >= uplinks, \
        row_name("fabric.uplinks", pod, kind)
    cables = pulp.LpVariable(f"fab_C_{tag}", 0)
    prob += cables >= ports - one * (1 - y), row_name("fabric.cables", pod, kind)
    boxes = {i: a[i] + L[i] + S[i] for i in range(len(switches))}
    out.cost += (pulp.lpSum(s.price * boxes[i] for i, s in enumerate(switches))
                 + catalog.network.link_price * (cables + uplinks))
    out.power += pulp.lpSum(s.power_w * boxes[i] for i, s in enumerate(switches))
    out.units += pulp.lpSum(s.rack_units * boxes[i] for i, s in enumerate(switches))


def define_pool_fabric(m: Model, catalog: Catalog, cand: Candidates | None = None) -> None:
    """N3 for the purchase program: the always-on pool's fabric over the types bought (owned
    servers, P4, are cabled already), added to capex, W (P1) and the rack units (P3)."""
    members = [Member(m.n[key], int(m.n[key].upBound or 0), platform_ports(t.platform, catalog))
               for key, t in m.types.items() if not t.owned]
    rows = define_fabric(m.prob, "pool", members, catalog,
                         two_or_more=cand is not None and _needs_two(m, cand))
    m.cost += rows.cost
    m.power += rows.power
    m.fabric_units = rows.units


def _needs_two(m: Model, cand: Candidates) -> bool:
    """Every plan buys two servers or more: every workload is served (no budget), nothing
    is owned, and the GPUs its replicas need at their smallest degree, Σ_w replicas_w ·
    min_o d_o over GPUs that no replica shares, exceed the most GPUs one server holds."""
    if any(not isinstance(u, int) for u in m.serve.values()) or any(
            t.owned for t in m.types.values()):
        return False
    need = 0
    for w, replicas in cand.replicas.items():
        options = cand.options[w]
        if not options or any(o.shared or o.gpu is None for o in options):
            continue
        need += replicas * min(o.degree for o in options)
    return need > max((t.gpu_slots for t in m.types.values()), default=0)


