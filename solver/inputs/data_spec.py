"""What one job keeps in host memory and on disk, and the CPU cores it needs (R11, O3, O4).

The ``data`` mapping of a workload; ``Workload.local_tb`` / ``pool_tb`` read where the
dataset lives.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import StrictModel

Storage = Literal["local", "shared"]
"""Where a workload's dataset lives (O4): a copy on every server that runs a replica
(``local``), or once anywhere in the pool (``shared``)."""


class DataSpec(StrictModel):
    """What a job keeps in host memory and on disk (R11)."""

    in_memory_gb: float = Field(default=0.0, ge=0, le=1_000_000)
    """Data held in host RAM at once, GB, before preprocessing expansion."""
    expansion: float = Field(default=1.5, ge=1.0, le=10.0)
    """Preprocessing expansion factor: data grows 1.5-3x while it is processed."""
    workers: int = Field(default=4, ge=0, le=256)
    """Concurrent loader processes (DataLoader workers)."""
    dataset_tb: float = Field(default=0.0, ge=0, le=100_000)
    """Dataset on disk, TB."""
    checkpoints_tb: float = Field(default=0.0, ge=0, le=100_000)
    """Checkpoints kept on disk, TB (counted once per workload, on any server of the pool)."""
    storage: Storage = "local"
    """Where the dataset is read from (O4): local (a copy on every server that runs a
    replica) or shared (one copy anywhere in the pool, read over the network)."""
    cpu_cores: int | None = Field(default=None, ge=0, le=100_000)
    """CPU cores one replica needs (O3); default: training d x (workers + 1), inference
    d x 2, preprocess max(1, workers)."""
