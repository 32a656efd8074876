"""The objective and budget: capex (or TCO, P2), served priority, the budget row, and the
objectives the phases of a solve set."""

from __future__ import annotations

from ...inputs.catalog import Catalog
from ...inputs.ownership import TcoPolicy
from ...inputs.policy import Policy
from ...inputs.workload import WorkloadFile
from ..candidates import Candidates
from ..lp import pulp
from .model import Model
from .names import row_name

SERVER_EPSILON = 1e-3
"""Tie-break weight per server (currency units): far below any real price difference."""


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
        m.prob += m.cost <= budget, row_name("budget")


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
    m.prob += m.priority >= at_least - 1e-6, row_name("keep.priority")
