"""How a mix is planned (``policy:`` of a workload file): headroom, parallelism caps, growth,
budget, RAM ratios, SKUs to leave out, the cost of owning, the horizon and renting. Every
field is documented under its declaration and in ``docs/workloads.md``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator, model_validator

from .base import Name, StrictModel, clip
from .horizon import Horizon
from .money import Money
from .ownership import TcoPolicy

PARALLEL_DEGREES = (1, 2, 4, 8, 16, 32, 64)


def _list_as_tuple(value: Any) -> Any:
    """A YAML or JSON list of SKUs is kept as a tuple (the policy is frozen and hashable)."""
    if isinstance(value, str):  # pydantic reports a ValueError, not a TypeError, as input
        raise ValueError(f"'{clip(value)}' is one SKU, not a list. To fix: write a list, "  # noqa: TRY004
                         f"e.g. [{clip(value)}]")
    return tuple(value) if isinstance(value, list) else value


SkuList = Annotated[tuple[Name, ...], BeforeValidator(_list_as_tuple)]
"""SKUs written as a list (``[rtx-4090, ddr4-3200-32g]``), kept as a tuple."""


def _power_of_two(name: str, value: int) -> int:
    if value not in PARALLEL_DEGREES:
        raise ValueError(
            f"{name} must be a power of two, got {value}. "
            f"To fix: use one of {', '.join(map(str, PARALLEL_DEGREES))}"
        )
    return value


class NetworkPolicy(StrictModel):
    """N2, N3: what network a training run spread over several servers may use."""

    fabric: Literal["auto", "ethernet", "infiniband"] = "auto"
    """The kind of network its servers talk over: auto (each server's fastest), ethernet or
    infiniband (servers without that kind cannot share a run)."""
    min_gbps: float | None = Field(default=None, gt=0, le=100_000)
    """Least network per server, Gb/s, for a run spread over servers; default none."""
    span_servers: bool = True
    """Whether a run may spread over several servers; set it false to keep each run inside
    one server (never over the network)."""


class Policy(StrictModel):
    """How to plan: headroom, parallelism caps, growth, budget, RAM ratios."""

    headroom: float = Field(default=0.20, ge=0.0, lt=1.0)
    """Fraction of VRAM and RAM kept free, in [0, 1) (R15: 0.2)."""
    max_parallel_degree: int = 8
    """Most GPUs one replica may span, a power of two (R8)."""
    max_pcie_parallel_degree: int = 2
    """Most GPUs one replica may span outside an NVLink domain, a power of two (R10)."""
    growth: float = Field(default=1.0, gt=0.0, le=100.0)
    """Demand multiplier: replicas planned = ceil(replicas x growth) (R19)."""
    budget: Money | None = None
    """Optional spending cap in the catalog's currency: 1500000, or with a suffix 1.5M, 500k."""
    ram_ratio_single_gpu_train: float = Field(default=1.5, ge=0, le=100)
    """R12: host RAM = 1.5 x VRAM for single-GPU training."""
    ram_ratio_multi_gpu_train: float = Field(default=0.8, ge=0, le=100)
    """R12: host RAM = 0.8 x total VRAM for multi-GPU training."""
    ram_ratio_inference: float = Field(default=0.5, ge=0, le=100)
    """R12: host RAM = 0.5 x VRAM for inference serving."""
    comm_overlap: float | None = Field(default=None, ge=0, le=1)
    """N2: share of a data-parallel run's gradient all-reduce hidden behind its backward
    pass, in [0, 1]; default 0.5."""
    network: NetworkPolicy = Field(default_factory=NetworkPolicy)
    """N2, N3: the network runs spread over servers may use; a workload's own ``network``
    replaces it for that workload. Runs only (a training job with tokens and a deadline
    under a horizon)."""
    data_parallel_efficiency: float = Field(default=0.9, gt=0, le=1)
    """T3: share of the summed replica throughput a data-parallel training run keeps
    (gradient all-reduce, stragglers), in (0, 1]; training kinds with a target only."""
    exclude: SkuList = Field(default=(), max_length=1000)
    """SKUs of any kind (GPU, platform, DIMM, drive) the plan must not buy; each must be a
    SKU of the catalog."""
    tco: TcoPolicy | None = None
    """P2: how to price energy, support and racks over a horizon; default none (options
    then report capital cost and power only)."""
    horizon: Horizon | None = None
    """H1: the span hardware is bought for and finite runs are scheduled in; default none
    (every workload runs all the time, as before)."""
    rent: Literal["allowed", "never"] = "allowed"
    """H5: whether runs may use rented GPUs where the catalog has cloud prices (with a
    horizon only)."""
    objective: Literal["capex", "tco"] = "capex"
    """P2: what the program minimises: capital cost (default) or total cost of ownership
    (needs ``tco``)."""

    @model_validator(mode="after")
    def _objective_needs_tco(self) -> Policy:
        if self.objective == "tco" and self.tco is None:
            raise ValueError(
                "objective: tco needs policy.tco to price energy. To fix: add "
                "policy.tco with at least kwh_price (e.g. tco: {kwh_price: 0.12}), or set "
                "objective: capex")
        return self

    @field_validator("max_parallel_degree", "max_pcie_parallel_degree")
    @classmethod
    def _pow2(cls, v: int, info: ValidationInfo) -> int:
        return _power_of_two(str(info.field_name), v)
