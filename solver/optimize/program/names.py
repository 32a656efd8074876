"""Row names: every row of the program is named by its family and the validated ids of
what it bounds, ``ram(srv_8gpu_ddr5/a100_80g_sxm/ddr5_64gx16)``, never by a counter alone.

PuLP rewrites each of ``-+[] `` in a row's name as ``_``, and catalog and workload names
may hold any printable character, so ids are escaped here, once, for every ``define_*``:
letters, digits and ``.`` stay; ``-`` becomes ``_`` (what PuLP would write); ``|``, which
joins the parts of a server type's key, becomes ``/``; every other character (``_``
included) becomes ``~HH`` per UTF-8 byte. Each output character says which input it came
from, so the escaping is injective: SKUs ``a-b`` and ``a_b`` give ``a_b`` and ``a~5fb``.
Ids are joined by ``,`` inside ``(…)`` (neither is ever an escaped id's character), and a
family is one of ``FAMILIES`` (lowercase words joined by ``.``), so no two (family, ids)
give the same name and the name PuLP keeps is the one built here (the rows are found again
by it: duals, held rows). Ids: t a server type's key, w a workload, o an option's index
among w's, j a counter within the family (a threshold, a level, a cut).
"""

from __future__ import annotations

import functools
import re

_PLAIN = re.compile(r"[A-Za-z0-9.]")
FAMILIES: dict[str, str] = {
    # placement, throughput (placement.py, throughput.py)
    "demand": "(w) replicas of w placed: = or ≥ ⌈replicas × growth⌉ u_w (R19)",
    "target": "(w) tokens/s of w's replicas ≥ its target (T3)",
    "target.most": "(w) replicas of w ≤ N_w u_w (T3)",
    "one.type": "(w) a training job runs on one GPU type: Σ_o y_wo = u_w (T4)",
    "one.type.option": "(w,o) replicas of option o only where y_wo (T4)",
    # GPUs (gpus.py)
    "slots": "(t,level) GPUs of replicas of ≥ level GPUs fit the slots (R8)",
    "shared.vram": "(t) VRAM of shared replicas ≤ usable VRAM × s_t (R15, R17)",
    "shared.used": "(t) no empty shared GPU: s_t ≤ shared replicas (R17)",
    "shared.fit": "(w,o,t) replicas of a shareable option per shared GPU (R17)",
    # host (host.py)
    "ram": "(t) host RAM of the replicas ≤ usable RAM × n_t (R11, R12, R15)",
    "ram.big": "(t) replicas over half a server's RAM sit alone",
    "cores": "(t) CPU cores of the replicas ≤ cores × n_t (O3)",
    "cores.big": "(t) replicas over half a server's cores sit alone (O3)",
    "cores.shared": "(w,o,t) replicas of a shareable option per shared GPU's cores (O3)",
    "cores.shared.sum": "(t) cores of shared replicas ≤ cores × s_t (O3)",
    # valid cuts up front (board_cuts.py)
    "block": "(t,j) GPU replicas beside RAM blockers (valid cut)",
    "block.alone": "(t,j) GPU replicas beside blockers that sit alone (valid cut)",
    "gpu.room": "(t,j) GPUs lost beside large CPU-only replicas (valid cut)",
    "full": "(t,j) RAM beside full boards (valid cut)",
    "full.cores": "(t,j) cores beside full boards (valid cut, O3)",
    # storage, O4 (storage.py, host_room.py)
    "disk": "(t) local datasets ≤ usable TB of t's drives",
    "storage": "() every dataset and checkpoint ≤ usable TB of all drives",
    "drive.servers": "(t) servers given a drive configuration ≤ n_t",
    "hosts": "(w,t) servers of t hosting w: M_wt h_wt ≥ replicas",
    "hosts.all": "(t,j) servers holding datasets ≥ τ_j host their replicas",
    "disk.fit": "(w,t) configurations holding ds_w ≥ h_wt",
    "beside": "(w,v,t) replicas of w beside hosts of v (pair row)",
    "disk.pair": "(w,v,t) configurations holding ds_w + ds_v (pair row)",
    "hosts.room": "(t,j,r) resource r of the replicas reading datasets ≥ τ_j",
    "disk.floor": "(t,j) datasets of ≥ τ_j counted in floors of τ_j",
    # power and site (power.py, objective.py)
    "site.power": "() racks × rack_kw ≥ rated power (P3)",
    "site.space": "() racks × rack_units ≥ rack units of the servers (P3)",
    "budget": "() cost ≤ budget",
    "keep.priority": "() priority ≥ the first phase's (budget's second phase)",
    # search-time cuts (packing_cuts.py, exclusions.py)
    "shared.big": "(t) shared replicas over half a GPU's VRAM sit alone",
    "pack.ram": "(t,j) bin-packing cut on RAM after a failed packing",
    "pack.cores": "(t,j) bin-packing cut on cores (O3)",
    "pack.vram": "(t,j) bin-packing cut on shared VRAM",
    "pack.lp": "(t,j) pattern-LP cut at a point",
    "distinct": "(cut) the purchase differs from a found one",
    "distinct.hi": "(cut,i) SKU i's count above the found one",
    "distinct.lo": "(cut,i) SKU i's count below the found one",
    "disk.choice": "(cut) the disk choice differs from a found one",
    "disk.choice.hi": "(cut,i) count i above the found one",
    "disk.choice.lo": "(cut,i) count i below the found one",
    "reference.only": "(t) n_t = 0 off the reference types (R20)",
    "reference.gpus": "(t) G_t ≤ reference GPUs × n_t (R20)",
    # the fabric (fabric.py, N3): (pod, kind) and a switch index i, a member index j
    "fabric.two": "(pod,kind) y = 1 once two servers have ports of the kind",
    "fabric.leaf": "(pod,kind,i) one leaf or leaves of switch i only where it is the leaf SKU",
    "fabric.speed": "(pod,kind,i,j) member j's servers only on leaves as fast as its ports",
    "fabric.spine": "(pod,kind,i) spines of switch i only where it is the spine SKU",
    "fabric.spine.speed": "(pod,kind,i,q) spine q at least as fast as leaf i",
    "fabric.leaf.sku": "(pod,kind) one leaf SKU",
    "fabric.spine.sku": "(pod,kind) one spine SKU",
    "fabric.ports": "(pod,kind) leaf ports ≥ server ports in use",
    "fabric.uplinks": "(pod,kind) spine ports ≥ uplinks",
    "fabric.cables": "(pod,kind) cables ≥ server ports in use",
    # a plan that holds with a chosen chance, U1 (chance.py)
    "chance.count": "() worlds held Σ_s z_s ≥ ⌈P × N⌉ (U1)",
    "chance.fit": "(s,w) no replica of an option that does not fit in world s where z_s",
    "chance.demand": "(s,w) replicas ≥ ⌈replicas × g_s⌉ where z_s (R19 in world s)",
    "chance.target": "(s,w) tokens/s at world s's rates ≥ T × g_s where z_s (T3)",
    "chance.shared": "(s,t) shared replicas' VRAM in world s ≤ its line × s_t where z_s",
    "chance.shared.fit": "(s,w,o,t) replicas of a shared option per GPU in world s",
    # server patterns (columns.py, drive_patterns.py)
    "pattern.link": "(t) n_t = Σ patterns",
    "pattern.cover": "(t,k) patterns cover the replicas of kind k",
    "drive.link": "(t) n_t = Σ drive patterns (O4)",
    "drive.cover": "(t,k) drive patterns cover kind k (O4)",
    "drive.holds": "(t,j) configurations hold the patterns' datasets ≥ τ_j (O4)",
}
"""Every row family: (its ids) what it bounds. Docs/solver.md lists the same."""


@functools.lru_cache(maxsize=65_536)
def escape(ident: str | int) -> str:
    """One id as it appears in a row's name (injective; see the module's docstring).
    Cached: the ids are few (types, workloads, counters) and the rows of a large program
    many (122,000 on a generated 200-workload mix), so each is escaped once."""
    out = []
    for ch in str(ident):
        if _PLAIN.fullmatch(ch):
            out.append(ch)
        elif ch == "-":
            out.append("_")
        elif ch == "|":
            out.append("/")
        else:
            out.append("".join(f"~{b:02x}" for b in ch.encode("utf-8")))
    return "".join(out)


def row_name(family: str, *ids: str | int) -> str:
    """A row's name: ``family(id,…)``, each id escaped; ``family`` alone without ids."""
    assert family in FAMILIES, f"row family {family!r} is not in names.FAMILIES"
    return f"{family}({','.join(escape(i) for i in ids)})" if ids else family


def family(name: str) -> str:
    """The family of a row name built by ``row_name`` (what a test or a report groups by)."""
    return name.split("(", 1)[0]
