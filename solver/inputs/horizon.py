"""The time fields of a workload file (H1, H2): the planning horizon, when a finite run
starts and must end, and how it repeats. What they mean in hours is ``solver/horizon/runs``'s.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, PositiveFloat, PositiveInt, model_validator

from .base import StrictModel, clip
from .catalog import IsoDate

MAX_HORIZON_MONTHS = 120
"""Longest horizon plan-buy plans over (ten years)."""


class Horizon(StrictModel):
    """H1: the span the hardware is bought for and the runs are scheduled in."""

    start: IsoDate
    """First day of the horizon (YYYY-MM-DD): hardware is bought and in use from then."""
    months: PositiveInt | None = Field(default=None, le=MAX_HORIZON_MONTHS)
    """Length in calendar months; default the hardware's life (policy.tco.years x 12,
    else 36). A horizon shorter than the life charges capex x months / life."""
    step_days: PositiveFloat | None = Field(default=None, ge=0.25, le=366)
    """Optional finer time grid: the program also cuts the horizon every step_days, so a
    run may end part-way through another run's window (default: cut only where a run starts
    or ends)."""


def _repeat_value(value: Any) -> Any:
    """``weekly`` and ``monthly`` as written, or a mapping; anything else gets one message."""
    if isinstance(value, str):
        if value in ("weekly", "monthly"):
            return {"every": value}
        raise ValueError(f"repeat '{clip(value)}' is not a repetition. To fix: write repeat: "
                         "weekly, repeat: monthly, or repeat: {every_days: 14, until: "
                         "2027-06-30}")
    return value


class Repeat(StrictModel):
    """H2: a run that comes back: every week, month or N days, optionally until a date."""

    every: Literal["weekly", "monthly"] | None = None
    """weekly or monthly (the same day of each month, or the month's last day)."""
    every_days: PositiveFloat | None = Field(default=None, ge=1, le=3660)
    """Days between two starts (instead of ``every``)."""
    until: IsoDate | None = None
    """Last day a repetition may start; default the horizon's end."""

    @model_validator(mode="after")
    def _one_period(self) -> Repeat:
        if (self.every is None) == (self.every_days is None):
            raise ValueError("repeat needs one period: weekly, monthly or every_days. To fix: "
                             "write repeat: weekly, or repeat: {every_days: 14}")
        return self

    def shift(self, first: dt.date, k: int) -> dt.date:
        """Start day of repetition ``k`` (0 is the first run), the first run's being ``first``."""
        if self.every == "weekly":
            return first + dt.timedelta(days=7 * k)
        if self.every == "monthly":
            return add_months(first, k)
        return first + dt.timedelta(days=(self.every_days or 0.0) * k)

    def days(self) -> float:
        """The period in days (a month counted as 28, its shortest, for length checks)."""
        return 7.0 if self.every == "weekly" else 28.0 if self.every == "monthly" else (
            self.every_days or 0.0)

    def label(self) -> str:
        return self.every or f"every {self.every_days:g} days"


RepeatSpec = Annotated[Repeat, BeforeValidator(
    _repeat_value, json_schema_input_type=Literal["weekly", "monthly"] | Repeat)]
"""``weekly``, ``monthly`` or a ``Repeat`` mapping (the schema offers all three)."""


def add_months(day: dt.date, months: int) -> dt.date:
    """The same day ``months`` calendar months later, or that month's last day."""
    y, m = divmod(day.month - 1 + months, 12)
    year, month = day.year + y, m + 1
    last = (dt.date(year + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(year, month, min(day.day, last))


def horizon_months(horizon: Horizon, tco_years: int | None) -> int:
    """H1: the horizon's length in months: as written, else the hardware's life (policy.tco
    years x 12, else 36)."""
    return horizon.months or (tco_years or 3) * 12


def first_window(w: Any, horizon: Horizon) -> tuple[dt.datetime, dt.datetime]:
    """H2: when a workload's first run may begin and must end: ``start`` (default the
    horizon's start) at 00:00, and ``deadline`` at the end of that day, or start +
    ``deadline_days``."""
    start = dt.datetime.combine(w.start or horizon.start, dt.time())
    if w.deadline is not None:
        return start, dt.datetime.combine(w.deadline + dt.timedelta(days=1), dt.time())
    return start, start + dt.timedelta(days=w.deadline_days or 0.0)


def time_problems(policy: Any, workloads: list[Any]) -> list[str]:
    """What does not fit in time (H1, H2), one line per problem naming the workload: time
    fields without a horizon, a deadline before its start or outside the horizon, a
    repetition longer than the horizon or ending before it starts."""
    horizon: Horizon | None = policy.horizon
    out = []
    for i, w in enumerate(workloads):
        where = f"workloads[{i}] ({w.name})"
        timed = [f for f in ("start", "deadline", "repeat", "network")
                 if getattr(w, f, None) is not None]
        if horizon is None:
            if timed:
                out.append(f"{where}: {', '.join(timed)} {'needs' if len(timed) == 1 else 'need'}"
                           " a planning horizon. To fix: add policy: {horizon: {start: "
                           "2027-01-01, months: 36}}, or remove " + ", ".join(timed))
            continue
        if w.tokens is None or (w.deadline_days is None and w.deadline is None):
            if getattr(w, "network", None) is not None:
                out.append(f"{where}: network applies to runs (a training job with tokens and "
                           "a deadline), which this workload is not. To fix: remove network, "
                           "or give it tokens and deadline_days")
            continue
        out += _window_problems(where, w, horizon, policy)
    return out


def _window_problems(where: str, w: Any, horizon: Horizon, policy: Any) -> list[str]:
    months = horizon_months(horizon, policy.tco.years if policy.tco else None)
    h_start = dt.datetime.combine(horizon.start, dt.time())
    h_end = dt.datetime.combine(add_months(horizon.start, months), dt.time())
    start, end = first_window(w, horizon)
    out = []
    if start < h_start:
        out.append(f"{where}: start {start.date()} is before the horizon's start "
                   f"{horizon.start}. To fix: write start: {horizon.start} or later")
    if end <= start:
        out.append(f"{where}: deadline {w.deadline} is before its start {start.date()}. "
                   f"To fix: write a deadline after {start.date()}, or deadline_days")
    elif end > h_end:
        out.append(f"{where}: its first run ends {end:%Y-%m-%d %H:%M}, after the horizon's end "
                   f"{h_end.date()} ({months} months from {horizon.start}). To fix: move "
                   "start or the deadline earlier, or lengthen policy.horizon.months")
    rep = w.repeat
    if rep is not None:
        days = (h_end - h_start).days
        if rep.days() > days:
            out.append(f"{where}: repeat {rep.label()} is longer than the horizon ({days} days): "
                       "it would never repeat. To fix: remove repeat, or lengthen the horizon")
        if rep.until is not None and rep.until < start.date():
            out.append(f"{where}: repeat until {rep.until} is before the first run's start "
                       f"{start.date()}. To fix: write until: {start.date()} or later")
    return out
