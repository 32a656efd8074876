"""A model's architecture: the figures every estimate reads, and the shapes a workload's
``model`` may take (preset name, inline mapping, Hugging Face config reference).

``ModelArch`` is what presets build and what a workload's ``model`` resolves to;
``count_params`` counts a decoder's parameters from its figures (for config files without a
count, and for the hint when ``params_b`` is too small). Resolving names and reading
config files is ``presets.py``'s; this module imports neither it nor the workload.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, PositiveFloat, PositiveInt, Tag, model_validator

from .base import Label, Name, PathText, StrictModel, Text

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


def count_params(
    hidden: int,
    layers: int,
    heads: int,
    kv_heads: int,
    inter: int,
    vocab: int,
    experts: int = 1,
    gated: bool = True,
    tied: bool = False,
    head_dim: int | None = None,
) -> int:
    """Parameters of a decoder-only transformer from its architecture (biases and norms ignored)."""
    hd = head_dim or hidden // heads
    attn = hidden * heads * hd * 2 + hidden * kv_heads * hd * 2
    mlp = (3 if gated else 2) * hidden * inter * experts
    router = hidden * experts if experts > 1 else 0
    emb = vocab * hidden * (1 if tied else 2)
    return layers * (attn + mlp + router) + emb
