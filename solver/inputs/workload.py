"""The workload file: a named mix of jobs and the policy to plan them under.

Every field is documented under its declaration below and in ``docs/workloads.md``. Models
are strict (see ``base.py``: unknown fields, numbers written as strings and booleans as
counts are refused), frozen and reject NaN/infinity; defaults follow the sizing rules (R-ids
as in docs/memory-model.md and docs/solver.md).
Upper bounds on counts and sizes are there so that an absurd file fails at once with a clear
message instead of hanging the estimator or the solver.

A workload's ``model`` is validated by *shape* (a string is a preset name, a mapping with
``config`` is a Hugging Face config reference, any other mapping is an inline architecture),
so an error names the one real problem instead of a union of three. After validation it is
always a resolved :class:`ModelArch` (config paths resolve against the ``base_dir`` given in
the validation context, else the current directory).
"""

from __future__ import annotations

import difflib
import math
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Discriminator,
    Field,
    PositiveFloat,
    PositiveInt,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .base import Label, Name, PathText, StrictModel, Text, clip
from .examples import FIELD_EXAMPLES, yaml_value
from .money import Money
from .ownership import OwnedServer, Site, TcoPolicy

# Hard caps that make an absurd file fail fast instead of hanging the solver.
MAX_WORKLOADS = 5000
MAX_REPLICAS = 10_000
MAX_PLANNED_REPLICAS = 100_000
"""Sum over the mix of ceil(replicas x growth): a pool beyond this is not a purchase plan."""
PARALLEL_DEGREES = (1, 2, 4, 8, 16, 32, 64)

Kind = Literal["train", "lora", "qlora", "inference", "preprocess"]
Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4"]
Optimizer = Literal["adamw", "adam", "sgd", "adamw8bit"]
Storage = Literal["local", "shared"]
"""Where a workload's dataset lives (O4): a copy on every server that runs a replica
(``local``), or once anywhere in the pool (``shared``)."""
TRAINING_KINDS = ("train", "lora", "qlora")
TRAINING_TARGETS = ("tokens", "deadline_days")
"""Time-target fields of training kinds (T1)."""
LORA_MODULES = ("q", "k", "v", "o", "gate", "up", "down")
"""Linear layers of a transformer block that can carry a LoRA adapter (``lora_targets``):
query, key, value and output projections, MLP gate (SwiGLU only), up and down projections."""
ALL_LINEAR = "all-linear"
"""``lora_targets: all-linear``: every module of ``LORA_MODULES`` (PEFT's spelling)."""
DEFAULT_LORA_TARGETS = {"lora": ("q", "v"), "qlora": LORA_MODULES}
"""Adapted modules when ``lora_targets`` is not given: q and v for lora (LoRA paper, PEFT's
LLaMA default), every linear layer for qlora (QLoRA paper, Sec. 4)."""
INFERENCE_TARGETS = ("tokens_per_s", "requests_per_s", "prompt_tokens", "output_tokens",
                     "max_tpot_ms", "max_ttft_ms")
"""Time-target and request-shape fields of inference (T1)."""


def _list_as_tuple(value: Any) -> Any:
    """A YAML or JSON list of SKUs is kept as a tuple (the policy is frozen and hashable)."""
    if isinstance(value, str):  # pydantic reports a ValueError, not a TypeError, as input
        raise ValueError(f"'{clip(value)}' is one SKU, not a list. To fix: write a list, "  # noqa: TRY004
                         f"e.g. [{clip(value)}]")
    return tuple(value) if isinstance(value, list) else value


SkuList = Annotated[tuple[Name, ...], BeforeValidator(_list_as_tuple)]
"""SKUs written as a list (``[rtx-4090, ddr4-3200-32g]``), kept as a tuple."""

# Tags of the model field's shapes; they appear in pydantic locations and the loader hides them.
MODEL_TAGS = ("ModelArch", "ModelConfigRef", "PresetName")


class ModelArch(StrictModel):
    """A transformer's architecture figures (a preset, an inline mapping or a config.json)."""

    name: Label = "custom"
    """A label for reports."""
    params_b: PositiveFloat = Field(le=100_000)
    """Total parameters, billions (all experts of a mixture-of-experts model)."""
    hidden: PositiveInt = Field(le=1_000_000)
    """Hidden size (d_model)."""
    layers: PositiveInt = Field(le=10_000)
    """Transformer layers (blocks)."""
    heads: PositiveInt = Field(le=10_000)
    """Attention (query) heads."""
    kv_heads: PositiveInt | None = Field(default=None, le=10_000)
    """Key/value heads (grouped-query attention); default = heads."""
    vocab: PositiveInt = Field(le=10_000_000)
    """Vocabulary size (tokens)."""
    intermediate: PositiveInt | None = Field(default=None, le=10_000_000)
    """MLP inner size; default 4 x hidden (GPT-style)."""
    experts: PositiveInt = Field(default=1, le=1024)
    """Mixture-of-experts: experts per MoE layer; 1 = dense."""
    active_experts: PositiveInt | None = Field(default=None, le=1024)
    """Experts each token is routed to; default = experts (dense) or 2 when experts > 1."""
    head_dim: PositiveInt | None = Field(default=None, le=100_000)
    """Per-head size; default hidden / heads."""
    mlp: Literal["gelu", "swiglu"] | None = None
    """MLP kind; default swiglu when intermediate is set and not 4 x hidden, else gelu."""
    tied_embeddings: bool = False
    """Input and output embeddings share one matrix."""
    source: Text = ""
    """Where the figures come from (preset citation or config path)."""

    @model_validator(mode="after")
    def _consistent(self) -> ModelArch:
        kv = self.kv_heads or self.heads
        if kv > self.heads or self.heads % kv:
            raise ValueError(
                f"kv_heads ({kv}) must divide heads ({self.heads}) (grouped-query attention). "
                "To fix: copy num_key_value_heads from the model's config.json"
            )
        if self.head_dim is None and self.hidden % self.heads:
            raise ValueError(
                f"hidden ({self.hidden}) is not a multiple of heads ({self.heads}). "
                "To fix: check both figures, or give head_dim explicitly"
            )
        if self.active_experts is not None and self.active_experts > self.experts:
            raise ValueError(
                f"active_experts ({self.active_experts}) cannot exceed experts ({self.experts})"
            )
        embeddings = self.vocab * self.hidden
        if self.params_b * 1e9 < embeddings:
            from .presets import count_params  # presets builds ModelArch: imported on use

            counted = count_params(self.hidden, self.layers, self.heads, self.n_kv_heads,
                                   self.d_ff, self.vocab, self.experts,
                                   self.mlp_kind == "swiglu", self.tied_embeddings,
                                   self.head_dim) / 1e9
            raise ValueError(
                f"params_b ({self.params_b:g}) is less than the embeddings alone hold (vocab "
                f"{self.vocab:,} x hidden {self.hidden:,} = {embeddings / 1e9:.3g} billion). "
                f"To fix: write params_b: {counted:.3g} (counted from these figures), or "
                "check hidden and vocab"
            )
        return self

    @property
    def n_kv_heads(self) -> int:
        return self.kv_heads or self.heads

    @property
    def d_head(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def d_ff(self) -> int:
        return self.intermediate or 4 * self.hidden

    @property
    def mlp_kind(self) -> str:
        if self.mlp:
            return self.mlp
        return "swiglu" if self.intermediate and self.intermediate != 4 * self.hidden else "gelu"

    @property
    def n_active_experts(self) -> int:
        if self.active_experts is not None:
            return self.active_experts
        return 1 if self.experts == 1 else 2


class ModelConfigRef(StrictModel):
    """``{config: path/to/config.json}``: a Hugging Face config, relative to the workload file."""

    config: PathText
    """Path of a Hugging Face config.json, relative to the workload file's folder."""
    params_b: PositiveFloat | None = Field(default=None, le=100_000)
    """Optional: total parameters in billions, when the config does not let us count them."""
    name: Label | None = None
    """Optional label for reports; default the config's ``_name_or_path`` or folder name."""


def _model_shape(value: Any) -> str | None:
    """Which shape a ``model`` value has; None when it is none of them."""
    if isinstance(value, str):
        return "PresetName"
    if isinstance(value, ModelArch):
        return "ModelArch"
    if isinstance(value, ModelConfigRef):
        return "ModelConfigRef"
    if isinstance(value, dict):
        return "ModelConfigRef" if "config" in value else "ModelArch"
    return None


ModelSpec = Annotated[
    Annotated[ModelArch, Tag("ModelArch")]
    | Annotated[ModelConfigRef, Tag("ModelConfigRef")]
    | Annotated[Name, Tag("PresetName")],
    Discriminator(
        _model_shape,
        custom_error_type="model_shape",
        custom_error_message=(
            "model must be a preset name (e.g. llama-3.1-8b), an inline mapping "
            "(params_b, hidden, layers, heads, vocab, ...) or {config: path/to/config.json}"
        ),
    ),
]


class DataSpec(StrictModel):
    """What a job keeps in host memory and on disk (R11)."""

    in_memory_gb: float = Field(default=0.0, ge=0, le=1_000_000)
    """Data held in host RAM at once, GB, before preprocessing expansion."""
    expansion: float = Field(default=1.5, ge=1.0, le=10.0)
    """Preprocessing expansion factor: data grows 1.5-3x while it is processed."""
    workers: int = Field(default=4, ge=0, le=256)
    """Concurrent loader processes (DataLoader workers)."""
    dataset_tb: float = Field(default=0.0, ge=0, le=100_000)
    """Dataset on disk, TB."""
    checkpoints_tb: float = Field(default=0.0, ge=0, le=100_000)
    """Checkpoints kept on disk, TB (counted once per workload, on any server of the pool)."""
    storage: Storage = "local"
    """Where the dataset is read from (O4): local (a copy on every server that runs a
    replica) or shared (one copy anywhere in the pool, read over the network)."""
    cpu_cores: int | None = Field(default=None, ge=0, le=100_000)
    """CPU cores one replica needs (O3); default: training d x (workers + 1), inference
    d x 2, preprocess max(1, workers)."""


def _workload_name(name: str) -> str:
    """A workload name is not blank and has no spaces around it (a trailing space made
    'serve ' a second workload beside 'serve', told apart by nothing a reader sees)."""
    if not name.strip():
        raise ValueError("is only spaces. To fix: name the job, e.g. serve-chat")
    if name != name.strip():
        raise ValueError(f"has spaces around it. To fix: write '{clip(name.strip())}'")
    return name


WorkloadName = Annotated[Name, AfterValidator(_workload_name)]
"""A workload's name: a ``Name`` that is not blank and has no spaces around it."""


class Workload(StrictModel):
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
        # One clear message naming the allowed modules, not a union of type errors.
        if v is None:
            return v
        allowed = f"{', '.join(LORA_MODULES)} (a list), or '{ALL_LINEAR}'"
        if v == ALL_LINEAR:
            return LORA_MODULES
        if isinstance(v, str) or not isinstance(v, (list, tuple)) or not v:
            raise ValueError(f"lora_targets must be a non-empty list of modules or "
                             f"'{ALL_LINEAR}', got {clip(repr(v))}. To fix: use {allowed}")
        bad = [m for m in v if not isinstance(m, str) or m not in LORA_MODULES]
        if bad:
            hints = []
            for m in bad:
                close = difflib.get_close_matches(str(m).removesuffix("_proj"), LORA_MODULES,
                                                  n=1, cutoff=0.6)
                hints.append(f"{clip(repr(m))}" + (f" (did you mean '{close[0]}'?)" if close
                                                   else ""))
            raise ValueError(f"unknown module{'s' if len(bad) > 1 else ''} {', '.join(hints)}"
                             " (lora_targets names linear layers of a block). "
                             f"To fix: use {allowed}")
        dup = sorted({m for m in v if v.count(m) > 1})
        if dup:
            raise ValueError(f"lora_targets lists {', '.join(dup)} more than once. "
                             "To fix: name each module once")
        return tuple(m for m in LORA_MODULES if m in v)  # canonical order

    @field_validator("model", mode="after")
    @classmethod
    def _resolve_model(cls, v: Any, info: ValidationInfo) -> ModelArch | None:
        # Resolve presets and config files here so their problems are reported with the others.
        from .presets import resolve

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

    def cpu_cores_per_replica(self, degree: int) -> int:
        """CPU cores one replica on ``degree`` GPUs needs (O3): data.cpu_cores if given, else
        training d x (workers + 1) (a process per GPU and its loaders), inference d x 2,
        preprocess max(1, workers)."""
        if self.data.cpu_cores is not None:
            return self.data.cpu_cores
        if self.kind in TRAINING_KINDS:
            return degree * (self.data.workers + 1)
        if self.kind == "inference":
            return degree * 2
        return max(1, self.data.workers)


MAX_OUTPUT_TOKENS_PER_S = 1e12
"""Largest serving target, tokens_per_s or requests_per_s x output_tokens."""


def _add(fields: list[str]) -> str:
    """``seq_len: 4096, global_batch: 512``: the fields with values that work."""
    return ", ".join(f"{f}: {yaml_value(FIELD_EXAMPLES[f])}" if f in FIELD_EXAMPLES
                     else f"{f}: ..." for f in fields)


def _a(word: str) -> str:
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def kind_problems(kind: str, given: dict[str, Any]) -> list[str]:
    """What a workload of ``kind`` lacks or should not have, from the fields it gives.

    ``given`` maps each field written (validated, or raw as in the file) to its value; only
    which fields are there and ``precision`` are read, so the loader also runs this on a
    workload whose field errors stopped validation, and all its problems show at once.

    Returns:
        One message per problem, each with its fix.
    """
    out, missing = [], []
    if kind != "preprocess" and given.get("model") is None:
        missing.append("model")
    if kind in TRAINING_KINDS:
        missing += [f for f in ("seq_len", "global_batch") if given.get(f) is None]
        if given.get("precision") in ("fp8", "int8", "int4"):
            out.append(f"precision '{given['precision']}' is for inference; training kinds "
                       "take fp32, fp16 or bf16 (qlora keeps its base in 4-bit NF4 by "
                       "itself). To fix: write precision: bf16")
    lengths = given.get("prompt_tokens") is not None and given.get("output_tokens") is not None
    if kind == "inference":
        # Without context, prompt_tokens + output_tokens size the KV cache (T3).
        missing += [f for f in ("context", "batch")
                    if given.get(f) is None and not (f == "context" and lengths)]
    if kind in ("lora", "qlora") and given.get("lora_rank") is None:
        missing.append("lora_rank")
    if kind not in ("lora", "qlora") and given.get("lora_targets") is not None:
        out.append(f"lora_targets is not for {_a(kind)} '{kind}' workload (it names the modules that "
                   "carry LoRA adapters: lora and qlora only). To fix: remove lora_targets "
                   "or change kind")
    if missing:
        out.append(f"{_a(kind)} '{kind}' workload needs {', '.join(missing)}. To fix: add "
                   f"{_add(missing)} to it")
    return out + _target_problems(kind, given, lengths)


def _target_problems(kind: str, given: dict[str, Any], lengths: bool) -> list[str]:
    """Time targets belong to their kinds; tokens and deadline_days go together; one serving
    rate, and a request's length to read requests_per_s in (T1)."""
    out, wrong = [], []
    if kind not in TRAINING_KINDS:
        wrong += [f for f in TRAINING_TARGETS if given.get(f) is not None]
    if kind != "inference":
        wrong += [f for f in INFERENCE_TARGETS if given.get(f) is not None]
    if kind == "preprocess" and given.get("efficiency") is not None:
        wrong.append("efficiency")
    if wrong:
        where = ("training kinds (train, lora, qlora)" if wrong[0] in TRAINING_TARGETS
                 else "inference" if wrong[0] in INFERENCE_TARGETS else "GPU workloads")
        out.append(f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not for "
                   f"{_a(kind)} '{kind}' workload ({wrong[0]} is for {where}). "
                   f"To fix: remove {', '.join(wrong)} or change kind")
    if kind in TRAINING_KINDS and (given.get("tokens") is None) != (
            given.get("deadline_days") is None):
        has, absent = (("tokens", "deadline_days") if given.get("tokens") is not None
                       else ("deadline_days", "tokens"))
        out.append(f"{has} needs {absent}: a training target is tokens over deadline_days. "
                   f"To fix: add {_add([absent])} or remove {has}")
    if kind == "inference" and given.get("requests_per_s") is not None:
        if given.get("tokens_per_s") is not None:
            out.append("give tokens_per_s or requests_per_s, not both (requests_per_s means "
                       "requests_per_s x output_tokens tokens/s). To fix: remove "
                       "tokens_per_s, or remove requests_per_s")
        if not lengths:
            lacking = [f for f in ("prompt_tokens", "output_tokens") if given.get(f) is None]
            out.append(f"requests_per_s needs {' and '.join(lacking)}: a request's length turns "
                       "the request rate into the tokens/s to serve (requests_per_s x "
                       f"output_tokens). To fix: add {_add(lacking)} (your service's mean "
                       "request)")
    return out


def _power_of_two(name: str, value: int) -> int:
    if value not in PARALLEL_DEGREES:
        raise ValueError(
            f"{name} must be a power of two, got {value}. "
            f"To fix: use one of {', '.join(map(str, PARALLEL_DEGREES))}"
        )
    return value


class Policy(StrictModel):
    """How to plan: headroom, parallelism caps, growth, budget, RAM ratios."""

    headroom: float = Field(default=0.20, ge=0.0, lt=1.0)
    """Fraction of VRAM and RAM kept free, in [0, 1) (R15: 0.2)."""
    max_parallel_degree: int = 8
    """Most GPUs one replica may span, a power of two (R8)."""
    max_pcie_parallel_degree: int = 2
    """Most GPUs one replica may span outside an NVLink domain, a power of two (R10)."""
    growth: float = Field(default=1.0, gt=0.0, le=100.0)
    """Demand multiplier: replicas planned = ceil(replicas x growth) (R19)."""
    budget: Money | None = None
    """Optional spending cap in the catalog's currency: 1500000, or with a suffix 1.5M, 500k."""
    ram_ratio_single_gpu_train: float = Field(default=1.5, ge=0, le=100)
    """R12: host RAM = 1.5 x VRAM for single-GPU training."""
    ram_ratio_multi_gpu_train: float = Field(default=0.8, ge=0, le=100)
    """R12: host RAM = 0.8 x total VRAM for multi-GPU training."""
    ram_ratio_inference: float = Field(default=0.5, ge=0, le=100)
    """R12: host RAM = 0.5 x VRAM for inference serving."""
    data_parallel_efficiency: float = Field(default=0.9, gt=0, le=1)
    """T3: share of the summed replica throughput a data-parallel training run keeps
    (gradient all-reduce, stragglers), in (0, 1]; training kinds with a target only."""
    exclude: SkuList = Field(default=(), max_length=1000)
    """SKUs of any kind (GPU, platform, DIMM, drive) the plan must not buy; each must be a
    SKU of the catalog."""
    tco: TcoPolicy | None = None
    """P2: how to price energy, support and racks over a horizon; default none (options
    then report capital cost and power only)."""
    objective: Literal["capex", "tco"] = "capex"
    """P2: what the program minimises: capital cost (default) or total cost of ownership
    (needs ``tco``)."""

    @model_validator(mode="after")
    def _objective_needs_tco(self) -> Policy:
        if self.objective == "tco" and self.tco is None:
            raise ValueError(
                "objective: tco needs policy.tco to price energy. To fix: add "
                "policy.tco with at least kwh_price (e.g. tco: {kwh_price: 0.12}), or set "
                "objective: capex")
        return self

    @field_validator("max_parallel_degree", "max_pcie_parallel_degree")
    @classmethod
    def _pow2(cls, v: int, info: ValidationInfo) -> int:
        return _power_of_two(str(info.field_name), v)


def name_key(name: str) -> str:
    """What two workload names must differ in: not only case, spaces around them or the
    Unicode form of one letter (``é`` written as one character or as e + accent). Excel
    tells sheets apart ignoring case, and a reader cannot see the rest."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def duplicate_name_problems(names: list[Any]) -> list[str]:
    """One line per workload name that repeats an earlier one (raw or validated names),
    compared by ``name_key``."""
    seen: dict[str, tuple[int, str]] = {}
    problems = []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            continue
        key = name_key(name)
        if key not in seen:
            seen[key] = (i, name)
            continue
        j, first = seen[key]
        how = ("is already the name of" if name == first else
               f"differs only in case, spaces or Unicode form from '{clip(first)}',")
        problems.append(
            f"workloads[{i}].name: '{clip(name)}' {how} workloads[{j}]; workload names must "
            f"be unique. To fix: rename one of them, e.g. '{clip(first.strip() + '-2')}'"
        )
    return problems


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
