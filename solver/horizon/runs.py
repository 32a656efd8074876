"""The horizon in hours and the runs of a mix (H1, H2), and the periods the program uses.

Hours count from the horizon's start (its first day at 00:00). A run's window is
[start_h, deadline_h]; repetitions whose deadline falls after the horizon's end are left out
(and counted, so the output can say so).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from ..inputs.horizon import add_months, first_window, horizon_months
from ..inputs.kinds import TRAINING_KINDS
from ..inputs.workload import Workload, WorkloadFile

HOURS_PER_DAY = 24.0
LIFE_MONTHS_DEFAULT = 36


@dataclass(frozen=True)
class Timeframe:
    """H1: the horizon a plan is made for."""

    start: dt.date
    months: int
    hours: float
    """Length in hours (calendar months, so 36 months from 2027-01-01 is 26,304 h)."""
    life_months: int
    """The hardware's life: policy.tco.years x 12, else 36."""
    step_h: float | None = None
    """Optional extra cut of the period grid, hours."""

    @property
    def capex_share(self) -> float:
        """H1: the share of capex a horizon shorter than the life is charged (straight
        line), 1 otherwise."""
        return min(1.0, self.months / self.life_months)

    def at(self, hours: float) -> dt.datetime:
        """The date and time ``hours`` after the horizon's start."""
        return dt.datetime.combine(self.start, dt.time()) + dt.timedelta(hours=hours)


@dataclass(frozen=True)
class RunSpec:
    """H2: one run of a finite workload: its tokens by its deadline."""

    workload: str
    run: int
    """Numbered from 1 in time order within its workload."""
    start_h: float
    deadline_h: float
    tokens: float
    """Tokens to train (x growth)."""
    min_replicas: int
    """At least ceil(replicas x growth) replicas (R19)."""

    @property
    def key(self) -> str:
        return f"{self.workload}#{self.run}"

    @property
    def window_h(self) -> float:
        return self.deadline_h - self.start_h


@dataclass(frozen=True)
class RunSet:
    """Every run of the mix, and the repetitions left out because they end too late."""

    frame: Timeframe
    runs: tuple[RunSpec, ...]
    dropped: dict[str, int]
    """Per workload, repetitions whose deadline is after the horizon's end."""


def timeframe(wf: WorkloadFile) -> Timeframe | None:
    """H1: the horizon of a file, None without ``policy.horizon`` (plans as before)."""
    h = wf.policy.horizon
    if h is None:
        return None
    tco_years = wf.policy.tco.years if wf.policy.tco else None
    months = horizon_months(h, tco_years)
    end = add_months(h.start, months)
    life = tco_years * 12 if tco_years else LIFE_MONTHS_DEFAULT
    step = h.step_days * HOURS_PER_DAY if h.step_days else None
    return Timeframe(h.start, months, (end - h.start).days * HOURS_PER_DAY, life, step)


def is_run(w: Workload, wf: WorkloadFile) -> bool:
    """H2: with a horizon, a training workload with tokens and a deadline is finite runs;
    everything else runs all the time."""
    return (wf.policy.horizon is not None and w.kind in TRAINING_KINDS
            and w.tokens is not None and (w.deadline_days is not None or w.deadline is not None))


def runs_of(wf: WorkloadFile) -> RunSet | None:
    """Every run of the mix in time order per workload; None without a horizon."""
    frame = timeframe(wf)
    if frame is None or wf.policy.horizon is None:
        return None
    origin = dt.datetime.combine(frame.start, dt.time())
    out: list[RunSpec] = []
    dropped: dict[str, int] = {}
    for w in wf.workloads:
        if not is_run(w, wf):
            continue
        first, end = first_window(w, wf.policy.horizon)
        span = end - first
        tokens = (w.tokens or 0.0) * wf.policy.growth
        k, n = 0, 0
        while True:
            day = w.repeat.shift(first.date(), k) if w.repeat else first.date()
            if k and (w.repeat is None or (w.repeat.until is not None
                                           and day > w.repeat.until)):
                break
            begin = dt.datetime.combine(day, dt.time())
            begin_h = (begin - origin).total_seconds() / 3600
            if begin_h >= frame.hours:
                break
            deadline_h = (begin + span - origin).total_seconds() / 3600
            if deadline_h > frame.hours + 1e-9:
                dropped[w.name] = dropped.get(w.name, 0) + 1
            else:
                n += 1
                out.append(RunSpec(w.name, n, begin_h, deadline_h, tokens,
                                   wf.planned_replicas(w)))
            k += 1
            if w.repeat is None:
                break
    return RunSet(frame, tuple(out), dropped)


def period_cuts(runs: RunSet) -> tuple[float, ...]:
    """The period grid: the horizon's ends, every run's start and deadline, and every
    ``step_days`` where asked. Within a period the set of runs that may be active is fixed."""
    cuts = {0.0, runs.frame.hours}
    for r in runs.runs:
        cuts.add(round(r.start_h, 6))
        cuts.add(round(r.deadline_h, 6))
    step = runs.frame.step_h
    if step:
        cuts.update(round(i * step, 6) for i in range(1, math.ceil(runs.frame.hours / step)))
    return tuple(sorted(c for c in cuts if 0.0 <= c <= runs.frame.hours))
