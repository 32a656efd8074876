"""Servers a vendor can quote (O1, O3, O4): a GPU count the platform is sold with, CPU
cores enough for the replicas on a server, and drives that hold the datasets read there
and the pool's, under the headroom line.

The checker's own arithmetic on purpose (an oracle must not share the code it checks).
"""

from __future__ import annotations

from ..inputs.workload import Workload
from ..rules import usable
from .memory import served
from .subject import TOL, Subject


def check_o1(sub: Subject) -> list[str]:
    """O1: every server is bought with one of its platform's GPU counts."""
    errs = []
    for s in sub.option.servers:
        p = sub.skus.platforms.get(s.platform)
        if p is None:
            continue  # reported by check_servers
        counts = p.allowed_gpu_counts()
        if s.gpu_count not in counts:
            errs.append(f"{s.id}: {s.gpu_count} GPUs, but {s.platform} is sold with "
                        f"{', '.join(map(str, counts))} (O1)")
    return errs


def replica_cores(w: Workload, gpus: int) -> int:
    """O3: cores one replica needs: data.cpu_cores, else training d (workers + 1),
    inference 2d, preprocess max(1, workers)."""
    if w.data.cpu_cores is not None:
        return w.data.cpu_cores
    if w.kind in ("train", "lora", "qlora"):
        return gpus * (w.data.workers + 1)
    if w.kind == "inference":
        return 2 * gpus
    return max(1, w.data.workers)


def check_o3(sub: Subject) -> list[str]:
    """O3: a server's cores cover the sum of its replicas' needs (when the catalog has them)."""
    by_name = {w.name: w for w in sub.wf.workloads}
    servers = {s.id: s for s in sub.option.servers}
    used: dict[str, int] = {}
    for pl in sub.option.placements:
        w = by_name.get(pl.workload)
        if w is not None and pl.server in servers:
            used[pl.server] = used.get(pl.server, 0) + replica_cores(w, pl.gpus)
    errs = []
    for sid, need in used.items():
        p = sub.skus.platforms.get(servers[sid].platform)
        if p is None:
            continue  # reported by check_servers
        if p.cpu_cores is not None and need > p.cpu_cores:
            errs.append(f"{sid}: its replicas need {need} CPU cores, "
                        f"{p.sku} has {p.cpu_cores} (O3)")
    return errs


def check_o4(sub: Subject) -> list[str]:
    """O4: every server holds the datasets of the workloads it runs that read locally (each
    once), under the headroom line of its installed TB; the pool holds those copies, the
    shared datasets and the checkpoints of every served workload under the line of all its
    TB. The disk figures a server reports are these."""
    option, wf = sub.option, sub.wf
    by_name = {w.name: w for w in wf.workloads}
    local: dict[str, dict[str, float]] = {}
    for pl in option.placements:
        w = by_name.get(pl.workload)
        if w is not None and w.local_tb > 0:
            local.setdefault(pl.server, {})[w.name] = w.local_tb
    errs = []
    have_tb = 0.0
    done = served(sub)
    used_tb = sum(w.pool_tb for w in wf.workloads if w.name in done)
    for s in option.servers:
        drive = sub.skus.storage.get(s.storage) if s.storage is not None else None
        # An unknown drive is reported with its server.
        tb = s.drive_count * drive.size_tb if s.drive_count and drive is not None else 0.0
        used = sum(local.get(s.id, {}).values())
        have_tb += tb
        used_tb += used
        if used > usable(tb, wf.policy) + TOL:
            errs.append(f"{s.id}: local datasets {used:.2f} TB over the headroom line of its "
                        f"{tb:.2f} TB of drives (O4, R15)")
        if abs(s.disk_tb - tb) > TOL or abs(s.disk_used_tb - used) > TOL:
            errs.append(f"{s.id}: reports {s.disk_used_tb:g} of {s.disk_tb:g} TB used, its drives "
                        f"and replicas give {used:g} of {tb:g} TB")
    if used_tb > usable(have_tb, wf.policy) + TOL:
        errs.append(f"storage {used_tb:.2f} TB over the headroom line of the pool's "
                    f"{have_tb:.2f} TB (O4, R15)")
    return errs
