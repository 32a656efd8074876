"""Scenario sweeps as data: the grid of scenarios, each a validated copy of the input.

``build_sweep`` parses the axes (budget, growth, headroom, price multipliers, the cost of
owning, and over a horizon the rent price, its length and a job's runs) and turns their cartesian product into scenarios: policy overrides through
``with_policy``, price multipliers through a re-validated catalog (``axes``), so every
scenario is checked like a file the user wrote, before anything is solved. Scenarios that
differ only in budget form a group, which shares its inputs and its knee.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from ..errors import InputError
from ..inputs.catalog import Catalog
from ..inputs.scenario import with_policy
from ..inputs.workload import WorkloadFile
from .axes import (
    MAX_SCENARIOS,
    Prices,
    parse_prices,
    parse_values,
    priced_catalog,
)
from .timing import Timing, parse_time_axes, rented_catalog, timed_file

Owning = tuple[tuple[str, float | str], ...]
"""(name, value) of each cost-of-owning axis given: kwh_price, years, objective (P2)."""
Group = tuple[float, float, Prices, Owning, Timing]
"""(growth, headroom, price multipliers, owning, timing): everything about a scenario but
its budget."""


@dataclass(frozen=True)
class Scenario:
    """One point of the grid; ``budget`` None means the cheapest plan that serves all."""

    id: int
    budget: float | None
    growth: float
    headroom: float
    prices: Prices = ()
    owning: Owning = ()
    """Cost-of-owning axes (``--kwh-price``, ``--years``, ``--objective``) and their values."""
    timing: Timing = ()
    """Time axes (``--rent-price``, ``--horizon-months``, ``--runs``) and their values."""

    @property
    def group(self) -> Group:
        """Everything but the budget: scenarios of one group share their knee."""
        return (self.growth, self.headroom, self.prices, self.owning, self.timing)


@dataclass
class Sweep:
    """A validated grid: scenarios, and the inputs of each group (budget cleared)."""

    wf: WorkloadFile
    catalog: Catalog
    scenarios: tuple[Scenario, ...]
    groups: dict[Group, tuple[WorkloadFile, Catalog]]
    price_targets: tuple[str, ...] = ()

    def inputs(self, s: Scenario) -> tuple[WorkloadFile, Catalog]:
        """The scenario's validated workload file and catalog."""
        wf, cat = self.groups[s.group]
        return (wf if s.budget is None else with_policy(wf, budget=s.budget)), cat


def _group_file(wf: WorkloadFile, growth: float, headroom: float) -> WorkloadFile:
    """A validated copy with that growth and headroom and no budget (the full plan)."""
    try:
        copy = with_policy(wf, growth=growth, headroom=headroom)
    except InputError as exc:
        raise InputError(
            f"--growth {growth:g} / --headroom {headroom:g}: invalid policy", exc.problems
        ) from None
    policy = copy.policy.model_copy(update={"budget": None})
    try:  # the file-level rules (planned replicas cap) depend on growth
        return WorkloadFile.model_validate({**dict(copy), "policy": policy})
    except ValidationError as exc:
        problems = [e["msg"] for e in exc.errors()]
        raise InputError(f"--growth {growth:g} gives an invalid workload file", problems) from None


def build_sweep(
    wf: WorkloadFile,
    catalog: Catalog,
    budget: str | None = None,
    growth: str | None = None,
    headroom: str | None = None,
    prices: Sequence[str] = (),
    kwh_price: str | None = None,
    years: str | None = None,
    objective: str | None = None,
    rent_price: str | None = None,
    horizon_months: str | None = None,
    runs: Sequence[str] = (),
) -> Sweep:
    """Parse the axes and validate every scenario before anything is solved.

    An axis not given takes the file's value (its policy's budget, if any, or none). The
    time axes (``rent_price``, ``horizon_months``, ``runs``: ``WORKLOAD=N,...`` options)
    need a horizon in the file (``timing``).

    Raises:
        InputError: a bad axis, an unknown SKU, too many scenarios, or an invalid copy.
    """
    p = wf.policy
    budgets: tuple[float | None, ...] = (
        parse_values(budget, "--budget", 0.0, strict=True, example="500k") if budget is not None
        else (p.budget,)  # --budget "" is a mistake to report, not "no budget"
    )
    budgets = tuple(sorted(budgets, key=lambda b: -1 if b is None else b))
    growths = parse_values(growth, "--growth", 0.0, strict=True, example="1.25") if growth else (p.growth,)
    headrooms = parse_values(headroom, "--headroom", 0.0, below=1.0) if headroom else (p.headroom,)
    price_axes = parse_prices(prices, catalog)
    owning_axes = _owning_axes(wf, kwh_price, years, objective)
    time_axes = parse_time_axes(wf, catalog, rent_price, horizon_months, runs)
    total = (len(budgets) * len(growths) * len(headrooms) * math.prod(len(m) for _, m in price_axes)
             * math.prod(len(v) for _, v in owning_axes)
             * math.prod(len(v) for _, v in time_axes))
    if total > MAX_SCENARIOS:
        raise InputError(
            f"the sweep has {total:,} scenarios; at most {MAX_SCENARIOS:,}. "
            "To fix: use fewer steps or values"
        )
    targets = tuple(t for t, _ in price_axes)
    scenarios: list[Scenario] = []
    groups: dict[Group, tuple[WorkloadFile, Catalog]] = {}
    price_grid = list(itertools.product(*(m for _, m in price_axes)))
    names = tuple(n for n, _ in owning_axes)
    owning_grid = list(itertools.product(*(v for _, v in owning_axes)))
    time_names = tuple(n for n, _ in time_axes)
    time_grid = list(itertools.product(*(v for _, v in time_axes)))
    for g, h, mults, values, times in itertools.product(growths, headrooms, price_grid,
                                                        owning_grid, time_grid):
        pr = tuple(zip(targets, mults))
        own: Owning = tuple(zip(names, values))
        tm: Timing = tuple(zip(time_names, times))
        groups[(g, h, pr, own, tm)] = (
            timed_file(_owning_file(_group_file(wf, g, h), own), tm),
            rented_catalog(priced_catalog(catalog, pr), tm))
        for b in budgets:
            scenarios.append(Scenario(len(scenarios) + 1, b, g, h, pr, own, tm))
    return Sweep(wf, catalog, tuple(scenarios), groups, targets)


def _owning_axes(wf: WorkloadFile, kwh_price: str | None, years: str | None,
                 objective: str | None) -> tuple[tuple[str, tuple[float | str, ...]], ...]:
    """The cost-of-owning axes given (P2): kWh prices, horizons in years, objectives.

    Raises:
        InputError: a bad value, or an axis that needs ``policy.tco`` on a file without it
            and without ``--kwh-price``.
    """
    axes: list[tuple[str, tuple[float | str, ...]]] = []
    if kwh_price:
        axes.append(("kwh_price", parse_values(kwh_price, "--kwh-price", 0.0, below=100.0)))
    if years:
        values = parse_values(years, "--years", 1.0, below=31.0)
        if any(v != int(v) for v in values):
            raise InputError(f"--years: '{years}' must be whole years. To fix: e.g. 3,5,7")
        axes.append(("years", tuple(int(v) for v in values)))
    if objective:
        names = tuple(dict.fromkeys(o.strip() for o in objective.split(",")))
        bad = [o for o in names if o not in ("capex", "tco")]
        if bad:
            raise InputError(f"--objective: '{', '.join(bad)}' is not capex or tco. To fix: "
                             "write --objective capex,tco")
        axes.append(("objective", names))
    if axes and wf.policy.tco is None and not kwh_price:
        raise InputError(
            "--years and --objective need the cost of owning: the file has no policy.tco. "
            "To fix: add policy.tco (at least kwh_price) to the file, or pass --kwh-price")
    return tuple(axes)


def _owning_file(wf: WorkloadFile, owning: Owning) -> WorkloadFile:
    """A validated copy with the scenario's kWh price, years and objective (P2)."""
    if not owning:
        return wf
    values = dict(owning)
    tco = wf.policy.tco.model_dump() if wf.policy.tco is not None else {}
    tco.update({k: v for k, v in values.items() if k in ("kwh_price", "years")})
    policy = wf.policy.model_dump()
    policy["tco"] = tco
    if "objective" in values:
        policy["objective"] = values["objective"]
    try:
        return WorkloadFile.model_validate({**wf.model_dump(), "policy": policy})
    except ValidationError as exc:
        raise InputError("a cost-of-owning axis gives an invalid workload file",
                         [e["msg"] for e in exc.errors()]) from None
