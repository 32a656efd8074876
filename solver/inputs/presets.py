"""Model presets and Hugging Face ``config.json`` reading: a workload's ``model`` resolved to
a :class:`~solver.inputs.model.ModelArch`.

Every preset's figures come from the model's published ``config.json`` on the Hugging Face
Hub (the repository named in ``source``); parameter counts are the published totals
(safetensors metadata / model cards). Mixture-of-experts totals count every expert.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from .base import MAX_TEXT, clip
from .files import FileProblem, read_text
from .model import ModelArch, ModelConfigRef, count_params


def _p(name: str, params_b: float, hidden: int, layers: int, heads: int, kv_heads: int,
       inter: int, vocab: int, source: str, **kw: Any) -> ModelArch:
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


MAX_CONFIG_BYTES = 1_000_000

# Hugging Face names for the figures we need; GPT-2-style configs name them differently.
_HF_ALIASES = {
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads"),
    "vocab_size": ("vocab_size",),
}
_UNGATED_TYPES = ("gpt2", "gpt_neox", "gpt_bigcode", "gptj", "bert", "roberta", "opt")


# A figure each key could hold, for the "To fix" of a value that is not a whole number.
_EXAMPLES = {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
             "vocab_size": 32000, "num_key_value_heads": 8, "intermediate_size": 14336,
             "head_dim": 128, "num_local_experts": 8, "num_experts_per_tok": 2}


def _whole(value: object) -> int | None:
    """The whole number a value plainly means (``14336.0``, ``"8"``), None when none."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _int_field(cfg: dict, problems: list[str], *names: str) -> int | None:
    """The first of ``names`` the config sets (``null`` counts as unset). A value that is
    not a whole number (``"8"``, ``14336.0``) is a problem appended to ``problems``, never
    silently the default: the default of ``num_key_value_heads`` is the head count, a 4x
    larger KV cache for a model with 8 of 32."""
    for n in names:
        v = cfg.get(n)
        if v is None:
            continue
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        fix = _whole(v) or _EXAMPLES.get(names[0], 1)
        problems.append(f"{n} is {clip(json.dumps(v))}, not a whole number. To fix: write "
                        f'"{n}": {fix}')
        return None
    return None


# Config keys of ModelArch's figures, so that its messages name what the file says.
_CONFIG_KEYS = {"hidden": "hidden_size", "layers": "num_hidden_layers",
                "heads": "num_attention_heads", "vocab": "vocab_size",
                "kv_heads": "num_key_value_heads", "intermediate": "intermediate_size",
                "experts": "num_local_experts", "active_experts": "num_experts_per_tok",
                "head_dim": "head_dim"}


def _config_problem(err: ErrorDetails) -> str:
    msg = err["msg"].removeprefix("Value error, ")
    where = ".".join(map(str, err["loc"]))
    bound = (err.get("ctx") or {})
    if where in _CONFIG_KEYS:
        key = _CONFIG_KEYS[where]
        where = f"{where} ({key})"
        if "le" in bound:
            msg += f'. To fix: write "{key}": {bound["le"]} or less (the model\'s own figure)'
        elif "gt" in bound:
            msg += f'. To fix: write "{key}": {bound["gt"] + 1} or more (the model\'s own figure)'
    return f"{where}: {msg}" if where else msg


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
    """The architecture figures of a parsed config.json, under Hugging Face's key names.

    Every figure is checked against ModelArch's bounds before the parameters are counted
    from them (a 200-digit ``hidden_size`` overflowed the count); all the problems of one
    file are reported together.
    """
    problems: list[str] = []
    got = {key: _int_field(cfg, problems, *names) for key, names in _HF_ALIASES.items()}
    missing = [k for k, v in got.items() if v is None and not any(
        cfg.get(n) is not None for n in _HF_ALIASES[k])]
    if missing:
        problems.insert(0, f"lacks {', '.join(missing)} (whole numbers). To fix: use the "
                           "model's complete Hugging Face config.json, or an inline model "
                           "mapping")
    kv = _int_field(cfg, problems, "num_key_value_heads")
    inter = _int_field(cfg, problems, "intermediate_size", "n_inner", "ffn_dim")
    # 0 experts is how some dense models' configs say "not a mixture of experts".
    experts = _int_field(cfg, problems, "num_local_experts", "num_experts",
                         "n_routed_experts") or 1
    active = (_int_field(cfg, problems, "num_experts_per_tok") if experts > 1 else None)
    head_dim = _int_field(cfg, problems, "head_dim")
    if problems:
        raise ValueError(f"config file '{shown}': {'; '.join(problems)}")
    have = {k: v for k, v in got.items() if v is not None}  # every one, after the check
    gated = cfg.get("model_type", "") not in _UNGATED_TYPES
    figures = {
        "name": str(ref.name or cfg.get("_name_or_path") or path.parent.name or "config"),
        "hidden": have["hidden_size"], "layers": have["num_hidden_layers"],
        "heads": have["num_attention_heads"],
        "kv_heads": have["num_attention_heads"] if kv is None else kv,
        "intermediate": 4 * have["hidden_size"] if inter is None else inter,
        "vocab": have["vocab_size"], "experts": experts, "active_experts": active,
        "head_dim": head_dim, "mlp": "swiglu" if gated else "gelu",
        "tied_embeddings": bool(cfg.get("tie_word_embeddings", not gated)), "source": shown}
    # The figures first, under a stand-in parameter count, so that an impossible one is
    # named as such (64 KV heads of 32 once read "params_b must be > 0").
    arch = _validated(dict(figures, params_b=ref.params_b or 100_000, intermediate=inter),
                      shown)
    params = ref.params_b
    if params is None:
        params = count_params(arch.hidden, arch.layers, arch.heads, arch.n_kv_heads,
                              arch.d_ff, arch.vocab, arch.experts, gated,
                              arch.tied_embeddings, arch.head_dim) / 1e9
    return _validated(dict(figures, params_b=params), shown)


def _validated(figures: dict, shown: str) -> ModelArch:
    """ModelArch of ``figures``; its problems named under the config's keys."""
    try:
        return ModelArch(**figures)
    except ValidationError as exc:
        details = "; ".join(_config_problem(e) for e in exc.errors(include_url=False))
        raise ValueError(f"config file '{shown}' has unusable figures: {details}") from None


def resolve(model: object, base_dir: Path) -> ModelArch | None:
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
