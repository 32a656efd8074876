"""A site too small for the whole mix: how many of its racks the mix needs.

Each workload may run on its own within the site's racks (``diagnosis.infeasibility_reasons``
and ``inputs.owned.check_site`` catch the ones that cannot), yet the whole mix may not fit
together: P3 bounds the pool's power and height by racks × rack_kw and racks × rack_units.
The program then has no plan, and a bare "infeasible" tells the user nothing to change.
``site_reasons`` solves the same program with the racks left free and the fewest racks as
its objective: the least number of racks of the site's size that any plan needs, and what
the plan found there draws and takes, so the message can say what to raise.
"""

from __future__ import annotations

import math

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..result import SolveStatus
from .candidates import Candidates
from .lp import pulp
from .program import build, rack_space
from .solve import solve

MOST_RACKS = 100_000
"""Racks the fewest-racks program may use (the workload file's own upper limit)."""
SITE_TICKS = 200
"""Search checkpoints the fewest-racks solve may take once it holds a plan (a count, so the
same message on every machine): the message needs a count to raise site.racks to, not a
proof, and without --time-limit a large mix would otherwise search on to its gap."""


def site_reasons(wf: WorkloadFile, catalog: Catalog, cand: Candidates, solver: str,
                 seconds: float | None, gap: float) -> list[str]:
    """Why no plan fits the site, with what to change; [] when the site is not the reason
    (no site, or no plan even with racks left free) or no plan was found in ``seconds``.

    The program of ``build`` with racks r ∈ ℤ, r ≤ MOST_RACKS, minimises r: its proven
    bound, rounded up, is the fewest racks every plan needs (more than the site has, since
    the program with the site's racks has no plan). The search stops SITE_TICKS checkpoints
    after its first plan; when the plan it holds then takes more racks than the bound, the
    message says "at least" the bound and advises the plan's count, which is enough."""
    site = wf.site
    if site is None:
        return []
    free = wf.model_copy(update={"site": site.model_copy(update={"racks": MOST_RACKS})})
    m = build(free, catalog, cand, None)
    assert m.racks is not None  # define_site made it: the file has a site
    m.prob.sense = pulp.LpMinimize
    m.prob.setObjective(pulp.lpSum([m.racks]))
    out = solve(m, solver, seconds, gap, work_ticks=SITE_TICKS)
    if out.status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE) or out.bound is None:
        return []
    needed = max(site.racks + 1, math.ceil(out.bound - 1e-6))
    found = max(needed, round(m.racks.value() or 0))
    kw = (m.power.value() or 0.0) / 1000
    units = round(rack_space(m).value() or 0)
    racks = "rack" if site.racks == 1 else "racks"
    draws = f"draws {kw:,.1f} kW at full load and takes {units} U"
    if found > needed:
        need = (f"at least {needed} such racks; the plan found with the fewest uses {found} "
                f"(it {draws})")
    else:
        exact = "" if out.status == SolveStatus.OPTIMAL else "at least "
        need = f"{exact}{needed} such racks (the plan found with the fewest racks {draws})"
    message = (
        f"site: {site.racks} {racks} of {site.rack_kw:g} kW and {site.rack_units} U hold "
        f"{site.racks * site.rack_kw:g} kW and {site.racks * site.rack_units} U; every plan "
        f"for this mix needs {need}. To fix: raise site.racks to {found}, or site.rack_kw "
        "or site.rack_units, or plan fewer replicas")
    return [message]
