"""The priced hardware catalog: GPUs, server platforms, DIMMs and drives.

Field names follow ``shared/examples/catalog-shape.yaml`` (the contract). Every model is
strict (unknown fields are rejected) and frozen. Prices are in the catalog's currency.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

Sku = str


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GpuSku(_Strict):
    """One GPU model."""

    sku: Sku = Field(min_length=1)
    """Identifier used everywhere else (``h100-sxm``)."""
    name: str = ""
    """Human description."""
    vram_gb: PositiveFloat
    """Memory on the card, GB (10^9 bytes)."""
    mem_bw_gbps: PositiveFloat
    """Memory bandwidth, GB/s."""
    bf16_tflops: PositiveFloat
    """Dense BF16 tensor throughput, TFLOPS."""
    power_w: PositiveFloat
    """Board power, W."""
    form_factor: Literal["pcie", "sxm"]
    """pcie or sxm; a platform lists the form factors it takes."""
    nvlink_gbps: float = Field(ge=0)
    """NVLink bandwidth per GPU, GB/s; 0 = no NVLink (R10)."""
    nvlink_domain: PositiveInt | None = None
    """GPUs one NVLink fabric joins: 2 for a PCIe bridge, 8 for an SXM baseboard.
    Default: 8 for SXM with NVLink, 2 for PCIe with a bridge, 1 without NVLink."""
    price: float = Field(ge=0)
    """Unit price in the catalog's currency."""

    @property
    def nvlink_gpus(self) -> int:
        """How many GPUs one NVLink domain joins (1 when the card has none)."""
        if self.nvlink_gbps <= 0:
            return 1
        if self.nvlink_domain is not None:
            return self.nvlink_domain
        return 8 if self.form_factor == "sxm" else 2


class Platform(_Strict):
    """A server chassis / base system, priced without GPUs, DIMMs or drives."""

    sku: Sku = Field(min_length=1)
    name: str = ""
    gpu_slots: int = Field(ge=0)
    """GPUs it takes; 0 for a CPU-only node."""
    form_factors: list[Literal["pcie", "sxm"]] = Field(default_factory=list)
    """GPU form factors it accepts."""
    dimm_slots: PositiveInt
    """DIMM slots; a whole multiple of ``memory_channels``."""
    memory_type: Literal["ddr4", "ddr5"]
    memory_channels: PositiveInt
    """Memory channels; a server's DIMM count is a positive multiple of this (R14)."""
    drive_bays: int = Field(ge=0)
    power_w: float = Field(default=0, ge=0)
    price: float = Field(ge=0)

    @model_validator(mode="after")
    def _slots_fill_channels(self) -> Platform:
        if self.dimm_slots % self.memory_channels:
            raise ValueError(
                f"dimm_slots ({self.dimm_slots}) must be a whole multiple of memory_channels "
                f"({self.memory_channels}): 1 or 2 DIMMs per channel"
            )
        if self.gpu_slots > 0 and not self.form_factors:
            raise ValueError("a platform with gpu_slots > 0 must list form_factors (pcie, sxm)")
        return self

    def dimm_counts(self) -> list[int]:
        """DIMM counts that populate every channel evenly (R14): channels, 2 x channels, ..."""
        return list(range(self.memory_channels, self.dimm_slots + 1, self.memory_channels))

    def takes(self, gpu: GpuSku) -> bool:
        """Whether this platform accepts that GPU's form factor."""
        return self.gpu_slots > 0 and gpu.form_factor in self.form_factors


class MemorySku(_Strict):
    """One registered DIMM."""

    sku: Sku = Field(min_length=1)
    name: str = ""
    type: Literal["ddr4", "ddr5"]
    speed_mts: PositiveInt
    """Transfer rate, MT/s (DDR5-4800 -> 4800)."""
    size_gb: PositiveFloat
    price: float = Field(ge=0)

    @property
    def channel_gbps(self) -> float:
        """Bandwidth of one channel, GB/s: MT/s x 8 bytes (R14)."""
        return self.speed_mts * 8 / 1000


class StorageSku(_Strict):
    """One drive."""

    sku: Sku = Field(min_length=1)
    name: str = ""
    size_tb: PositiveFloat
    read_gbps: float = Field(default=0, ge=0)
    price: float = Field(ge=0)


class Catalog(_Strict):
    """A whole priced catalog."""

    currency: str = Field(min_length=1)
    prices_as_of: dt.date
    price_note: str = ""
    gpus: list[GpuSku] = Field(min_length=1)
    platforms: list[Platform] = Field(min_length=1)
    memory: list[MemorySku] = Field(min_length=1)
    storage: list[StorageSku] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_skus(self) -> Catalog:
        seen: dict[str, str] = {}
        problems = []
        for kind in ("gpus", "platforms", "memory", "storage"):
            for i, item in enumerate(getattr(self, kind)):
                if item.sku in seen:
                    problems.append(
                        f"{kind}[{i}].sku '{item.sku}' is already used by {seen[item.sku]}; "
                        "every SKU must be unique across the catalog"
                    )
                else:
                    seen[item.sku] = f"{kind}[{i}]"
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def gpu(self, sku: Sku) -> GpuSku:
        return next(g for g in self.gpus if g.sku == sku)

    def platform(self, sku: Sku) -> Platform:
        return next(p for p in self.platforms if p.sku == sku)

    def dimm(self, sku: Sku) -> MemorySku:
        return next(m for m in self.memory if m.sku == sku)

    def drive(self, sku: Sku) -> StorageSku:
        return next(s for s in self.storage if s.sku == sku)

    def price_of(self, sku: Sku) -> float:
        """Unit price of any SKU."""
        for kind in (self.gpus, self.platforms, self.memory, self.storage):
            for item in kind:
                if item.sku == sku:
                    return item.price
        raise KeyError(sku)

    def kind_of(self, sku: Sku) -> str:
        """'gpu', 'platform', 'memory' or 'storage'."""
        for kind, items in (
            ("gpu", self.gpus),
            ("platform", self.platforms),
            ("memory", self.memory),
            ("storage", self.storage),
        ):
            if any(i.sku == sku for i in items):
                return kind
        raise KeyError(sku)
