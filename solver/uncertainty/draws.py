"""The scenarios of a Monte Carlo sweep: what is drawn, from a seed, for scenario ``i``.

Scenario ``i`` draws from its own generator, ``numpy.random.default_rng([seed, i])``, in a
fixed order (kinds' price factors, SKUs' in name order, growth, rent, then per workload in
file order a quantile for its memory error and one for its tokens/s error). So one seed
gives the same scenarios on any machine and with any number of workers, and the first 20
scenarios of a 1,000-scenario sweep are those of a 20-scenario one.

An estimate's error is kept as a quantile ``u`` in [0, 1) per workload and quantity: the
cell a plan places the workload on (GPU, degree) maps it through its own regime's range
(``errors.error_at``), so one workload is as far off, relatively, on every GPU.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np
from pydantic import ValidationError

from ..errors import InputError
from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from .spec import KINDS, MIN_FACTOR, Dist, ErrorRange, Uncertainty, default_growth

DEFAULT_PRICE = Dist(sd=0.1)
"""A kind's price factor when the file gives none: lognormal, median 1, log-sd 0.1."""


@dataclass(frozen=True)
class Draw:
    """What scenario ``index`` drew."""

    index: int
    prices: tuple[tuple[str, float], ...]
    """(kind or SKU, factor): a SKU's price is scaled by its kind's and its own factor."""
    growth: float
    """Demand growth in place of ``policy.growth`` (R19, T3)."""
    rent: float
    """Factor on every cloud price per GPU-hour."""
    memory_u: tuple[float, ...]
    """Per workload (file order): the quantile of its peak-memory error."""
    speed_u: tuple[float, ...]
    """Per workload: the quantile of its tokens/s error."""

    def price_factor(self, sku: str, kind: str) -> float:
        """The factor on one SKU's unit price (its kind's times its own)."""
        out = 1.0
        for target, f in self.prices:
            if target in (sku, kind):
                out *= f
        return out


def factor(d: Dist, rng: np.random.Generator, centre: float = 1.0) -> float:
    """One draw of ``d`` (``centre`` where it gives no mean)."""
    mean = d.mean if d.mean is not None else centre
    if d.dist == "fixed":
        return mean
    if d.dist == "uniform":
        return float(rng.uniform(d.low or 0.0, d.high or 0.0))
    if d.dist == "triangular":
        lo, hi = float(d.low or 0), float(d.high or 0)
        if hi <= lo:
            rng.random()  # keep the stream's length whatever the parameters
            return lo
        mode = d.mode if d.mode is not None else (lo + hi) / 2
        return float(rng.triangular(lo, mode, hi))
    z = float(rng.standard_normal())
    if d.dist == "normal":
        return max(MIN_FACTOR, mean * (1 + d.sd * z))
    return mean * float(np.exp(d.sd * z))


def draw(unc: Uncertainty, wf: WorkloadFile, index: int) -> Draw:
    """Scenario ``index`` of the sweep (module docstring for the order of the draws)."""
    rng = np.random.default_rng([unc.seed, index])
    prices = [(k, factor(unc.prices.get(k, DEFAULT_PRICE), rng)) for k in KINDS]
    prices += [(k, factor(d, rng)) for k, d in sorted(unc.prices.items()) if k not in KINDS]
    growth = factor(unc.growth or default_growth(wf.policy.growth), rng, wf.policy.growth)
    rent = factor(unc.rent, rng)
    n = len(wf.workloads)
    memory_u = tuple(float(u) for u in rng.random(n))
    speed_u = tuple(float(u) for u in rng.random(n))
    return Draw(index, tuple(prices), growth, rent, memory_u, speed_u)


def error_at(u: float, rng_: ErrorRange | tuple[float, float], shape: str) -> float:
    """The error (a fraction, signed as the bands are) at quantile ``u`` of a range given in
    percent: uniform, or triangular with its mode at 0 held within the range."""
    lo, hi = (rng_.low_pct, rng_.high_pct) if isinstance(rng_, ErrorRange) else rng_
    lo, hi = lo / 100, hi / 100
    if hi <= lo:
        return lo
    if shape == "uniform":
        return lo + u * (hi - lo)
    mode = min(max(0.0, lo), hi)
    cut = (mode - lo) / (hi - lo)
    if u < cut:
        return lo + float(np.sqrt(u * (hi - lo) * (mode - lo)))
    return hi - float(np.sqrt((1 - u) * (hi - lo) * (hi - mode)))


# --- The section, with the command line's --samples, --seed and --vary ------------------
def resolve(wf: WorkloadFile, catalog: Catalog, where: str, samples: int | None = None,
            seed: int | None = None, options: int | None = None,
            vary: tuple[str, ...] = ()) -> Uncertainty:
    """The file's ``uncertainty`` (defaults where absent) with the command line's values in
    place of its own, every price target checked against the catalog.

    Raises:
        InputError: an unknown SKU (with the closest names), a bad ``--vary``.
    """
    unc = wf.uncertainty or Uncertainty()
    changes: dict = {k: v for k, v in (("samples", samples), ("seed", seed),
                                        ("options", options)) if v is not None}
    problems = [f"{where}: uncertainty.prices.{k}: {p}" for k in unc.prices
                if (p := _target_problem(k, catalog))]
    prices = dict(unc.prices)
    for spec in vary:
        key, _, value = spec.partition("=")
        try:
            _apply_vary(key.strip(), value.strip(), prices, changes, catalog)
        except ValueError as exc:
            problems.append(f"--vary {spec}: {exc}")
    if problems:
        raise InputError("invalid uncertainty sweep", problems)
    if "estimates" in changes:
        changes["estimates"] = {**unc.estimates.model_dump(), **changes["estimates"]}
    try:
        return Uncertainty.model_validate({**unc.model_dump(), **changes, "prices": prices})
    except ValidationError as exc:
        raise InputError("invalid uncertainty sweep", [
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}. To fix: docs/workloads.md lists "
            "each field's range" for e in exc.errors()]) from None


def _target_problem(target: str, catalog: Catalog) -> str | None:
    """Why a price target is neither a kind nor a SKU of the catalog (None: it is one)."""
    skus = catalog_skus(catalog)
    if target in KINDS or target in skus:
        return None
    close = difflib.get_close_matches(target, [*KINDS, *skus], n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    return (f"'{target[:80]}' is not a SKU of the catalog nor a kind. To fix: {hint}kinds are "
            f"{', '.join(KINDS)}; SKUs are listed in the catalog file")


def catalog_skus(catalog: Catalog) -> list[str]:
    """Every SKU a BOM line may name."""
    out = [i.sku for kind in ("gpus", "platforms", "memory", "storage")
           for i in getattr(catalog, kind)]
    network = getattr(catalog, "network", None)
    for part in ("nics", "switches"):
        out += [i.sku for i in getattr(network, part, ())]
    return out


VARY_HELP = ("price.<kind|SKU>=SHAPE, growth=SHAPE, rent=SHAPE, error.peak_memory=RANGE, "
             "error.tokens_per_s=RANGE, error.tpot_ms=RANGE, error.ttft_ms=RANGE or "
             "error=band|none; SHAPE is lognormal:SD, "
             "normal:MEAN:SD, uniform:LOW:HIGH, triangular:LOW:MODE:HIGH or fixed:VALUE; "
             "RANGE is uniform:LOW_PCT:HIGH_PCT or triangular:LOW_PCT:HIGH_PCT")


def _apply_vary(key: str, value: str, prices: dict, changes: dict, catalog: Catalog) -> None:
    """One ``--vary KEY=VALUE`` into ``prices`` / ``changes`` (ValueError: what is wrong)."""
    fix = f"To fix: write {VARY_HELP}"
    if key.startswith("price."):
        target = key.removeprefix("price.")
        problem = _target_problem(target, catalog)
        if problem:
            raise ValueError(problem)
        prices[target] = parse_shape(value, fix)
    elif key in ("growth", "rent"):
        changes[key] = parse_shape(value, fix)
    elif key == "error" and value in ("band", "none"):
        changes.setdefault("estimates", {})["source"] = value
    elif key in ("error.peak_memory", "error.tokens_per_s", "error.tpot_ms", "error.ttft_ms"):
        parts = value.split(":")
        if len(parts) != 3 or parts[0] not in ("uniform", "triangular"):
            raise ValueError(f"'{value[:80]}' is not a range. {fix}")
        low, high = (_number(p, fix) for p in parts[1:])
        changes.setdefault("estimates", {})[key.removeprefix("error.")] = {
            "low_pct": low, "high_pct": high, "shape": parts[0]}
    else:
        raise ValueError(f"'{key[:80]}' is not something a sweep varies. {fix}")


def parse_shape(value: str, fix: str) -> Dist:
    """``lognormal:0.15`` -> a ``Dist`` (ValueError: what is wrong, and ``fix``)."""
    name, *nums = value.split(":")
    args = [_number(n, fix) for n in nums]
    fields = {"lognormal": ("sd",), "normal": ("mean", "sd"), "uniform": ("low", "high"),
              "triangular": ("low", "mode", "high"), "fixed": ("mean",)}.get(name)
    if fields is None or len(args) != len(fields):
        raise ValueError(f"'{value[:80]}' is not a distribution. {fix}")
    given = dict(zip(fields, args, strict=True))
    try:
        return Dist.model_validate({"dist": name, **given})
    except ValidationError as exc:
        e = exc.errors()[0]
        what = ".".join(map(str, e["loc"]))
        got = f" (got {given[what]:g})" if what in given else ""
        msg = e["msg"].removeprefix("Value error, ")
        if "To fix" not in msg:
            msg += (f"{got}. To fix: a spread of 0 or more and a range with low <= high, all "
                    "above 0, e.g. lognormal:0.15 or uniform:0.9:1.2")
        raise ValueError(f"{what + ': ' if what else ''}{msg}") from None


def _number(text: str, fix: str) -> float:
    try:
        out = float(text)
    except ValueError:
        raise ValueError(f"'{text[:80]}' is not a number. {fix}") from None
    if not np.isfinite(out):
        raise ValueError(f"'{text[:80]}' is not a finite number. {fix}")
    return out
