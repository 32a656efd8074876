"""Model presets and Hugging Face ``config.json`` reading.

Every preset's figures come from the model's published ``config.json`` on the Hugging Face
Hub (the repository named in ``source``); parameter counts are the published totals
(safetensors metadata / model cards). Mixture-of-experts totals count every expert.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from .base import MAX_TEXT, clip
from .files import FileProblem, read_text
from .workload import ModelArch, ModelConfigRef


def _p(name, params_b, hidden, layers, heads, kv_heads, inter, vocab, source, **kw) -> ModelArch:
    return ModelArch(
        name=name,
        params_b=params_b,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        intermediate=inter,
        vocab=vocab,
        source=f"huggingface.co/{source}/blob/main/config.json",
        **kw,
    )


# One preset per row: name, params_b (published total), hidden, layers, heads, kv_heads,
# intermediate, vocab, then the Hugging Face repository whose config.json the figures are from
# (each from the model's published config.json on the Hugging Face Hub).
# fmt: off
PRESETS: dict[str, ModelArch] = {
    m.name: m
    for m in (
        _p("gpt2", 0.124439808, 768, 12, 12, 12, 3072, 50257,
           "openai-community/gpt2", mlp="gelu", tied_embeddings=True),
        _p("gpt2-xl", 1.557611200, 1600, 48, 25, 25, 6400, 50257,
           "openai-community/gpt2-xl", mlp="gelu", tied_embeddings=True),
        _p("llama-2-7b", 6.738415616, 4096, 32, 32, 32, 11008, 32000,
           "meta-llama/Llama-2-7b-hf", mlp="swiglu"),
        _p("llama-2-13b", 13.015864320, 5120, 40, 40, 40, 13824, 32000,
           "meta-llama/Llama-2-13b-hf", mlp="swiglu"),
        _p("llama-2-70b", 68.976648192, 8192, 80, 64, 8, 28672, 32000,
           "meta-llama/Llama-2-70b-hf", mlp="swiglu"),
        _p("llama-3.1-8b", 8.030261248, 4096, 32, 32, 8, 14336, 128256,
           "meta-llama/Llama-3.1-8B", mlp="swiglu"),
        _p("llama-3.1-70b", 70.553706496, 8192, 80, 64, 8, 28672, 128256,
           "meta-llama/Llama-3.1-70B", mlp="swiglu"),
        _p("llama-3.1-405b", 405.853388800, 16384, 126, 128, 8, 53248, 128256,
           "meta-llama/Llama-3.1-405B", mlp="swiglu"),
        _p("mistral-7b", 7.241732096, 4096, 32, 32, 8, 14336, 32000,
           "mistralai/Mistral-7B-v0.1", mlp="swiglu"),
        _p("mixtral-8x7b", 46.702792704, 4096, 32, 32, 8, 14336, 32000,
           "mistralai/Mixtral-8x7B-v0.1", mlp="swiglu", experts=8, active_experts=2),
        _p("qwen2.5-7b", 7.615616512, 3584, 28, 28, 4, 18944, 152064,
           "Qwen/Qwen2.5-7B", mlp="swiglu"),
        _p("qwen2.5-14b", 14.770033664, 5120, 48, 40, 8, 13824, 152064,
           "Qwen/Qwen2.5-14B", mlp="swiglu"),
        _p("qwen2.5-32b", 32.763876352, 5120, 64, 40, 8, 27648, 152064,
           "Qwen/Qwen2.5-32B", mlp="swiglu"),
        _p("qwen2.5-72b", 72.706203648, 8192, 80, 64, 8, 29568, 152064,
           "Qwen/Qwen2.5-72B", mlp="swiglu"),
    )
}
# fmt: on


def preset(name: str) -> ModelArch:
    """The preset of that name; ValueError with the closest names when unknown."""
    key = name.strip().lower()
    if key in PRESETS:
        return PRESETS[key]
    close = difflib.get_close_matches(key, PRESETS, n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
    raise ValueError(
        f"unknown model preset '{clip(name)}'; {hint}To fix: use one of {', '.join(sorted(PRESETS))}, "
        "an inline mapping (params_b, hidden, layers, heads, vocab) or "
        "{config: path/to/config.json}"
    )


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


MAX_CONFIG_BYTES = 1_000_000

# Hugging Face names for the figures we need; GPT-2-style configs name them differently.
_HF_ALIASES = {
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads"),
    "vocab_size": ("vocab_size",),
}
_UNGATED_TYPES = ("gpt2", "gpt_neox", "gpt_bigcode", "gptj", "bert", "roberta", "opt")


def _int_field(cfg: dict, *names: str) -> int | None:
    for n in names:
        v = cfg.get(n)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


def _config_problem(err: ErrorDetails) -> str:
    msg = err["msg"].removeprefix("Value error, ")
    return f"{'.'.join(map(str, err['loc']))}: {msg}" if err["loc"] else msg


def from_hf_config(ref: ModelConfigRef, base_dir: Path) -> ModelArch:
    """Read a Hugging Face config.json (path relative to the workload file's folder).

    Raises:
        ValueError: the file is missing, not JSON, or lacks the architecture figures.
    """
    path = (Path(base_dir) / ref.config).expanduser()
    shown = clip(path, MAX_TEXT)
    cfg = _read_config(path, shown)
    return _arch_from_config(cfg, ref, path, shown)


def _read_config(path: Path, shown: str) -> dict:
    """The config.json at ``path`` as a JSON object (``shown`` names it in messages)."""
    try:
        text = read_text(path, MAX_CONFIG_BYTES, "the model's Hugging Face config.json")
    except FileProblem as exc:
        if str(exc).startswith("no such file"):
            raise ValueError(
                f"config file '{shown}' does not exist. To fix: give the path of a Hugging "
                "Face config.json, relative to the workload file's folder"
            ) from None
        raise ValueError(f"config file '{shown}' {exc}") from None
    try:
        cfg = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"config file '{shown}' is not valid JSON: {clip(exc)}") from None
    except RecursionError:
        raise ValueError(
            f"config file '{shown}' is nested too deeply to read; a config.json is a flat "
            "object. To fix: point at the model's config.json"
        ) from None
    if not isinstance(cfg, dict):
        # ValueError, not TypeError: pydantic reports only ValueErrors as input problems.
        raise ValueError(f"config file '{shown}' must hold a JSON object")  # noqa: TRY004
    return cfg


def _arch_from_config(cfg: dict, ref: ModelConfigRef, path: Path, shown: str) -> ModelArch:
    """The architecture figures of a parsed config.json, under Hugging Face's key names."""
    got = {key: _int_field(cfg, *names) for key, names in _HF_ALIASES.items()}
    missing = [k for k, v in got.items() if v is None]
    if missing:
        raise ValueError(
            f"config file '{shown}' lacks {', '.join(missing)} (whole numbers). To fix: use "
            "the model's complete Hugging Face config.json, or an inline model mapping"
        )
    have = {k: v for k, v in got.items() if v is not None}  # every one, after the check above
    hidden, layers = have["hidden_size"], have["num_hidden_layers"]
    heads, vocab = have["num_attention_heads"], have["vocab_size"]
    kv = _int_field(cfg, "num_key_value_heads") or heads
    inter = _int_field(cfg, "intermediate_size", "n_inner", "ffn_dim") or 4 * hidden
    experts = _int_field(cfg, "num_local_experts", "num_experts", "n_routed_experts") or 1
    active = _int_field(cfg, "num_experts_per_tok") if experts > 1 else None
    head_dim = _int_field(cfg, "head_dim")
    gated = cfg.get("model_type", "") not in _UNGATED_TYPES
    tied = bool(cfg.get("tie_word_embeddings", not gated))
    params = ref.params_b
    if params is None and min(hidden, layers, heads, kv, inter, vocab) > 0 and heads >= kv:
        params = (
            count_params(hidden, layers, heads, kv, inter, vocab, experts, gated, tied, head_dim)
            / 1e9
        )
    try:
        return ModelArch(
            name=str(ref.name or cfg.get("_name_or_path") or path.parent.name or "config"),
            params_b=params or 0, hidden=hidden, layers=layers, heads=heads, kv_heads=kv,
            intermediate=inter, vocab=vocab, experts=experts, active_experts=active,
            head_dim=head_dim, mlp="swiglu" if gated else "gelu", tied_embeddings=tied,
            source=shown,
        )
    except ValidationError as exc:
        details = "; ".join(_config_problem(e) for e in exc.errors(include_url=False))
        raise ValueError(f"config file '{shown}' has unusable figures: {details}") from None


def resolve(model, base_dir: Path) -> ModelArch | None:
    """Turn a workload's ``model`` (preset name, mapping, config ref) into a ModelArch."""
    if model is None or isinstance(model, ModelArch):
        return model
    if isinstance(model, str):
        return preset(model)
    if isinstance(model, dict):
        model = (ModelConfigRef if "config" in model else ModelArch).model_validate(model)
        return resolve(model, base_dir)
    if isinstance(model, ModelConfigRef):
        return from_hf_config(model, base_dir)
    raise TypeError(f"cannot resolve model {model!r}")
