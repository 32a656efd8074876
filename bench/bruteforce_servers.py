"""The run servers the time brute force (``bench/bruteforce_time.py``) may buy, and how many
replicas of a run one of them holds, with its own arithmetic.

A run server is a configuration S = (platform, GPU SKU x k, DIMM SKU x count, drive SKU x
count): k any count the platform is sold with (O1, at least one), DIMMs of its memory type at
every count that populates all channels evenly (R14), 0..bays drives of one SKU. One server
holds m = min(k // d, ⌊(1 - headroom) x RAM / RAM per replica⌋, ⌊cores / cores per
replica⌋) replicas of degree d (R11, R12, O3), and none unless its drives hold the run's
dataset and checkpoints under the headroom line (O4: all the servers of a run are of one
configuration, so each carries the drives that the one keeping the checkpoints needs).

N3: each configuration is also sold with NICs added (``with_nics``); its NIC ports make the
fabric the time brute force prices for the run servers bought (``run_fabric``).

``full_configs`` is the restriction the run program states (docs/solver.md): one
configuration per (platform, GPU SKU), bought with the platform's largest GPU count, the
cheapest drives that hold the largest dataset and checkpoints of a run using it, and the
DIMMs that hold the most replicas of every run option at once (then the cheapest).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

from bench.bruteforce import _cores, _degrees_for
from solver.estimate.replica import estimate, replica_throughput
from solver.estimate.weights import lora_params, lora_targets
from solver.inputs.catalog import Catalog, Platform
from solver.inputs.workload import Workload


@dataclass(frozen=True)
class Way:
    """One replica of a run on ``degree`` GPUs of ``gpu``."""

    gpu: str
    degree: int
    rate: float
    """Tokens/s one replica delivers (T2), before data-parallel efficiency."""
    ram_gb: float
    cores: int
    grad_bytes: float = 0.0
    """Gradient bytes all-reduced per step (N2)."""
    step_tokens: float = 1.0
    """Tokens per optimizer step (global batch x sequence length)."""
    nvlink_gbps: float = 0.0
    nvlink_gpus: int = 0


@dataclass(frozen=True)
class Config:
    """A run server: platform, GPUs, DIMMs and drives bought together."""

    platform: str
    gpu: str
    gpus: int
    ram_gb: float
    """Installed host RAM."""
    tb: float
    """Installed drive TB."""
    cores: int | None
    price: float
    power_w: float
    """P1: platform power_w + GPUs x GPU power_w."""
    net_gbps: float = 0.0
    """N2: its NICs (included and added) on its fastest fabric, Gb/s."""
    nics: tuple[tuple[str, int], ...] = ()
    """N3: NICs added to the platform's included ones, (SKU, count)."""
    ports: tuple[tuple[str, float, int], ...] = ()
    """N3: NIC ports of one server, (kind, Gb/s, count)."""


def run_ways(w: Workload, gpus: list, policy) -> list[Way]:
    """Every GPU and degree a replica of ``w`` fits on (R8, R10, memory), with its rate."""
    out = []
    per = 4.0 if w.precision == "fp32" else 2.0
    params = (lora_params(w.arch, w.lora_rank or 0, lora_targets(w))
              if w.kind in ("lora", "qlora") else w.arch.params_b * 1e9)
    for g in gpus:
        for d in _degrees_for(g, policy):
            e = estimate(w, g, d, policy)
            if not e.fits:
                continue
            rate = replica_throughput(w, g, d, policy, e).tokens_per_s
            if rate > 0:
                out.append(Way(g.sku, d, rate, e.host_ram_gb, _cores(w, d), params * per,
                               (w.global_batch or 1) * (w.seq_len or 1), g.nvlink_gbps,
                               g.nvlink_gpus))
    return out


def efficiency(way: Way, per_server: int, servers: int, net_gbps: float, policy) -> float:
    """N2 by this oracle's own arithmetic: a ring of the server's replicas over its GPU
    link, then a ring of the servers over their network, half (comm_overlap) hidden; 1 for
    one replica, at most the policy's cap otherwise; 0 when servers have no network."""
    n = per_server * servers
    if n <= 1:
        return 1.0
    def ring(k: int, gb_per_s: float, hop: float) -> float:
        return 2 * (k - 1) * hop + 2 * (k - 1) / k * way.grad_bytes / (gb_per_s * 1e9 * 0.8)
    comm = 0.0
    if per_server > 1:
        nv = way.nvlink_gbps > 0 and per_server * way.degree <= way.nvlink_gpus
        comm += ring(per_server, way.nvlink_gbps / 2 if nv else 31.5,
                     33.7e-6 / 14 if nv else 42.56e-6 / 14)
    if servers > 1:
        if net_gbps <= 0:
            return 0.0
        comm += ring(servers, net_gbps / 8, 5e-6)
    overlap = 0.5 if policy.comm_overlap is None else policy.comm_overlap
    compute = way.step_tokens / (n * way.rate)
    return min(policy.data_parallel_efficiency, compute / (compute + (1 - overlap) * comm))


def net_gbps(p: Platform, catalog: Catalog, added: tuple[tuple[str, int], ...] = ()) -> float:
    """A platform's NICs (included, and ``added``) on its fastest fabric, Gb/s (0: none)."""
    kinds: dict[str, float] = {}
    for kind, gbps, n in nic_ports(p, catalog, added):
        kinds[kind] = kinds.get(kind, 0.0) + n * gbps
    return max(kinds.values(), default=0.0)


def nic_ports(p: Platform, catalog: Catalog,
              added: tuple[tuple[str, int], ...] = ()) -> tuple[tuple[str, float, int], ...]:
    """(kind, Gb/s, ports) of one server's NICs: included and ``added`` cards."""
    ports: dict[tuple[str, float], int] = {}
    for sku, count in [*((i.nic, i.count) for i in p.included_nics), *added]:
        nic = next((n for n in catalog.network.nics if n.sku == sku), None)
        if nic is not None:
            key = (nic.kind, nic.gbps)
            ports[key] = ports.get(key, 0) + count * nic.ports
    return tuple((k, g, n) for (k, g), n in sorted(ports.items()))


def with_nics(configs: list[Config], catalog: Catalog, excluded: set[str] = frozenset(),
              full: bool = False) -> list[Config]:
    """N3: every config with its included NICs, and with 1 up to its free slots (nic_slots
    minus the included cards) of one catalog NIC added where that makes its network faster
    (a card that does not only adds price and ports: never better). ``full``: the run
    program's restriction, per kind only its fastest card (most Gb/s over its ports, of
    equal the cheaper) filling every free slot."""
    platforms = {p.sku: p for p in catalog.platforms}
    out = []
    for c in configs:
        p = platforms[c.platform]
        base = replace(c, ports=nic_ports(p, catalog), net_gbps=net_gbps(p, catalog))
        out.append(base)
        free = (p.nic_slots or 0) - sum(i.count for i in p.included_nics)
        for nic in catalog.network.nics:
            if nic.sku in excluded or (full and not _fastest_of_kind(nic, catalog, excluded)):
                continue
            for k in (range(free, free + 1) if full else range(1, free + 1)):
                added = ((nic.sku, k),)
                net = net_gbps(p, catalog, added)
                if net > base.net_gbps + 1e-9:
                    out.append(replace(c, nics=added, ports=nic_ports(p, catalog, added),
                                       net_gbps=net, price=c.price + k * nic.price,
                                       power_w=c.power_w + k * nic.power_w))
    return out


def server_configs(catalog: Catalog) -> list[Config]:
    """Every run server the catalog sells: any GPU count it is sold with (O1, at least one),
    every DIMM SKU at every count that populates all channels (R14), 0..bays drives."""
    out = []
    for p in catalog.platforms:
        counts = sorted(set(p.gpu_counts)) if p.gpu_counts is not None else range(
            p.gpu_slots + 1)
        dimms = [(0.0, 0.0)] if not p.memory_channels else [
            (n * m.size_gb, n * m.price) for m in catalog.memory if m.type == p.memory_type
            for n in range(p.memory_channels, p.dimm_slots + 1, p.memory_channels)]
        drives = [(0.0, 0.0)] + [(q * s.size_tb, q * s.price) for s in catalog.storage
                                 for q in range(1, p.drive_bays + 1)]
        for g in catalog.gpus:
            if not p.takes(g):
                continue
            for k, (ram, ram_price), (tb, tb_price) in itertools.product(counts, dimms, drives):
                if k >= 1:
                    out.append(Config(p.sku, g.sku, k, ram, tb, p.cpu_cores,
                                      p.price + k * g.price + ram_price + tb_price,
                                      p.power_w + k * g.power_w, net_gbps(p, catalog)))
    return out


def usable_net(cfg: Config, network) -> float:
    """The Gb/s a run spread over servers of ``cfg`` may use under ``policy.network`` (or
    the workload's own): the fastest kind, or the kind named; 0 where the run must stay on
    one server or the network is under min_gbps."""
    if network is None:
        return cfg.net_gbps
    if not network.span_servers:
        return 0.0
    kinds: dict[str, float] = {}
    for kind, gbps, n in cfg.ports:
        kinds[kind] = kinds.get(kind, 0.0) + gbps * n
    got = max(kinds.values(), default=0.0) if network.fabric == "auto" else kinds.get(
        network.fabric, 0.0)
    return 0.0 if network.min_gbps is not None and got < network.min_gbps - 1e-9 else got


def per_server(cfg: Config, way: Way, disk_tb: float, line: float) -> int:
    """Replicas of one run a server of ``cfg`` holds at once (0: none)."""
    if cfg.gpu != way.gpu or disk_tb > line * cfg.tb + 1e-9:
        return 0
    m = cfg.gpus // way.degree
    if way.ram_gb > 0:
        m = min(m, math.floor(line * cfg.ram_gb / way.ram_gb + 1e-9))
    if cfg.cores is not None and way.cores > 0:
        m = min(m, cfg.cores // way.cores)
    return max(m, 0)


def useful_configs(configs: list[Config], fits: list[tuple[Way, float]], line: float,
                   energy: bool = False) -> list[Config]:
    """The configs no other config beats: another that holds as many replicas of every way
    of every run (``fits``: way, TB on disk) at no higher price (and, where ``energy`` counts,
    no more watts per replica) can replace it everywhere."""
    table = [tuple(per_server(c, w, tb, line) for w, tb in fits) for c in configs]
    cheapest: dict[tuple, int] = {}
    for i, vec in enumerate(table):
        # N3: only a config of the same NIC ports (so the same fabric) and no slower network
        # can stand in for another.
        key = (vec, configs[i].power_w if energy else 0.0, configs[i].ports,
               configs[i].net_gbps)
        if any(vec) and (key not in cheapest or configs[i].price < configs[cheapest[key]].price):
            cheapest[key] = i

    def beats(j: int, i: int) -> bool:
        a, b = configs[j], configs[i]
        return a.ports == b.ports and a.net_gbps >= b.net_gbps - 1e-9 and \
            a.price <= b.price and all(
            ma >= mb and (not energy or not mb or a.power_w / ma <= b.power_w / mb + 1e-9)
            for ma, mb in zip(table[j], table[i]))

    kept = list(cheapest.values())
    return [configs[i] for i in kept if not any(
        j != i and beats(j, i) and (not beats(i, j) or j < i) for j in kept)]


def full_configs(catalog: Catalog, fits: list[tuple[Way, float]], line: float) -> list[Config]:
    """The run program's restriction: per (platform, GPU SKU) some way fits, one server with
    the largest GPU count, the cheapest drives for the largest data on disk, and the DIMMs
    holding the most replicas of ``fits`` (way, TB on disk; each workload's ways once)."""
    out = []
    for p in catalog.platforms:
        k = max(p.gpu_counts) if p.gpu_counts is not None else p.gpu_slots
        for g in (g for g in catalog.gpus if p.takes(g)):
            users = [(w, tb) for w, tb in fits if w.gpu == g.sku and w.degree <= k]
            disk = _least_drives(p, catalog, max((tb for _, tb in users), default=0.0), line)
            if not users or disk is None:
                continue
            best: tuple[tuple[int, float], Config] | None = None
            for m in (m for m in catalog.memory if m.type == p.memory_type):
                for n in range(p.memory_channels, p.dimm_slots + 1, p.memory_channels):
                    cfg = Config(p.sku, g.sku, k, n * m.size_gb, disk[0], p.cpu_cores,
                                 p.price + k * g.price + n * m.price + disk[1],
                                 p.power_w + k * g.power_w, net_gbps(p, catalog))
                    held = sum(per_server(cfg, w, tb, line) for w, tb in users)
                    if held and (best is None or (-held, cfg.price) < best[0]):
                        best = ((-held, cfg.price), cfg)
            if best is not None:
                out.append(best[1])
    return out


def _least_drives(p: Platform, catalog: Catalog, need_tb: float,
                  line: float) -> tuple[float, float] | None:
    """(TB, price) of the cheapest drives of one SKU holding ``need_tb`` under the line in
    the platform's bays; (0, 0) when nothing is stored; None when none do."""
    if need_tb <= 0:
        return 0.0, 0.0
    fits = [min(((q * s.size_tb, q * s.price) for q in range(1, p.drive_bays + 1)
                 if line * q * s.size_tb + 1e-9 >= need_tb), default=None, key=lambda x: x[1])
            for s in catalog.storage]
    return min((f for f in fits if f is not None), default=None, key=lambda x: x[1])


def _fastest_of_kind(nic, catalog: Catalog, excluded: set[str]) -> bool:
    """The NIC is its kind's first card of most Gb/s over its ports, of equal the cheaper."""
    same = [n for n in catalog.network.nics if n.kind == nic.kind and n.sku not in excluded]
    top = max(same, key=lambda n: (n.gbps * n.ports, -n.price, -same.index(n)))
    return top.sku == nic.sku


def run_fabric(configs: list[Config] | tuple[Config, ...], bought: list[int],
                catalog: Catalog) -> tuple[float, float]:
    """(price, switch watts) of the cheapest fabric of the run servers bought. Per NIC kind
    with ports on two or more servers: every port on leaves of one switch SKU of the kind at
    least as fast as the fastest port (one leaf holding all, or ⌈P ÷ ⌊ports/2⌋⌉ leaves with
    ⌈ports/2⌉ uplinks each on ⌈uplinks ÷ spine ports⌉ spines of one SKU at least as fast as
    the leaf), one cable per server port and per uplink; of equal prices the first found."""
    net = catalog.network
    if not net.switches:
        return 0.0, 0.0
    total, watts = 0.0, 0.0
    for kind in ("ethernet", "infiniband"):
        servers, ports, fastest = 0, 0, 0.0
        for c, n in zip(configs, bought):
            mine = [(g, k) for kd, g, k in c.ports if kd == kind]
            if n and mine:
                servers += n
                ports += n * sum(k for _, k in mine)
                fastest = max(fastest, max(g for g, _ in mine))
        if servers < 2:
            continue
        best = (math.inf, 0.0)
        for leaf in (s for s in net.switches if s.kind == kind and s.gbps >= fastest - 1e-9):
            if ports <= leaf.ports:
                got = (leaf.price + net.link_price * ports, leaf.power_w)
                best = got if got[0] < best[0] - 1e-9 else best
                continue
            if leaf.ports < 2:
                continue
            leaves = -(-ports // (leaf.ports // 2))
            up = leaves * (leaf.ports - leaf.ports // 2)
            for spine in (s for s in net.switches if s.kind == kind
                          and s.gbps >= leaf.gbps - 1e-9):
                spines = -(-up // spine.ports)
                got = (leaves * leaf.price + spines * spine.price + net.link_price * (ports + up),
                       leaves * leaf.power_w + spines * spine.power_w)
                best = got if got[0] < best[0] - 1e-9 else best
        total += best[0]
        watts += best[1]
    return total, watts
