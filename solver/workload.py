"""The workload file: a named mix of jobs and the policy to plan them under.

Field names follow ``shared/examples/customer-q3.yaml`` (the contract). Models are strict
(``extra="forbid"``) and frozen; defaults follow the R-rules of the SPEC.
"""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)

# Hard caps that make an absurd file fail fast instead of hanging the solver.
MAX_WORKLOADS = 5000
MAX_REPLICAS = 10_000
PARALLEL_DEGREES = (1, 2, 4, 8, 16, 32, 64)

Kind = Literal["train", "lora", "qlora", "inference", "preprocess"]
Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4"]
Optimizer = Literal["adamw", "adam", "sgd", "adamw8bit"]
TRAINING_KINDS = ("train", "lora", "qlora")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelArch(_Strict):
    """A transformer's architecture figures (a preset, an inline mapping or a config.json)."""

    name: str = "custom"
    params_b: PositiveFloat
    """Total parameters, billions (all experts of a mixture-of-experts model)."""
    hidden: PositiveInt
    layers: PositiveInt
    heads: PositiveInt
    kv_heads: PositiveInt | None = None
    """Key/value heads (grouped-query attention); default = heads."""
    vocab: PositiveInt
    intermediate: PositiveInt | None = None
    """MLP inner size; default 4 x hidden (GPT-style)."""
    experts: PositiveInt = 1
    active_experts: PositiveInt | None = None
    """Experts each token is routed to; default = experts (dense) or 2 when experts > 1."""
    head_dim: PositiveInt | None = None
    """Per-head size; default hidden / heads."""
    mlp: Literal["gelu", "swiglu"] | None = None
    """MLP kind; default swiglu when intermediate is set and not 4 x hidden, else gelu."""
    tied_embeddings: bool = False
    source: str = ""
    """Where the figures come from (preset citation or config path)."""

    @model_validator(mode="after")
    def _consistent(self) -> ModelArch:
        kv = self.kv_heads or self.heads
        if kv > self.heads or self.heads % kv:
            raise ValueError(
                f"kv_heads ({kv}) must divide heads ({self.heads}) (grouped-query attention)"
            )
        if self.active_experts is not None and self.active_experts > self.experts:
            raise ValueError(
                f"active_experts ({self.active_experts}) cannot exceed experts ({self.experts})"
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


class ModelConfigRef(_Strict):
    """``{config: path/to/config.json}``: a Hugging Face config, relative to the workload file."""

    config: str = Field(min_length=1)
    params_b: PositiveFloat | None = None
    """Optional: total parameters in billions, when the config does not let us count them."""


class DataSpec(_Strict):
    """What a job keeps in host memory and on disk (R11)."""

    in_memory_gb: float = Field(default=0.0, ge=0)
    """Data held in host RAM at once, GB, before preprocessing expansion."""
    expansion: float = Field(default=1.5, ge=1.0, le=10.0)
    """Preprocessing expansion factor (the seed's 1.5-3)."""
    workers: int = Field(default=4, ge=0, le=256)
    """Concurrent loader processes (DataLoader workers)."""
    dataset_tb: float = Field(default=0.0, ge=0)
    """Dataset on disk, TB."""
    checkpoints_tb: float = Field(default=0.0, ge=0)
    """Checkpoints kept on disk, TB."""


class Workload(_Strict):
    """One job of the mix; ``replicas`` copies run at once."""

    name: str = Field(min_length=1, max_length=200)
    team: str = "unassigned"
    kind: Kind
    model: ModelArch | ModelConfigRef | str | None = None
    """Preset name, inline architecture, or {config: path}; resolved to ModelArch on load."""
    precision: Precision = "bf16"
    """Weights/compute dtype; training fp16/bf16 means mixed precision."""
    optimizer: Optimizer = "adamw"
    seq_len: PositiveInt | None = None
    global_batch: PositiveInt | None = None
    """Sequences per optimizer step, summed over data-parallel copies (R9)."""
    micro_batch: Literal["auto"] | PositiveInt = "auto"
    activation_checkpointing: bool = False
    master_weights: bool | None = None
    """Keep an FP32 master copy; default true for mixed precision (R4)."""
    lora_rank: PositiveInt | None = None
    context: PositiveInt | None = None
    """Inference: tokens per sequence kept in the KV cache."""
    batch: PositiveInt | None = None
    """Inference: concurrent sequences."""
    shareable: bool = False
    """May share a GPU with other shareable jobs (R17)."""
    replicas: int = Field(default=1, ge=1, le=MAX_REPLICAS)
    priority: float = Field(default=1.0, gt=0)
    data: DataSpec = Field(default_factory=DataSpec)

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Workload:
        missing = []
        if self.kind != "preprocess" and self.model is None:
            missing.append("model")
        if self.kind in TRAINING_KINDS:
            missing += [f for f in ("seq_len", "global_batch") if getattr(self, f) is None]
            if self.precision in ("fp8", "int8", "int4"):
                raise ValueError(
                    f"precision '{self.precision}' is for inference; training kinds take "
                    "fp32, fp16 or bf16 (qlora keeps its base in 4-bit NF4 by itself)"
                )
        if self.kind == "inference":
            missing += [f for f in ("context", "batch") if getattr(self, f) is None]
        if self.kind in ("lora", "qlora") and self.lora_rank is None:
            missing.append("lora_rank")
        if missing:
            raise ValueError(f"a '{self.kind}' workload needs: {', '.join(missing)}")
        if (
            self.kind in TRAINING_KINDS
            and self.micro_batch != "auto"
            and self.micro_batch > (self.global_batch or 0)
        ):
            raise ValueError(
                f"micro_batch ({self.micro_batch}) is larger than global_batch "
                f"({self.global_batch}); use a smaller micro_batch or 'auto'"
            )
        return self

    @property
    def arch(self) -> ModelArch:
        """The resolved architecture (after loading, ``model`` is always a ModelArch)."""
        if not isinstance(self.model, ModelArch):
            raise TypeError(f"workload {self.name!r}: model not resolved (load it with load_workloads)")
        return self.model

    @property
    def uses_master_weights(self) -> bool:
        """R4: mixed precision keeps an FP32 master copy unless told not to."""
        if self.master_weights is not None:
            return self.master_weights
        return self.precision in ("fp16", "bf16")

    @property
    def storage_tb(self) -> float:
        return self.data.dataset_tb + self.data.checkpoints_tb


def _power_of_two(name: str, value: int) -> int:
    if value not in PARALLEL_DEGREES:
        raise ValueError(f"{name} must be a power of two in {PARALLEL_DEGREES}, got {value}")
    return value


class Policy(_Strict):
    """How to plan: headroom, parallelism caps, growth, budget, RAM ratios."""

    headroom: float = Field(default=0.20, ge=0.0, lt=1.0)
    """Fraction of VRAM and RAM kept free (R15)."""
    max_parallel_degree: int = 8
    """Most GPUs one replica may span (R8)."""
    max_pcie_parallel_degree: int = 2
    """Most GPUs one replica may span outside an NVLink domain (R10)."""
    growth: float = Field(default=1.0, gt=0.0, le=100.0)
    """Demand multiplier: replicas planned = ceil(replicas x growth) (R19)."""
    budget: float | None = Field(default=None, gt=0)
    """Optional spending cap in the catalog's currency."""
    ram_ratio_single_gpu_train: float = Field(default=1.5, ge=0, le=100)
    """R12: host RAM = 1.5 x VRAM for single-GPU training."""
    ram_ratio_multi_gpu_train: float = Field(default=0.8, ge=0, le=100)
    """R12: host RAM = 0.8 x total VRAM for multi-GPU training."""
    ram_ratio_inference: float = Field(default=0.5, ge=0, le=100)
    """R12: host RAM = 0.5 x VRAM for inference serving."""

    @field_validator("max_parallel_degree", "max_pcie_parallel_degree")
    @classmethod
    def _pow2(cls, v: int, info) -> int:
        return _power_of_two(info.field_name, v)


class WorkloadFile(_Strict):
    """A whole workload file."""

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    """Used for report file names (out/<name>.xlsx)."""
    policy: Policy = Field(default_factory=Policy)
    workloads: list[Workload] = Field(min_length=1, max_length=MAX_WORKLOADS)

    @model_validator(mode="after")
    def _unique_names(self) -> WorkloadFile:
        seen: dict[str, int] = {}
        for i, w in enumerate(self.workloads):
            if w.name in seen:
                raise ValueError(
                    f"workloads[{i}].name '{w.name}' repeats workloads[{seen[w.name]}].name; "
                    "workload names must be unique"
                )
            seen[w.name] = i
        return self

    def planned_replicas(self, w: Workload) -> int:
        """R19: replicas to plan for = ceil(replicas x growth)."""
        import math

        return max(1, math.ceil(w.replicas * self.policy.growth - 1e-9))
