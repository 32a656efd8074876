"""``measurements``: what a team measured for one workload on one GPU SKU and degree (E2).

A workload may list its own measurements: per GPU SKU and parallel degree, the peak memory
of one GPU (``peak_gb``, with the ``meter`` that read it), the tokens/s one replica
delivered, and for inference its time per output token and to first token (``tpot_ms``,
``ttft_ms``). For that cell they replace the estimate everywhere (``estimate/measured.py``).
The shape is checked here; that each GPU is a SKU of the catalog is checked once both
files are loaded (:func:`measurement_problems`), like ``policy.exclude``.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    PositiveFloat,
    field_validator,
    model_validator,
)

from .base import Name, StrictModel, clip
from .catalog import Catalog

Meter = Literal["torch_max_allocated", "nvidia_smi"]
METER_DOC = {
    "torch_max_allocated": "torch.cuda.max_memory_allocated: the model's tensors only",
    "nvidia_smi": "nvidia-smi 'used' (NVML): everything the process holds on the GPU",
}
"""What each meter reads; the comparison with usable VRAM follows from it."""
DEGREES = (1, 2, 4, 8, 16, 32, 64)
"""Parallel degrees a measurement may name: the planner's (powers of two)."""
MAX_MEASUREMENTS = 200
"""Most measurements per workload."""


class Measurement(StrictModel):
    """One measured cell: a workload on ``degree`` GPUs of SKU ``gpu``."""

    gpu: Name
    """GPU SKU it ran on; must be a GPU of the catalog."""
    degree: int = 1
    """GPUs one replica spans (a power of two, as the planner's degrees)."""
    peak_gb: PositiveFloat | None = Field(default=None, le=100_000)
    """Peak memory of one GPU of the replica, GB (10^9 bytes), as ``meter`` read it."""
    meter: Meter | None = None
    """What read ``peak_gb``: torch_max_allocated (tensors only: the estimate's overhead is
    added to compare with usable VRAM) or nvidia_smi (the whole process: compared as is)."""
    tokens_per_s: PositiveFloat | None = Field(default=None, le=1e12)
    """Tokens/s one replica delivered (training tokens, or output tokens for inference)."""
    tpot_ms: PositiveFloat | None = Field(default=None, le=1e7)
    """Inference: time per output token one replica showed, ms (at the batch it serves)."""
    ttft_ms: PositiveFloat | None = Field(default=None, le=1e8)
    """Inference: time to first token one replica showed, ms."""

    @field_validator("meter", mode="before")
    @classmethod
    def _meter(cls, v: Any) -> Any:
        # Checked here so a typo gets the two names and what each reads, not a bare enum.
        if v is None or v in METER_DOC:
            return v
        raise ValueError(f"meter must be torch_max_allocated or nvidia_smi, got {clip(repr(v))}. "
                         "To fix: write meter: torch_max_allocated (the peak PyTorch reports) "
                         "or meter: nvidia_smi (the process's whole use)")

    @field_validator("degree")
    @classmethod
    def _power_of_two(cls, v: int) -> int:
        if v not in DEGREES:
            raise ValueError(f"degree must be a power of two, got {v}. To fix: use one of "
                             f"{', '.join(map(str, DEGREES))} (GPUs of one replica)")
        return v

    @model_validator(mode="after")
    def _what_was_measured(self) -> Measurement:
        if (self.peak_gb, self.tokens_per_s, self.tpot_ms, self.ttft_ms) == (None,) * 4:
            raise ValueError("a measurement needs peak_gb (with its meter), tokens_per_s, "
                             "tpot_ms or ttft_ms. To fix: add peak_gb: 61.5 and meter: "
                             "nvidia_smi, or tokens_per_s: 3000, as measured")
        if self.peak_gb is not None and self.meter is None:
            raise ValueError("peak_gb needs the meter that read it (the two meters differ by "
                             "the CUDA context and the allocator's cache, a GB or more). To "
                             "fix: add meter: torch_max_allocated or meter: nvidia_smi")
        if self.peak_gb is None and self.meter is not None:
            raise ValueError("meter names what read peak_gb, and there is no peak_gb. "
                             "To fix: add peak_gb, or remove meter")
        return self


def _as_tuple(value: Any) -> Any:
    """A YAML list of measurements kept as a tuple (workloads are frozen and hashable)."""
    if isinstance(value, dict):  # pydantic reports a ValueError, not a TypeError, as input
        raise ValueError("measurements is a list, one entry per GPU and degree. To fix: "  # noqa: TRY004
                         f"write it as a list: [{clip(value)}]")
    return tuple(value) if isinstance(value, list) else value


def _one_per_cell(value: tuple[Measurement, ...]) -> tuple[Measurement, ...]:
    cells = [(m.gpu, m.degree) for m in value]
    twice = sorted({c for c in cells if cells.count(c) > 1})
    if twice:
        where = ", ".join(f"{g} x {d}" for g, d in twice)
        raise ValueError(f"measurements lists {where} more than once. To fix: keep one "
                         "entry per GPU and degree (give peak_gb and tokens_per_s together)")
    return value


Measurements = Annotated[
    tuple[Measurement, ...],
    BeforeValidator(_as_tuple),
    Field(max_length=MAX_MEASUREMENTS),
    AfterValidator(_one_per_cell),
]
"""A workload's measurements, at most one per (GPU SKU, degree)."""


def find(measurements: tuple[Measurement, ...] | None, gpu: str | None,
         degree: int) -> Measurement | None:
    """The measurement of the cell (``gpu``, ``degree``), None when there is none."""
    if gpu is None:
        return None
    return next((m for m in measurements or () if m.gpu == gpu and m.degree == degree), None)


def measurement_problems(workloads: list[Any], catalog: Catalog) -> list[str]:
    """One line per measurement the catalog cannot place: a GPU that is not a GPU SKU of
    the catalog (with the closest SKUs), or a workload with no GPU (preprocess)."""
    known = [g.sku for g in catalog.gpus]
    out = []
    for i, w in enumerate(workloads):
        given = getattr(w, "measurements", None) or ()
        if given and w.kind == "preprocess":
            out.append(f"workloads[{i}].measurements: '{w.name}' is a preprocess workload, "
                       "which runs on no GPU. To fix: remove measurements, or change kind")
            continue
        for j, m in enumerate(given):
            if m.gpu in known:
                continue
            close = difflib.get_close_matches(m.gpu, known, n=3, cutoff=0.5)
            hint = (f"did you mean {', '.join(close)}? " if close
                    else f"the catalog's GPUs are {', '.join(known)}. ")
            out.append(f"workloads[{i}].measurements[{j}].gpu: '{clip(m.gpu)}' is not a GPU "
                       f"of the catalog; {hint}To fix: spell it as the catalog does")
    return out
