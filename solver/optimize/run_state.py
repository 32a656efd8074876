"""What the stages of one ``plan`` share (``Run``): the inputs, the program, the clock,
the options found so far; and the purchase counts the distinctness cuts are made of."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..check import check_plan
from ..errors import CheckError
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..plan_types import PlanOption, Server
from .budget import Budget
from .candidates import Candidates
from .expand import Expansion
from .plan_value import expansion_own
from .program import Model
from .solve import Outcome
from .targets import target_figures


def purchase_counts(option_servers: Iterable[Server], platforms: bool) -> dict[str, int]:
    """GPUs by SKU (and servers by platform) of a physical plan."""
    out: dict[str, int] = {}
    for s in option_servers:
        if s.owned:
            continue  # not a purchase (P4)
        if platforms:
            out[s.platform] = out.get(s.platform, 0) + 1
        if s.gpu and s.gpu_count:
            out[s.gpu] = out.get(s.gpu, 0) + s.gpu_count
    return out


def program_counts(outcome: Outcome, cand: Candidates) -> dict[str, int]:
    """Servers by platform and GPUs by SKU as the program bought them (its G_t, not expanded)."""
    types = {t.key: t for t in cand.types}
    out: dict[str, int] = {}
    for key, n in outcome.n.items():
        if n and not types[key].owned:
            t = types[key]
            out[t.platform.sku] = out.get(t.platform.sku, 0) + n
            if t.gpu is not None and outcome.gpus.get(key):
                out[t.gpu.sku] = out.get(t.gpu.sku, 0) + outcome.gpus[key]
    return out


ProgressFn = Callable[[str, "float | None"], None]
"""Told each stage as it starts ("option 2: fewest servers") and the best cost so far."""


@dataclass
class Run:
    """What the stages of one ``plan`` share: inputs, the program, the clock, the options."""

    wf: WorkloadFile
    catalog: Catalog
    cand: Candidates
    m: Model
    solver: str
    clock: Budget
    gap: float
    top: int
    time_limit: float | None
    progress: ProgressFn
    options: list[PlanOption] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rank1_bound: float | None = None
    rank1_objective: float | None = None
    rank1_ticks: int = 0
    """Search checkpoints the cheapest plan's solves used (sizes the alternatives' caps)."""
    rank1_drives: float = 0.0
    """What the drives of the program's cheapest plan, whole on each server, cost beyond its
    drive configurations, when that alone kept the plan from the bound (0: it did not)."""
    rank1_limited: bool = False
    """Rank 1's search was cut by the time limit: its last solve stopped on its work or
    clock limit before proving its plan, or a stage was skipped for time."""
    last: Outcome | None = None
    """The solve behind the cheapest plan (its counts seed the ranked mixes' first cut)."""

    @property
    def budget(self) -> float | None:
        return self.wf.policy.budget

    @property
    def objective(self) -> str:
        """What the program minimises: ``capex`` or ``tco`` (policy.objective)."""
        return self.wf.policy.objective

    def value(self, option: PlanOption) -> float:
        """An option's objective value: TCO under ``objective: tco``, else capital cost."""
        return option.objective_value(self.objective)

    @property
    def share(self) -> float:
        """The share of the work budget left that the next option may use: an equal part
        for each option still wanted."""
        return 1.0 / max(1, self.top - len(self.options))

    def best_cost(self) -> float | None:
        return min((self.value(o) for o in self.options), default=None)

    def option(self, out: Outcome, exp: Expansion, label: str) -> PlanOption:
        """The expanded plan as the next option (not checked)."""
        wf = self.wf
        unserved = tuple(w.name for w in wf.workloads if not out.serve.get(w.name, 1))
        return PlanOption(
            rank=len(self.options) + 1, total_cost=exp.cost, servers=exp.servers,
            lines=exp.lines, placements=exp.placements, unserved=unserved,
            lower_bound=out.bound, throughput=target_figures(exp.placements, wf, unserved),
            label=label, own=expansion_own(exp, wf, self.catalog), idle=exp.idle,
            fabric=exp.fabric,
        )

    def repair_value(self, out: Outcome, exp: Expansion) -> float | None:
        """Capital cost of an expanded plan with its drives priced as the program priced
        them (the program's drive rows are sums: rounding drives per server is not a
        repair); None under ``objective: tco``, where drives move more than capex."""
        if self.objective != "capex":
            return None
        return exp.cost - exp.drive_extra

    def checked(self, out: Outcome, exp: Expansion, label: str) -> PlanOption:
        """The expanded plan as an option, checked (a failure is a bug: CheckError)."""
        option = self.option(out, exp, label)
        problems = check_plan(option, self.wf, self.catalog)
        if problems:
            raise CheckError(f"plan-buy produced an invalid plan (a bug; please report it) "
                             f"for option {option.rank}", problems)
        return option


def cut_ub(run: Run) -> int:
    """Big-M of the distinctness cuts; targets (T3) let replica counts, so GPU counts, grow."""
    cand, wf = run.cand, run.wf
    return sum(cand.replicas.values()) + 64 + sum(
        (cand.most_replicas(name) - cand.replicas[name]) * wf.policy.max_parallel_degree
        for name in cand.targets)

