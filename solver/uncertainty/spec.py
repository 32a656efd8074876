"""``uncertainty:``, the optional section of a workload file a Monte Carlo sweep draws from.

Every field has a default, so a file without the section (or ``uncertainty: {}``) sweeps
with the documented defaults (docs/workloads.md, "`uncertainty`"):

- each BOM kind's unit prices move together by a factor, lognormal with a log-sd of 0.10
  (about ±10 %; median 1); a SKU's own entry multiplies its kind's factor;
- demand growth is normal around ``policy.growth`` with a sd of 10 % of it;
- cloud prices per GPU-hour (rent) move by a lognormal factor, log-sd 0.15;
- each estimate's error is drawn uniform between the signed extremes of its regime's
  band (E3, ``estimate/bands.py``), ±``no_band_pct`` where no published case covers it.

Strict models (``inputs/base.StrictModel``): a negative spread, a low above its high or a
shape without the numbers it needs is refused where the file is read, exit 2.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..inputs.base import Name, StrictModel

Shape = Literal["fixed", "uniform", "triangular", "normal", "lognormal"]
"""How a factor is drawn (``Dist.dist``)."""
KINDS = ("gpu", "platform", "memory", "storage", "network")
"""BOM kinds a price factor may name (a SKU of the catalog is the other choice)."""
MIN_FACTOR = 0.01
"""A normal draw below this is taken as this: a price or a demand never goes to 0 or below."""


class Dist(StrictModel):
    """One random factor: a multiplier (prices, rent) or a value (growth)."""

    dist: Shape = "lognormal"
    """fixed (always mean), uniform (low to high), triangular (low, mode, high), normal
    (mean, sd) or lognormal (mean x exp(sd x z): median mean, sd about the relative
    spread)."""
    mean: float | None = Field(default=None, gt=0, le=1000)
    """Centre: the value of fixed, the mean of normal, the median of lognormal; default 1
    (growth: policy.growth)."""
    sd: float = Field(default=0.1, ge=0, le=10)
    """Spread of normal (a fraction of the mean: 0.1 = 10 %) and of lognormal (log-sd)."""
    low: float | None = Field(default=None, gt=0, le=1000)
    """Smallest value of uniform and triangular."""
    high: float | None = Field(default=None, gt=0, le=1000)
    """Largest value of uniform and triangular."""
    mode: float | None = Field(default=None, gt=0, le=1000)
    """Most likely value of triangular; default halfway between low and high."""

    @model_validator(mode="after")
    def _bounds(self) -> Dist:
        if self.dist in ("uniform", "triangular"):
            if self.low is None or self.high is None:
                raise ValueError(f"dist {self.dist} needs low and high. To fix: write e.g. "
                                 f"{{dist: {self.dist}, low: 0.9, high: 1.2}}")
            if self.low > self.high:
                raise ValueError(f"low {self.low:g} is above high {self.high:g}. To fix: "
                                 "swap them, or write the smaller value as low")
            if self.mode is not None and not self.low <= self.mode <= self.high:
                raise ValueError(f"mode {self.mode:g} is outside low..high "
                                 f"({self.low:g}..{self.high:g}). To fix: a mode between them")
        return self


class ErrorRange(StrictModel):
    """Where one estimate's error lies, in percent: (estimate - true) / true x 100, the
    sign of the validation bands (negative: the estimate was low)."""

    low_pct: float = Field(ge=-90, le=900)
    """Most negative error in %; -10: the true figure is 1/0.9 = 1.11 x the estimate."""
    high_pct: float = Field(ge=-90, le=900)
    """Most positive error, %."""
    shape: Literal["uniform", "triangular"] = "uniform"
    """uniform between the two, or triangular with its mode at 0 (held within them)."""

    @model_validator(mode="after")
    def _order(self) -> ErrorRange:
        if self.low_pct > self.high_pct:
            raise ValueError(f"low_pct {self.low_pct:g} is above high_pct {self.high_pct:g}. "
                             "To fix: swap them")
        return self


class EstimateErrors(StrictModel):
    """How far each estimate (a replica's peak VRAM, its tokens/s) may be off."""

    source: Literal["band", "none"] = "band"
    """band: each regime's published error band (E3); none: the estimates are exact."""
    shape: Literal["uniform", "triangular"] = "uniform"
    """How a band's error is drawn between its signed extremes (triangular: mode 0)."""
    no_band_pct: float = Field(default=20.0, ge=0, le=90)
    """±% drawn for a regime no published case covers."""
    peak_memory: ErrorRange | None = None
    """Replaces every regime's peak-memory band (e.g. low_pct -10, high_pct 10)."""
    tokens_per_s: ErrorRange | None = None
    """Replaces every regime's tokens/s band."""
    tpot_ms: ErrorRange | None = None
    """Replaces every regime's TPOT band (inference with a latency limit)."""
    ttft_ms: ErrorRange | None = None
    """Replaces every regime's TTFT band."""


class Uncertainty(StrictModel):
    """What a Monte Carlo sweep (``plan-buy sweep --samples N``) draws its scenarios from."""

    samples: int = Field(default=200, ge=1, le=100_000)
    """Scenarios drawn (the command line's --samples overrides it)."""
    seed: int = Field(default=0, ge=0, le=2**32 - 1)
    """Seed of the draws: the same value gives the same scenarios (--seed overrides it)."""
    options: int = Field(default=3, ge=1, le=10)
    """The plan's options evaluated in each scenario (the cheapest and its alternatives)."""
    memory_line: Literal["headroom", "vram"] = "vram"
    """What a replica's true need must fit: headroom, the policy's headroom line (R15, as
    the plan was sized); vram, the card's and the server's whole memory (headroom 0)."""
    prices: dict[Name, Dist] = Field(default_factory=dict, max_length=500)
    """Price factor per BOM kind (gpu, platform, memory, storage, network) or SKU; a kind
    not given: lognormal, sd 0.1; a SKU's factor multiplies its kind's."""
    growth: Dist | None = None
    """Demand growth drawn in place of ``policy.growth``; default normal around it, sd 0.1
    (10 % of it)."""
    rent: Dist = Field(default_factory=lambda: Dist(sd=0.15))
    """Factor on every cloud price per GPU-hour; default lognormal, sd 0.15."""
    estimates: EstimateErrors = Field(default_factory=EstimateErrors)
    """Errors of the estimates."""
    robust: float | None = Field(default=None, ge=0.01, le=1)
    """U1: the plan must hold in at least this share of the ``samples`` scenarios (as
    ``plan --robust P``); None: a plain plan."""


def default_growth(growth: float) -> Dist:
    """Normal around the policy's growth, sd 10 % of it."""
    return Dist(dist="normal", mean=growth, sd=0.1)
