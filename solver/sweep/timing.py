"""Sweep axes over time (H1, H2, H5): the rent price, the horizon's length and how many
times a finite job runs.

``parse_time_axes`` reads ``--rent-price``, ``--horizon-months`` and ``--runs`` against the
file and the catalog; ``rented_catalog`` and ``timed_file`` make one scenario's validated
catalog and workload file. Each axis is a (name, values) pair whose name is
``rent_price``, ``horizon_months`` or ``runs:<workload>``; every bad value is an InputError
(exit 2) naming the option, what is wrong and how to fix it.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
from collections.abc import Sequence

from pydantic import ValidationError

from ..errors import InputError
from ..horizon.runs import is_run, runs_of, timeframe
from ..inputs.catalog import Catalog
from ..inputs.horizon import MAX_HORIZON_MONTHS, Repeat, first_window, horizon_months
from ..inputs.workload import WorkloadFile
from ..report.wording import counted
from .axes import parse_values

RENT = "rent_price"
"""Axis name: multiplier of every catalog cloud price per GPU-hour (H5)."""
MONTHS = "horizon_months"
"""Axis name: policy.horizon.months (H1)."""
RUNS = "runs:"
"""Axis name prefix: ``runs:<workload>``, how many runs of that finite job start (H2)."""
MAX_GPU_HOUR = 10_000.0
"""The catalog's cap on a cloud price per GPU-hour (``CloudPrice.per_gpu_hour``)."""
MAX_RUNS = 10_000
"""More runs of one job than this is a typo, not a question a planner asks."""

Timing = tuple[tuple[str, float], ...]
"""(axis name, value) of each time axis given, in the order of ``parse_time_axes``."""
TimeAxes = tuple[tuple[str, tuple[float, ...]], ...]


def parse_time_axes(wf: WorkloadFile, catalog: Catalog, rent_price: str | None = None,
                    months: str | None = None, runs: Sequence[str] = ()) -> TimeAxes:
    """The time axes given, validated against the file and the catalog.

    Raises:
        InputError: a bad value; an axis that needs a horizon on a file without one;
            ``--rent-price`` with no cloud prices or ``policy.rent: never``; ``--runs`` of a
            workload that is not a finite job of the file.
    """
    axes: list[tuple[str, tuple[float, ...]]] = []
    if rent_price is not None:
        _rent_possible(wf, catalog)
        axes.append((RENT, parse_values(rent_price, "--rent-price", 0.0, example="0.5")))
    if months is not None:
        _needs_horizon(wf, "--horizon-months", "sets policy.horizon.months")
        values = parse_values(months, "--horizon-months", 1.0, below=MAX_HORIZON_MONTHS + 1,
                              example="24")
        _whole(values, "--horizon-months", months, "12,24,36")
        axes.append((MONTHS, values))
    seen: set[str] = set()
    for spec in runs:
        name, values = _runs_axis(wf, spec)
        if name in seen:
            raise InputError(f"--runs: '{name}' is given twice. To fix: list all its counts "
                             f"in one option (--runs {name}=1,3,6)")
        seen.add(name)
        axes.append((RUNS + name, values))
    return tuple(axes)


def _needs_horizon(wf: WorkloadFile, option: str, what: str) -> None:
    if wf.policy.horizon is None:
        raise InputError(
            f"{option} {what}, but the file has no policy.horizon: without one every "
            "workload runs all the time and nothing is scheduled or rented. To fix: add "
            "policy: {horizon: {start: 2027-01-01, months: 36}} to the file")


def _whole(values: tuple[float, ...], option: str, text: str, example: str) -> None:
    if any(v != int(v) for v in values):
        raise InputError(f"{option}: '{text}' must be whole numbers. To fix: e.g. {example}")


def _rent_possible(wf: WorkloadFile, catalog: Catalog) -> None:
    """``--rent-price`` changes a plan only where something may be rented."""
    _needs_horizon(wf, "--rent-price", "scales what renting costs")
    if not catalog.cloud:
        raise InputError(
            "--rent-price scales the catalog's cloud prices, but the catalog has none. "
            "To fix: add cloud: [{gpu: h100-sxm, per_gpu_hour: 2.5}] to the catalog")
    if wf.policy.rent == "never":
        raise InputError(
            "--rent-price scales what renting costs, but the file's policy.rent is never: "
            "nothing is rented in any scenario. To fix: set policy.rent: allowed")


def _runs_axis(wf: WorkloadFile, spec: str) -> tuple[str, tuple[float, ...]]:
    """``WORKLOAD=N[,N...]`` -> (workload, counts)."""
    name, eq, counts = spec.partition("=")
    name = name.strip()
    if not eq or not name or not counts.strip():
        raise InputError(f"--runs: '{spec}' is not WORKLOAD=N[,N...]. To fix: write e.g. "
                         "--runs pretrain=1,3,6,12")
    _needs_horizon(wf, "--runs", "sets how many times a finite job runs")
    finite = [w.name for w in wf.workloads if is_run(w, wf)]
    if name not in finite:
        names = [w.name for w in wf.workloads]
        if name in names:
            what = (f"'{name}' is not a finite job: a run needs a training kind (train, lora, "
                    "qlora), tokens and a deadline (deadline or deadline_days)")
        else:
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            what = f"'{name}' is not a workload of the file{hint}"
        jobs = ", ".join(finite) if finite else "none"
        raise InputError(f"--runs: {what}. To fix: name one of the file's finite jobs: {jobs}")
    values = parse_values(counts, f"--runs {name}", 1.0, below=MAX_RUNS + 1, example="1,3,6")
    _whole(values, f"--runs {name}", counts, "1,3,6,12")
    return name, values


# -- One scenario's inputs ----------------------------------------------------------------
def rented_catalog(catalog: Catalog, timing: Timing) -> Catalog:
    """A validated copy of ``catalog`` with every cloud price per GPU-hour scaled by the
    ``rent_price`` axis (the same object at 1.0 or without the axis).

    Raises:
        InputError: a scaled price breaks the catalog's rules (10,000 per GPU-hour at most).
    """
    mult = dict(timing).get(RENT, 1.0)
    if mult == 1.0:
        return catalog
    cloud = [c.model_dump() | {"per_gpu_hour": round(c.per_gpu_hour * mult, 6)}
             for c in catalog.cloud]
    try:
        return Catalog.model_validate({**dict(catalog), "cloud": cloud},
                                      context={"skus_checked": True})
    except ValidationError as exc:
        top = max(c.per_gpu_hour for c in catalog.cloud)
        problems = [_cloud_problem(catalog, e["loc"], e["msg"], mult) for e in exc.errors()]
        raise InputError(
            f"--rent-price {mult:g} gives an invalid catalog. To fix: use multipliers of at "
            f"most {math.floor(MAX_GPU_HOUR / top * 100) / 100:,g} (a cloud price is at most "
            f"{MAX_GPU_HOUR:,.0f} per GPU-hour; the dearest is {top:g})", problems) from None


def _cloud_problem(catalog: Catalog, loc: tuple, msg: str, mult: float) -> str:
    """``cloud[5] (h100-sxm): per_gpu_hour 2.99 x 5000 = 14,950: <what is wrong>``."""
    if len(loc) >= 2 and loc[0] == "cloud" and isinstance(loc[1], int):
        c = catalog.cloud[loc[1]]
        return (f"cloud[{loc[1]}] ({c.gpu}): per_gpu_hour {c.per_gpu_hour:g} x {mult:g} = "
                f"{c.per_gpu_hour * mult:,.2f}: {msg}")
    return f"{'.'.join(map(str, loc))}: {msg}"


def timed_file(wf: WorkloadFile, timing: Timing) -> WorkloadFile:
    """A validated copy of ``wf`` with the scenario's horizon length and run counts.

    ``runs:<w>`` = N sets the repeat of ``w`` so that exactly N runs start: its ``until`` is
    the N-th repetition's start day (a job without ``repeat`` repeats monthly); N = 1 removes
    the repeat.

    Raises:
        InputError: the copy breaks a rule of the file (a run ending after the horizon), or
            fewer than N runs of a job fit in the horizon.
    """
    values = dict(timing)
    counts = {n.removeprefix(RUNS): int(v) for n, v in timing if n.startswith(RUNS)}
    if MONTHS not in values and not counts:
        return wf
    label = ", ".join(_axis_text(n, v) for n, v in timing if n != RENT)
    policy = wf.policy
    if MONTHS in values and policy.horizon is not None:
        horizon = policy.horizon.model_copy(update={"months": int(values[MONTHS])})
        policy = policy.model_copy(update={"horizon": horizon})
    workloads = list(wf.workloads)
    if counts and policy.horizon is not None:
        for i, w in enumerate(workloads):
            if w.name in counts:
                workloads[i] = w.model_copy(update={"repeat": _repeat_for(
                    w.repeat, first_window(w, policy.horizon)[0].date(), counts[w.name])})
    try:
        copy = WorkloadFile.model_validate({**dict(wf), "policy": policy, "workloads": workloads})
    except ValidationError as exc:
        raise InputError(f"the scenario {label} gives an invalid workload file",
                         [e["msg"].removeprefix("Value error, ") for e in exc.errors()]) from None
    _runs_fit(copy, counts, label)
    return copy


def _repeat_for(repeat: Repeat | None, first: dt.date, n: int) -> Repeat | None:
    """The repeat under which exactly ``n`` runs start, the first on ``first``."""
    if n == 1:
        return None
    rep = repeat or Repeat(every="monthly")
    return rep.model_copy(update={"until": rep.shift(first, n - 1)})


def _runs_fit(wf: WorkloadFile, counts: dict[str, int], label: str) -> None:
    """Every one of the N runs asked for ends inside the horizon."""
    run_set, frame, horizon = runs_of(wf), timeframe(wf), wf.policy.horizon
    if run_set is None or frame is None or horizon is None:
        return
    for name, n in counts.items():
        got = sum(r.workload == name for r in run_set.runs)
        if got >= n:
            continue
        w = next(w for w in wf.workloads if w.name == name)
        first, end = first_window(w, horizon)
        rep = w.repeat or Repeat(every="monthly")
        start = dt.datetime.combine(rep.shift(first.date(), n - 1), dt.time())
        raise InputError(
            f"--runs {name}={n} ({label}): only {got} of {n} runs of {name} fit in the "
            f"horizon of {counted(frame.months, 'month')} from {frame.start}: run {n} would start "
            f"{start:%Y-%m-%d} and end {start + (end - first):%Y-%m-%d %H:%M}, after the "
            f"horizon's end {frame.at(frame.hours):%Y-%m-%d %H:%M}. To fix: ask for at most "
            f"{counted(got, 'run')}, repeat "
            "more often (repeat: weekly in the file), or lengthen the horizon "
            "(--horizon-months)")


def file_timing(wf: WorkloadFile, names: Sequence[str]) -> tuple[tuple[str, float | None], ...]:
    """The file's own value of each time axis swept, for finding the unswept plan among
    the scenarios: rent price 1, its horizon's length, and 1 run of a job without
    ``repeat`` (None for a repeated job: a count sets ``until``, so the file differs)."""
    out: list[tuple[str, float | None]] = []
    for n in names:
        if n == RENT:
            out.append((n, 1.0))
        elif n == MONTHS and wf.policy.horizon is not None:
            tco = wf.policy.tco
            out.append((n, float(horizon_months(wf.policy.horizon, tco.years if tco else None))))
        else:
            w = next((w for w in wf.workloads if RUNS + w.name == n), None)
            out.append((n, 1.0 if w is not None and w.repeat is None else None))
    return tuple(out)


def axis_column(name: str) -> str:
    """The CSV and workbook column of a time axis: ``rent_price``, ``horizon_months``,
    ``runs_pretrain``."""
    return "runs_" + name.removeprefix(RUNS) if name.startswith(RUNS) else name


def axis_header(name: str) -> str:
    """The terminal column of a time axis: ``rent price x``, ``horizon months``,
    ``pretrain runs``."""
    if name.startswith(RUNS):
        return f"{name.removeprefix(RUNS)} runs"
    return "rent price x" if name == RENT else "horizon months"


def _axis_text(name: str, value: float) -> str:
    """``rent x0.5``, ``horizon 24 months``, ``pretrain 3 runs``."""
    if name == RENT:
        return f"rent x{value:g}"
    if name == MONTHS:
        return f"horizon {counted(int(value), 'month')}"
    return f"{name.removeprefix(RUNS)} {counted(int(value), 'run')}"


def timing_label(timing: Timing) -> list[str]:
    """The parts of a scenario group's label its time axes give."""
    return [_axis_text(n, v) for n, v in timing]
