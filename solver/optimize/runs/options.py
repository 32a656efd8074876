"""The ways one run can be done (H3, H5): on whole run servers of one configuration over
consecutive periods, or on rented GPUs.

A way on bought servers (``PoolWay``) is (configuration S, replica option o, servers s, first
period a): its replicas are n = s · m (m = replicas of o one S holds), it begins at the
period's start and occupies periods a..b, b the first whose end covers its hours. A run
either begins at its start, with the server counts that finish it by some later period with
strictly fewer servers than by an earlier one (more servers over the same periods is never
better), or begins at a later period and runs to its deadline on the fewest servers that
finish it there (it waits for servers to free). This is the time model's restriction
(docs/solver.md): a run does not both start late and end early. A rented way (``RentWay``) runs the fewest replicas that finish by the deadline.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from ...horizon.runs import RunSpec
from ...inputs.catalog import Catalog
from ...inputs.workload import Policy, Workload
from ...rules.time import billed_hours, rent_cost, replicas_to_finish, run_hours
from ..replicas import ReplicaOption
from .fleet import RunServer, holds

MAX_SERVERS_PER_RUN = 10_000


@dataclass(frozen=True)
class PoolWay:
    """A run on ``servers`` bought servers of configuration ``config``."""

    run: RunSpec
    option: ReplicaOption
    config: int
    """Index of its RunServer."""
    servers: int
    replicas: int
    begin_h: float
    end_h: float
    periods: tuple[int, int]
    """First and last period it occupies (inclusive)."""


@dataclass(frozen=True)
class RentWay:
    """A run on rented GPUs of the option's SKU."""

    run: RunSpec
    option: ReplicaOption
    replicas: int
    begin_h: float
    end_h: float
    billed_h: float
    cost: float
    per_gpu_hour: float
    periods: tuple[int, int]


def covering(cuts: tuple[float, ...], begin: float, end: float) -> tuple[int, int]:
    """The first and last periods of the grid that [begin, end) meets."""
    a = bisect.bisect_right(cuts, begin + 1e-9) - 1
    b = bisect.bisect_left(cuts, end - 1e-9) - 1
    return a, max(a, b)


def pool_ways(run: RunSpec, w: Workload, options: list[ReplicaOption],
              configs: tuple[RunServer, ...], cuts: tuple[float, ...],
              policy: Policy, efficiency: float) -> list[PoolWay]:
    """Every kept way to do ``run`` on bought run servers."""
    out: list[PoolWay] = []
    first = bisect.bisect_left(cuts, run.start_h - 1e-9)
    for o in options:
        tau = o.tokens_per_s
        if not tau:
            continue
        for ci, cfg in enumerate(configs):
            m = holds(cfg, o, w, policy)
            if m < 1:
                continue
            for a in range(first, len(cuts) - 1):
                if cuts[a] >= run.deadline_h - 1e-9:
                    break
                ways = _ways_from(run, o, ci, m, a, cuts, tau, efficiency)
                # From its start a run may end in any period; from a later period it runs
                # to its deadline on the fewest servers (it waits for servers to free).
                out += ways if a == first else ways[-1:]
    return out


def _ways_from(run: RunSpec, o: ReplicaOption, ci: int, m: int, a: int,
               cuts: tuple[float, ...], tau: float, efficiency: float) -> list[PoolWay]:
    """The kept ways beginning at period ``a``: fewer servers for each later last period."""
    out: list[PoolWay] = []
    fewest = math.inf
    for b in range(a, len(cuts) - 1):
        if cuts[b + 1] > run.deadline_h + 1e-9:
            break
        n = max(run.min_replicas,
                replicas_to_finish(run.tokens, cuts[b + 1] - cuts[a], tau, efficiency))
        s = math.ceil(n / m)
        if s >= fewest or s > MAX_SERVERS_PER_RUN:
            continue
        fewest = s
        hours = run_hours(run.tokens, s * m, tau, efficiency)
        begin = cuts[a]
        out.append(PoolWay(run, o, ci, s, s * m, begin, begin + hours,
                           covering(cuts, begin, begin + hours)))
    return out


def rent_ways(run: RunSpec, options: list[ReplicaOption], catalog: Catalog,
              cuts: tuple[float, ...], efficiency: float) -> list[RentWay]:
    """The rented ways: per cloud GPU and degree, the fewest replicas that finish by the
    deadline from the run's start (and, where the SKU has max_gpus, from every later period
    start too, so capped rentals can take turns)."""
    out: list[RentWay] = []
    prices = {c.gpu: c for c in catalog.cloud}
    for o in options:
        c = prices.get(o.gpu or "")
        if c is None or not o.tokens_per_s:
            continue
        starts = [run.start_h]
        if c.max_gpus is not None:
            starts += [t for t in cuts if run.start_h < t < run.deadline_h - 1e-9]
        for begin in starts:
            n = max(run.min_replicas, replicas_to_finish(
                run.tokens, run.deadline_h - begin, o.tokens_per_s, efficiency))
            if c.max_gpus is not None and n * o.degree > c.max_gpus:
                continue
            hours = run_hours(run.tokens, n, o.tokens_per_s, efficiency)
            gpus = n * o.degree
            out.append(RentWay(run, o, n, begin, begin + hours,
                               billed_hours(hours, c.min_hours),
                               rent_cost(c.per_gpu_hour, gpus, hours, c.min_hours),
                               c.per_gpu_hour, covering(cuts, begin, begin + hours)))
    # Without a cap a rental never meets another: only the cheapest uncapped way matters.
    capped = [w for w in out if prices[w.option.gpu or ""].max_gpus is not None]
    free = sorted((w for w in out if prices[w.option.gpu or ""].max_gpus is None),
                  key=lambda w: w.cost)
    return capped + free[:1]
