"""What one solve found, as plain typed data (no PuLP: expansion and reports read it).

Kept apart from ``solve.py`` so that modules reading a solve's result never load PuLP.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..result import SolveStatus

Kind = tuple[float, ...]
"""A kind of replica in a server pattern: (GPUs, host RAM GB rounded to 1e-6), and third
its CPU cores (rounded likewise) where the platform's cores are checked (O3)."""


def kind_of(gpus: int, ram_gb: float, cores: float | None = None) -> Kind:
    """The pattern kind of a replica of ``gpus`` GPUs and ``ram_gb`` host RAM; with
    ``cores`` (a platform whose cores are checked, O3) a third dimension."""
    kind = (gpus, round(ram_gb, 6))
    return kind if cores is None else (*kind, round(cores, 6))


@dataclass(frozen=True)
class BuiltPatterns:
    """A pattern-modelled server type as one solve built it."""

    kind_index: dict[Kind, int]
    """Which pattern kind each (GPUs, host RAM[, cores]) of an exclusive replica counts as."""
    built: tuple[tuple[tuple[int, ...], int], ...]
    """(pattern: how many of each kind one server holds, servers built to it)."""
    shared_kind: int | None
    """The kind a shared GPU counts as (None without shared GPUs)."""
    with_cores: bool = False
    """Kinds carry CPU cores as a third dimension (the platform's cores are checked, O3)."""

    def kind(self, gpus: int, ram_gb: float, cores: float) -> int | None:
        """The kind an exclusive replica of these needs counts as (None: not a kind here)."""
        return self.kind_index.get(kind_of(gpus, ram_gb, cores if self.with_cores else None))


@dataclass(frozen=True)
class Outcome:
    """What one solve found."""

    status: SolveStatus
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    n: dict[str, int]
    x: dict[tuple[str, int, str], int]
    shared: dict[str, int]
    z: dict[tuple[str, str, int], int]
    """O4: servers of each type carrying c drives of SKU s, by (type key, SKU, c)."""
    serve: dict[str, int]
    patterns: dict[str, BuiltPatterns] = field(default_factory=dict)
    """Pattern-modelled types: the servers built to each pattern."""
    gpus: dict[str, int] = field(default_factory=dict)
    """G_t: GPUs the program installs on each server type bought."""
    exact: bool = True
    """The program was a relaxation of the plan rules (its bound is a valid lower bound)."""
    ticks: int = 0
    """Search checkpoints the solve used (its deterministic work; HiGHS only)."""
    clock_stopped: bool = False
    """The wall-clock limit, not the work limit, ended the solve (a rerun may differ)."""
    held: frozenset[int] = frozenset()
    """U1: the sampled worlds the plan must hold in (z_s = 1), by index."""


