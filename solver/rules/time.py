"""The arithmetic of runs in time (H3, H5), shared by the run options, the schedule and the
reports (the checker and the brute force keep their own on purpose).

- H3 a run of ``tokens`` on ``n`` replicas of τ tokens/s each, at data-parallel efficiency η,
  takes tokens ÷ (n · τ · η · 3600) hours; the fewest replicas that finish it in ``hours`` are
  ⌈tokens ÷ (τ · η · 3600 · hours)⌉.
- H5 renting ``gpus`` GPUs for a run of ``hours`` bills each GPU max(hours, min_hours):
  cost = price per GPU-hour × gpus × that.
"""

from __future__ import annotations

import math

SECONDS_PER_HOUR = 3600.0


def run_hours(tokens: float, replicas: int, tokens_per_s: float, efficiency: float) -> float:
    """H3: hours ``replicas`` replicas take to train ``tokens``."""
    return tokens / (replicas * tokens_per_s * efficiency * SECONDS_PER_HOUR)


def replicas_to_finish(tokens: float, hours: float, tokens_per_s: float,
                       efficiency: float) -> int:
    """H3: the fewest replicas that train ``tokens`` within ``hours``."""
    return max(1, math.ceil(tokens / (tokens_per_s * efficiency * SECONDS_PER_HOUR * hours)
                            - 1e-9))


def billed_hours(hours: float, min_hours: float | None) -> float:
    """H5: hours a rental of ``hours`` is billed per GPU (at least ``min_hours``)."""
    return max(hours, min_hours or 0.0)


def rent_cost(per_gpu_hour: float, gpus: int, hours: float, min_hours: float | None) -> float:
    """H5: price × GPUs × hours billed."""
    return per_gpu_hour * gpus * billed_hours(hours, min_hours)
