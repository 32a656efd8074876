"""N3, the fabric in the bill of materials: the checker's own reading.

Its own arithmetic on purpose (``rules/fabric.py`` is what it checks): from the plan's
servers it rebuilds the pods (bought servers only; pod "" or "pool" is the always-on pool,
"runs" the servers bought for runs) and each server's NIC ports by kind and Gb/s (its
platform's ``included_nics`` and the cards the plan adds, within ``nic_slots`` when the
catalog gives it), then verifies each ``option.fabric`` entry is a fabric the rule allows:

- exactly the (pod, kind) pairs whose ports are on two servers or more have one, when the
  catalog lists switches (none otherwise); its servers and port count are those;
- its leaves are switches of its kind at least as fast as its fastest port: one leaf with a
  port for every server port, or L leaves with L·⌊p/2⌋ ≥ ports, each sending ⌈p/2⌉
  uplinks to spines of the kind at least as fast as the leaf, S·spine ports ≥ L·⌈p/2⌉;
- cables = server ports + uplinks.

It does not ask that the fabric be the cheapest one: the brute force does.
"""

from __future__ import annotations

from ..inputs.fabric import LINK_SKU, SwitchSku
from ..plan_types import FabricPod, Server
from .subject import TOL, Skus, Subject

Ports = dict[str, dict[float, int]]
"""NIC ports by kind ("ethernet", "infiniband") and Gb/s."""

POD_OF = {"": "pool", "pool": "pool", "runs": "runs"}
"""A server's ``pod`` as the pod it is cabled to."""


def ports_of(s: Server, skus: Skus) -> Ports:
    """Every NIC port of one server, by kind and Gb/s (unknown SKUs left out, reported by
    ``check_nics``)."""
    p = skus.platforms.get(s.platform)
    cards = [(i.nic, i.count) for i in p.included_nics] if p is not None else []
    out: Ports = {}
    for sku, count in (*cards, *s.nics):
        nic = skus.nics.get(sku)
        if nic is None or count <= 0:
            continue
        by_speed = out.setdefault(nic.kind, {})
        by_speed[nic.gbps] = by_speed.get(nic.gbps, 0) + count * nic.ports
    return out


def pods_of(servers: tuple[Server, ...]) -> dict[str, list[Server]]:
    """The bought servers by the pod they are cabled to (owned servers are in none)."""
    out: dict[str, list[Server]] = {}
    for s in servers:
        if not s.owned and s.pod in POD_OF:
            out.setdefault(POD_OF[s.pod], []).append(s)
    return out


def wanted(sub: Subject) -> dict[tuple[str, str], tuple[list[str], dict[float, int]]]:
    """(pod, kind) -> (ids of the servers with ports of the kind, their ports by Gb/s), for
    every pair with ports on two servers or more."""
    out = {}
    for pod, members in pods_of(sub.option.servers).items():
        ports = {s.id: ports_of(s, sub.skus) for s in members}
        for kind in sorted({k for p in ports.values() for k in p}):
            on = [sid for sid, p in ports.items() if sum(p.get(kind, {}).values()) > 0]
            if len(on) < 2:
                continue
            by_speed: dict[float, int] = {}
            for sid in on:
                for gbps, n in ports[sid][kind].items():
                    by_speed[gbps] = by_speed.get(gbps, 0) + n
            out[(pod, kind)] = (on, by_speed)
    return out


def check_nics(sub: Subject) -> list[str]:
    """N3: the NICs a plan adds are catalog cards, bought (not on an owned server), and fit
    the platform's ``nic_slots`` beside the included ones; every server's pod is known."""
    errs = []
    for s in sub.option.servers:
        if s.pod not in POD_OF:
            errs.append(f"{s.id}: pod {s.pod!r} is neither the pool nor runs (N3)")
        if not s.nics:
            continue
        if s.owned:
            errs.append(f"{s.id}: an owned server used as it is adds NICs {list(s.nics)} (N3)")
        for sku, count in s.nics:
            if sku not in sub.skus.nics:
                errs.append(f"{s.id}: adds unknown NIC {sku} (N3)")
            if count <= 0:
                errs.append(f"{s.id}: adds {count} x {sku} (N3)")
        p = sub.skus.platforms.get(s.platform)
        if p is None or p.nic_slots is None:
            continue
        cards = sum(i.count for i in p.included_nics) + sum(c for _, c in s.nics)
        if cards > p.nic_slots:
            errs.append(f"{s.id}: {cards} NICs (included and added) > {p.nic_slots} NIC slots "
                        f"of {p.sku} (N3)")
    return errs


def check_n3(sub: Subject) -> list[str]:
    """N3: the NICs added fit their servers and the plan's fabric is one the rule allows for
    its pods (module docstring)."""
    errs = check_nics(sub)
    want = wanted(sub) if sub.skus.switches else {}
    seen: set[tuple[str, str]] = set()
    for f in sub.option.fabric:
        key = (f.pod, f.kind)
        where = f"fabric {f.pod}/{f.kind}"
        if key in seen:
            errs.append(f"{where}: listed twice (N3)")
            continue
        seen.add(key)
        if not sub.skus.switches:
            errs.append(f"{where}: the catalog lists no switches, so no fabric is bought (N3)")
            continue
        if key not in want:
            errs.append(f"{where}: not needed, fewer than two of the pod's servers have "
                        f"{f.kind} ports (N3)")
            continue
        errs += _entry(f, *want[key], sub.skus)
    for pod, kind in sorted(set(want) - seen):
        on = want[(pod, kind)][0]
        errs.append(f"fabric {pod}/{kind}: missing, {len(on)} servers have {kind} ports "
                    f"({', '.join(on)}) and no switch joins them (N3)")
    return errs


def _entry(f: FabricPod, on: list[str], by_speed: dict[float, int], skus: Skus) -> list[str]:
    """One fabric entry against the servers and ports it must cable."""
    where = f"fabric {f.pod}/{f.kind}"
    errs = []
    ports, fastest = sum(by_speed.values()), max(by_speed)
    if sorted(f.servers) != sorted(on):
        errs.append(f"{where}: cables servers {sorted(f.servers)}, its {f.kind} ports are on "
                    f"{sorted(on)} (N3)")
    if f.ports != ports:
        errs.append(f"{where}: says {f.ports} ports, its servers have {ports} (N3)")
    leaf, n_leaves = skus.switches.get(f.leaves[0]), f.leaves[1]
    if leaf is None or leaf.kind != f.kind:
        errs.append(f"{where}: leaf {f.leaves[0]} is not an {f.kind} switch of the catalog (N3)")
        return errs
    if leaf.gbps + TOL < fastest:
        errs.append(f"{where}: leaf {leaf.sku} at {leaf.gbps:g} Gb/s is slower than its "
                    f"{fastest:g} Gb/s ports (N3)")
    uplinks = 0
    if f.spines is None:
        if n_leaves != 1 or leaf.ports < ports:
            errs.append(f"{where}: {n_leaves} x {leaf.sku} ({leaf.ports} ports) without spines "
                        f"for {ports} ports; one leaf must hold them all (N3)")
    else:
        uplinks = n_leaves * (leaf.ports - leaf.ports // 2)
        errs += _spines(where, f, leaf, ports, uplinks, skus)
    if f.cables != ports + uplinks:
        errs.append(f"{where}: {f.cables} cables, {ports} ports + {uplinks} uplinks need "
                    f"{ports + uplinks} (N3)")
    return errs


def _spines(where: str, f: FabricPod, leaf: SwitchSku, ports: int, uplinks: int,
            skus: Skus) -> list[str]:
    """A two-layer fabric: enough leaves for the ports, spines of the kind at least as fast
    as the leaves with a port for every uplink."""
    assert f.spines is not None
    errs = []
    n_leaves = f.leaves[1]
    if n_leaves * (leaf.ports // 2) < ports:
        errs.append(f"{where}: {n_leaves} x {leaf.sku} give {n_leaves * (leaf.ports // 2)} "
                    f"server ports (half of {leaf.ports} each), fewer than {ports} (N3)")
    spine, n_spines = skus.switches.get(f.spines[0]), f.spines[1]
    if spine is None or spine.kind != f.kind:
        errs.append(f"{where}: spine {f.spines[0]} is not an {f.kind} switch of the catalog "
                    "(N3)")
        return errs
    if spine.gbps + TOL < leaf.gbps:
        errs.append(f"{where}: spine {spine.sku} at {spine.gbps:g} Gb/s is slower than its "
                    f"leaves' {leaf.gbps:g} Gb/s (N3)")
    if n_spines * spine.ports < uplinks:
        errs.append(f"{where}: {n_spines} x {spine.sku} have {n_spines * spine.ports} ports, "
                    f"fewer than the leaves' {uplinks} uplinks (N3)")
    return errs


def fabric_qty(fabric: tuple[FabricPod, ...]) -> dict[str, int]:
    """The switches and cables the fabric buys, by SKU (cables as ``LINK_SKU``)."""
    qty: dict[str, int] = {}
    for f in fabric:
        for sku, n in (f.leaves, *((f.spines,) if f.spines else ())):
            qty[sku] = qty.get(sku, 0) + n
        qty[LINK_SKU] = qty.get(LINK_SKU, 0) + f.cables
    return {sku: n for sku, n in qty.items() if n}


def fabric_switches(fabric: tuple[FabricPod, ...], skus: Skus) -> list[tuple[SwitchSku, int]]:
    """The fabric's switches with their counts (unknown SKUs left out, reported by
    ``check_n3``)."""
    return [(skus.switches[sku], n) for f in fabric
            for sku, n in (f.leaves, *((f.spines,) if f.spines else ()))
            if sku in skus.switches]


def nic_power_w(s: Server, skus: Skus) -> float:
    """P1: the power of the NICs the plan adds to a server (included ones are in the
    platform's), W."""
    return sum(skus.nics[sku].power_w * c for sku, c in s.nics if sku in skus.nics)
