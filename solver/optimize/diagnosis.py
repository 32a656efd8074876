"""Why no plan exists: a reason per workload that cannot run anywhere, and why a
solver came back with none (absurd prices, the time limit)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from ..errors import SolverError
from ..inputs.catalog import MAX_PRICE, Catalog
from ..inputs.policy import Policy
from ..inputs.workload import WorkloadFile
from ..result import Termination
from ..rules import headroom_line, usable
from ..rules.storage import stored_tb
from .advice import parallel_advice, with_checkpointing
from .candidates import Candidates, cores_of, type_accepts
from .replicas import ReplicaOption, is_timed, timed_reason


def infeasibility_reasons(wf: WorkloadFile, catalog: Catalog, cand: Candidates) -> list[str]:
    """Why each workload that cannot run anywhere cannot (empty when every one can)."""
    policy = wf.policy
    reasons = _storage_reasons(wf, catalog)
    allowed = [g for g in catalog.gpus if g.sku not in policy.exclude] or list(catalog.gpus)
    best_gpu = max(allowed, key=lambda g: g.vram_gb)
    line = usable(best_gpu.vram_gb, policy)
    among = "among the GPUs not excluded" if policy.exclude else "in the catalog"
    for w in wf.workloads:
        opts = cand.options[w.name]
        timed = None if opts or not is_timed(w) else timed_reason(
            w, catalog, policy, cand.tried[w.name])
        if timed is not None:
            reasons.append(timed)
            continue
        if not opts:
            tried = [e for e in cand.tried[w.name]]
            if not tried:
                reasons.append(_no_gpu_reason(w.name, catalog, policy))
                continue
            vram = {g.sku: g.vram_gb for g in catalog.gpus}
            # The least need, on the largest card among equals (every GPU needs as much at
            # one degree: the one that comes nearest is named).
            e = min(tried, key=lambda e: (e.vram_gb_per_gpu, -vram.get(e.gpu or "", 0.0)))
            # Headroom is what blocks when some option would fit on the bare card.
            fit_at = max((1 - t.vram_gb_per_gpu / vram[t.gpu] for t in tried if t.gpu in vram),
                         default=0.0)
            fix = (f"lower policy.headroom (now {policy.headroom:g}; it would fit at "
                   f"{_floor(fit_at):g} or less), " if fit_at > 0 else "")
            then = with_checkpointing(w, catalog, policy)
            if then is not None:
                fix += (f"set activation_checkpointing: true (it would fit on {then.gpus} x "
                        f"{then.skus[0]}), ")
            degrees = parallel_advice(w, catalog, policy)
            fix += degrees.fix
            reasons.append(
                f"{w.name} needs {e.vram_gb_per_gpu:.1f} GB per GPU even at degree {e.degree} "
                f"on {e.gpu}; the largest usable VRAM {among} is {line:.1f} GB "
                f"({best_gpu.sku} {best_gpu.vram_gb:g} GB x {headroom_line(policy):g}) — "
                f"{degrees.binds}. "
                f"To fix: {fix}lower the batch/context/seq_len, or add a larger GPU"
            )
            continue
        if not any(type_accepts(t, o, policy) for o in opts for t in cand.types):
            hosts = [t.disk_tb for o in opts for t in cand.types
                     if type_accepts(t, replace(o, local_tb=0.0), policy)]
            if hosts:
                reasons.append(_disk_reason(w.name, w.local_tb, max(hosts), policy))
                continue
            cores = _cores_reason(w.name, opts, cand, policy)
            if cores is not None:
                reasons.append(cores)
                continue
            ram = min(o.ram_gb for o in opts)
            biggest = max((usable(t.ram_gb, policy) for t in cand.types), default=0.0)
            largest = max((t.ram_gb for t in cand.types), default=0.0)
            fix = (f"lower policy.headroom (now {policy.headroom:g}; it would fit at "
                   f"{_floor(1 - ram / largest):g} or less), " if ram < largest else "")
            reasons.append(
                f"{w.name} needs {ram:.0f} GB of host RAM per replica; the largest server in "
                f"the catalog offers {biggest:.0f} GB under the headroom line ({largest:.0f} GB "
                f"x {headroom_line(policy):g}). To fix: {fix}lower data.in_memory_gb / workers, "
                "or add a platform with more DIMM slots"
            )
    return reasons


def _no_gpu_reason(name: str, catalog: Catalog, policy: Policy) -> str:
    """A workload with no GPU option tried: every GPU excluded, or none fits a platform."""
    allowed = [g.sku for g in catalog.gpus if g.sku not in policy.exclude]
    if not allowed:
        skus = [g.sku for g in catalog.gpus]
        return (f"{name} needs a GPU, but every GPU in the catalog is excluded ("
                f"{', '.join(skus[:8])}{' ...' if len(skus) > 8 else ''}: policy.exclude and "
                f"--exclude). To fix: stop excluding at least one of them, e.g. {skus[0]}")
    return (f"{name}: no GPU {'left after exclude' if policy.exclude else 'in the catalog'} "
            f"fits any platform ({', '.join(allowed[:8])}). To fix: add a platform whose "
            "form_factors include theirs, or stop excluding one that does")


def _cores_reason(name: str, opts: Sequence[ReplicaOption], cand: Candidates,
                  policy: Policy) -> str | None:
    """O3: why no server takes one replica when host RAM would fit and CPU cores do not
    (None when cores are not what blocks): the fewest cores an option needs and the most
    a server it could run on offers."""
    sized = [(o, t) for o in opts for t in cand.types
             if type_accepts(t, replace(o, cores=0.0, local_tb=0.0), policy)]
    if not sized:
        return None
    need = min(o.cores for o, _ in sized)
    most, platform = max((cores_of(t), t.platform.sku) for _, t in sized)
    fix = (f"write data.cpu_cores: {math.floor(most):g} or less (or fewer data.workers)"
           if most >= 1 else "fix the platforms' cpu_cores in the catalog")
    return (f"{name} needs {need:g} CPU cores per replica (data.cpu_cores, or its default "
            f"from data.workers); the most a server it fits offers is {most:g} ({platform} "
            f"cpu_cores). To fix: {fix}, or add a platform with more cores")


def _disk_reason(name: str, local_tb: float, biggest: float, policy: Policy) -> str:
    """O4: a workload whose local dataset fits no server it could otherwise run on, the
    largest of which holds ``biggest`` TB of drives."""
    fix = (f"lower policy.headroom (now {policy.headroom:g}; it would fit at "
           f"{_floor(1 - local_tb / biggest):g} or less), " if local_tb < biggest else "")
    return (
        f"{name} reads its {local_tb:g} TB dataset locally (data.storage: local), so every "
        f"server that runs a replica holds a copy; the largest server it can run on holds "
        f"at most {usable(biggest, policy):g} TB under the headroom line ({biggest:g} TB of "
        f"drives in all its bays x {headroom_line(policy):g}). To fix: {fix}set data.storage: "
        "shared to keep one copy in the pool, or add a larger drive or a platform with more "
        "drive bays"
    )


def _floor(headroom: float) -> float:
    """A headroom rounded down to two decimals, for advice that must still hold."""
    return math.floor(headroom * 100) / 100


def _storage_reasons(wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """The mix keeps data on disk but no platform has a drive bay to put a drive in."""
    keep = [w for w in wf.workloads if w.storage_tb > 0]
    if not keep or any(p.drive_bays > 0 for p in catalog.platforms):
        return []
    total = stored_tb(keep)
    names = ", ".join(w.name for w in keep[:5]) + (f" and {len(keep) - 5} more"
                                                  if len(keep) > 5 else "")
    return [(
        f"the workloads keep {total:g} TB on disk (data.dataset_tb + data.checkpoints_tb of "
        f"{names}), but every platform in the catalog has drive_bays: 0, so no drive can be "
        "bought. To fix: give a platform drive bays in the catalog, or set those workloads' "
        "dataset_tb and checkpoints_tb to 0 if their data lives elsewhere"
    )]



LARGEST_SANE_PRICE = MAX_PRICE
"""A unit price above this cannot be a quote (the catalog refuses it; a catalog built in
code may still hold one)."""


def no_plan_message(solver: str, time_limit: float | None, catalog: Catalog,
                     where: str = "") -> str:
    """Why no plan came back when the solver found none: absurd prices first, then the time
    limit only when one was set."""
    where = f" {where}" if where else ""
    top = _top_price(catalog)
    if top > LARGEST_SANE_PRICE:
        return (f"the {solver} solver could not compute with this catalog: its prices reach "
                f"{top:.3g} {catalog.currency}, too large for floating-point arithmetic to "
                f"price a plan. To fix: correct the prices (every unit price below "
                f"{LARGEST_SANE_PRICE:.0e}), or state them in thousands")
    if time_limit:
        return (f"the {solver} solver stopped without a feasible plan{where} within the time "
                f"limit of {time_limit:g} s. To fix: raise --time-limit")
    return (f"the {solver} solver stopped without a feasible plan{where} and without a time "
            "limit; the program may be numerically unstable (e.g. prices too large or too "
            "small). To fix: check the catalog's prices, or try --solver cbc")


class NoPlanInTime(SolverError):
    """The time limit ended the search before the solver found any plan."""

    termination = Termination.TIME_LIMIT_WITHOUT_PLAN


def no_plan_error(solver: str, time_limit: float | None, catalog: Catalog,
                  where: str = "") -> SolverError:
    """The error for a solve that came back with no plan (``no_plan_message``):
    ``NoPlanInTime`` when the time limit is what stopped it, so a sweep can tell."""
    message = no_plan_message(solver, time_limit, catalog, where)
    timed = bool(time_limit) and _top_price(catalog) <= LARGEST_SANE_PRICE
    return NoPlanInTime(message) if timed else SolverError(message)


def _top_price(catalog: Catalog) -> float:
    """The largest unit price in the catalog (absurd ones stop the solver first)."""
    return max([g.price for g in catalog.gpus] + [p.price for p in catalog.platforms]
               + [d.price for d in catalog.memory] + [s.price for s in catalog.storage])
