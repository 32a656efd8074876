"""A Monte Carlo sweep for its readers: the ``--json`` document (docs/json.md, "The
uncertainty document") and the terminal's page, in 80 columns, in a finance reader's words.
Pure functions of an ``UncertaintyRun``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..report.text import Column, table, wrap
from .stats import COSTS

if TYPE_CHECKING:
    from .run import UncertaintyRun

COST_LABELS = {"capex": "Capex", "tco": "TCO", "rent": "Rent", "horizon_cost": "Horizon cost"}
"""Each cost as the terminal and the workbook name it."""


def headline_cost(run: UncertaintyRun) -> str:
    """The cost the plan's options are ranked by: horizon cost over a horizon (H6), TCO
    under ``objective: tco``, else capex."""
    if run.wf.policy.horizon is not None:
        return "horizon_cost"
    return "tco" if run.wf.policy.objective == "tco" else "capex"


def uncertainty_document(run: UncertaintyRun) -> dict:
    """The ``--json`` document of ``sweep --samples``."""
    s = run.summary
    options = []
    for o in run.base.options:
        tally = s.options.get(o.rank)
        if tally is None:
            continue
        options.append({"rank": o.rank, "label": o.label, "planned_capex": round(o.capex, 2),
                        **tally.summary()})
    resolved = s.resolved.summary()
    return {
        "status": "ok", "name": run.wf.name, "currency": run.currency,
        "samples": run.unc.samples, "seed": run.unc.seed, "scenarios": s.scenarios,
        "planned_robust": _planned_robust(run),
        "headline_cost": headline_cost(run),
        "drawn_from": run.unc.model_dump(mode="json", exclude={"samples", "seed", "options"}),
        "options": options,
        "resolved": {"scenarios": resolved["scenarios"], "planned": resolved["holds"]["count"],
                     "costs": resolved["costs"],
                     "failures": [{"error": e, "count": k}
                                  for e, k in s.resolve_failed.most_common()]},
        "failed": [f for f in s.failed if f["error"]],
        "failed_count": len(s.failed),
        "files": [str(p) for p in run.files],
    }


def _planned_robust(run: UncertaintyRun) -> dict | None:
    """The file's own ``uncertainty.robust`` its options were planned to (None: plain)."""
    u = run.wf.uncertainty
    if u is None or u.robust is None:
        return None
    return {"target": u.robust, "samples": u.samples, "seed": u.seed}


def render_uncertainty(run: UncertaintyRun, width: int = 80) -> str:
    """The terminal's page: per option, the chance it holds and its costs; then the plan
    re-solved in each scenario; then the files."""
    width = min(width, 80)  # a page a finance reader prints or pastes
    doc = uncertainty_document(run)
    cur = doc["currency"]
    lines = wrap(f"Uncertainty sweep of {doc['name']}: {doc['scenarios']:,} scenarios "
                 f"(seed {doc['seed']}); money in {cur}. Each option keeps its servers and "
                 "placements; it holds when every memory rule, target and deadline is still "
                 "met at the scenario's estimates and demand"
                 + (", each job's true need within the whole card (no headroom)."
                    if run.unc.memory_line == "vram" else
                    ", each job's true need within the headroom line."), width)
    held_to = run.wf.uncertainty
    if held_to is not None and held_to.robust is not None:
        same = (held_to.samples, held_to.seed) == (run.unc.samples, run.unc.seed)
        lines += wrap(f"The file asks for uncertainty.robust {held_to.robust:g}: its options "
                      f"were planned to hold in {held_to.robust:.0%} of its own "
                      f"{held_to.samples:,} scenarios (seed {held_to.seed})"
                      + (", these same ones." if same else
                         "; these are other draws, so the shares below are out of sample."),
                      width)
    for o in doc["options"]:
        h = o["holds"]
        lines += ["", (f"Option {o['rank']} ({o['label'] or 'cheapest'}), capex "
                       f"{o['planned_capex']:,.0f} as planned")]
        lines += wrap(f"Holds in {h['probability']:.1%} of scenarios (95% interval "
                      f"{h['low']:.1%} to {h['high']:.1%}).", width, "  ", "  ")
        lines += ["  " + ln for ln in _cost_table(o["costs"], width - 2)]
        lines += _breaks_lines(o, width)
    r = doc["resolved"]
    if r["scenarios"]:
        lines += ["", (f"Re-solved in each scenario: {r['planned']:,} of "
                       f"{r['scenarios']:,} planned")]
        lines += ["  " + ln for ln in _cost_table(r["costs"], width - 2)]
        for f in r["failures"][:3]:
            lines += wrap(f"{f['count']:,} without a plan: {f['error']}", width, "  ", "    ")
    if doc["failed_count"]:
        lines += [""] + wrap(f"{doc['failed_count']:,} scenarios failed (listed in the rows "
                             f"file), e.g. {doc['failed'][0]['error'] if doc['failed'] else ''}",
                             width)
    lines += ["", "Worst 10% = the mean cost of the dearest tenth of scenarios (CVaR90)."]
    lines += wrap("Files: " + ", ".join(Path(p).as_posix() for p in doc["files"]), width)
    return "\n".join(lines) + "\n"


def _cost_table(costs: dict, width: int) -> list[str]:
    cols = [Column("Cost", "left"), Column("p10"), Column("p50"), Column("p90"),
            Column("Worst 10%")]
    rows = [[COST_LABELS[c], *(f"{costs[c][k]:,.0f}" for k in ("p10", "p50", "p90", "cvar90"))]
            for c in COSTS if costs.get(c)]
    return table(cols, rows, width) if rows else []


def _breaks_lines(o: dict, width: int) -> list[str]:
    first = o["breaks_first"][:3]
    if not first:
        return []
    said = "; ".join(f"{b['workload']} ({b['rule']}) in {b['share']:.1%}" for b in first)
    return wrap(f"Breaks first: {said}.", width, "  ", "    ")

