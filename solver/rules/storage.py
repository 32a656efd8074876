"""Storage (O4): the TB the workloads keep on disk and what one server's drives hold.

A workload's own figures are properties of the input (``Workload.storage_tb``, ``local_tb``,
``pool_tb``); this module owns the sums and the fit the program, the expansion, the
reference configuration (R20) and the infeasibility advice share. The checker and the brute
force recompute them on their own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ..inputs.policy import Policy
from ..inputs.workload import Workload
from .headroom import usable


class ReadsData(Protocol):
    """A replica (option) that may read its workload's dataset from its server's drives."""

    @property
    def workload(self) -> str: ...

    @property
    def local_tb(self) -> float: ...


def stored_tb(workloads: Iterable[Workload]) -> float:
    """TB the workloads keep on disk at the least: Σ (dataset + checkpoints), each once."""
    return sum(w.storage_tb for w in workloads)


def local_datasets(replicas: Iterable[ReadsData]) -> dict[str, float]:
    """O4: the dataset (TB) each workload among ``replicas`` reads from the server's own
    drives, by workload: a server holds each dataset once, however many replicas read it."""
    return {o.workload: o.local_tb for o in replicas if o.local_tb > 0}


def disk_holds(local_tb: float, disk_tb: float, policy: Policy) -> bool:
    """O4: ``local_tb`` of local datasets fit ``disk_tb`` of drives under the headroom line."""
    return local_tb <= usable(disk_tb, policy) + 1e-9
