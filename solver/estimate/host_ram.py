"""Host RAM of one replica (R11, R12): the data it loads and the RAM-to-VRAM ratio.

Pure functions; units GB (10^9 bytes).
"""

from __future__ import annotations

from ..inputs.policy import Policy
from ..inputs.workload import Workload

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


LOADER_KINDS = ("train", "lora", "qlora")
"""Kinds that feed their GPUs through a PyTorch DataLoader with worker processes and a
``prefetch_factor`` queue. A preprocess job (a cleaning, dedup or tokenising pass, e.g.
``datasets.map(num_proc=...)`` or a multiprocessing pool) has no DataLoader: each worker
processes its own shard of the data already counted in ``in_memory_gb x expansion``, so
nothing is prefetched on top. A serving engine has none either (it batches requests)."""


def data_ram_gb(w: Workload) -> float:
    """R11 data RAM, GB = in_memory_gb x expansion x loader factor x (1 + 20%); the loader
    factor is ``loader_factor(workers)`` for kinds with a DataLoader (``LOADER_KINDS``) and 1
    for preprocess and inference, which have no prefetch queue."""
    d = w.data
    factor = loader_factor(d.workers) if w.kind in LOADER_KINDS else 1.0
    return d.in_memory_gb * d.expansion * factor * (1.0 + SYSTEM_RESERVE)


def ram_ratio(w: Workload, degree: int, policy: Policy) -> float:
    """R12 RAM-to-VRAM ratio for this workload kind and degree."""
    if w.kind == "inference":
        return policy.ram_ratio_inference
    if degree > 1:
        return policy.ram_ratio_multi_gpu_train
    return policy.ram_ratio_single_gpu_train
