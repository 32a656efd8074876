"""Model presets and Hugging Face ``config.json`` reading.

Every preset's figures come from the model's published ``config.json`` on the Hugging Face
Hub (the repository named in ``source``); parameter counts are the published totals
(safetensors metadata / model cards). Mixture-of-experts totals count every expert.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

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


PRESETS: dict[str, ModelArch] = {
    m.name: m
    for m in (
        _p("gpt2", 0.124439808, 768, 12, 12, 12, 3072, 50257, "openai-community/gpt2",
           mlp="gelu", tied_embeddings=True),
        _p("gpt2-xl", 1.5576, 1600, 48, 25, 25, 6400, 50257, "openai-community/gpt2-xl",
           mlp="gelu", tied_embeddings=True),
        _p("llama-2-7b", 6.738415616, 4096, 32, 32, 32, 11008, 32000, "meta-llama/Llama-2-7b-hf",
           mlp="swiglu"),
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
        _p("qwen2.5-7b", 7.615616512, 3584, 28, 28, 4, 18944, 152064, "Qwen/Qwen2.5-7B",
           mlp="swiglu"),
        _p("qwen2.5-14b", 14.770033664, 5120, 48, 40, 8, 13824, 152064, "Qwen/Qwen2.5-14B",
           mlp="swiglu"),
        _p("qwen2.5-32b", 32.763876352, 5120, 64, 40, 8, 27648, 152064, "Qwen/Qwen2.5-32B",
           mlp="swiglu"),
        _p("qwen2.5-72b", 72.706203648, 8192, 80, 64, 8, 29568, 152064, "Qwen/Qwen2.5-72B",
           mlp="swiglu"),
    )
}


def preset(name: str) -> ModelArch:
    """The preset of that name; ValueError with the closest names when unknown."""
    key = name.strip().lower()
    if key in PRESETS:
        return PRESETS[key]
    close = difflib.get_close_matches(key, PRESETS, n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
    raise ValueError(
        f"unknown model preset '{name}'; {hint}To fix: use one of {', '.join(sorted(PRESETS))}, "
        "an inline mapping (params_b, hidden, layers, heads, vocab) or {config: path/to/config.json}"
    )


def count_params(hidden: int, layers: int, heads: int, kv_heads: int, inter: int, vocab: int,
                 experts: int = 1, gated: bool = True, tied: bool = False,
                 head_dim: int | None = None) -> int:
    """Parameters of a decoder-only transformer from its architecture (biases and norms ignored)."""
    hd = head_dim or hidden // heads
    attn = hidden * heads * hd * 2 + hidden * kv_heads * hd * 2
    mlp = (3 if gated else 2) * hidden * inter * experts
    router = hidden * experts if experts > 1 else 0
    emb = vocab * hidden * (1 if tied else 2)
    return layers * (attn + mlp + router) + emb


def from_hf_config(ref: ModelConfigRef, base_dir: Path) -> ModelArch:
    """Read a Hugging Face config.json (path relative to the workload file's folder)."""
    path = (base_dir / ref.config).expanduser()
    if not path.is_file():
        raise ValueError(f"config file '{path}' does not exist; To fix: give a path to a Hugging "
                         "Face config.json, relative to the workload file")
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"config file '{path}' is not valid JSON: {exc}") from None
    if not isinstance(cfg, dict):
        raise ValueError(f"config file '{path}' must hold a JSON object")
    # GPT-2 style configs name the fields differently.
    aliases = {
        "hidden_size": ("hidden_size", "n_embd", "d_model"),
        "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
        "num_attention_heads": ("num_attention_heads", "n_head", "num_heads"),
        "vocab_size": ("vocab_size",),
    }
    got = {}
    missing = []
    for key, names in aliases.items():
        val = next((cfg[n] for n in names if isinstance(cfg.get(n), int)), None)
        if val is None:
            missing.append(key)
        got[key] = val
    if missing:
        raise ValueError(f"config file '{path}' lacks {', '.join(missing)}; To fix: use a complete "
                         "Hugging Face config.json or an inline model mapping")
    hidden, layers = got["hidden_size"], got["num_hidden_layers"]
    heads, vocab = got["num_attention_heads"], got["vocab_size"]
    kv = cfg.get("num_key_value_heads") or heads
    inter = cfg.get("intermediate_size") or cfg.get("n_inner") or 4 * hidden
    experts = cfg.get("num_local_experts") or cfg.get("num_experts") or 1
    active = cfg.get("num_experts_per_tok") if experts > 1 else None
    gated = cfg.get("model_type", "") not in ("gpt2", "gpt_neox", "gpt_bigcode", "bert", "opt")
    tied = bool(cfg.get("tie_word_embeddings", not gated))
    params = ref.params_b or count_params(
        hidden, layers, heads, kv, inter, vocab, experts, gated, tied, cfg.get("head_dim")
    ) / 1e9
    return ModelArch(
        name=str(cfg.get("_name_or_path") or path.parent.name or "config"),
        params_b=params,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv,
        intermediate=inter,
        vocab=vocab,
        experts=experts,
        active_experts=active,
        head_dim=cfg.get("head_dim"),
        mlp="swiglu" if gated else "gelu",
        tied_embeddings=tied,
        source=str(path),
    )


def resolve(model, base_dir: Path) -> ModelArch | None:
    """Turn a workload's ``model`` (preset name, mapping, config ref) into a ModelArch."""
    if model is None or isinstance(model, ModelArch):
        return model
    if isinstance(model, str):
        return preset(model)
    if isinstance(model, ModelConfigRef):
        return from_hf_config(model, base_dir)
    raise TypeError(f"cannot resolve model {model!r}")
