"""The priced hardware catalog: GPUs, server platforms, DIMMs and drives.

Every field is documented under its declaration below. Every model is strict (see
``base.py``: unknown fields and numbers written as strings are rejected) and frozen. Prices
are in the catalog's currency.
"""

from __future__ import annotations

import datetime as dt
import difflib
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    PositiveFloat,
    PositiveInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .base import Label, Name, StrictModel, Text, clip
from .fabric import LINK_SKU, CloudPrice, IncludedNic, Network

Sku = str
FormFactor = Literal["pcie", "sxm", "sxm4", "sxm5"]
SKU_KINDS = ("gpus", "platforms", "memory", "storage")
MAX_SKUS_PER_KIND = 500
"""More SKUs of one kind than this is not a catalog but a dump; it would slow the solver."""
MAX_CURRENCY = 10
"""Longest currency (characters): a code, printed beside every amount."""
MAX_PRICE = 1e12
"""A unit price above this (a trillion) cannot be a quote (an 8-GPU system in the currency
of least value is about 1e10): totals lose their cents and the solver's arithmetic fails
(prices of 1e15 stopped the solver, exit 4, instead of naming the price)."""




def _iso_date(value: Any) -> Any:
    """A date may also be written as a quoted 'YYYY-MM-DD' string."""
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"'{clip(value)}' is not a date. To fix: write it as YYYY-MM-DD, e.g. 2026-10-01"
            ) from None
    return value


IsoDate = Annotated[dt.date, BeforeValidator(_iso_date)]

class GpuSku(StrictModel):
    """One GPU model."""

    sku: Name
    """Identifier used everywhere else (``h100-sxm``)."""
    name: Label = ""
    """Human description."""
    vram_gb: PositiveFloat = Field(le=100_000)
    """Memory on the card, GB (10^9 bytes)."""
    mem_bw_gbps: PositiveFloat
    """Memory bandwidth, GB/s."""
    bf16_tflops: PositiveFloat
    """Dense BF16 tensor throughput, TFLOPS."""
    power_w: PositiveFloat
    """Board power, W."""
    form_factor: FormFactor
    """pcie, or sxm (sxm4 / sxm5 where the baseboard generation matters: an H100 SXM5
    module does not fit an HGX A100 SXM4 board); a platform lists the form factors it takes."""
    nvlink_gbps: float = Field(ge=0)
    """NVLink bandwidth per GPU, GB/s; 0 = no NVLink (R10)."""
    nvlink_domain: PositiveInt | None = None
    """GPUs one NVLink fabric joins: 2 for a PCIe bridge, 8 for an SXM baseboard.
    Default: 8 for SXM with NVLink, 2 for PCIe with a bridge, 1 without NVLink."""
    price: float = Field(ge=0, le=MAX_PRICE)
    """Unit price in the catalog's currency."""
    fp8_tflops: PositiveFloat | None = None
    """Dense FP8 tensor throughput, TFLOPS (FP32 accumulate); none = no FP8 tensor cores
    (FP8 serving then computes at the BF16 rate)."""
    arch: Literal["ampere", "ada", "hopper"] | None = None
    """GPU generation; picks the default MFU/MBU (docs/throughput-model.md). None = unknown:
    the conservative defaults."""
    mfu: float | None = Field(default=None, gt=0, le=1)
    """Override: fraction of the dense TFLOPS a tuned stack reaches on this card, (0, 1]."""
    mbu: float | None = Field(default=None, gt=0, le=1)
    """Override: fraction of the memory bandwidth decode reaches on this card, (0, 1]."""
    consumer: bool = False
    """A consumer card (GeForce): cheap, but without data-centre support, ECC or a licence
    for data-centre use; the "no consumer GPUs" alternative leaves these out."""

    @property
    def nvlink_gpus(self) -> int:
        """How many GPUs one NVLink domain joins (1 when the card has none)."""
        if self.nvlink_gbps <= 0:
            return 1
        if self.nvlink_domain is not None:
            return self.nvlink_domain
        return 8 if self.form_factor.startswith("sxm") else 2


class Platform(StrictModel):
    """A server chassis / base system, priced without GPUs, DIMMs or drives."""

    sku: Name
    name: Label = ""
    gpu_slots: int = Field(ge=0, le=64)
    """GPUs it takes; 0 for a CPU-only node."""
    form_factors: list[FormFactor] = Field(default_factory=list)
    """GPU form factors it accepts."""
    dimm_slots: PositiveInt = Field(le=512)
    """DIMM slots; a whole multiple of ``memory_channels``."""
    memory_type: Literal["ddr4", "ddr5"]
    """DIMM type it takes: ddr4 or ddr5."""
    memory_channels: PositiveInt = Field(le=128)
    """Memory channels; a server's DIMM count is a positive multiple of this (R14)."""
    drive_bays: int = Field(ge=0, le=256)
    """Drive bays (NVMe)."""
    power_w: float = Field(default=0, ge=0)
    """Base system power, W."""
    price: float = Field(ge=0, le=MAX_PRICE)
    """Unit price in the catalog's currency, without GPUs, DIMMs or drives."""
    gpu_counts: list[int] | None = Field(default=None, min_length=1, max_length=65)
    """GPU counts a server of this platform is sold with (O1); 0 = bought without GPUs.
    Default: any count from 0 to ``gpu_slots``. An SXM baseboard comes whole: ``[8]``."""
    cpu_cores: int | None = Field(default=None, ge=1, le=100_000)
    """CPU cores of the base system (all sockets), at least 1 (a server without cores runs
    nothing); default: not known, so not checked (O3)."""
    rack_units: int | None = Field(default=None, ge=1, le=64)
    """Height in rack units (U); default: not known."""
    includes: list[Label] = Field(default_factory=list, max_length=50)
    """What the platform's price covers (O2): CPUs, power supplies, NICs, boot drive...;
    data drives, GPUs and DIMMs are always separate lines."""
    nic_slots: int | None = Field(default=None, ge=0, le=64)
    """N1: NIC slots beside the GPUs; default not known."""
    included_nics: list[IncludedNic] = Field(default_factory=list, max_length=16)
    """N1: the NICs its price includes, by network.nics SKU and count."""

    @model_validator(mode="after")
    def _gpu_counts_within_slots(self) -> Platform:
        bad = [c for c in self.gpu_counts or () if c < 0 or c > self.gpu_slots]
        if bad:
            raise ValueError(
                f"gpu_counts {bad} outside 0..gpu_slots ({self.gpu_slots}). To fix: list GPU "
                f"counts the vendor sells this platform with, each at most {self.gpu_slots}"
            )
        return self

    def allowed_gpu_counts(self) -> list[int]:
        """GPU counts a server of this platform may be bought with (O1), ascending."""
        if self.gpu_counts is None:
            return list(range(self.gpu_slots + 1))
        return sorted(set(self.gpu_counts))

    @property
    def restricts_gpu_counts(self) -> bool:
        """True when not every count 0..gpu_slots is sold (e.g. an 8-GPU baseboard)."""
        return self.allowed_gpu_counts() != list(range(self.gpu_slots + 1))

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
        """Whether this platform accepts that GPU's form factor.

        A plain ``sxm`` on either side matches any SXM generation (the catalog shape's
        contract); ``sxm4`` and ``sxm5`` only match themselves.
        """
        if self.gpu_slots == 0:
            return False
        f = gpu.form_factor
        return any(
            f == g or (f.startswith("sxm") and g.startswith("sxm") and "sxm" in (f, g))
            for g in self.form_factors
        )


class MemorySku(StrictModel):
    """One registered DIMM."""

    sku: Name
    name: Label = ""
    type: Literal["ddr4", "ddr5"]
    speed_mts: PositiveInt
    """Transfer rate, MT/s (DDR5-4800 -> 4800)."""
    size_gb: PositiveFloat = Field(le=100_000)
    """Capacity of one DIMM, GB."""
    price: float = Field(ge=0, le=MAX_PRICE)
    """Unit price in the catalog's currency."""

    @property
    def channel_gbps(self) -> float:
        """Bandwidth of one channel, GB/s: MT/s x 8 bytes (R14)."""
        return self.speed_mts * 8 / 1000


class StorageSku(StrictModel):
    """One drive."""

    sku: Name
    name: Label = ""
    size_tb: PositiveFloat = Field(le=10_000)
    """Capacity, TB (10^12 bytes)."""
    read_gbps: float = Field(default=0, ge=0)
    """Sequential read, GB/s."""
    price: float = Field(ge=0, le=MAX_PRICE)
    """Unit price in the catalog's currency."""


class Catalog(StrictModel):
    """A whole priced catalog."""

    currency: Name
    """ISO currency code of every price (USD), at most 10 characters."""
    prices_as_of: IsoDate
    """Date the prices were taken (YYYY-MM-DD); reports print it."""
    price_note: Text = ""
    """Where the prices come from (illustrative, quote #...)."""
    gpus: list[GpuSku] = Field(min_length=1, max_length=MAX_SKUS_PER_KIND)
    """GPU SKUs."""
    platforms: list[Platform] = Field(min_length=1, max_length=MAX_SKUS_PER_KIND)
    """Server platforms (chassis / base systems), a CPU-only node included."""
    memory: list[MemorySku] = Field(min_length=1, max_length=MAX_SKUS_PER_KIND)
    """DIMM SKUs."""
    storage: list[StorageSku] = Field(min_length=1, max_length=MAX_SKUS_PER_KIND)
    """Drive SKUs."""
    cloud: list[CloudPrice] = Field(default_factory=list, max_length=MAX_SKUS_PER_KIND)
    """P5: GPU-hour rental prices, to compare buying with renting; default none."""
    network: Network = Field(default_factory=Network)
    """N1: NICs, switches and the price of a link; default none (networks not priced)."""

    @field_validator("currency")
    @classmethod
    def _currency_code(cls, value: str) -> str:
        # Name's own 128-character cap overrode Field(max_length=10): a 128-character
        # currency filled every money cell of the reports.
        if len(value) > MAX_CURRENCY:
            raise ValueError(
                f"'{clip(value)}' is {len(value)} characters; a currency is a code of at most "
                f"{MAX_CURRENCY} (USD, EUR, JPY). To fix: write currency: USD")
        return value

    @model_validator(mode="after")
    def _cloud_gpus_known(self) -> Catalog:
        known = [g.sku for g in self.gpus]
        problems = []
        first: dict[str, int] = {}
        for i, c in enumerate(self.cloud):
            if c.gpu in first:
                problems.append(f"cloud[{i}].gpu: '{clip(c.gpu)}' already has a price at "
                                f"cloud[{first[c.gpu]}] (one GPU-hour price per GPU). To fix: "
                                "keep one of the two entries")
                continue
            first[c.gpu] = i
            if c.gpu not in known:
                close = difflib.get_close_matches(c.gpu, known, n=3, cutoff=0.5)
                hint = f"did you mean {', '.join(close)}? " if close else ""
                problems.append(f"cloud[{i}].gpu: '{clip(c.gpu)}' is not a GPU of the catalog; "
                                f"{hint}To fix: spell it as under gpus")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def cloud_price(self, gpu: Sku) -> float | None:
        """Rental price of one GPU-hour of that SKU (P5); None when the catalog has none."""
        return next((c.per_gpu_hour for c in self.cloud if c.gpu == gpu), None)

    @model_validator(mode="after")
    def _known_nics(self) -> Catalog:
        known = {n.sku for n in self.network.nics}
        bad = sorted({f"{p.sku}: {i.nic}" for p in self.platforms for i in p.included_nics
                      if i.nic not in known})
        if bad:
            raise ValueError(f"included_nics name NICs network.nics does not list ({', '.join(bad)})."
                             " To fix: add them under network.nics, or correct the SKU")
        slow = self.network.unswitched()
        if slow:
            raise ValueError(f"network.switches has no switch of the kind and speed of NICs "
                             f"{', '.join(slow)} (N3: every port in use goes to a switch of "
                             "its kind at least as fast). To fix: add such a switch under "
                             "network.switches")
        return self

    @model_validator(mode="after")
    def _unique_skus(self, info: ValidationInfo) -> Catalog:
        # The loader checks SKUs on the raw data (so they are reported with other problems).
        if (info.context or {}).get("skus_checked"):
            return self
        problems = duplicate_sku_problems(self.model_dump(include=set(SKU_KINDS)))
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @model_validator(mode="after")
    def _some_price(self) -> Catalog:
        # Plans are ranked by cost: with every price 0 each plan costs the same and the
        # ranking (and every saving) means nothing. A 0 on some SKUs (hardware already
        # owned) is fine.
        if all(i.price == 0 for kind in (self.gpus, self.platforms, self.memory, self.storage)
               for i in kind):
            raise ValueError(
                "every price in the catalog is 0, so every plan would cost 0 and none could "
                "be ranked. To fix: fill in the prices (0 is fine on hardware you already own)"
            )
        return self

    @model_validator(mode="after")
    def _dimms_for_platforms(self) -> Catalog:
        # R14: every server holds DIMMs, so a platform whose memory type has no DIMM here
        # can never be bought.
        types = {m.type for m in self.memory}
        orphans = [p for p in self.platforms if p.memory_type not in types]
        if orphans:
            names = ", ".join(f"'{clip(p.sku)}' ({p.memory_type})" for p in orphans[:5])
            more = f" and {len(orphans) - 5} more" if len(orphans) > 5 else ""
            have = ", ".join(sorted(types))
            raise ValueError(
                f"no DIMM in memory fits platform {names}{more}: the catalog's DIMMs are "
                f"{have} only, and every server needs DIMMs of its memory_type (R14). To fix: "
                "add a DIMM of that type to memory, or remove the platform"
            )
        return self

    def gpu(self, sku: Sku) -> GpuSku:
        """The GPU of that SKU; KeyError when the catalog has none."""
        return _find(self.gpus, sku)

    def platform(self, sku: Sku) -> Platform:
        """The platform of that SKU; KeyError when the catalog has none."""
        return _find(self.platforms, sku)

    def dimm(self, sku: Sku) -> MemorySku:
        """The DIMM of that SKU; KeyError when the catalog has none."""
        return _find(self.memory, sku)

    def drive(self, sku: Sku) -> StorageSku:
        """The drive of that SKU; KeyError when the catalog has none."""
        return _find(self.storage, sku)

    def price_of(self, sku: Sku) -> float:
        """Unit price of any SKU (a NIC, a switch, or ``LINK_SKU``: one cable
        of the fabric)."""
        for kind in (self.gpus, self.platforms, self.memory, self.storage,
                     self.network.nics, self.network.switches):
            for item in kind:
                if item.sku == sku:
                    return item.price
        if sku == LINK_SKU:
            return self.network.link_price
        raise KeyError(sku)

    def kind_of(self, sku: Sku) -> str:
        """'gpu', 'platform', 'memory', 'storage' or 'network' (NICs, switches, cables)."""
        for kind, items in (
            ("gpu", self.gpus),
            ("platform", self.platforms),
            ("memory", self.memory),
            ("storage", self.storage),
            ("network", self.network.nics),
            ("network", self.network.switches),
        ):
            if any(i.sku == sku for i in items):
                return kind
        if sku == LINK_SKU:
            return "network"
        raise KeyError(sku)


def _find(items: list, sku: Sku) -> Any:
    for item in items:
        if item.sku == sku:
            return item
    raise KeyError(sku)


def duplicate_sku_problems(data: Any) -> list[str]:
    """One line per SKU that repeats an earlier one anywhere in the catalog (raw or dumped data).

    SKUs name line items and solver variables, so they must be unique across all four kinds.
    """
    if not isinstance(data, dict):
        return []
    seen: dict[str, str] = {}
    problems = []
    for kind in SKU_KINDS:
        items = data.get(kind)
        for i, item in enumerate(items if isinstance(items, list) else []):
            sku = item.get("sku") if isinstance(item, dict) else None
            if not isinstance(sku, str):
                continue
            if sku in seen:
                problems.append(
                    f"{kind}[{i}].sku: '{clip(sku)}' is already the SKU of {seen[sku]}; every SKU "
                    "must be unique across the catalog. To fix: rename or remove one of them"
                )
            else:
                seen[sku] = f"{kind}[{i}]"
    return problems
