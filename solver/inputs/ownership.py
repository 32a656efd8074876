"""What it costs to own a plan, where it must fit and what is already owned (P2–P4).

``policy.tco`` prices energy, support and rack space over a horizon; ``site`` caps rack
power and space; ``inventory`` lists servers already owned. All are optional: a file
without them means what it meant before. Cross-references to the catalog (an owned
server's SKUs and configuration) are checked once both files are loaded
(``solver/inputs/owned.py``).
"""

from __future__ import annotations

from pydantic import Field, PositiveFloat, PositiveInt, model_validator

from .base import Name, StrictModel

HOURS_PER_YEAR = 8760
"""Hours in a (non-leap) year: energy is counted over years × 8,760 h."""


class TcoPolicy(StrictModel):
    """How to price owning the servers over a horizon (P2)."""

    kwh_price: float = Field(ge=0, le=100)
    """Electricity price per kWh, in the catalog's currency (e.g. 0.12)."""
    years: int = Field(default=3, ge=1, le=30)
    """Horizon, whole years (default 3): energy, support and racks are counted over it."""
    pue: float = Field(default=1.4, ge=1.0, le=5.0)
    """Power usage effectiveness of the site, ≥ 1 (default 1.4): facility power ÷ IT power."""
    utilisation: float = Field(default=0.7, gt=0, le=1)
    """Mean fraction of the servers' rated power drawn over the horizon, (0, 1] (default 0.7)."""
    rack_cost_per_year: float | None = Field(default=None, ge=0, le=10_000_000)
    """Cost of one rack per year (space, power provisioning, cooling), currency; needs
    ``site`` to count racks. Default: none."""
    support_pct_per_year: float | None = Field(default=None, ge=0, le=1)
    """Support and maintenance per year as a fraction of capital cost (0.1 = 10%).
    Default: none."""

    def energy_per_kw(self) -> float:
        """Cost of one kW of rated server power over the horizon:
        8,760 h × years × utilisation × PUE × kwh_price (currency per kW)."""
        return HOURS_PER_YEAR * self.years * self.utilisation * self.pue * self.kwh_price

    def support_rate(self) -> float:
        """Support over the horizon as a fraction of capital cost: pct × years."""
        return (self.support_pct_per_year or 0.0) * self.years

    def rack_rate(self) -> float:
        """Cost of one rack over the horizon: rack_cost_per_year × years."""
        return (self.rack_cost_per_year or 0.0) * self.years


class Site(StrictModel):
    """Where the servers go (P3): the racks available and what each one holds."""

    racks: PositiveInt = Field(le=100_000)
    """Racks available."""
    rack_kw: PositiveFloat = Field(le=10_000)
    """Power one rack can deliver, kW (typical air-cooled colocation: 5–20)."""
    rack_units: PositiveInt = Field(le=100)
    """Height of one rack, U (typically 42–48)."""


class OwnedServer(StrictModel):
    """Servers already owned (P4): the same fields as a plan's server, with a count."""

    platform: Name
    """Platform SKU of the catalog."""
    gpu: Name | None = None
    """GPU SKU installed; none for a CPU-only server."""
    gpu_count: int = Field(default=0, ge=0, le=64)
    """GPUs installed."""
    memory: Name
    """DIMM SKU installed."""
    dimm_count: PositiveInt = Field(le=512)
    """DIMMs installed."""
    storage: Name | None = None
    """Drive SKU installed; none when it has no drives."""
    drive_count: int = Field(default=0, ge=0, le=256)
    """Drives installed."""
    count: PositiveInt = Field(default=1, le=10_000)
    """How many such servers are owned."""

    @model_validator(mode="after")
    def _gpu_and_count(self) -> OwnedServer:
        if (self.gpu is None) != (self.gpu_count == 0):
            raise ValueError(
                "gpu and gpu_count must go together: a GPU SKU with a count of at least 1, "
                "or neither for a CPU-only server. To fix: set both or remove both")
        if (self.storage is None) != (self.drive_count == 0):
            raise ValueError(
                "storage and drive_count must go together. To fix: set both or remove both")
        return self
