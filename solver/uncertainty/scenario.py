"""One scenario's inputs: a validated copy of the file and the catalog with what it drew.

- Demand: ``policy.growth`` is the drawn growth (``with_policy``).
- Prices: each SKU's unit price x its kind's and its own factor (``sweep.axes.priced_catalog``,
  the one home of a scaled catalog); every cloud price per GPU-hour x the rent factor.
- Estimates: the error of each estimate enters as the team's own measurements do (E2,
  ``estimate/measured.py``): per workload, GPU and degree, a measured peak (meter
  nvidia_smi: the whole need) and tokens/s equal to the estimate's true figure in this
  scenario, estimate / (1 + error). So the program, the checker and every report read the
  scenario's figures through the estimator's one entry point, and nothing is re-derived.
  A cell the file measured keeps its measurement (no error is drawn for a measurement).

The estimates themselves (``Cells``) are computed once per sweep: a scenario only scales them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from ..errors import InputError
from ..estimate.bands import band_for
from ..estimate.replica import estimate, replica_throughput
from ..inputs.catalog import Catalog
from ..inputs.fabric import LINK_SKU
from ..inputs.measurements import Measurement
from ..inputs.policy import PARALLEL_DEGREES
from ..inputs.scenario import with_policy
from ..inputs.workload import Workload, WorkloadFile
from ..optimize.replicas import policy_degrees
from ..sweep.axes import priced_catalog
from .draws import Draw, error_at
from .spec import EstimateErrors, Uncertainty

Cell = tuple[str, int, float, float | None, float | None, float | None]
"""(GPU SKU, degree, estimated VRAM need per GPU in GB, estimated tokens/s, TPOT ms and TTFT
ms; each None where the estimator has none)."""


@dataclass(frozen=True)
class Cells:
    """Every (GPU, degree) estimate of every GPU workload, by workload name."""

    by_workload: dict[str, tuple[Cell, ...]]

    @classmethod
    def of(cls, wf: WorkloadFile, catalog: Catalog) -> Cells:
        """The estimator's figures on each catalog GPU at each degree the policy allows."""
        out: dict[str, tuple[Cell, ...]] = {}
        for w in wf.workloads:
            if w.kind == "preprocess":
                continue
            cells: list[Cell] = []
            for g in catalog.gpus:
                for d in policy_degrees(g, wf.policy, PARALLEL_DEGREES):
                    e = estimate(w, g, d, wf.policy)
                    try:
                        t = replica_throughput(w, g, d, wf.policy, e)
                    except ValueError:
                        t = None
                    cells.append((g.sku, d, e.vram_gb_per_gpu,
                                  t.tokens_per_s if t else None,
                                  t.tpot_ms if t and w.max_tpot_ms is not None else None,
                                  t.ttft_ms if t and w.max_ttft_ms is not None else None))
            out[w.name] = tuple(cells)
        return cls(out)


def error(errors: EstimateErrors, quantity: str, kind: str, degree: int, u: float) -> float:
    """The error (fraction, (estimate - true) / true) of one estimate at quantile ``u``:
    the section's range for the quantity, else the regime's band (E3), else ±no_band_pct."""
    if errors.source == "none":
        return 0.0
    given = getattr(errors, quantity)
    if given is not None:
        return error_at(u, given, given.shape)
    band = band_for(quantity, kind, degree)
    span = (band.low_pct, band.high_pct) if band else (-errors.no_band_pct, errors.no_band_pct)
    return error_at(u, span, errors.shape)


def measured_workload(w: Workload, cells: tuple[Cell, ...], errors: EstimateErrors,
                      mem_u: float, speed_u: float) -> Workload:
    """``w`` with one measurement per cell it did not measure itself: the scenario's true
    peak, tokens/s and (where it has a latency limit) TPOT and TTFT, each estimate /
    (1 + error). One quantile drives the three speed figures: tokens/s at ``speed_u``, the
    latencies at 1 − ``speed_u`` (a slower replica is also later)."""
    own = {(m.gpu, m.degree) for m in w.measurements or ()}
    added = []
    for gpu, d, need, rate, tpot, ttft in cells:
        if (gpu, d) in own:
            continue
        peak = need / (1 + error(errors, "peak_memory", w.kind, d, mem_u))
        speed = None
        if rate is not None and rate > 0:
            speed = rate / (1 + error(errors, "tokens_per_s", w.kind, d, speed_u))
        late = {q: _r(v / (1 + error(errors, q, w.kind, d, 1.0 - speed_u)))
                for q, v in (("tpot_ms", tpot), ("ttft_ms", ttft)) if v}
        if peak <= 0:
            continue
        added.append(Measurement.model_construct(
            gpu=gpu, degree=d, peak_gb=round(peak, 6), meter="nvidia_smi",
            tokens_per_s=None if speed is None else round(speed, 6),
            tpot_ms=late.get("tpot_ms"), ttft_ms=late.get("ttft_ms")))
    return w.model_copy(update={"measurements": (*(w.measurements or ()), *added)})


def _r(v: float) -> float:
    return round(v, 6)


def scenario_file(wf: WorkloadFile, cells: Cells, errors: EstimateErrors,
                  draw: Draw) -> WorkloadFile:
    """The file as scenario ``draw`` sees it: its growth and each workload's true figures
    as measurements, and no ``uncertainty`` section (a scenario is certain: its re-solve is
    a plain plan, even of a file held to sampled scenarios, U1)."""
    out = with_policy(wf, growth=round(draw.growth, 6)).model_copy(update={"uncertainty": None})
    if errors.source == "none":
        return out
    workloads = [
        measured_workload(w, cells.by_workload[w.name], errors, draw.memory_u[i], draw.speed_u[i])
        if w.name in cells.by_workload else w
        for i, w in enumerate(wf.workloads)
    ]
    return out.model_copy(update={"workloads": workloads})


def world(wf: WorkloadFile, cells: Cells, unc: Uncertainty, draw: Draw) -> WorkloadFile:
    """The file a plan is checked against in scenario ``draw`` (U1, ``rules/chance.py``):
    ``scenario_file`` (true figures, demand at the drawn growth, no ``uncertainty``) with
    the memory line's headroom (0 with ``memory_line: vram``)."""
    return with_policy(scenario_file(wf, cells, unc.estimates, draw),
                       headroom=0.0 if unc.memory_line == "vram" else None)


def cent_factors(catalog: Catalog, draw: Draw) -> tuple[tuple[str, float], ...]:
    """Per SKU, the factor that takes its price to the scenario's, rounded to a whole cent:
    a bill of whole cents adds up exactly, as the checker's total expects (a price of
    1,234.5678 x 120 drifts from the sum of its rounded lines)."""
    out = []
    for kind, field_name in (("gpu", "gpus"), ("platform", "platforms"), ("memory", "memory"),
                             ("storage", "storage"), ("network", "nics"),
                             ("network", "switches")):
        owner = catalog.network if kind == "network" else catalog
        for item in getattr(owner, field_name):
            out.append(_cent(item.sku, item.price, draw.price_factor(item.sku, kind)))
    link = catalog.network.link_price
    out.append(_cent(LINK_SKU, link, draw.price_factor(LINK_SKU, "network")))
    return tuple(out)


def _cent(sku: str, price: float, f: float) -> tuple[str, float]:
    return (sku, round(price * f, 2) / price if price > 0 else 1.0)


def scenario_catalog(catalog: Catalog, draw: Draw) -> Catalog:
    """The catalog at the scenario's prices and rent.

    Raises:
        InputError: a scaled price breaks the catalog's rules (a cloud price over its cap).
    """
    out = priced_catalog(catalog, cent_factors(catalog, draw))
    if not out.cloud or draw.rent == 1.0:
        return out
    cloud = [c.model_dump() | {"per_gpu_hour": round(c.per_gpu_hour * draw.rent, 6)}
             for c in out.cloud]
    try:
        return Catalog.model_validate({**dict(out), "cloud": cloud},
                                      context={"skus_checked": True})
    except ValidationError as exc:
        raise InputError(f"scenario {draw.index}: rent factor {draw.rent:.3g} gives an invalid "
                         "catalog. To fix: a narrower rent distribution (uncertainty.rent)",
                         [str(e["msg"]) for e in exc.errors()]) from None
