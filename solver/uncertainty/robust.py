"""``plan-buy plan FILE --robust P``: a pool that holds in at least a share P of the sampled
scenarios, and what that robustness costs over the plain plan.

The method (docs/sweep.md, "A plan that holds with a chosen chance"):

1. Draw the file's N scenarios (``uncertainty:``, the sweep's own draws) and read each as a
   world (``rules/chance.py``): the file at its drawn growth with each estimate's true figure.
2. Plan the file as it is; count the worlds its option 1 holds in (``evaluate.verdict``,
   the sweep's reading: the plan checker run on the option in the world). If it holds in
   k = ⌈P × N⌉ or more, it is the answer, at no extra cost.
3. Otherwise, without a horizon, plan the file held to the worlds (``uncertainty.robust``
   set): the program's U1 rows (``optimize/program/chance.py``) choose which k worlds the
   pool must hold in, with the rest of the plan. The answer is the cheapest plan that keeps
   every rule at the file's own figures and holds in k worlds: proven optimal (or reported
   feasible with its gap) like any plan, and checked by ``check/chance.py``.
4. Over a horizon (the runs' program has no U1 rows yet), by levels: for a level q in
   ``LEVELS`` (from the least), size the file for the q-th quantile of every uncertain
   input at once (``sized_file``), plan it, and count; the first level whose plan holds in
   k worlds is the answer. That answer is not proven the cheapest that holds that often.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..check.verdict import held_in
from ..errors import InfeasibleError, PlanBuyError
from ..inputs.catalog import Catalog
from ..inputs.measurements import Measurement
from ..inputs.scenario import with_policy
from ..inputs.workload import WorkloadFile
from ..optimize.pipeline import plan
from ..optimize.runs.plan import plan_over_time
from ..optimize.solve import DEFAULT_GAP
from ..result import PlanResult
from ..rules.chance import required
from .draws import Draw, draw
from .scenario import Cells, error
from .spec import Uncertainty
from .stats import wilson
from .worlds import World, worlds

LEVELS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
"""Quantile levels tried, least first."""


@dataclass(frozen=True)
class RobustInfo:
    """What ``--robust`` found: the level its plan was sized at and how often it holds."""

    target: float
    samples: int
    seed: int
    level: float | None
    """Quantile the answer was sized at (None: the plain plan already holds)."""
    held: int
    """Scenarios the answer's option 1 holds in."""
    plain_held: int
    plain_cost: float
    """The plain plan's option 1: scenarios held, and what it costs (its objective)."""
    cost: float
    """The answer's option 1 cost (its objective: capex, TCO or horizon cost)."""
    tried: tuple[tuple[float, float, int], ...] = ()
    """(level, cost, scenarios held) of each level planned."""
    met: bool = True
    """Whether some level reached the target (else the answer is the level that held most)."""
    method: str = "plain"
    """plain (the plain plan holds often enough), program (U1's rows: the cheapest such
    pool) or levels (over a horizon: sized at a quantile level)."""
    left_out: tuple[str, ...] = ()
    """Under a budget: workloads the plain plan serves and the answer leaves out (a plan
    holds where it serves less: serving them too would not fit the budget that often)."""

    @property
    def share(self) -> float:
        return self.held / self.samples

    def to_json(self) -> dict:
        low, high = wilson(self.held, self.samples)
        return {"target": self.target, "samples": self.samples, "seed": self.seed,
                "met": self.met, "method": self.method, "level": self.level,
                "left_out": list(self.left_out), "holds": round(self.share, 4),
                "holds_interval": [round(low, 4), round(high, 4)],
                "plain_holds": round(self.plain_held / self.samples, 4),
                "plain_cost": round(self.plain_cost, 2), "cost": round(self.cost, 2),
                "extra_cost": round(self.cost - self.plain_cost, 2),
                "levels": [{"level": lv, "cost": round(c, 2),
                            "holds": round(h / self.samples, 4)} for lv, c, h in self.tried]}

    def lines(self, currency: str) -> list[str]:
        """The notes a reader sees in the terminal and the workbook (a note ends without a
        full stop: the terminal adds it)."""
        return [line.rstrip(".") for line in self._lines(currency)]

    def _lines(self, currency: str) -> list[str]:
        low, high = wilson(self.held, self.samples)
        head = (f"Robust to {self.target:.0%} of {self.samples:,} sampled scenarios "
                f"(seed {self.seed}): option 1 holds in {self.share:.1%} of them (95% interval "
                f"{low:.1%} to {high:.1%}).")
        plain = self.plain_held / self.samples
        if self.method == "plain":
            return [head + " The plain plan already holds that often: robustness costs "
                           "nothing more."]
        extra = self.cost - self.plain_cost
        pct = extra / self.plain_cost if self.plain_cost else 0.0
        if self.method == "program":
            need = math.ceil(self.target * self.samples - 1e-9)
            out = [head + f" It is the cheapest pool that keeps every rule at the file's own "
                          f"figures and holds in at least {need:,} of them; the plain plan "
                          f"({currency} {self.plain_cost:,.0f}) holds in {plain:.1%}: "
                          f"robustness costs {currency} {extra:,.0f} ({pct:+.1%})."]
            if self.left_out:
                out.append(f"Within the budget, holding that often leaves out "
                           f"{', '.join(self.left_out)}, which the plain plan serves.")
            return out
        out = [head + f" It is sized for the {self.level:.0%} quantile of every estimate error "
                      f"and of demand; the plain plan ({currency} {self.plain_cost:,.0f}) holds "
                      f"in {plain:.1%}: robustness costs {currency} {extra:,.0f} "
                      f"({pct:+.1%})."]
        out.append("Over a horizon the runs' program has no chance rows yet, so this pool is "
                   "sized, not proven the cheapest that holds that often.")
        if not self.met:
            out.append(f"No level tried reaches {self.target:.0%}: this is the plan that holds "
                       "most often. To fix: a lower --robust, or narrower error ranges "
                       "(uncertainty.estimates) if you have measurements.")
        return out


def sized_file(wf: WorkloadFile, cells: Cells, unc: Uncertainty, draws: list[Draw],
               level: float) -> WorkloadFile:
    """The file sized for ``level`` (module docstring, step 3)."""
    growths = sorted(d.growth for d in draws)
    growth = growths[min(len(growths) - 1, max(0, math.ceil(level * len(growths)) - 1))]
    worst = 0.0  # the most a true need exceeds its estimate, as a fraction of the truth
    workloads = []
    for w in wf.workloads:
        own = {(m.gpu, m.degree) for m in w.measurements or ()}
        added = []
        for gpu, d, _, rate, *_ in cells.by_workload.get(w.name, ()):
            if (gpu, d) in own:
                continue
            worst = max(worst, -error(unc.estimates, "peak_memory", w.kind, d, 1.0 - level))
            if rate:
                speed = rate / (1 + error(unc.estimates, "tokens_per_s", w.kind, d, level))
                added.append(Measurement.model_construct(gpu=gpu, degree=d, peak_gb=None,
                                                         meter=None,
                                                         tokens_per_s=round(speed, 6)))
        workloads.append(w.model_copy(update={"measurements": (*(w.measurements or ()),
                                                               *added)}) if added else w)
    # need / (1 + e) <= line x card with need <= (1 - h') card: 1 - h' = line (1 + e).
    line = 1.0 if unc.memory_line == "vram" else 1.0 - wf.policy.headroom
    headroom = max(wf.policy.headroom, 1.0 - line * (1.0 - worst))
    out = with_policy(wf, growth=round(max(growth, wf.policy.growth), 6),
                      headroom=round(min(headroom, 0.9), 6))
    return out.model_copy(update={"workloads": workloads})


Planner = Callable[[WorkloadFile], PlanResult]
"""How a file is planned (``plan-buy plan``'s own way: ``optimize.answer``)."""


def default_planner(catalog: Catalog, top: int = 3, solver: str | None = None,
                    time_limit: float | None = None, gap: float = DEFAULT_GAP) -> Planner:
    """``plan`` (or ``plan_over_time`` with a horizon) with these settings."""
    def run(wf: WorkloadFile) -> PlanResult:
        planner = plan if wf.policy.horizon is None else plan_over_time
        return planner(wf, catalog, top=top, solver=solver, time_limit=time_limit, gap=gap)
    return run


def plan_robust(wf: WorkloadFile, catalog: Catalog, unc: Uncertainty, target: float,
                planner: Planner,
                tell: Callable[[str, float | None], None] | None = None) -> PlanResult:
    """The cheapest plan whose option 1 holds in ``target`` of the sampled scenarios (the
    module docstring), with ``robust`` set and its lines among the notes. ``tell`` hears
    each stage (the terminal's progress line).

    Raises:
        PlanBuyError: the plain plan fails (infeasible, solver); without a horizon, no plan
            holds in that many scenarios (InfeasibleError).
    """
    if wf.uncertainty is not None and wf.uncertainty.robust is not None:
        wf = wf.model_copy(update={"uncertainty": wf.uncertainty.model_copy(
            update={"robust": None})})  # the plain plan: the file's own robust is the target
    plain = planner(wf)
    if not plain.options:
        raise InfeasibleError("no plan to make robust", [])
    held_to = wf.model_copy(update={"uncertainty": unc.model_copy(update={"robust": target})})
    objective = wf.policy.objective
    plain_cost = plain.options[0].objective_value(objective)
    say = tell or (lambda stage, best: None)
    say(f"the plain plan in {unc.samples:,} sampled scenarios", plain_cost)
    sample = worlds(held_to, catalog)
    need = required(target, unc.samples)
    plain_held = held_in(plain.options[0], (w.wf for w in sample), catalog)
    info = RobustInfo(target, unc.samples, unc.seed, None, plain_held, plain_held, plain_cost,
                      plain_cost)
    if plain_held >= need:
        return _with(plain, info, catalog)
    if wf.policy.horizon is None:
        say(f"the cheapest pool that holds in {need:,} of them", None)
        try:
            result = planner(held_to)
        except InfeasibleError as exc:
            raise InfeasibleError(
                f"no plan holds in {need} of the {unc.samples} sampled scenarios "
                f"({target:.0%}): in more than {unc.samples - need} of them some job cannot "
                "run at all (its true need fits no card, or no card meets its latency). To "
                "fix: a lower --robust, or narrower error ranges (uncertainty.estimates)",
                exc.problems) from None
        best = result.options[0]
        lost = tuple(w for w in best.unserved if w not in plain.options[0].unserved)
        info = replace(info, method="program", held=held_in(best, (w.wf for w in sample), catalog),
                       cost=best.objective_value(objective), left_out=lost)
        return _with(result, info, catalog)
    return _by_levels(wf, catalog, unc, planner, plain, info, sample, need)


def _by_levels(wf: WorkloadFile, catalog: Catalog, unc: Uncertainty, planner: Planner,
               plain: PlanResult, info: RobustInfo, sample: tuple[World, ...],
               need: int) -> PlanResult:
    """Over a horizon: the plan of the least level whose option 1 holds in ``need`` worlds."""
    cells = Cells.of(wf, catalog)
    draws = [draw(unc, wf, i) for i in range(unc.samples)]
    objective = wf.policy.objective
    best: tuple[PlanResult, float, int] | None = None
    tried: list[tuple[float, float, int]] = []
    for level in LEVELS:
        sized = sized_file(wf, cells, unc, draws, level)
        try:
            result = planner(sized)
        except InfeasibleError:
            break
        if not result.options:
            break
        held = held_in(result.options[0], (w.wf for w in sample), catalog)
        cost = result.options[0].objective_value(objective)
        tried.append((level, cost, held))
        if best is None or held > best[2]:
            best = (result, level, held)
        if held >= need:
            break
    if best is None:
        raise PlanBuyError("no sized plan exists at any level: the plain plan is the only one. "
                           "To fix: a lower --robust")
    result, level, held = best
    info = replace(info, method="levels", level=level, held=held, cost=result.options[0]
                   .objective_value(objective), tried=tuple(tried), met=held >= need)
    return _with(result, info, catalog, wf)


def _with(result: PlanResult, info: RobustInfo, catalog: Catalog,
          wf: WorkloadFile | None = None) -> PlanResult:
    """``result`` with ``robust`` and its notes; a sized plan's placements lose the
    "measured" marks of the figures sizing added (only the file's own measurements are)."""
    if wf is not None:
        own = {(w.name, m.gpu, m.degree) for w in wf.workloads for m in w.measurements or ()}
        options = tuple(replace(o, placements=tuple(
            p if (p.workload, p.gpu, p.gpus) in own else replace(p, measured=())
            for p in o.placements)) for o in result.options)
        result = replace(result, options=options)
    return replace(result, robust=info, notes=(*info.lines(catalog.currency), *result.notes))
