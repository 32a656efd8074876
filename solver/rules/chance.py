"""U1: a plan that holds with a chosen chance, over the file's sampled scenarios.

The rule (docs/solver.md, "A plan that holds with a chosen chance (U1)"), with
``uncertainty.robust: P`` (or ``plan --robust P``) and N = ``uncertainty.samples``:

- Scenario s is a *world* (``uncertainty/scenario.world``): the file at the drawn growth
  g_s, each estimate's true figure in place of the estimate (as a team's measurement
  enters, E2), the memory line the card's whole VRAM (``memory_line: vram``, the default)
  or the headroom line.
- A plan *holds* in a world when, keeping its servers and placements, every replica's true
  need fits its GPU (R15), every workload has at least ⌈replicas × g_s⌉ replicas (R19; a
  replica more is spare capacity, not a break), every target is met at the world's tokens/s
  (η Σ τ_s ≥ T × g_s, T3), what shares a GPU stays under its line (R17) and every other
  rule still holds there.
- The plan keeps every rule at the file's own figures, and holds in at least
  k = ⌈P × N⌉ of the N worlds. It is the cheapest such plan.

This module is the rule's own arithmetic: whether a file asks for it (``robust_share``)
and k (``required``). The worlds and what each replica option (workload, GPU, degree) is in
one are the uncertainty stage's (``uncertainty/worlds.py``), read by the program
(``optimize/chance.py``) and by the checker, which counts the worlds a plan holds in with
its own checks (``check/chance.py``); the brute force recomputes both
(``bench/bruteforce_chance.py``).
"""

from __future__ import annotations

import math

from ..inputs.workload import WorkloadFile


def robust_share(wf: WorkloadFile) -> float | None:
    """P, the share of scenarios the plan must hold in (None: a plain plan)."""
    return wf.uncertainty.robust if wf.uncertainty is not None else None


def required(share: float, samples: int) -> int:
    """k = ⌈P × N⌉, the scenarios a plan must hold in."""
    return max(1, math.ceil(share * samples - 1e-9))
