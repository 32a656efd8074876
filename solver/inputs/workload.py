"""The workload file: a named mix of jobs and the policy to plan them under.

Every field is documented under its declaration below and in ``docs/workloads.md``. Models
are strict (see ``base.py``: unknown fields, numbers written as strings and booleans as
counts are refused), frozen and reject NaN/infinity; defaults follow the sizing rules (R-ids
as in docs/memory-model.md and docs/solver.md).
Upper bounds on counts and sizes are there so that an absurd file fails at once with a clear
message instead of hanging the estimator or the solver.

A workload's ``model`` is validated by *shape* (``model.py``: a string is a preset name, a
mapping with ``config`` is a Hugging Face config reference, any other mapping is an inline
architecture), so an error names the one real problem instead of a union of three. After
validation it is always a resolved :class:`ModelArch` (``presets.resolve``; config paths
resolve against the ``base_dir`` given in the validation context, else the current
directory). Which fields each kind takes is ``kinds.py``'s; names are ``names.py``'s.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    Field,
    PositiveFloat,
    PositiveInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..uncertainty.spec import Uncertainty
from .base import Name, StrictModel, clip
from .catalog import IsoDate
from .data_spec import DataSpec
from .horizon import RepeatSpec, time_problems
from .kinds import (
    DEFAULT_LORA_TARGETS,
    LORA_MODULES,
    TRAINING_KINDS,
    kind_problems,
    lora_targets_value,
)
from .measurements import Measurements
from .model import ModelArch, ModelSpec
from .modes import MemoryModes
from .names import WorkloadName, duplicate_name_problems
from .ownership import OwnedServer, Site
from .policy import NetworkPolicy, Policy
from .presets import resolve

# Hard caps that make an absurd file fail fast instead of hanging the solver.
MAX_WORKLOADS = 5000
MAX_REPLICAS = 10_000
MAX_PLANNED_REPLICAS = 100_000
"""Sum over the mix of ceil(replicas x growth): a pool beyond this is not a purchase plan."""

Kind = Literal["train", "lora", "qlora", "inference", "preprocess"]
Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4"]
Optimizer = Literal["adamw", "adam", "sgd", "adamw8bit"]



class Workload(MemoryModes):  # E1 memory-mode fields: modes.py
    """One job of the mix; ``replicas`` copies run at once."""

    name: WorkloadName
    """Unique name of the job in this file (unique also ignoring case, surrounding spaces
    and Unicode forms: workbook sheets and CSV rows are told apart by it)."""
    team: Name = "unassigned"
    """Who owns it (reports group by team)."""
    kind: Kind
    """train, lora, qlora, inference or preprocess."""
    model: ModelSpec | None = None
    """Preset name, inline architecture, or {config: path}; resolved to ModelArch on load."""
    precision: Precision = "bf16"
    """Weights/compute dtype; training fp16/bf16 means mixed precision."""
    optimizer: Optimizer = "adamw"
    """adamw, adam, sgd (momentum) or adamw8bit (R3)."""
    seq_len: PositiveInt | None = Field(default=None, le=10_000_000)
    """Training: tokens per sequence."""
    global_batch: PositiveInt | None = Field(default=None, le=1_000_000)
    """Sequences per optimizer step, summed over data-parallel copies (R9)."""
    micro_batch: Literal["auto"] | PositiveInt = "auto"
    """Sequences per GPU per forward pass: 'auto' (largest that fits) or a number (R9)."""
    activation_checkpointing: bool = False
    """Recompute activations in the backward pass (keeps only layer inputs)."""
    master_weights: bool | None = None
    """Keep an FP32 master copy; default true for mixed precision (R4)."""
    lora_rank: PositiveInt | None = Field(default=None, le=65_536)
    """LoRA/QLoRA adapter rank."""
    lora_targets: tuple[str, ...] | None = None
    """LoRA/QLoRA: modules that carry adapters, a list of LORA_MODULES names or 'all-linear';
    default q, v for lora and every linear layer for qlora (DEFAULT_LORA_TARGETS)."""
    context: PositiveInt | None = Field(default=None, le=10_000_000)
    """Inference: tokens per sequence kept in the KV cache."""
    batch: Literal["auto"] | PositiveInt | None = None
    """Inference: concurrent sequences, or 'auto': on each GPU and degree the largest batch
    (up to 256) that fits the usable VRAM and meets ``max_tpot_ms``."""
    shareable: bool = False
    """May share a GPU with other shareable jobs (R17)."""
    replicas: int = Field(default=1, ge=1, le=MAX_REPLICAS)
    """Copies that run at once."""
    priority: float = Field(default=1.0, gt=0, le=1_000_000)
    """Weight of serving this job when a budget cannot serve all."""
    data: DataSpec = Field(default_factory=DataSpec)
    """Host-RAM and disk needs (R11)."""
    # --- Time targets (all optional; a workload without them plans as before) ---------------
    tokens: PositiveFloat | None = Field(default=None, le=1e16)
    """Training kinds: total tokens to train on (with ``deadline_days``)."""
    deadline_days: PositiveFloat | None = Field(default=None, le=3650)
    """Training kinds: days the run may take; needs tokens / (days x 86,400) tokens/s."""
    start: IsoDate | None = None
    """H2 (needs policy.horizon): day the first run may begin; default the horizon's start."""
    deadline: IsoDate | None = None
    """H2 (needs policy.horizon): day the first run must be done by (instead of
    deadline_days; a repeated run keeps the same span from its own start)."""
    repeat: RepeatSpec | None = None
    """H2 (needs policy.horizon): weekly, monthly, or {every_days: N, until: date}; each
    repetition is a run needing ``tokens`` by its own deadline."""
    network: NetworkPolicy | None = None
    """N2, N3 (runs): the network this workload's runs may use, in place of
    policy.network."""
    tokens_per_s: PositiveFloat | None = Field(default=None, le=1e12)
    """Inference: output tokens per second the service must sustain at peak."""
    requests_per_s: PositiveFloat | None = Field(default=None, le=1e9)
    """Inference: requests per second the service must sustain at peak, each of
    prompt_tokens in and output_tokens out (both needed); the same target as
    tokens_per_s = requests_per_s x output_tokens (each request's prefill is counted in
    what a replica delivers). Give this or tokens_per_s, not both."""
    prompt_tokens: PositiveInt | None = Field(default=None, le=10_000_000)
    """Inference: mean prompt (input) tokens per request."""
    output_tokens: PositiveInt | None = Field(default=None, le=10_000_000)
    """Inference: mean output tokens per request. With prompt_tokens and no ``context``, the
    KV cache is sized for prompt_tokens + output_tokens per sequence."""
    max_tpot_ms: PositiveFloat | None = Field(default=None, le=1e6)
    """Inference: most milliseconds per output token (decode step) a request may see."""
    max_ttft_ms: PositiveFloat | None = Field(default=None, le=1e7)
    """Inference: most milliseconds to the first token (prefill of one prompt)."""
    efficiency: float | None = Field(default=None, gt=0, le=1)
    """Fraction of the GPU's datasheet rates this job's software stack reaches, in (0, 1]:
    replaces the MFU (training, prefill) and MBU (decode) defaults for this workload."""
    # --- Serving framework (N4) ----------------------------------------------------------------
    step_overhead_ms: float | None = Field(default=None, ge=0, le=1000)
    """Inference: ms the serving framework adds to every step (decode step or prefill) beyond
    its kernels, in [0, 1000]; default 0.5 (vLLM with multi-step scheduling)."""
    measurements: Measurements | None = None
    """E2: measured peak_gb / tokens_per_s per GPU SKU and degree; they replace the estimate."""

    @model_validator(mode="before")
    @classmethod
    def _context_from_lengths(cls, data: Any) -> Any:
        # T3: an inference workload without ``context`` sizes its KV cache for
        # prompt_tokens + output_tokens per sequence. Bad values are left for the field checks.
        if (isinstance(data, dict) and data.get("kind") == "inference"
                and data.get("context") is None):
            p, o = data.get("prompt_tokens"), data.get("output_tokens")
            if (isinstance(p, int) and isinstance(o, int) and not isinstance(p, bool)
                    and not isinstance(o, bool) and p > 0 and o > 0):
                return {**data, "context": p + o}
        return data

    @field_validator("micro_batch", mode="before")
    @classmethod
    def _micro_batch(cls, v: Any) -> Any:
        # Checked here so a bad value gives one message, not one per union member.
        if v == "auto" or (isinstance(v, int) and not isinstance(v, bool) and v >= 1):
            return v
        raise ValueError(f"micro_batch must be 'auto' or a whole number >= 1, got {clip(repr(v))}. "
                         "To fix: write micro_batch: auto (the largest that fits), or e.g. 4")

    @field_validator("batch", mode="before")
    @classmethod
    def _batch(cls, v: Any) -> Any:
        if v is None or v == "auto" or (isinstance(v, int) and not isinstance(v, bool)
                                        and 1 <= v <= 1_000_000):
            return v
        raise ValueError(f"batch must be 'auto' or a whole number from 1 to 1,000,000, got "
                         f"{clip(repr(v))}. To fix: write batch: auto (the largest that fits "
                         "and meets max_tpot_ms), or e.g. batch: 8")

    @field_validator("lora_targets", mode="before")
    @classmethod
    def _lora_targets(cls, v: Any) -> Any:
        return lora_targets_value(v)

    @field_validator("model", mode="after")
    @classmethod
    def _resolve_model(cls, v: Any, info: ValidationInfo) -> ModelArch | None:
        # Resolve presets and config files here so their problems are reported with the others.
        base = (info.context or {}).get("base_dir") or Path.cwd()
        return resolve(v, Path(base))

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Workload:
        # Every problem at once, one per line (the loader prints each on its own).
        given = {f: v for f in type(self).model_fields if (v := getattr(self, f)) is not None}
        problems = kind_problems(self.kind, given) + self._value_problems()
        if problems:
            raise ValueError("\n".join(problems))
        return self

    @property
    def output_tokens_per_s(self) -> float | None:
        """Inference: output tokens/s the service must sustain: ``tokens_per_s``, or
        ``requests_per_s`` x ``output_tokens``; None without a rate target."""
        if self.requests_per_s is not None and self.output_tokens is not None:
            return self.requests_per_s * self.output_tokens
        return self.tokens_per_s

    def _value_problems(self) -> list[str]:
        """Problems of the values together (kind_problems checks which fields are given)."""
        out = []
        if (self.lora_targets is not None and "gate" in self.lora_targets
                and isinstance(self.model, ModelArch) and self.model.mlp_kind != "swiglu"
                and self.lora_targets != LORA_MODULES):
            out.append(
                f"lora_targets names 'gate', but {self.model.name} has a GELU MLP without a "
                "gate projection. To fix: remove 'gate' (or use 'all-linear', which adapts "
                "the linear layers the model has)")
        if (self.kind in TRAINING_KINDS and self.micro_batch != "auto"
                and self.global_batch is not None and self.micro_batch > self.global_batch):
            out.append(
                f"micro_batch ({self.micro_batch}) is larger than global_batch "
                f"({self.global_batch}). To fix: write micro_batch: auto, or a number up to "
                f"{self.global_batch}")
        lengths = self.prompt_tokens is not None and self.output_tokens is not None
        if self.kind == "inference" and self.context is not None and lengths:
            need = (self.prompt_tokens or 0) + (self.output_tokens or 0)
            if need > self.context:
                out.append(
                    f"prompt_tokens + output_tokens ({need}) exceed context ({self.context}): "
                    f"the KV cache could not hold one request. To fix: write context: {need} "
                    "or more, or remove it (it then defaults to prompt_tokens + output_tokens)")
        rate = self.output_tokens_per_s or 0.0
        if self.requests_per_s is not None and rate > MAX_OUTPUT_TOKENS_PER_S:
            out.append(
                f"requests_per_s x output_tokens is {rate:,.0f} output tokens/s, more than the "
                f"{MAX_OUTPUT_TOKENS_PER_S:,.0f} plan-buy plans for. To fix: check both figures")
        return out

    @property
    def arch(self) -> ModelArch:
        """The resolved architecture (after validation, ``model`` is always a ModelArch)."""
        if not isinstance(self.model, ModelArch):
            raise TypeError(f"workload {self.name!r} has no model (kind {self.kind!r})")
        return self.model

    @property
    def adapter_targets(self) -> tuple[str, ...]:
        """Modules with LoRA adapters: ``lora_targets``, else the kind's default (lora q, v;
        qlora every linear layer); empty for kinds without adapters."""
        if self.lora_targets is not None:
            return self.lora_targets
        return DEFAULT_LORA_TARGETS.get(self.kind, ())

    @property
    def uses_master_weights(self) -> bool:
        """R4: mixed precision keeps an FP32 master copy unless told not to."""
        if self.master_weights is not None:
            return self.master_weights
        return self.precision in ("fp16", "bf16")

    @property
    def storage_tb(self) -> float:
        """Dataset + checkpoints, TB (what the pool holds once per workload at the least)."""
        return self.data.dataset_tb + self.data.checkpoints_tb

    @property
    def local_tb(self) -> float:
        """TB every server running a replica holds (O4): the dataset when it is read
        locally (``data.storage: local``), else 0."""
        return self.data.dataset_tb if self.data.storage == "local" else 0.0

    @property
    def pool_tb(self) -> float:
        """TB counted once in the pool, on any server (O4): the checkpoints, and the
        dataset when it is shared (``data.storage: shared``)."""
        return self.data.checkpoints_tb + (self.data.dataset_tb
                                           if self.data.storage == "shared" else 0.0)


MAX_OUTPUT_TOKENS_PER_S = 1e12
"""Largest serving target, tokens_per_s or requests_per_s x output_tokens."""


class WorkloadFile(StrictModel):
    """A whole workload file."""

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    """Used for report file names (out/<name>.xlsx): letters, digits, '.', '_', '-'."""
    policy: Policy = Field(default_factory=Policy)
    """How to plan the mix."""
    workloads: list[Workload] = Field(min_length=1, max_length=MAX_WORKLOADS)
    """The jobs, at least one."""
    site: Site | None = None
    """P3: racks available and what each holds; default none (no limit)."""
    inventory: list[OwnedServer] = Field(default_factory=list, max_length=1000)
    """P4: servers already owned, usable at no capital cost; default none."""
    uncertainty: Uncertainty | None = None
    """What ``sweep --samples`` draws its scenarios from; default the documented defaults."""

    @model_validator(mode="after")
    def _rack_cost_needs_site(self) -> WorkloadFile:
        tco = self.policy.tco
        if tco is not None and tco.rack_cost_per_year and self.site is None:
            raise ValueError(
                "policy.tco.rack_cost_per_year needs a site to count racks. To fix: add "
                "site: {racks: ..., rack_kw: ..., rack_units: ...}, or remove "
                "rack_cost_per_year")
        return self

    @model_validator(mode="after")
    def _runs_fit_horizon(self) -> WorkloadFile:
        problems = time_problems(self.policy, self.workloads)
        if problems:
            raise ValueError("\n".join(problems))
        return self

    @model_validator(mode="after")
    def _unique_names(self, info: ValidationInfo) -> WorkloadFile:
        # The loader checks names on the raw data (so they are reported with other problems).
        checked = (info.context or {}).get("names_checked")
        problems = [] if checked else duplicate_name_problems([w.name for w in self.workloads])
        if problems:
            raise ValueError("; ".join(problems))
        total = sum(self.planned_replicas(w) for w in self.workloads)
        if total > MAX_PLANNED_REPLICAS:
            raise ValueError(
                f"the mix plans {total:,} replicas in all (replicas x growth); plan-buy plans "
                f"at most {MAX_PLANNED_REPLICAS:,}. To fix: lower replicas or policy.growth"
            )
        return self

    def planned_replicas(self, w: Workload) -> int:
        """R19: replicas to plan for = ceil(replicas x growth)."""
        return max(1, math.ceil(w.replicas * self.policy.growth - 1e-9))
