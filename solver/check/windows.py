"""The file's runs as the checker reads them (H1, H2), and the scheduled runs it can check.

The checker expands the file's dates into runs itself: a first window from ``start`` to the
end of the ``deadline`` day (or ``start`` + ``deadline_days``), shifted by ``repeat``,
repetitions whose deadline falls after the horizon's end left out; hours count from the
horizon's first day at 00:00. Its own arithmetic on purpose (an oracle must not share the
code it checks): it never reads ``solver.horizon``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from itertools import count

from ..inputs.catalog import GpuSku
from ..inputs.horizon import add_months
from ..inputs.workload import Workload, WorkloadFile
from ..run_types import RunEntry
from .subject import Subject, is_run

REL = 1e-6
"""Relative slack of tokens, hours and prices."""
LIFE_MONTHS = 36
"""The hardware's life without ``policy.tco`` (H1)."""


@dataclass(frozen=True)
class Window:
    """H2: when one run of the file may begin and must be done by, hours from the horizon's
    start."""

    start_h: float
    deadline_h: float


def horizon_hours(wf: WorkloadFile) -> tuple[float, float]:
    """H1: the horizon's length in hours (calendar months) and the share of capex it is
    charged: months ÷ the hardware's life (tco years x 12, else 36), at most 1."""
    h = wf.policy.horizon
    if h is None:
        return 0.0, 1.0
    years = wf.policy.tco.years if wf.policy.tco else None
    months = h.months or (years or 3) * 12
    life = years * 12 if years else LIFE_MONTHS
    return (add_months(h.start, months) - h.start).days * 24.0, min(1.0, months / life)


def windows(wf: WorkloadFile) -> dict[tuple[str, int], Window]:
    """H2: every run of the file by (workload, run number from 1), those whose deadline
    falls after the horizon's end left out."""
    h = wf.policy.horizon
    if h is None:
        return {}
    origin = dt.datetime.combine(h.start, dt.time())
    hours, _ = horizon_hours(wf)
    out: dict[tuple[str, int], Window] = {}
    for w in wf.workloads:
        if not is_run(w, wf):
            continue
        first = dt.datetime.combine(w.start or h.start, dt.time())
        last = (dt.datetime.combine(w.deadline + dt.timedelta(days=1), dt.time())
                if w.deadline is not None else first + dt.timedelta(days=w.deadline_days or 0))
        span_h = (last - first).total_seconds() / 3600
        n = 0
        for k in count():
            day = w.repeat.shift(first.date(), k) if w.repeat else first.date()
            if k and (w.repeat is None or (w.repeat.until is not None and day > w.repeat.until)):
                break
            begin_h = (dt.datetime.combine(day, dt.time()) - origin).total_seconds() / 3600
            if begin_h >= hours:
                break
            if begin_h + span_h <= hours + 1e-9:
                n += 1
                out[(w.name, n)] = Window(begin_h, begin_h + span_h)
    return out


def name(r: RunEntry) -> str:
    """How a violation names a run."""
    return f"{r.workload} run {r.run}"


def sound_runs(sub: Subject) -> list[tuple[RunEntry, Workload, GpuSku]]:
    """The scheduled runs that are runs of the file, on a known GPU at a valid degree (the
    others are reported by H3 and left out of H4 and H5)."""
    return sub.once("sound-runs", lambda s: shapes(s)[0])


def shapes(sub: Subject) -> tuple[list[tuple[RunEntry, Workload, GpuSku]], list[str]]:
    """The sound runs (``sound_runs``), and what is wrong with the others (H3, R8, R10)."""
    return sub.once("run-shapes", _gather_shapes)


def _gather_shapes(sub: Subject) -> tuple[list[tuple[RunEntry, Workload, GpuSku]], list[str]]:
    wf = sub.timed
    assert wf is not None  # only called over a horizon
    policy = wf.policy
    by_name = {w.name: w for w in wf.workloads if is_run(w, wf)}
    good: list[tuple[RunEntry, Workload, GpuSku]] = []
    errs: list[str] = []
    for r in sub.option.runs:
        w, g, d = by_name.get(r.workload), sub.skus.gpu(r.gpu), r.gpus
        if w is None:
            errs.append(f"{name(r)}: {r.workload} is not a workload with runs in the file (H3)")
        elif g is None:
            errs.append(f"{name(r)}: unknown GPU {r.gpu} (H3)")
        elif d < 1 or d & (d - 1) or d > policy.max_parallel_degree:
            errs.append(f"{name(r)}: degree {d} not a power of two <= "
                        f"{policy.max_parallel_degree} as R8 asks (H3)")
        elif d > g.nvlink_gpus and d > policy.max_pcie_parallel_degree:
            errs.append(f"{name(r)}: degree {d} on {g.sku} beyond NVLink needs <= "
                        f"{policy.max_pcie_parallel_degree} as R10 asks (H3)")
        else:
            good.append((r, w, g))
    return good, errs
