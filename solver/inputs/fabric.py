"""What a pool uses beyond its servers' parts: the network fabric (N1) and rented GPUs
(P5, H5), as the catalog lists them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, PositiveFloat, PositiveInt

from .base import Label, Name, StrictModel, Text

MAX_PRICE = 1e12
LINK_SKU = "fabric-link"
"""The SKU of the fabric's cables on a bill of materials (N3): one cable or pair of
transceivers per switch port in use, at ``network.link_price``."""
FabricKind = Literal["ethernet", "infiniband"]


class NicSku(StrictModel):
    """One network card (N1)."""

    sku: Name
    name: Label = ""
    gbps: PositiveFloat = Field(le=10_000)
    """Line rate of one port, Gb/s."""
    kind: FabricKind
    """ethernet or infiniband."""
    ports: PositiveInt = Field(default=1, le=16)
    """Ports on the card."""
    price: float = Field(ge=0, le=MAX_PRICE)
    power_w: float = Field(default=0, ge=0, le=10_000)


class SwitchSku(StrictModel):
    """One switch (N1)."""

    sku: Name
    name: Label = ""
    ports: PositiveInt = Field(le=1024)
    gbps: PositiveFloat = Field(le=10_000)
    """Line rate of one port, Gb/s."""
    kind: FabricKind
    price: float = Field(ge=0, le=MAX_PRICE)
    power_w: float = Field(default=0, ge=0, le=100_000)
    rack_units: PositiveInt = Field(default=1, le=64)


class Network(StrictModel):
    """N1: the fabric's parts; empty when the catalog does not price networks."""

    nics: list[NicSku] = Field(default_factory=list, max_length=500)
    switches: list[SwitchSku] = Field(default_factory=list, max_length=500)
    link_price: float = Field(default=0, ge=0, le=MAX_PRICE)
    """A cable or pair of transceivers per switch port in use, in the catalog's currency."""

    def nic(self, sku: str) -> NicSku | None:
        return next((n for n in self.nics if n.sku == sku), None)

    def unswitched(self) -> list[str]:
        """NICs no switch of their kind is fast enough for, when switches are listed (N3:
        every port in use goes to a switch of its kind at least as fast)."""
        if not self.switches:
            return []
        return [f"{n.sku} ({n.kind}, {n.gbps:g} Gb/s)" for n in self.nics
                if not any(s.kind == n.kind and s.gbps + 1e-9 >= n.gbps for s in self.switches)]


class IncludedNic(StrictModel):
    """N1: NICs a platform's price already includes."""

    nic: Name
    """A SKU of the catalog's network.nics."""
    count: PositiveInt = Field(le=64)


class CloudPrice(StrictModel):
    """What renting one GPU costs in a public cloud (P5)."""

    gpu: Name
    """GPU SKU of this catalog."""
    per_gpu_hour: float = Field(ge=0, le=10_000)
    """Price of one GPU for one hour, in the catalog's currency (on-demand)."""
    max_gpus: int | None = Field(default=None, ge=1, le=1_000_000)
    """H5: most GPUs of this SKU that can be rented at any instant; default no limit."""
    min_hours: float | None = Field(default=None, gt=0, le=8760)
    """H5: shortest rental billed, hours (a rental shorter than this is billed this long);
    default none."""
    source: Text = ""
    """Where the price comes from, with its date."""


