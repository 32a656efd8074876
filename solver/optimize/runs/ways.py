"""Every way every run can be done (H3, H5), and the run servers they use: the run
program's input, built once per plan."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InfeasibleError
from ...estimate.data_parallel import dp_efficiency
from ...estimate.throughput import delivered_fraction, latency_misses
from ...horizon.runs import RunSet, RunSpec, period_cuts
from ...inputs.catalog import Catalog
from ...inputs.policy import Policy
from ...inputs.workload import MAX_PLANNED_REPLICAS, Workload, WorkloadFile
from ...rules.cores import replica_cores
from ...rules.fabric import run_gbps
from ...rules.time import replicas_to_finish
from .. import replicas
from ..replicas import ReplicaOption, degrees_on, replica_options
from .fleet import RunServer, run_servers
from .options import MAX_SERVERS_PER_RUN, Efficiency, PoolWay, Way, pool_ways, rent_ways


@dataclass(frozen=True)
class RunInputs:
    """What the run program is built from."""

    runs: RunSet
    cuts: tuple[float, ...]
    configs: tuple[RunServer, ...]
    ways: dict[str, list[Way]]
    """Per run key, its ways (pool ways first)."""


def run_inputs(wf: WorkloadFile, catalog: Catalog, runs: RunSet, *, rent: bool = True,
               buy: bool = True) -> RunInputs:
    """The configurations and ways of every run; ``rent``/``buy`` False leave that kind of
    way out (the "rent nothing" and "rent every run" alternatives).

    Raises:
        InfeasibleError: a run has no way at all (exit 3), naming the run and its figure.
    """
    by_name = {w.name: w for w in wf.workloads}
    options: dict[str, list[ReplicaOption]] = {}
    for name in sorted({r.workload for r in runs.runs}):
        options[name] = run_options(by_name[name], catalog, wf.policy)
    configs = run_servers(((by_name[n], o) for n, o in options.items()), catalog,
                          wf.policy) if buy else ()
    cuts = period_cuts(runs)
    ways: dict[str, list[Way]] = {}
    problems = []
    for r in runs.runs:
        w = by_name[r.workload]
        eff = delivered_fraction(w, wf.policy)
        pool = pool_ways(r, w, options[r.workload], configs, cuts, wf.policy,
                         _efficiency(w, catalog, wf.policy))
        rented = (rent_ways(r, options[r.workload], catalog, cuts, eff)
                  if rent and wf.policy.rent == "allowed" else [])
        if not pool and not rented:
            problems.append(_no_way(r, w, wf, catalog, rent))
        ways[r.key] = [*undominated(pool), *rented]
    if problems:
        raise InfeasibleError("no plan exists: some runs cannot be done", problems)
    return RunInputs(runs, cuts, configs, _without_idle_nics(configs, ways))


def _without_idle_nics(configs: tuple[RunServer, ...],
                       ways: dict[str, list[Way]]) -> dict[str, list[Way]]:
    """N3: drop the ways of a configuration with NICs added when each of them is dominated
    by a way of the same run on that configuration without them (no more servers over a
    sub-range of periods, no more server-hours): servers of the plain configuration, cheaper
    and with fewer ports, can then do all their runs. An exact reduction."""
    base = {(c.platform, c.gpu, c.memory, c.dimm_count, c.storage): i
            for i, c in enumerate(configs) if not c.nics}
    idle: set[int] = set()
    for ci, c in enumerate(configs):
        b = base.get((c.platform, c.gpu, c.memory, c.dimm_count, c.storage))
        if not c.nics or b is None:
            continue
        if all(any(isinstance(o, PoolWay) and o.config == b and _dominates(o, w)
                   for o in options)
               for options in ways.values()
               for w in options if isinstance(w, PoolWay) and w.config == ci):
            idle.add(ci)
    return {key: [w for w in options if not (isinstance(w, PoolWay) and w.config in idle)]
            for key, options in ways.items()}


def _no_way(r: RunSpec, w: Workload, wf: WorkloadFile, catalog: Catalog, rent: bool) -> str:
    """Why run ``r`` has no way: the replicas it would need at once on the fastest GPU,
    against what can be bought or rented inside its window."""
    days = r.window_h / 24
    plain = w.model_copy(update={"tokens": None, "deadline_days": None, "deadline": None})
    options = [o for o in replica_options(plain, catalog, wf.policy)[0] if o.tokens_per_s]
    if not options:
        return (f"{w.name} run {r.run}: no GPU of the catalog fits one replica. To fix: add a "
                "larger GPU, or lower the batch or precision")
    best = max(options, key=lambda o: (o.tokens_per_s or 0.0) / o.degree)
    eff = delivered_fraction(w, wf.policy)
    n = replicas_to_finish(r.tokens, r.window_h, best.tokens_per_s or 1.0, eff)
    limit = min(MAX_PLANNED_REPLICAS, MAX_SERVERS_PER_RUN * 8)
    where = "buy or rent" if rent and wf.policy.rent == "allowed" else "buy"
    return (f"{w.name} run {r.run}: {r.tokens:,.0f} tokens in {days:,.1f} days need {n:,} "
            f"replicas of {best.gpu} x{best.degree} at once (the fastest per GPU), more than "
            f"plan-buy will {where} for one run (about {limit:,}). To fix: lengthen its "
            "window (deadline_days), or lower tokens")


def undominated(pool: list[PoolWay]) -> list[PoolWay]:
    """The pool ways of one run that no other of its ways dominates: a way is dropped when
    another on the same configuration occupies a subset of its periods with at most its
    servers and at most its server-hours (its energy under objective tco). Any plan using
    the dropped way stays feasible, at no higher cost, with the other one instead: an
    exact reduction of the program."""
    by_config: dict[int, list[PoolWay]] = {}
    for w in pool:
        by_config.setdefault(w.config, []).append(w)
    kept: list[PoolWay] = []
    for group in by_config.values():
        group.sort(key=lambda w: (w.servers, w.periods[1] - w.periods[0], _hours(w)))
        mine: list[PoolWay] = []
        for w in group:
            if not any(_dominates(o, w) for o in mine):
                mine.append(w)
        kept += mine
    return kept


def _hours(w: PoolWay) -> float:
    return w.servers * (w.end_h - w.begin_h)


def _dominates(o: PoolWay, w: PoolWay) -> bool:
    return (o.servers <= w.servers and w.periods[0] <= o.periods[0]
            and o.periods[1] <= w.periods[1]
            and _hours(o) <= _hours(w) + 1e-9)


def _efficiency(w: Workload, catalog: Catalog, policy: Policy) -> Efficiency:
    """N2 for this run's ways: η of its replicas on a configuration's servers, over the
    network the workload's (or the policy's) ``network`` lets it use (0: it may not span
    servers that way)."""
    gpus = {g.sku: g for g in catalog.gpus}
    net = w.network or policy.network

    def eff(o: ReplicaOption, cfg: RunServer, per_server: int, servers: int) -> float:
        gbps = run_gbps(cfg.port_map(), net) if servers > 1 else cfg.net_gbps
        return dp_efficiency(w, gpus[cfg.gpu], o.degree, o.tokens_per_s or 0.0, per_server,
                             servers, gbps, policy)
    return eff


def run_options(w: Workload, catalog: Catalog, policy: Policy) -> list[ReplicaOption]:
    """Every GPU and parallel degree a replica of a run fits on, with its throughput.

    Unlike the purchase program's options, a larger degree is never dropped because k
    replicas of a smaller one do as well in the same GPUs: those k replicas pay the
    data-parallel loss (N2), the one replica does not."""
    out = []
    for g in catalog.gpus:
        if g.sku in policy.exclude:
            continue
        for d in degrees_on(g, catalog, policy):
            # Through the replicas module, whose estimator the tests may replace.
            e = replicas.estimate(w, g, d, policy)
            if not e.fits:
                continue
            try:
                rate = replicas.replica_throughput(w, g, d, policy, e)
            except ValueError:
                continue
            if rate.tokens_per_s > 0 and not latency_misses(w, rate):
                out.append(ReplicaOption(w.name, g.sku, d, False, e.vram_gb_per_gpu,
                                         e.host_ram_gb, e, replica_cores(w, d), rate,
                                         w.local_tb))
    return out
