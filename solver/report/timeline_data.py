"""GPU use over time (H6): how many GPUs an option keeps busy in each span of its horizon,
per row of the timeline (a run server, the always-on servers of one configuration, the
GPUs rented per SKU) and per (GPU SKU, bought | rented).

Pure functions of an option and its ``HorizonInfo``: the terminal, the workbook's Timeline
sheet and the tests read the same figures. A figure is GPU-hours in a span; the average
number of GPUs in use there is GPU-hours ÷ the span's hours.

- A run on bought servers keeps ``gpus`` GPUs of each server a replica of it is on busy
  from ``begin_h`` to ``end_h``.
- An always-on server keeps the GPUs its placements use busy for the whole horizon (a GPU
  two shareable replicas share counts once).
- A rented run holds ``rented.gpus`` GPUs from ``begin_h`` for the hours billed
  (``rented.hours``, at least the cloud's ``min_hours``): what is paid for, so the rented
  GPU-hours of a timeline add up to the bill of materials' rented GPU-hours.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from ..inputs.horizon import add_months
from ..plan_types import PlanOption, Server
from ..run_types import HorizonInfo, RunEntry

WEEKLY_UP_TO_MONTHS = 6
"""Horizons of at most this many months are shown week by week, longer ones by month."""
BOUGHT, RENTED = "bought", "rented"


@dataclass(frozen=True)
class Span:
    """One column of the timeline: [begin_h, end_h) hours from the horizon's start."""

    label: str
    """"2027-03" for a month, "2027-03-08" (its first day) for a week."""
    begin_h: float
    end_h: float

    @property
    def hours(self) -> float:
        return self.end_h - self.begin_h


@dataclass(frozen=True)
class UseRow:
    """One row of the timeline: GPU-hours busy per span."""

    label: str
    """A run server's id, an always-on configuration, or "rented <SKU>"."""
    kind: str
    """``run server``, ``always-on`` or ``rented``."""
    gpu: str
    config: str
    """The servers' configuration (``config_label``); "" for rented GPUs."""
    installed: int
    """GPUs installed in the row's servers; 0 for rented GPUs."""
    gpu_hours: tuple[float, ...]
    """Per span of the ``spans`` it was computed for."""


def spans(info: HorizonInfo) -> list[Span]:
    """The timeline's columns: one per calendar month of the horizon, or one per week (7
    days from the start, the last one cut at the horizon's end) for horizons of at most
    ``WEEKLY_UP_TO_MONTHS`` months."""
    origin = dt.datetime.combine(info.start, dt.time())
    out: list[Span] = []
    if info.months <= WEEKLY_UP_TO_MONTHS:
        begin = 0.0
        while begin < info.hours - 1e-9:
            day = info.start + dt.timedelta(hours=begin)
            out.append(Span(day.isoformat(), begin, min(begin + 7 * 24.0, info.hours)))
            begin += 7 * 24.0
        return out
    for k in range(info.months):
        a, b = add_months(info.start, k), add_months(info.start, k + 1)
        begin = (dt.datetime.combine(a, dt.time()) - origin).total_seconds() / 3600
        end = min((dt.datetime.combine(b, dt.time()) - origin).total_seconds() / 3600,
                  info.hours)
        if end > begin:
            out.append(Span(a.strftime("%Y-%m"), begin, end))
    return out


def whole(info: HorizonInfo) -> list[Span]:
    """The whole horizon as one span."""
    return [Span("horizon", 0.0, info.hours)]


def overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    """Hours [a0, a1) and [b0, b1) have in common."""
    return max(0.0, min(a1, b1) - max(a0, b0))


def config_label(server: Server) -> str:
    """A server's configuration: platform + GPUs + DIMMs + drives + the NICs the plan adds
    (N3), as SKUs."""
    parts = [server.platform]
    if server.gpu and server.gpu_count:
        parts.append(f"{server.gpu_count} x {server.gpu}")
    parts.append(f"{server.dimm_count} x {server.memory}")
    if server.storage and server.drive_count:
        parts.append(f"{server.drive_count} x {server.storage}")
    parts += [f"{n} x {sku}" for sku, n in server.nics if n]
    return " + ".join(parts)


def run_servers(option: PlanOption) -> set[str]:
    """Ids of the servers bought for runs (they hold no always-on replica)."""
    return set(option.time.run_servers) if option.time is not None else set()


def busy_gpus(option: PlanOption, server: Server) -> int:
    """GPUs of ``server`` its always-on placements use (a shared GPU once)."""
    used: set[int] = set()
    extra = 0
    for p in option.placements:
        if p.server != server.id or not p.gpus:
            continue
        if p.gpu_indices:
            used.update(p.gpu_indices)
        else:  # a placement built without indices: its GPUs are its own
            extra += p.gpus
    return min(server.gpu_count, len(used) + extra)


def _run_row(server: Server, runs: Sequence[RunEntry], cols: Sequence[Span]) -> UseRow:
    hours = []
    for s in cols:
        hours.append(sum(r.servers.count(server.id) * r.gpus
                         * overlap(r.begin_h, r.end_h, s.begin_h, s.end_h)
                         for r in runs if r.servers))
    return UseRow(server.id, "run server", server.gpu or "", config_label(server),
                  server.gpu_count, tuple(hours))


def use_rows(option: PlanOption, cols: Sequence[Span]) -> list[UseRow]:
    """The timeline's rows: each run server (by id), the always-on GPU servers one row per
    configuration, then the rented GPUs one row per SKU; GPU-hours busy per span of ``cols``."""
    ids = run_servers(option)
    rows = [_run_row(s, option.runs, cols) for s in option.servers
            if s.id in ids and s.gpu and s.gpu_count]
    always: dict[str, list[Server]] = {}
    for s in option.servers:
        if s.id not in ids and s.gpu and s.gpu_count:
            always.setdefault(config_label(s), []).append(s)
    for config, servers in always.items():
        busy = sum(busy_gpus(option, s) for s in servers)
        n = len(servers)
        rows.append(UseRow(f"{n} always-on server{'s' if n != 1 else ''}", "always-on",
                           servers[0].gpu or "", config, sum(s.gpu_count for s in servers),
                           tuple(busy * span.hours for span in cols)))
    rented: dict[str, list[float]] = {}
    for r in option.runs:
        if r.rented is None:
            continue
        row = rented.setdefault(r.gpu, [0.0] * len(cols))
        for i, span in enumerate(cols):
            row[i] += r.rented.gpus * overlap(r.begin_h, r.begin_h + r.rented.hours,
                                              span.begin_h, span.end_h)
    rows += [UseRow(f"rented {sku}", "rented", sku, "", 0, tuple(h))
             for sku, h in sorted(rented.items())]
    return rows


def gpu_use(option: PlanOption, cols: Sequence[Span]) -> dict[tuple[str, str], list[float]]:
    """GPU-hours busy per span of ``cols``, per (GPU SKU, ``bought`` | ``rented``); bought
    covers every server of the plan (owned ones too), rented the GPUs rented for runs."""
    out: dict[tuple[str, str], list[float]] = {}
    for row in use_rows(option, cols):
        key = (row.gpu, RENTED if row.kind == "rented" else BOUGHT)
        acc = out.setdefault(key, [0.0] * len(cols))
        for i, h in enumerate(row.gpu_hours):
            acc[i] += h
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class RentLine:
    """H6: one line of the rented GPU-hours section of the bill of materials."""

    gpu: str
    gpu_hours: float
    """GPU-hours billed: Σ rented GPUs x hours billed over the runs renting this SKU."""
    per_gpu_hour: float
    runs: tuple[tuple[str, int], ...]
    """(workload, runs of it renting this SKU), in the order they first rent."""

    @property
    def cost(self) -> float:
        return self.gpu_hours * self.per_gpu_hour

    def who(self) -> str:
        """``pretrain (1 run), finetune (3 runs)``."""
        return ", ".join(f"{w} ({n} run{'s' if n != 1 else ''})" for w, n in self.runs)


def rent_lines(option: PlanOption) -> list[RentLine]:
    """The rented GPU-hours per GPU SKU (and price), in SKU order."""
    hours: dict[tuple[str, float], float] = {}
    runs: dict[tuple[str, float], dict[str, int]] = {}
    for r in option.runs:
        if r.rented is not None:
            key = (r.gpu, r.rented.per_gpu_hour)
            hours[key] = hours.get(key, 0.0) + r.rented.gpus * r.rented.hours
            who = runs.setdefault(key, {})
            who[r.workload] = who.get(r.workload, 0) + 1
    return [RentLine(sku, h, price, tuple(runs[(sku, price)].items()))
            for (sku, price), h in sorted(hours.items())]
