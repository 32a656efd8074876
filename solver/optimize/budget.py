"""How a run's ``--time-limit`` is spent: a wall clock that must hold, and a work count
that makes a time-limited run reproducible.

Two meters run side by side:

* **wall clock** (``deadline``): the user's limit, counted from when the process started,
  minus what the caller still has to do after planning (the workbook) and what the pipeline
  itself needs after its last solve (expansion, checks). Every solve gets at most what is
  left, so the limit holds; it is a safety net, not the plan.
* **work** (``ticks``): HiGHS calls back at fixed points of its search (after each heuristic,
  cut round and node); on one thread with a fixed seed those points and their order are the
  same on every run. The limit is translated once, from the program's size, into a number of
  such checkpoints; each solve stops at its share of them (once it has a plan) and decisions
  such as "start another round" are taken on that count, never on the clock. Two runs that
  finish within their work budget therefore return the same plan.

When the clock stops a solve before its work share, the run may differ from a rerun; the
result says so (``clock_stopped``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from . import tuning

LONGEST_LIMIT_S = 1e9
"""A longer --time-limit (about 32 years) is counted as this: it never binds, and the work
budget stays a count that fits an integer (1e308 s made it infinite)."""
WORKBOOK_S = 0.3
"""Seconds kept for writing the workbook, plus per placement row of every option."""
WORKBOOK_PER_REPLICA_S = 3e-4


def process_started() -> float:
    """When this process started, on ``time.perf_counter``'s clock (now if unknown).

    The user's wall clock starts at the command line, before imports and file loading.
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
        return time.perf_counter() - max(0.0, age)
    except (OSError, ValueError, IndexError):
        return time.perf_counter()


def workbook_reserve(replicas: int, options: int) -> float:
    """Seconds to keep for writing the workbook of ``options`` plans of ``replicas`` each
    (measured: 0.18 s at 662 replicas, 0.65 s at 2,350, one option; kept generous)."""
    return WORKBOOK_S + WORKBOOK_PER_REPLICA_S * replicas * options


def ticks_per_second(rows: int) -> float:
    """Calibrated search checkpoints per second for a program of ``rows`` constraints."""
    scale = (1000.0 / max(rows, 1)) ** tuning.TICK_SIZE_EXPONENT
    return tuning.TICKS_PER_SECOND_AT_1000_ROWS * scale


@dataclass
class Budget:
    """The time left to a run, on the clock and in deterministic work (None: unlimited)."""

    deadline: float | None = None
    """perf_counter time by which the last solve must end."""
    ticks: float | None = None
    """Search checkpoints left to all remaining solves."""
    clock_stopped: int = 0
    """Solves the wall clock, not the work budget, stopped (a rerun may differ)."""
    clock_skipped: int = 0
    """Stages the wall clock, not the work budget, left out (a rerun may differ)."""
    skipped: list[str] = field(default_factory=list)
    """Stages left out because the time ran out (for the result's notes)."""
    used: int = 0
    """Search checkpoints spent by every solve so far, limited or not (deterministic: the
    alternatives' work caps are measured against rank 1's)."""
    longest_s: float = 0.0
    """Wall seconds of the longest solve so far (``can_start`` reads it)."""
    lp_s: float = 0.0
    """Wall seconds of the longest LP relaxation of the whole program solved so far."""

    @classmethod
    def start(cls, time_limit: float | None, rows: int, replicas: int, top: int,
              started: float | None = None, reserve_s: float = 0.0) -> Budget:
        """The budget of a run limited to ``time_limit`` seconds (unlimited when None).

        Args:
            time_limit: seconds for the whole run, counted from ``started``.
            rows: constraints of the program (sizes the work budget).
            replicas: replicas planned (sizes the time kept for expansion and checks).
            top: options asked for.
            started: perf_counter time the user's clock started (default: now).
            reserve_s: seconds the caller needs after planning (e.g. writing the workbook).
        """
        if not time_limit:
            return cls()
        time_limit = min(time_limit, LONGEST_LIMIT_S)
        started = time.perf_counter() if started is None else started
        post = top * (tuning.POST_SOLVE_S + tuning.POST_SOLVE_PER_REPLICA_S * replicas)
        deadline = started + time_limit - reserve_s - post
        # The work budget is a function of the inputs only (never of the clock), so that
        # it is the same on every run; it assumes the same reserves.
        nominal = max(0.0, time_limit - reserve_s - post - 1.0)
        return cls(deadline=deadline, ticks=max(1.0, nominal * ticks_per_second(rows)))

    def nominal_left(self, rows: int) -> float | None:
        """The work left, in the calibrated seconds of a program of ``rows`` rows (a
        function of the inputs only, like the work budget; None: unlimited)."""
        return None if self.ticks is None else self.ticks / ticks_per_second(rows)

    def seconds_left(self) -> float | None:
        if self.deadline is None:
            return None
        return self.deadline - time.perf_counter()

    def can_start(self, what: str, restricted: bool = False) -> bool:
        """Whether another solve may start; records ``what`` as skipped when not.
        ``restricted``: a solve with most of the program's decisions held (a rounded plan),
        which presolve reduces to a small one: the whole program's root does not bind it."""
        if self.deadline is None:
            return True
        if self.ticks is not None and self.ticks < 1:
            self.skipped.append(what)
            return False
        left = self.seconds_left()
        root = 0.0 if restricted else tuning.ROOT_LP_TIMES * self.lp_s
        least = max(tuning.MIN_SOLVE_S, tuning.START_SHARE * self.longest_s, root)
        if left is not None and left < least:
            self.clock_skipped += 1  # the clock, not the work count, decided
            self.skipped.append(what)
            return False
        return True

    def limits(self, share: float = 1.0) -> tuple[float | None, int | None]:
        """(wall seconds, work ticks) for the next solve: ``share`` of the ticks left, and
        every second left as the safety net."""
        left = self.seconds_left()
        if left is None:
            return None, None
        ticks = None if self.ticks is None else max(1, int(share * self.ticks))
        return max(0.05, tuning.CLOCK_MARGIN * left), ticks

    def spend_lp(self, seconds: float) -> None:
        """Count an LP relaxation of the whole program that took ``seconds``."""
        self.lp_s = max(self.lp_s, seconds)

    def spend(self, ticks: int, clock: bool, seconds: float = 0.0) -> None:
        """Count a finished solve: its checkpoints, whether the clock stopped it, and its wall
        seconds."""
        self.longest_s = max(self.longest_s, seconds)
        self.used += ticks
        if self.ticks is not None:
            self.ticks -= ticks
        if clock:
            self.clock_stopped += 1
