"""The headroom line (R15): the share of installed VRAM, host RAM and drive TB a plan may fill.

The estimator, the program, the expansion, the checker's report and the workbook all draw
this one line; keeping it here means the stage that plans and the stage that reports cannot
drift apart. (The parallel degrees live beside the input rule that validates them,
``inputs.workload.PARALLEL_DEGREES``.)
"""

from __future__ import annotations

from ..inputs.policy import Policy


def headroom_line(policy: Policy) -> float:
    """λ = 1 − headroom: the share of any capacity (VRAM, RAM, drive TB) a plan may fill."""
    return 1 - policy.headroom


def usable(capacity: float, policy: Policy) -> float:
    """The headroom line (R15): how much of ``capacity`` (GB of VRAM or RAM, TB of drives)
    may be planned, (1 − headroom) × capacity."""
    return capacity * headroom_line(policy)
