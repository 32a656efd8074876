"""``plan-buy estimate``: estimator rows for every workload x GPU x degree, and their table.

Two pure steps, so the JSON and the table cannot disagree: ``estimate_rows`` decides what to show, as EstimateRow
objects (the memory Estimate plus one replica's throughput; ``to_json`` is the row of the
JSON contract); ``render_estimate_table`` turns them into text.

Throughput keys of a JSON row: training kinds add ``tokens_per_s`` and ``mfu``; inference adds
``tokens_per_s``, ``mbu`` (or ``mfu`` when the decode step is compute-bound), ``tpot_ms`` and
``ttft_ms``; they are null when the replica does not fit. Preprocess rows carry none of them.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, fields

from ..errors import InputError
from ..estimate.memory import Estimate, estimate
from ..estimate.throughput import Throughput, throughput
from ..inputs.catalog import Catalog, GpuSku
from ..inputs.workload import Policy, WorkloadFile
from ..optimize.candidates import policy_degrees

ESTIMATE_DEGREES = (1, 2, 4, 8)
"""Parallel degrees the estimate command shows: 1, 2, 4 and 8 GPUs per replica."""
WASTE_FRACTION = 0.30
"""R7/R18: a job that fits but uses under 30% of the card leaves it mostly idle."""


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
    """A memory estimate with the throughput of the same replica (None for preprocess)."""

    speed: Throughput | None = None

    def to_json(self) -> dict:
        """The memory row plus the throughput keys (module docstring)."""
        row = super().to_json()
        if self.speed is None:
            return row
        if self.fits:
            row.update(self.speed.to_json())
        else:
            row.update({k: None for k in self.speed.to_json()})
        return row


def estimate_row(w, gpu: GpuSku | None, degree: int, policy: Policy) -> EstimateRow:
    """Memory estimate and throughput of one replica of ``w`` on ``degree`` GPUs of ``gpu``."""
    e = estimate(w, gpu, degree, policy)
    speed = None if gpu is None else throughput(w, gpu, degree, policy, e)
    return EstimateRow(**{f.name: getattr(e, f.name) for f in fields(e)}, speed=speed)


def estimate_rows(wf: WorkloadFile, catalog: Catalog, gpu_skus: tuple[str, ...] = ()
                  ) -> list[EstimateRow]:
    """Every workload x GPU (all, or ``gpu_skus``) x allowed degree; one degree-0 row for
    each preprocess workload. Raises InputError for an unknown GPU SKU."""
    gpus = _select_gpus(catalog, tuple(gpu_skus))
    rows: list[EstimateRow] = []
    for w in wf.workloads:
        if w.kind == "preprocess":
            rows.append(estimate_row(w, None, 0, wf.policy))
            continue
        for g in gpus:
            rows.extend(estimate_row(w, g, d, wf.policy) for d in degrees_for(g, wf.policy))
    return rows


def is_waste(e: Estimate) -> bool:
    """R7: the job fits but uses under 30% of each card it occupies."""
    return e.gpu is not None and e.fits and e.vram_utilisation < WASTE_FRACTION


_COLUMNS = (
    # header, width, cell
    ("GPU", 14, lambda e: e.gpu or "(CPU only)"),
    ("d", 2, lambda e: str(e.degree)),
    ("fits", 4, lambda e: "yes" if e.fits else "NO"),
    ("alloc", 6, lambda e: f"{e.allocated_gb:.1f}"),
    ("need", 6, lambda e: f"{e.vram_gb_per_gpu:.1f}"),
    ("usable", 6, lambda e: f"{e.usable_vram_gb:.1f}"),
    ("weights", 7, lambda e: f"{e.breakdown.weights_gb:.1f}"),
    ("grad+opt", 8, lambda e: f"{_grad_opt(e):.1f}"),
    ("activ", 6, lambda e: f"{e.breakdown.activations_gb:.1f}"),
    ("kv", 6, lambda e: f"{e.breakdown.kv_cache_gb:.1f}"),
    ("ovhd", 5, lambda e: f"{e.breakdown.overhead_gb:.1f}"),
    ("mb x acc", 9, lambda e: "-" if e.micro_batch is None
     else f"{e.micro_batch} x {e.grad_accum_steps}"),
    ("host RAM", 8, lambda e: f"{e.host_ram_gb:.1f}"),
    ("tok/s", 8, lambda e: _speed(e, lambda t: _tokens(t.tokens_per_s))),
    ("TPOT ms", 7, lambda e: _speed(e, lambda t: "-" if t.tpot_ms is None
                                    else f"{t.tpot_ms:.1f}")),
    ("TTFT ms", 7, lambda e: _speed(e, lambda t: "-" if t.ttft_ms is None
                                    else f"{t.ttft_ms:.0f}" if t.ttft_ms >= 10
                                    else f"{t.ttft_ms:.1f}")),
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


def _line(cells: list[str]) -> str:
    out = []
    for (_, width, _), cell in zip(_COLUMNS, cells, strict=True):
        out.append(cell.ljust(width) if width == 14 else cell.rjust(width))
    return "  ".join(out)


def _flag(e: Estimate) -> str:
    if is_waste(e):
        return f"R7 waste: uses {e.vram_utilisation:.0%} of the card"
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


def render_estimate_table(wf: WorkloadFile, catalog: Catalog, rows: Sequence[Estimate]) -> str:
    """Per workload, a fixed-width table of its rows; GB everywhere (10^9 bytes)."""
    by_workload: dict[str, list[Estimate]] = {}
    for r in rows:
        by_workload.setdefault(r.workload, []).append(r)
    header = _line([h for h, _, _ in _COLUMNS]) + "  flag"
    parts = [
        (f"Memory estimate for {wf.name}, per GPU (GB = 10^9 bytes; see docs/memory-model.md)"),
        ("alloc: live tensors at peak, what torch.cuda.max_memory_allocated measures; need: "
         "what must fit and what the plan sizes for = alloc + allocator cache (reserved) + "
         "CUDA context + NCCL buffers (d >= 2)"),
        (f"fits: need <= usable = (1 - headroom {wf.policy.headroom:.0%}) x card VRAM; "
         "grad+opt: gradients + optimizer state + FP32 master copy; ovhd: the part of need "
         "that is not a model tensor"),
        ("tok/s: one replica (training tokens, or output tokens for inference); TPOT/TTFT: "
         "time per output token / to first token (see docs/throughput-model.md)"),
    ]
    for w in wf.workloads:
        mine = by_workload.get(w.name)
        if not mine:
            continue
        parts += ["", _title(w), header, "-" * len(header)]
        for e in mine:
            line = _line([cell(e) for _, _, cell in _COLUMNS])
            flag = _flag(e)
            parts.append(f"{line}  {flag}".rstrip())
        if not any(e.fits for e in mine):
            parts.append("  -> fits no GPU and degree shown here")
    return "\n".join(parts)
