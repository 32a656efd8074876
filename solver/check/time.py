"""Plans over time (H3, H5, H6): the schedule of an option checked against the file's runs.

Each scheduled run against the checker's own expansion of the file (``windows``): its
window, replicas, tokens and where it runs (H3); what is rented, at what price, under the
cloud's caps (H5); the horizon's cost figures (H6). What runs on every server at every
instant is ``moments``' (H4). The checker's own arithmetic on purpose (an oracle must not
share the code it checks): it reads the estimator and the catalog, never the program.
"""

from __future__ import annotations

import math
from collections import Counter

from ..estimate.replica import replica_throughput
from ..inputs.catalog import Catalog, GpuSku
from ..inputs.workload import Workload, WorkloadFile
from ..plan_types import PlanOption
from ..run_types import RunEntry
from .fabric import expected_efficiency
from .moments import check_h4
from .subject import TOL, Subject, estimate_once
from .windows import REL, Window, horizon_hours, name, shapes, sound_runs, windows


def check_h3(sub: Subject) -> list[str]:
    """H3: every run of the file is scheduled once, and only those; each window lies in
    [start, deadline] (start ≤ begin < end ≤ deadline); replicas ≥ ⌈replicas x growth⌉;
    replicas x T2 tokens/s x data-parallel efficiency x (end − begin) x 3,600 ≥ tokens x
    growth; its replicas run on one server id each of the plan, holding its GPU SKU, or on
    rented GPUs, not both. Start, deadline, tokens and tokens/s are reported as computed."""
    wf, runs = sub.timed, sub.option.runs
    if wf is None:
        return [f"{name(r)}: scheduled, but the file has no horizon (H3)" for r in runs]
    want = windows(wf)
    seen = Counter((r.workload, r.run) for r in runs)
    errs = [f"{w} run {n}: scheduled {k} times (H3)" for (w, n), k in seen.items() if k > 1]
    errs += [f"{w} run {n} (hours {win.start_h:g} to {win.deadline_h:g}): not scheduled (H3)"
             for (w, n), win in want.items() if (w, n) not in seen]
    shaped, shape_errs = shapes(sub)
    errs += shape_errs
    for r, w, g in shaped:
        win = want.get((r.workload, r.run))
        if win is None:
            errs.append(f"{name(r)}: the file has no such run (H3)")
            continue
        errs += _window_errors(r, win) + _volume_errors(sub, r, w, g, wf)
        errs += _where_errors(sub, r)
    return errs


def _window_errors(r: RunEntry, win: Window) -> list[str]:
    errs = []
    if abs(r.start_h - win.start_h) > TOL or abs(r.deadline_h - win.deadline_h) > TOL:
        errs.append(f"{name(r)}: reports window {r.start_h:g}–{r.deadline_h:g} h, the file "
                    f"gives {win.start_h:g}–{win.deadline_h:g} h (H3)")
    if not (win.start_h - TOL <= r.begin_h < r.end_h <= win.deadline_h + TOL):
        errs.append(f"{name(r)}: runs {r.begin_h:g}–{r.end_h:g} h, outside its window "
                    f"{win.start_h:g}–{win.deadline_h:g} h (H3)")
    return errs


def _volume_errors(sub: Subject, r: RunEntry, w: Workload, g: GpuSku,
                   wf: WorkloadFile) -> list[str]:
    """Replicas, the tokens reported and the tokens processed inside the window."""
    policy = wf.policy
    errs = []
    least = wf.planned_replicas(w)
    if r.replicas < least:
        errs.append(f"{name(r)}: {r.replicas} replicas, at least {least} needed as R19 asks (H3)")
    tokens = (w.tokens or 0.0) * policy.growth
    if not math.isclose(r.tokens, tokens, rel_tol=REL):
        errs.append(f"{name(r)}: reports {r.tokens:,.0f} tokens, the file asks "
                    f"{tokens:,.0f} (H3)")
    rate = replica_throughput(w, g, r.gpus, policy,
                              estimate_once(w, g, r.gpus, policy)).tokens_per_s
    if not math.isclose(r.tokens_per_s, rate, rel_tol=REL):
        errs.append(f"{name(r)}: reports {r.tokens_per_s:,.1f} tokens/s a replica, the "
                    f"estimator gives {rate:,.1f} on {g.sku} x{r.gpus} (H3)")
    servers = {s.id: s for s in sub.option.servers}
    eff = expected_efficiency(r, w, g, servers, sub.skus, policy)
    if not math.isclose(r.efficiency, eff, rel_tol=1e-6):
        errs.append(f"{name(r)}: reports data-parallel efficiency {r.efficiency:.4f}, its "
                    f"replicas' links give {eff:.4f} (N2)")
    done = r.replicas * rate * eff * max(0.0, r.end_h - r.begin_h) * 3600
    if done < tokens * (1 - REL):
        errs.append(f"{name(r)}: {r.replicas} x {rate:,.1f} tokens/s x "
                    f"{eff:.4f} over {r.end_h - r.begin_h:,.2f} h "
                    f"trains {done:,.0f} tokens < {tokens:,.0f} (H3)")
    return errs


def _where_errors(sub: Subject, r: RunEntry) -> list[str]:
    """One server of the plan holding the run's GPU per replica, or rented GPUs."""
    if (r.servers is None) == (r.rented is None):
        both = r.rented is not None
        return [f"{name(r)}: runs on {'both' if both else 'neither'} servers "
                + f"{'and' if both else 'nor'} rented GPUs (H3)"]
    if r.servers is None:
        return []
    if len(r.servers) != r.replicas:
        return [f"{name(r)}: {len(r.servers)} server ids for {r.replicas} replicas (H3)"]
    servers = {s.id: s for s in sub.option.servers}
    errs = []
    for sid in dict.fromkeys(r.servers):
        s = servers.get(sid)
        if s is None:
            errs.append(f"{name(r)}: on {sid}, which is not a server of the plan (H3)")
        elif s.gpu != r.gpu:
            errs.append(f"{name(r)}: on {sid}, which holds {s.gpu or 'no GPU'}, not "
                        f"{r.gpu} (H3)")
    return errs


def check_h5(sub: Subject) -> list[str]:
    """H5: a rented run's GPU has a cloud price and renting is allowed; a replica fits that
    GPU at that degree; GPUs = replicas x degree, billed hours ≥ max(end − begin, min_hours),
    cost = price x GPUs x hours; at every instant Σ rented GPUs of a SKU ≤ its max_gpus."""
    if sub.timed is None:
        return []
    policy = sub.timed.policy
    errs: list[str] = []
    rented = [(r, w, g) for r, w, g in sound_runs(sub) if r.rented is not None]
    for r, w, g in rented:
        c = sub.skus.cloud.get(r.gpu)
        if c is None:
            errs.append(f"{name(r)}: rents {r.gpu}, which has no cloud price (H5)")
            continue
        if policy.rent == "never":
            errs.append(f"{name(r)}: rents {r.gpu}, but policy.rent is never (H5)")
        e = estimate_once(w, g, r.gpus, policy)
        if not e.fits:
            errs.append(f"{name(r)}: {e.vram_gb_per_gpu:.1f} GB/GPU does not fit a rented "
                        f"{g.sku} x{r.gpus} under headroom, as R15 asks (H5)")
        errs += _bill_errors(r, c.per_gpu_hour, c.min_hours or 0.0)
    return errs + _cap_errors(sub, [r for r, _, _ in rented])


def _bill_errors(r: RunEntry, price: float, min_hours: float) -> list[str]:
    bill = r.rented
    assert bill is not None
    gpus = r.replicas * r.gpus
    hours = max(r.end_h - r.begin_h, min_hours)
    errs = []
    if bill.gpus != gpus:
        errs.append(f"{name(r)}: rents {bill.gpus} GPUs for {r.replicas} replicas x "
                    f"{r.gpus} (H5)")
    if bill.hours < hours - TOL:
        errs.append(f"{name(r)}: billed {bill.hours:g} h, runs {r.end_h - r.begin_h:g} h "
                    f"(billed at least {min_hours:g} h) (H5)")
    if not math.isclose(bill.per_gpu_hour, price, rel_tol=REL):
        errs.append(f"{name(r)}: priced {bill.per_gpu_hour:g} a GPU-hour, the catalog says "
                    f"{price:g} (H5)")
    cost = price * gpus * bill.hours
    if not math.isclose(bill.cost, cost, rel_tol=REL, abs_tol=0.005):
        errs.append(f"{name(r)}: rent {bill.cost:,.2f} != {price:g} x {gpus} GPUs x "
                    f"{bill.hours:g} h = {cost:,.2f} (H5)")
    return errs


def _cap_errors(sub: Subject, rented: list[RunEntry]) -> list[str]:
    """The cloud's max_gpus per SKU, at every instant a rental begins (the most at once)."""
    errs = []
    for sku, c in sub.skus.cloud.items():
        mine = [r for r in rented if r.gpu == sku]
        if c.max_gpus is None or not mine:
            continue
        for t in sorted({r.begin_h for r in mine}):
            held = sum(r.replicas * r.gpus for r in mine if r.begin_h <= t < r.end_h)
            if held > c.max_gpus:
                errs.append(f"{sku}: {held} GPUs rented at {t:,.2f} h, the cloud has at most "
                            f"{c.max_gpus} (H5)")
                break
    return errs


def check_h6(sub: Subject) -> list[str]:
    """H6 figures: an option over a horizon reports its costs there; rent = Σ rented runs'
    cost; capex charged = capex x the horizon's share of the hardware's life (H1); the run
    servers are servers of the plan."""
    option, wf = sub.option, sub.timed
    if wf is None:
        return [] if option.time is None else ["costs over a horizon, but no horizon (H6)"]
    t = option.time
    if t is None:
        return ["over a horizon, the option reports no costs there (H6)"]
    errs = []
    rent = sum(r.rented.cost for r in option.runs if r.rented is not None)
    if not math.isclose(t.rent, rent, rel_tol=REL, abs_tol=0.01):
        errs.append(f"reports rent {t.rent:,.2f}, its rented runs cost {rent:,.2f} (H6)")
    _, share = horizon_hours(wf)
    if not math.isclose(t.capex_charged, option.total_cost * share, rel_tol=REL, abs_tol=0.01):
        errs.append(f"reports capex charged {t.capex_charged:,.2f}, capex "
                    f"{option.total_cost:,.2f} x {share:g} is {option.total_cost * share:,.2f} "
                    "as H1 asks (H6)")
    ids = {s.id for s in option.servers}
    errs += [f"run server {sid} is not a server of the plan (H6)"
             for sid in t.run_servers if sid not in ids]
    return errs


TIME_CHECKS = (check_h3, check_h4, check_h5, check_h6)
"""The checks of a plan over time, in the order they report."""


def check_time(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """Every way ``option``'s schedule breaks H3–H6 (empty without a horizon and runs)."""
    sub = Subject.of(option, wf, catalog)
    return [err for check in TIME_CHECKS for err in check(sub)]
