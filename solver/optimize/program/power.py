"""Power and site: rated power W (P1) and the racks a site offers (P3)."""

from __future__ import annotations

from ...inputs.ownership import Site
from ..lp import pulp
from .model import Model
from .names import row_name


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

        1000 · rack_kw · r ≥ W                 (``site.power``)
        rack_units · r ≥ Σ_t U_p n_t           (``site.space``)

    so Σ power ≤ racks × rack_kw and Σ U ≤ racks × rack_units. No single server above
    rack_kw (or taller than a rack): ``candidates.within_site`` caps each type's GPUs at
    ⌊(rack_kw − platform kW) ÷ GPU kW⌋ and drops types whose smallest server is over.
    Without a site, nothing is added.
    """
    if site is None:
        return
    m.racks = r = pulp.LpVariable("racks", 0, site.racks, cat="Integer")
    m.prob += 1000 * site.rack_kw * r >= m.power, row_name("site.power")
    m.prob += site.rack_units * r >= rack_space(m), row_name("site.space")


def rack_space(m: Model) -> pulp.LpAffineExpression:
    """Σ_t U_p n_t + the switches' units: the rack units of the servers bought and of their
    fabric (P3, N3, ``define_site``)."""
    return pulp.lpSum((t.platform.rack_units or 0) * m.n[key] for key, t in m.types.items()
                      if t.platform.rack_units) + m.fabric_units
