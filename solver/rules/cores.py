"""CPU cores (O3): how many cores one replica needs on its server.

The replica options the program places, the estimate table and the workbook's placement
sheet read this one count; the checker and the brute force recompute it on their own.
"""

from __future__ import annotations

from ..inputs.kinds import TRAINING_KINDS
from ..inputs.workload import Workload


def replica_cores(w: Workload, degree: int) -> int:
    """CPU cores one replica of ``w`` on ``degree`` GPUs needs (O3): ``data.cpu_cores`` if
    given, else training d × (workers + 1) (a process per GPU and its loaders), inference
    d × 2, preprocess max(1, workers)."""
    if w.data.cpu_cores is not None:
        return w.data.cpu_cores
    if w.kind in TRAINING_KINDS:
        return degree * (w.data.workers + 1)
    if w.kind == "inference":
        return degree * 2
    return max(1, w.data.workers)
