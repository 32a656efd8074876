"""Host RAM of one replica (R11, R12): the data it loads and the RAM-to-VRAM ratio.

Pure functions; units GB (10^9 bytes).
"""

from __future__ import annotations

from ..inputs.workload import Policy, Workload

# --- Host RAM (R11, R12) -------------------------------------------------------------------
LOADER_PREFETCH_SHARE = 1 / 16
"""Extra share of the expanded in-memory data each DataLoader worker holds: a forked worker
shares the parent's pages copy-on-write, but its prefetch queue (PyTorch ``prefetch_factor``
2 batches) and the pages its Python objects' refcounts dirty are private; 1/16 per worker is
our planning figure (documented in docs/memory-model.md)."""
MAX_LOADER_FACTOR = 2.0
"""Cap on the concurrent-loading factor: at worst the workers together duplicate the data
set once (every copy-on-write page dirtied); more workers stream, they do not copy again."""
SYSTEM_RESERVE = 0.20
"""R11: keep at least 20% of host RAM for the OS and system services."""


def loader_factor(workers: int) -> float:
    """R11 concurrent-loading factor: 1 + workers / 16, capped at 2 (dimensionless)."""
    return min(MAX_LOADER_FACTOR, 1.0 + LOADER_PREFETCH_SHARE * workers)


def data_ram_gb(w: Workload) -> float:
    """R11 data RAM, GB = in_memory_gb x expansion x loader_factor(workers) x (1 + 20%)."""
    d = w.data
    return d.in_memory_gb * d.expansion * loader_factor(d.workers) * (1.0 + SYSTEM_RESERVE)


def ram_ratio(w: Workload, degree: int, policy: Policy) -> float:
    """R12 RAM-to-VRAM ratio for this workload kind and degree."""
    if w.kind == "inference":
        return policy.ram_ratio_inference
    if degree > 1:
        return policy.ram_ratio_multi_gpu_train
    return policy.ram_ratio_single_gpu_train
