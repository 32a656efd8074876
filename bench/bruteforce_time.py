"""Exhaustive search of the time model (H3-H5): the least horizon cost of a tiny file with a
horizon, found without the integer program.

Independent of ``solver/optimize`` (the run program lives in ``solver/optimize/runs``): it
reads the runs and the period grid of the input (``solver.horizon.runs``), the catalog and
the estimator (per-GPU VRAM, host RAM, tokens/s), and keeps its own arithmetic for
everything else. The stated model it enumerates:

- always-on workloads (everything that is not a run) are planned as today, on their own
  servers: ``bench.bruteforce.optimum`` of the file without its runs;
- a run on bought servers fills ``s`` whole servers of ONE configuration S with replicas of
  one GPU SKU and degree d, m per server (``bench/bruteforce_servers.py``: any GPU count,
  DIMMs and drives the catalog sells, or with ``full_servers`` only the run program's
  one full configuration per platform and GPU); n = s x m ≥ ⌈replicas x growth⌉;
- it occupies a range [a..b] of whole consecutive grid periods inside its window, and its
  tokens fit in it: D = tokens / (n x tokens/s x dp_eff x 3600) ≤ t_{b+1} - t_a, dp_eff
  the data-parallel efficiency its links give (N2, ``bruteforce_servers.efficiency``: 1 for
  one replica, a ring over the server's GPU link then its network, the policy's a cap);
- at every period, the servers of S used by the runs occupying it ≤ N_S, the servers of S
  bought (a run server holds one run at a time, never an always-on replica);
- or the run rents n replicas of degree d on a cloud GPU from t, its start or any grid cut
  inside its window: one when one finishes by the deadline (dp_eff 1), else max(min
  replicas, 2, ⌈tokens / (tokens/s x dp_eff x (deadline - t) x 3600)⌉) at the policy's
  dp_eff; active over [t, t + D), billed max(D, min_hours) hours per GPU; with max_gpus,
  the rented GPUs of a SKU active at any instant ≤ max_gpus;
- the run servers bought are one pod with its own fabric (N3, ``run_fabric``), and
  each configuration is also sold with NICs added (``with_nics``);
- cost = capex_share x (capex of always-on + Σ_S N_S x price_S + fabric) + rent; under
  ``objective: tco``, capex_share x (TCO of always-on + (1 + support % x years) x Σ_S N_S x
  price_S) + rent + Σ pool runs s x kW_S x D x utilisation x PUE x kWh price.

Every (configuration, degree, period range) is enumerated with the fewest servers that
finish the run in that range (more servers over the same periods never cost less), every
rented (GPU, degree, begin), and every combination across runs (depth first, cut where the
partial cost plus a lower bound of the rest reaches the best). Configurations and choices
are pruned only where another is never worse: as many replicas per server or more at no
higher price (under tco, no more watts per replica); the same configuration with no more
servers over no more periods (under tco, no more energy); the cheapest rental of an
uncapped SKU (it meets no other); a capped rental of no higher cost and no more GPUs over
a sub-interval.

Floats are compared as the program does: a run may end 1e-9 h past its range, or need up to
1 + 1e-9 replicas' worth of a rental. Scope (stated, not hidden): no site, inventory or
budget. Renting ignores ``policy.exclude``
(it names what not to buy, as owned servers are exempt) unless ``rent_excluded`` is False,
the run program's reading.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: the repository root holds the bench package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bruteforce import _without, optimum
from bench.bruteforce_servers import (
    Config,
    Way,
    efficiency,
    full_configs,
    per_server,
    run_fabric,
    run_ways,
    server_configs,
    usable_net,
    useful_configs,
    with_nics,
)
from solver.horizon.runs import RunSpec, is_run, period_cuts, runs_of
from solver.inputs.catalog import Catalog
from solver.inputs.ownership import HOURS_PER_YEAR
from solver.inputs.workload import Workload, WorkloadFile

EPS = 1e-6


@dataclass(frozen=True)
class Choice:
    """How one run is done: on ``servers`` servers of config ``config`` over periods
    ``first..last``, or rented (config None) on ``gpus`` GPUs of ``gpu`` over [begin, end)."""

    config: int | None
    servers: int = 0
    first: int = 0
    last: int = -1
    gpu: str = ""
    gpus: int = 0
    begin: float = 0.0
    end: float = 0.0
    rent: float = 0.0
    energy: float = 0.0
    """Under objective tco: the energy its servers draw while it runs."""


def _fewest(run: RunSpec, way: Way, m: int, hours: float, least: int, net: float,
            policy) -> tuple[int, float] | None:
    """The fewest servers (m replicas each, at least ``least``) whose replicas, at the
    data-parallel efficiency their links give (N2), train the run's tokens in ``hours``."""
    first = max(least, math.ceil(run.tokens / (m * way.rate * 3600 * hours) - 1e-9))
    for s in range(first, first + 65):
        eff = efficiency(way, m, s, net, policy)
        if eff > 0 and run.tokens / (s * m * way.rate * eff * 3600) <= hours + 1e-9:
            return s, eff
    return None


def pool_choices(run: RunSpec, ways: list[Way], disk_tb: float, configs: list[Config],
                 cuts: tuple[float, ...], line: float, kwh: float = 0.0,
                 policy=None, network=None) -> list[Choice]:
    """Every (config, degree, range of whole periods inside the run's window) with the
    fewest servers that finish its tokens there, and their energy (s x kW x D x ``kwh``,
    the price of a kWh at rated power); then only the choices no other of the same config
    beats (no more servers over a sub-range, no more energy)."""
    best: dict[tuple[int, int, int, float], int] = {}
    for ci, cfg in enumerate(configs):
        for way in ways:
            m = per_server(cfg, way, disk_tb, line)
            if m == 0:
                continue
            least = math.ceil(run.min_replicas / m)
            for a in range(len(cuts) - 1):
                if cuts[a] < run.start_h - EPS:
                    continue
                for b in range(a, len(cuts) - 1):
                    if cuts[b + 1] > run.deadline_h + EPS:
                        break
                    hours = cuts[b + 1] - cuts[a]
                    found = _fewest(run, way, m, hours, least, usable_net(cfg, network),
                                    policy)
                    if found is None:
                        continue
                    s, eff = found
                    d = run.tokens / (s * m * way.rate * eff * 3600)
                    key = (ci, a, b, round(s * cfg.power_w / 1000 * d * kwh, 6))
                    best[key] = min(best.get(key, s), s)
    out = []
    for (ci, a, b, e), s in best.items():
        beaten = any(c2 == ci and (a2, b2, s2, e2) != (a, b, s, e) and a2 >= a and b2 <= b
                     and s2 <= s and e2 <= e for (c2, a2, b2, e2), s2 in best.items())
        if not beaten:
            out.append(Choice(ci, servers=s, first=a, last=b, energy=e))
    return out


def rent_choices(run: RunSpec, w: Workload, catalog: Catalog, policy,
                 cuts: tuple[float, ...]) -> list[Choice]:
    """H5: every cloud GPU and degree the run's replicas fit on, beginning at the run's start
    or at any grid cut inside its window (so capped rentals can take turns), as many
    replicas as finish by the deadline from there, billed max(D, min_hours) h per GPU."""
    if policy.rent == "never":
        return []
    out = []
    begins = [run.start_h] + [t for t in cuts if run.start_h + EPS < t < run.deadline_h - EPS]
    skus = {g.sku: g for g in catalog.gpus}
    for price, begin in itertools.product(catalog.cloud, begins):
        g = skus.get(price.gpu)
        if g is None:
            continue
        for way in run_ways(w, [g], policy):
            span = run.deadline_h - begin
            n, eff = 1, 1.0  # one replica alone has no data-parallel loss (N2)
            if run.min_replicas > 1 or run.tokens / (way.rate * 3600 * span) - 1e-9 > 1:
                eff = policy.data_parallel_efficiency
                n = max(run.min_replicas, 2, math.ceil(
                    run.tokens / (way.rate * eff * span * 3600) - 1e-9))
            hours = run.tokens / (n * way.rate * eff * 3600)
            gpus = n * way.degree
            if price.max_gpus is not None and gpus > price.max_gpus:
                continue
            billed = max(hours, price.min_hours or 0.0)
            out.append(Choice(None, gpu=g.sku, gpus=gpus, begin=begin, end=begin + hours,
                              rent=price.per_gpu_hour * gpus * billed))
    return _unbeaten_rentals(out, {c.gpu for c in catalog.cloud if c.max_gpus is None})


def _unbeaten_rentals(out: list[Choice], uncapped: set[str]) -> list[Choice]:
    """The rentals no other beats: an uncapped rental meets no other, so only the cheapest
    of them matters; a capped one is beaten by one of its SKU at no higher cost that holds
    no more GPUs over a sub-interval (of two alike, the first is kept)."""
    def beats(o: Choice, c: Choice) -> bool:
        return (o.gpu == c.gpu and o.rent <= c.rent + 1e-9 and o.gpus <= c.gpus
                and o.begin >= c.begin - EPS and o.end <= c.end + EPS)

    capped = [c for c in out if c.gpu not in uncapped]
    kept = [c for i, c in enumerate(capped) if not any(
        beats(o, c) and (not beats(c, o) or j < i) for j, o in enumerate(capped) if j != i)]
    return kept + sorted((c for c in out if c.gpu in uncapped), key=lambda c: c.rent)[:1]


def within_rent_cap(rented: list[Choice], new: Choice, cap: int | None) -> bool:
    """H5: over [begin, end) of ``new``, the GPUs of its SKU rented at once ≤ cap (their
    sum only rises where a rental begins, so checking each begin inside is enough)."""
    if cap is None:
        return True
    same = [r for r in rented if r.gpu == new.gpu] + [new]
    for t in {r.begin for r in same if new.begin - EPS <= r.begin < new.end - EPS}:
        if sum(r.gpus for r in same if r.begin <= t + EPS and t < r.end - EPS) > cap:
            return False
    return True


def search(choices: list[list[Choice]], prices: list[float], share: float,
           caps: dict[str, int | None], periods: int,
           fabric: Callable[[list[int]], float] | None = None
           ) -> tuple[float, list[Choice]] | None:
    """The least Σ_S share x N_S x price_S + share x fabric(N) + rent (+ energy) over one
    choice per run, and those choices in run order (None: a run has no choice). Depth
    first; a partial cost never falls (the fabric, never negative, is added once every run
    is placed), so it cuts at the best so far."""
    if any(not c for c in choices):
        return None
    order = sorted(range(len(choices)), key=lambda i: len(choices[i]))
    # Cheapest alone first, so a good schedule is found early and cuts the rest.
    choices = [sorted(cs, key=lambda c: c.rent + c.energy if c.config is None else
                      c.energy + share * prices[c.config] * c.servers) for cs in choices]
    use = [[0] * periods for _ in prices]
    bought = [0] * len(prices)
    rented: list[Choice] = []
    picked: dict[int, Choice] = {}
    best: tuple[float, list[Choice]] = (math.inf, [])

    def future(depth: int) -> float:
        """A lower bound on what the runs not yet placed add: each pays at least its least
        rent or energy, and the total capex grows at least as much as for any one of them
        placed alone now (capex is a maximum over periods: it never falls as runs join)."""
        least, most = 0.0, 0.0
        for i in order[depth:]:
            alone = [c.rent + c.energy for c in choices[i]]
            grow = [a + (0.0 if c.config is None else share * prices[c.config] * max(
                0, max(use[c.config][c.first:c.last + 1]) + c.servers - bought[c.config]))
                for a, c in zip(alone, choices[i])]
            least += min(alone)
            most = max(most, min(grow) - min(alone))
        return least + most

    def visit(depth: int, cost: float) -> None:
        nonlocal best
        if cost >= best[0] - 1e-9 or cost + future(depth) >= best[0] - 1e-9:
            return
        if depth == len(order):
            cost += share * fabric(bought) if fabric is not None else 0.0
            if cost < best[0] - 1e-9:
                best = (cost, [picked[i] for i in range(len(choices))])
            return
        for c in choices[order[depth]]:
            picked[order[depth]] = c
            if c.config is None:
                if within_rent_cap(rented, c, caps.get(c.gpu)):
                    rented.append(c)
                    visit(depth + 1, cost + c.rent)
                    rented.pop()
                continue
            row, before = use[c.config], bought[c.config]
            for p in range(c.first, c.last + 1):
                row[p] += c.servers
            bought[c.config] = max(before, max(row[c.first:c.last + 1]))
            visit(depth + 1, cost + c.energy
                  + share * prices[c.config] * (bought[c.config] - before))
            for p in range(c.first, c.last + 1):
                row[p] -= c.servers
            bought[c.config] = before

    visit(0, 0.0)
    return None if best[0] == math.inf else best


def _scope(wf: WorkloadFile) -> None:
    """What the model enumerated here leaves out: refuse it rather than answer wrong."""
    policy = wf.policy
    if policy.horizon is None:
        raise ValueError("brute_force_time needs policy.horizon (use bench.bruteforce)")
    if wf.site is not None or wf.inventory or policy.budget:
        raise ValueError("brute_force_time: a file without site, inventory or budget only")


def always_on_cost(wf: WorkloadFile, catalog: Catalog) -> float | None:
    """Capex (TCO under ``objective: tco``) of the workloads that run all the time, planned
    as today (None: no plan)."""
    works = [w for w in wf.workloads if not is_run(w, wf)]
    if not works:
        return 0.0
    return optimum(wf.model_copy(update={"workloads": works}), catalog)


@dataclass(frozen=True)
class Best:
    """The least horizon cost and a schedule that reaches it."""

    cost: float
    always_on: float
    """Capex (TCO) of the always-on workloads, before capex_share."""
    runs: tuple[RunSpec, ...]
    picks: tuple[Choice, ...]
    """One per run, in the order of ``runs``."""
    configs: tuple[Config, ...]
    cuts: tuple[float, ...]

    def lines(self) -> list[str]:
        """The schedule, one line per run."""
        out = []
        for r, c in zip(self.runs, self.picks):
            if c.config is None:
                out.append(f"{r.key}: rent {c.gpus} x {c.gpu} over [{c.begin:g}, {c.end:.2f}) h "
                           f"for {c.rent:.2f}")
            else:
                cfg = self.configs[c.config]
                out.append(f"{r.key}: {c.servers} x {cfg} over [{self.cuts[c.first]:g}, "
                           f"{self.cuts[c.last + 1]:g}] h, energy {c.energy:.2f}")
        return out


def brute_force_schedule(wf: WorkloadFile, catalog: Catalog, *, full_servers: bool = False,
                         rent_excluded: bool = True) -> Best | None:
    """The least horizon cost (capex x capex_share + rent) of ``wf`` over every schedule of
    the stated model, with one schedule reaching it; None when no plan exists.
    ``full_servers``: only the run program's configurations (``full_configs``);
    ``rent_excluded`` False: no GPU of ``policy.exclude`` is rented either."""
    _scope(wf)
    runs = runs_of(wf)
    assert runs is not None
    on = always_on_cost(wf, catalog)
    if on is None:
        return None
    policy, line = wf.policy, 1 - wf.policy.headroom
    tco = policy.tco if policy.objective == "tco" else None
    # P2 under tco: a kWh at rated power, and support over the life as a share of capex.
    kwh = tco.utilisation * tco.pue * tco.kwh_price if tco else 0.0
    support = (tco.support_pct_per_year or 0.0) * tco.years if tco else 0.0
    bought = _without(catalog, set(policy.exclude))
    cuts = period_cuts(runs)
    by_name = {w.name: w for w in wf.workloads}
    gpus = [g for g in bought.gpus if any(p.takes(g) for p in bought.platforms)]
    ways = [run_ways(by_name[r.workload], gpus, policy) for r in runs.runs]
    disk = {w.name: w.local_tb + w.pool_tb for w in wf.workloads}
    fits = [(way, disk[r.workload]) for r, ws in zip(runs.runs, ways) for way in ws]
    if full_servers:
        once = {r.workload: ws for r, ws in zip(runs.runs, ways)}
        configs = with_nics(full_configs(bought, [(w, disk[n]) for n, ws in once.items()
                                                  for w in ws], line), bought, full=True)
    else:
        # NICs as the run program offers them (per kind the fastest card in every free
        # slot): every card at every count on every server the catalog sells is out of
        # reach on the default catalog, and this is still a relaxation of the program.
        configs = useful_configs(with_nics(server_configs(bought), bought, full=True), fits,
                                 line, energy=tco is not None)
    choices = [
        pool_choices(r, ws, disk[r.workload], configs, cuts, line, kwh, policy,
                     by_name[r.workload].network or policy.network)
        + rent_choices(r, by_name[r.workload], catalog if rent_excluded else bought, policy,
                       cuts)
        for r, ws in zip(runs.runs, ways)]
    caps = {c.gpu: c.max_gpus for c in catalog.cloud}
    share = runs.frame.capex_share
    # N3: the run servers' switches, bought once, and (under tco) their power all the time.
    switch_kwh = kwh * HOURS_PER_YEAR * tco.years if tco else 0.0

    def fabric(n: list[int]) -> float:
        price, watts = run_fabric(configs, n, bought)
        return price + (switch_kwh * watts / 1000 / (1 + support) if tco else 0.0)
    found = search(choices, [c.price for c in configs], share * (1 + support), caps,
                   len(cuts) - 1, fabric)
    if found is None:
        return None
    return Best(share * on + found[0], on, runs.runs, tuple(found[1]), tuple(configs), cuts)


def brute_force_time(wf: WorkloadFile, catalog: Catalog, *, full_servers: bool = False,
                     rent_excluded: bool = True) -> float | None:
    """Least horizon cost of ``wf`` (``brute_force_schedule``); None when no plan exists."""
    best = brute_force_schedule(wf, catalog, full_servers=full_servers,
                                rent_excluded=rent_excluded)
    return None if best is None else best.cost


if __name__ == "__main__":
    from bench.generate import DEFAULT_CATALOG
    from solver.errors import PlanBuyError
    from solver.inputs.loading import load_catalog, load_workloads

    args = sys.argv[1:]
    explain = "--explain" in args
    args = [a for a in args if a != "--explain"]
    if len(args) not in (1, 3) or (len(args) == 3 and args[1] != "--catalog"):
        print("usage: python bench/bruteforce_time.py FILE.yaml [--catalog CATALOG.yaml] "
              "[--explain]", file=sys.stderr)
        sys.exit(2)
    try:
        best = brute_force_schedule(load_workloads(Path(args[0])),
                                    load_catalog(Path(args[2]) if len(args) == 3 else
                                                 DEFAULT_CATALOG))
    except (PlanBuyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    print("no plan" if best is None else f"{best.cost:.2f}")
    if best is not None and explain:
        print(f"always-on capex {best.always_on:.2f}")
        print("\n".join(best.lines()))
