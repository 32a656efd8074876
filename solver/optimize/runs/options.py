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
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from ...horizon.runs import RunSpec
from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...inputs.workload import Workload
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
    efficiency: float = 1.0
    """Data-parallel efficiency of its replicas (N2)."""


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
    efficiency: float = 1.0
    """Data-parallel efficiency of its replicas: 1 for one replica, else the policy's cap
    (a cloud cluster is rented with its fabric)."""


Way = PoolWay | RentWay
"""One way a run can be done: on bought run servers or on rented GPUs."""


def covering(cuts: tuple[float, ...], begin: float, end: float) -> tuple[int, int]:
    """The first and last periods of the grid that [begin, end) meets."""
    a = bisect.bisect_right(cuts, begin + 1e-9) - 1
    b = bisect.bisect_left(cuts, end - 1e-9) - 1
    return a, max(a, b)


Efficiency = Callable[[ReplicaOption, RunServer, int, int], float]
"""η of a way: (option, configuration, replicas per server, servers) -> data-parallel
efficiency (N2, ``estimate/data_parallel.py``)."""


def pool_ways(run: RunSpec, w: Workload, options: list[ReplicaOption],
              configs: tuple[RunServer, ...], cuts: tuple[float, ...],
              policy: Policy, efficiency: Efficiency) -> list[PoolWay]:
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
                ways = _ways_from(run, o, ci, m, a, cuts, tau,
                                  functools.partial(efficiency, o, cfg, m))
                if cfg.nics:  # N3: added NICs only speed up runs that span servers
                    ways = [w for w in ways if w.servers > 1]
                # From its start a run may end in any period; from a later period it runs
                # to its deadline on the fewest servers (it waits for servers to free).
                out += ways if a == first else ways[-1:]
    return out


def _ways_from(run: RunSpec, o: ReplicaOption, ci: int, m: int, a: int,
               cuts: tuple[float, ...], tau: float,
               eff: Callable[[int], float]) -> list[PoolWay]:
    """The kept ways beginning at period ``a``: fewer servers for each later last period.
    ``eff(servers)`` is the run's data-parallel efficiency on that many servers (N2)."""
    out: list[PoolWay] = []
    fewest = math.inf
    for b in range(a, len(cuts) - 1):
        if cuts[b + 1] > run.deadline_h + 1e-9:
            break
        span = cuts[b + 1] - cuts[a]
        s = _fewest_servers(run, m, span, tau, eff)
        if s is None or s >= fewest:
            continue
        fewest = s
        hours = run_hours(run.tokens, s * m, tau, eff(s))
        begin = cuts[a]
        out.append(PoolWay(run, o, ci, s, s * m, begin, begin + hours,
                           covering(cuts, begin, begin + hours), eff(s)))
    return out


SERVER_SEARCH = 64
"""Servers tried beyond the fewest a loss-free network would need (N2: more servers add
traffic, so a run whose network caps it may never finish; it is then not done this way)."""


def _fewest_servers(run: RunSpec, m: int, span: float, tau: float,
                    eff: Callable[[int], float]) -> int | None:
    """The fewest servers (m replicas each) that finish the run within ``span`` hours."""
    first = math.ceil(max(run.min_replicas, replicas_to_finish(run.tokens, span, tau, 1.0)) / m)
    for s in range(first, min(first + SERVER_SEARCH, MAX_SERVERS_PER_RUN) + 1):
        e = eff(s)
        if e > 0 and s * m >= run.min_replicas and \
                run_hours(run.tokens, s * m, tau, e) <= span + 1e-9:
            return s
    return None


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
            n, eff = _rented_replicas(run, run.deadline_h - begin, o.tokens_per_s, efficiency)
            if c.max_gpus is not None and n * o.degree > c.max_gpus:
                continue
            hours = run_hours(run.tokens, n, o.tokens_per_s, eff)
            gpus = n * o.degree
            out.append(RentWay(run, o, n, begin, begin + hours,
                               billed_hours(hours, c.min_hours),
                               rent_cost(c.per_gpu_hour, gpus, hours, c.min_hours),
                               c.per_gpu_hour, covering(cuts, begin, begin + hours), eff))
    # Without a cap a rental never meets another: only the cheapest uncapped way matters.
    capped = [w for w in out if prices[w.option.gpu or ""].max_gpus is not None]
    free = sorted((w for w in out if prices[w.option.gpu or ""].max_gpus is None),
                  key=lambda w: w.cost)
    return capped + free[:1]


def _rented_replicas(run: RunSpec, hours: float, tau: float, cap: float) -> tuple[int, float]:
    """The fewest rented replicas that finish in ``hours``, and their data-parallel
    efficiency: one replica alone runs at 1 (N2), several at the policy's cap."""
    if run.min_replicas <= 1 and replicas_to_finish(run.tokens, hours, tau, 1.0) == 1:
        return 1, 1.0
    return max(run.min_replicas, 2, replicas_to_finish(run.tokens, hours, tau, cap)), cap
