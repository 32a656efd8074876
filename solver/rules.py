"""Plan rules that several stages apply, each defined here once.

The estimator, the program, the checker and the reports all draw the same headroom line;
keeping it in one place means the stage that plans and the stage that checks cannot drift
apart. (The parallel degrees live beside the input rule that validates them,
``inputs.workload.PARALLEL_DEGREES``.)
"""

from __future__ import annotations

from .inputs.workload import Policy


def usable(capacity: float, policy: Policy) -> float:
    """The headroom line (R15): how much of ``capacity`` (GB of VRAM or RAM) may be planned,
    (1 − headroom) × capacity."""
    return capacity * (1 - policy.headroom)
