"""``plan-buy estimate``: estimator rows for every workload x GPU x degree, and their table.

Two pure steps, so the JSON and the table cannot disagree: ``estimate_rows`` decides what to show, as EstimateRow
objects (the memory Estimate plus one replica's throughput; ``to_json`` is the row of the
JSON contract); ``render_estimate_table`` turns them into text. The same for the GPU-hours
one run of each finite training job needs per GPU type (``estimate.gpu_hours``):
``run_hours_rows`` chooses them, ``render_estimate_table`` ends with their section.
``estimate_document`` is the ``--json`` document of both.

Every JSON row carries ``cpu_cores``, what one replica needs on its server (O3).
Throughput keys of a JSON row: training kinds add ``tokens_per_s`` and ``mfu``; inference adds
``tokens_per_s``, ``mbu`` (or ``mfu`` when the decode step is compute-bound), ``tpot_ms`` and
``ttft_ms``; they are null when the replica does not fit. Preprocess rows carry none of them.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, fields

from ..errors import InputError
from ..estimate.bands import GPUS_LABELS, bands_json, gpus_class, row_bands, short_text
from ..estimate.gpu_hours import GpuHoursRow, gpu_hours_rows, is_finite
from ..estimate.measured import (
    MeasuredMemory,
    latency_of,
    measured_json,
    memory_of,
    speed_of,
    with_measured_speed,
)
from ..estimate.memory import Estimate
from ..estimate.replica import estimate, throughput
from ..estimate.throughput import Throughput
from ..horizon.runs import runs_of
from ..inputs.catalog import Catalog, GpuSku
from ..inputs.measurements import measurement_problems
from ..inputs.policy import Policy
from ..inputs.workload import Workload, WorkloadFile
from ..optimize.advice import checkpointing_gain, checkpointing_gains
from ..optimize.replicas import policy_degrees
from ..rules.cores import replica_cores
from .text import DEFAULT_WIDTH, Column, bullets, table, wrap
from .wording import money

ESTIMATE_DEGREES = (1, 2, 4, 8)
"""Parallel degrees the estimate command shows: 1, 2, 4 and 8 GPUs per replica."""
WASTE_FRACTION = 0.30
"""A job that fits but uses under 30% of the card leaves it mostly idle (R7/R18)."""


def degrees_for(gpu: GpuSku, policy: Policy) -> tuple[int, ...]:
    """Degrees shown for this GPU: the planner's own rule (candidates.policy_degrees)."""
    return policy_degrees(gpu, policy, ESTIMATE_DEGREES)


def _select_gpus(catalog: Catalog, gpu_skus: tuple[str, ...]) -> list[GpuSku]:
    """The catalog's GPUs, or only those named; InputError (exit 2) for an unknown SKU."""
    if not gpu_skus:
        return list(catalog.gpus)
    known = [g.sku for g in catalog.gpus]
    problems = []
    for sku in gpu_skus:
        if sku not in known:
            close = difflib.get_close_matches(sku, known, n=3, cutoff=0.5)
            hint = f" did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            problems.append(
                f"--gpu '{sku}' is not a GPU of the catalog.{hint} "
                f"To fix: use one of {', '.join(known)}."
            )
    if problems:
        raise InputError("unknown GPU SKU", problems)
    wanted = set(gpu_skus)
    return [g for g in catalog.gpus if g.sku in wanted]


@dataclass(frozen=True)
class EstimateRow(Estimate):
    """A memory estimate with the throughput of the same replica (None for preprocess), the
    CPU cores it needs (O3), the measurement behind its figures where the workload gives one
    (E2) and the error band of its regime (E3)."""

    speed: Throughput | None = None
    cpu_cores: int = 0
    """CPU cores one replica needs on its server (``rules.cores.replica_cores``)."""
    kind: str = ""
    """The workload's kind (which quantities carry an error band)."""
    measured: MeasuredMemory | None = None
    """E2: the measured peak that replaced the estimate's need, with the estimate beside it."""

    def to_json(self) -> dict:
        """The memory row, its CPU cores, the throughput keys (module docstring), then
        ``measured`` (only where measured) and ``band``."""
        row = super().to_json()
        row["cpu_cores"] = self.cpu_cores
        if self.speed is not None:
            if self.fits:
                row.update(self.speed.to_json())
            else:
                row.update({k: None for k in self.speed.to_json()})
        row.update(measured_json(self, self.speed))
        row.update(bands_json(self.kind, self.degree))
        return row


def estimate_row(w: Workload, gpu: GpuSku | None, degree: int, policy: Policy) -> EstimateRow:
    """Memory estimate and throughput of one replica of ``w`` on ``degree`` GPUs of
    ``gpu``, each the workload's measurement where it gives one for this cell (E2)."""
    e = estimate(w, gpu, degree, policy)
    speed = None if gpu is None else with_measured_speed(w, throughput(w, gpu, degree, policy, e))
    return EstimateRow(**{f.name: getattr(e, f.name) for f in fields(Estimate)}, speed=speed,
                       cpu_cores=replica_cores(w, degree), kind=w.kind, measured=memory_of(e))


def estimate_rows(wf: WorkloadFile, catalog: Catalog, gpu_skus: tuple[str, ...] = ()
                  ) -> list[EstimateRow]:
    """Every workload x GPU (all, or ``gpu_skus``) x allowed degree; one degree-0 row for
    each preprocess workload. Raises InputError for an unknown GPU SKU (``--gpu`` or a
    measurement's)."""
    gpus = _select_gpus(catalog, tuple(gpu_skus))
    problems = measurement_problems(wf.workloads, catalog)
    if problems:
        raise InputError("measurements name GPUs the catalog does not have", problems)
    rows: list[EstimateRow] = []
    for w in wf.workloads:
        if w.kind == "preprocess":
            rows.append(estimate_row(w, None, 0, wf.policy))
            continue
        for g in gpus:
            rows.extend(estimate_row(w, g, d, wf.policy) for d in degrees_for(g, wf.policy))
    return rows


def run_hours_rows(wf: WorkloadFile, catalog: Catalog, gpu_skus: tuple[str, ...] = ()
                   ) -> list[GpuHoursRow]:
    """GPU-hours of one run of each finite job on each GPU (all, or ``gpu_skus``) where it
    fits (``estimate.gpu_hours``). Raises InputError for an unknown GPU SKU."""
    return gpu_hours_rows(wf, catalog, _select_gpus(catalog, tuple(gpu_skus)))


def estimate_document(wf: WorkloadFile, catalog: Catalog, rows: Sequence[EstimateRow],
                      hours: Sequence[GpuHoursRow]) -> dict:
    """``estimate --json``'s document: ``rows``, ``checkpointing`` (only when a training job
    would fit on fewer GPUs with it) and ``gpu_hours`` (docs/json.md)."""
    doc: dict = {"rows": [r.to_json() for r in rows]}
    gains = checkpointing_gains(wf, catalog)
    if gains:
        doc["checkpointing"] = [gain.to_json() for gain in gains]
    doc["gpu_hours"] = [h.to_json() for h in hours]
    return doc


def is_waste(e: Estimate) -> bool:
    """R7: the job fits but uses under 30% of each card it occupies."""
    return e.gpu is not None and e.fits and e.vram_utilisation < WASTE_FRACTION


_COLUMNS = (
    # The column, then its cell. ``keep``: drop order on a narrow terminal (0: never; of
    # equal ``keep`` the rightmost first). What the command answers stays longest: whether
    # a replica fits, then how fast it runs (tokens/s, and for a service its latencies).
    (Column("GPU", justify="left"), lambda e: e.gpu or "(CPU only)"),
    (Column("GPUs per replica"), lambda e: str(e.degree)),
    (Column("fits"), lambda e: "yes" if e.fits else "NO"),
    (Column("allocated", keep=6), lambda e: f"{e.allocated_gb:.1f}"),
    (Column("needed"), lambda e: f"{e.vram_gb_per_gpu:.1f}" + _mark(memory_of(e))),
    (Column("usable"), lambda e: f"{e.usable_vram_gb:.1f}"),
    (Column("weights", keep=7), lambda e: f"{e.breakdown.weights_gb:.1f}"),
    (Column("grads + optimizer", keep=7), lambda e: f"{_grad_opt(e):.1f}"),
    (Column("activations", keep=7), lambda e: f"{e.breakdown.activations_gb:.1f}"),
    (Column("KV cache", keep=7), lambda e: f"{e.breakdown.kv_cache_gb:.1f}"),
    (Column("other", keep=7), lambda e: f"{e.breakdown.overhead_gb:.1f}"),
    (Column("micro-batch x steps", keep=5), lambda e: "-" if e.micro_batch is None
     else f"{e.micro_batch} x {e.grad_accum_steps}"),
    (Column("host RAM", keep=4), lambda e: f"{e.host_ram_gb:.1f}"),
    (Column("CPU cores", keep=4), lambda e: str(e.cpu_cores)),
    (Column("tokens/s", keep=1), lambda e: _speed(
        e, lambda t: _tokens(t.tokens_per_s) + _mark(speed_of(t)))),
    (Column("ms per output token", keep=1), lambda e: _speed(
        e, lambda t: "-" if t.tpot_ms is None else f"{t.tpot_ms:.1f}"
        + _mark(_measured_latency(t, "tpot_ms")))),
    (Column("ms to first token", keep=1), lambda e: _speed(
        e, lambda t: "-" if t.ttft_ms is None else (f"{t.ttft_ms:.0f}" if t.ttft_ms >= 10
        else f"{t.ttft_ms:.1f}") + _mark(_measured_latency(t, "ttft_ms")))),
    (Column("mostly idle", keep=0), lambda e: _flag(e)),
)


def _grad_opt(e: Estimate) -> float:
    """Training state past the weights: gradients + optimizer state + FP32 master copy, GB."""
    bd = e.breakdown
    return bd.gradients_gb + bd.optimizer_gb + bd.master_weights_gb


def _tokens(v: float) -> str:
    """Tokens/s in at most 8 characters: 1234.5, 12345, 1.23M."""
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def _speed(e, cell) -> str:
    """A throughput cell; '-' without a GPU or when the replica does not fit."""
    t = getattr(e, "speed", None)
    return cell(t) if t is not None and e.fits else "-"


def _measured_latency(t: Throughput, which: str) -> float | None:
    """The measured TPOT or TTFT (``which``) behind a throughput, None where estimated."""
    lat = latency_of(t)
    return getattr(lat, which) if lat is not None else None


def _mark(measured: object) -> str:
    """``*`` after a figure that is the workload's measurement (E2), else nothing."""
    return "*" if measured is not None else ""


def _flag(e: Estimate) -> str:
    """``18% used`` under the "mostly idle" header (R7); empty for a replica that is not."""
    if is_waste(e):
        return f"{e.vram_utilisation:.0%} used"
    return ""


def _title(w) -> str:
    if w.kind == "preprocess":
        return f"{w.name}  (preprocess, host RAM only)"
    arch = w.arch
    what = [w.kind, arch.name, w.precision]
    if w.kind == "inference":
        what.append(f"context {w.context} x batch {w.batch}")
    else:
        what.append(f"seq {w.seq_len}, global batch {w.global_batch}")
        if w.activation_checkpointing:
            what.append("checkpointing")
    return f"{w.name}  ({', '.join(what)})"


def render_estimate_table(wf: WorkloadFile, catalog: Catalog, rows: Sequence[EstimateRow],
                          width: int = DEFAULT_WIDTH,
                          hours: Sequence[GpuHoursRow] | None = None) -> str:
    """Per workload, a table of its rows in at most ``width`` characters; GB everywhere
    (10^9 bytes); then, given ``hours`` and a training job with tokens, the section
    "GPU-hours per run"."""
    by_workload: dict[str, list[Estimate]] = {}
    for r in rows:
        by_workload.setdefault(r.workload, []).append(r)
    legend = [
        "allocated: live tensors at peak, what torch.cuda.max_memory_allocated measures.",
        ("needed: what must fit and what the plan sizes for = allocated + allocator cache "
        "(reserved) + CUDA context + NCCL buffers (2 or more GPUs per replica)."),
        f"fits: needed <= usable = (1 - headroom {wf.policy.headroom:.0%}) x card VRAM.",
        ("weights, grads + optimizer (gradients, optimizer state, FP32 master copy), "
        "activations, KV cache: the model's tensors; other: the part of needed that is not "
        "a model tensor."),
        "micro-batch x steps: sequences per GPU per step x gradient-accumulation steps.",
        (f"mostly idle: the replica fits but uses under {WASTE_FRACTION:.0%} of each card "
         "it takes (the share it uses)."),
        ("tokens/s: one replica (training tokens, or output tokens for inference); "
        "see docs/throughput-model.md."),
        ("error band: how far the estimate of that kind of job fell from published "
         "measurements (docs/memory-model.md, docs/throughput-model.md)."),
    ]
    if any(memory_of(r) or speed_of(getattr(r, "speed", None))
           or latency_of(getattr(r, "speed", None)) for r in rows):
        legend.append("*: the workload's own measurement (measurements:) in place of the "
                      "estimate; the line under the table gives the estimate and its error.")
    parts = wrap(f"Memory estimate for {wf.name}, GB per GPU (GB = 10^9 bytes; see "
                 "docs/memory-model.md)", width)
    parts += bullets(legend, width, indent="")
    for w in wf.workloads:
        mine = by_workload.get(w.name)
        if not mine:
            continue
        parts += ["", *wrap(_title(w), width)]
        # A column empty for this workload (TPOT for training, KV cache for training,
        # everything but host RAM for preprocess) only costs width.
        cols = [(c, cell) for c, cell in _COLUMNS
                if c.header in ("GPU", "fits", "host RAM")
                or any(cell(e) not in ("", "-", "0", "0.0") for e in mine)]
        parts += table([c for c, _ in cols], [[cell(e) for _, cell in cols] for e in mine],
                       width)
        if not any(e.fits for e in mine):
            parts.append("  -> fits no GPU and degree shown here")
        parts += _measured_notes(mine, width) + _band_notes(w, mine, width)
        gain = checkpointing_gain(w, catalog, wf.policy)
        if gain is not None:
            parts += wrap(f"-> with activation_checkpointing: true a replica would fit "
                          f"{gain.text()} (each training step then takes longer)", width,
                          indent="  ", hang="     ")
    if hours is not None and any(is_finite(w) for w in wf.workloads):
        parts += ["", *_gpu_hours_section(wf, catalog, hours, width)]
    return "\n".join(parts)


def _measured_notes(rows: Sequence[Estimate], width: int) -> list[str]:
    """One line per row with a measured figure (``*``): the measurement, what it means for
    the fit, and the estimate beside it with its error (E2)."""
    out = []
    for e in rows:
        mem, speed = memory_of(e), speed_of(getattr(e, "speed", None))
        lat = latency_of(getattr(e, "speed", None))
        said = []
        if mem is not None:
            extra = ("" if mem.meter == "nvidia_smi" else
                     f" + {e.vram_gb_per_gpu - mem.peak_gb:.1f} GB it does not see")
            said.append(f"peak {mem.peak_gb:.1f} GB by {mem.meter}{extra} = needed "
                        f"{e.vram_gb_per_gpu:.1f} GB (the estimate: {mem.estimated_gb:.1f} GB, "
                        f"{mem.error:+.0%})")
        if speed is not None:
            said.append(f"{_tokens(speed.tokens_per_s)} tokens/s (the estimate: "
                        f"{_tokens(speed.estimated_tokens_per_s)}, {speed.error:+.0%})")
        for name, got, est in (() if lat is None else (
                ("TPOT", lat.tpot_ms, lat.estimated_tpot_ms),
                ("TTFT", lat.ttft_ms, lat.estimated_ttft_ms))):
            if got is not None:
                said.append(f"{name} {got:.1f} ms (the estimate: "
                            + ("-" if est is None else f"{est:.1f} ms, {(est - got) / got:+.0%}")
                            + ")")
        if said:
            out += wrap(f"* measured on {e.gpu} x {e.degree}: {'; '.join(said)}", width,
                        indent="  ", hang="    ")
    return out


def _band_notes(w: Workload, rows: Sequence[Estimate], width: int) -> list[str]:
    """The error band of each quantity shown, one line per GPUs class the rows are in (E3)."""
    lines: list[str] = []
    for cls, degree in (("one", 1), ("several", 2)):
        if not any(gpus_class(e.degree) == cls for e in rows if e.gpu is not None):
            continue
        said = [short_text(b, q) for q, b in row_bands(w.kind, degree).items()]
        if said:
            lines.append(f"{GPUS_LABELS[cls]}: {'; '.join(said)}")
    if not lines:
        return []
    return [*wrap("error band of these estimates on published measurements:", width,
                  indent="  "), *bullets(lines, width, indent="    ")]


_HOURS_COLUMNS = (
    Column("workload", justify="left", wrap=True, comfort=12),
    Column("GPU", justify="left"),
    Column("GPUs per replica"),
    Column("GPU-hours"),
    Column("rent"),
)


def _gpu_hours_section(wf: WorkloadFile, catalog: Catalog, hours: Sequence[GpuHoursRow],
                       width: int) -> list[str]:
    """"GPU-hours per run": one line per finite job x GPU, cheapest rent first; a line for
    each finite job that fits on none of them."""
    p = wf.policy
    legend = [
        ("GPU-hours: what one run of the job needs on that GPU type, however many replicas "
         f"run at once = GPUs per replica x tokens x growth {p.growth:g} / (one replica's "
         f"tokens/s x data-parallel efficiency {p.data_parallel_efficiency:.0%}) / 3600, at "
         "the GPUs per replica that need the fewest."),
        (f"rent: the catalog's cloud price per GPU-hour (prices as of {catalog.prices_as_of}) "
         "x GPU-hours; for each job the cheapest first."),
    ]
    cells = [[h.workload, h.gpu, str(h.degree), _hours(h.gpu_hours),
              "no cloud price" if h.rent_cost is None else _rent(h.rent_cost, h.currency)]
             for h in hours]
    out = ["GPU-hours per run (training jobs with tokens)", *bullets(legend, width, indent="")]
    if cells:
        out += table(_HOURS_COLUMNS, cells, width)
    listed = {h.workload for h in hours}
    for w in wf.workloads:
        if is_finite(w) and w.name not in listed:
            out += wrap(f"-> {w.name}: a replica fits on no GPU shown here and not in "
                        "policy.exclude, so it has no GPU-hours", width, indent="  ", hang="     ")
    return out + _horizon_totals(wf, hours, width)


def _horizon_totals(wf: WorkloadFile, hours: Sequence[GpuHoursRow], width: int) -> list[str]:
    """With a horizon, each finite job's runs in it and what renting them all costs at its
    cheapest GPU (what `plan` weighs against buying)."""
    runs = runs_of(wf)
    if runs is None:
        return []
    count: dict[str, int] = {}
    for r in runs.runs:
        count[r.workload] = count.get(r.workload, 0) + 1
    out = []
    for name, n in count.items():
        priced = [h for h in hours if h.workload == name and h.rent_cost is not None]
        if not priced:
            continue
        best = min(priced, key=lambda h: h.rent_cost or 0.0)
        out += wrap(f"{name}: {n} run{'s' if n != 1 else ''} in the horizon "
                    f"({runs.frame.months} months): {_hours(n * best.gpu_hours)} GPU-hours "
                    f"on {best.gpu}, {_rent(n * (best.rent_cost or 0.0), best.currency)} to "
                    "rent them all.", width)
    return out


def _hours(v: float) -> str:
    """GPU-hours: 9,227 from 100 up, else three significant digits (78.8, 0.512)."""
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def _rent(v: float, currency: str) -> str:
    """Whole units as every amount of plan-buy (USD 6,494); cents below 100 (USD 0.41)."""
    return money(v, currency) if v >= 100 else f"{currency} {v:.2f}"
