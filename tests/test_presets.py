"""Presets carry the figures of their published config.json; config.json files read right."""

from __future__ import annotations

import json
import re

import pytest
from conftest import DATA

from solver.inputs.model import ModelArch, ModelConfigRef, count_params
from solver.inputs.presets import PRESETS, from_hf_config, preset, resolve

# The architecture figures of each model's published
# config.json): hidden, layers, heads, kv heads, intermediate, vocab; then published params (B).
REFERENCE = {
    "gpt2": (768, 12, 12, 12, 3072, 50257, 0.124),
    "gpt2-xl": (1600, 48, 25, 25, 6400, 50257, 1.558),
    "llama-2-7b": (4096, 32, 32, 32, 11008, 32000, 6.738),
    "llama-2-13b": (5120, 40, 40, 40, 13824, 32000, 13.016),
    "llama-2-70b": (8192, 80, 64, 8, 28672, 32000, 68.977),
    "llama-3.1-8b": (4096, 32, 32, 8, 14336, 128256, 8.030),
    "llama-3.1-70b": (8192, 80, 64, 8, 28672, 128256, 70.554),
    "llama-3.1-405b": (16384, 126, 128, 8, 53248, 128256, 405.853),
    "mistral-7b": (4096, 32, 32, 8, 14336, 32000, 7.242),
    "mixtral-8x7b": (4096, 32, 32, 8, 14336, 32000, 46.703),
    "qwen2.5-7b": (3584, 28, 28, 4, 18944, 152064, 7.616),
    "qwen2.5-14b": (5120, 48, 40, 8, 13824, 152064, 14.770),
    "qwen2.5-32b": (5120, 64, 40, 8, 27648, 152064, 32.764),
    "qwen2.5-72b": (8192, 80, 64, 8, 29568, 152064, 72.706),
}


def test_every_spec_preset_ships():
    assert set(REFERENCE) <= set(PRESETS)


@pytest.mark.parametrize("name", REFERENCE)
def test_preset_figures(name: str):
    hidden, layers, heads, kv, inter, vocab, params_b = REFERENCE[name]
    m = PRESETS[name]
    assert (m.hidden, m.layers, m.heads, m.n_kv_heads, m.d_ff, m.vocab) == (
        hidden,
        layers,
        heads,
        kv,
        inter,
        vocab,
    )
    assert m.params_b == pytest.approx(params_b, abs=0.001)
    assert m.source.startswith("huggingface.co/") and m.source.endswith("config.json")


@pytest.mark.parametrize("name", REFERENCE)
def test_param_count_matches_architecture(name: str):
    m = PRESETS[name]
    counted = count_params(
        m.hidden,
        m.layers,
        m.heads,
        m.n_kv_heads,
        m.d_ff,
        m.vocab,
        m.experts,
        m.mlp_kind == "swiglu",
        m.tied_embeddings,
        m.head_dim,
    )
    assert counted / 1e9 == pytest.approx(m.params_b, rel=0.02)


def test_architecture_details():
    assert PRESETS["gpt2"].tied_embeddings and PRESETS["gpt2"].mlp_kind == "gelu"
    assert (
        PRESETS["llama-3.1-8b"].mlp_kind == "swiglu" and not PRESETS["llama-3.1-8b"].tied_embeddings
    )
    assert PRESETS["llama-2-70b"].d_head == 128
    mixtral = PRESETS["mixtral-8x7b"]
    assert (mixtral.experts, mixtral.n_active_experts) == (8, 2)


def test_preset_lookup_is_forgiving_of_case_and_suggests():
    assert preset(" Llama-2-7B ") is PRESETS["llama-2-7b"]
    with pytest.raises(ValueError, match="did you mean 'qwen2.5-72b'"):
        preset("qwen-2.5-72b")
    with pytest.raises(ValueError, match="To fix: use one of gpt2"):
        preset("zzzzzz")


def test_llama_style_config():
    m = from_hf_config(ModelConfigRef(config="llama-2-7b-config.json"), DATA)
    ref = PRESETS["llama-2-7b"]
    assert (m.hidden, m.layers, m.heads, m.n_kv_heads, m.d_ff, m.vocab) == (
        ref.hidden,
        ref.layers,
        ref.heads,
        ref.n_kv_heads,
        ref.d_ff,
        ref.vocab,
    )
    assert m.mlp_kind == "swiglu" and not m.tied_embeddings
    assert m.params_b == pytest.approx(ref.params_b, rel=0.02)
    assert m.name == "meta-llama/Llama-2-7b-hf"


def test_gpt2_style_config():
    m = from_hf_config(ModelConfigRef(config="gpt2-config.json", name="my-gpt2"), DATA)
    assert (m.hidden, m.layers, m.heads, m.vocab, m.d_ff) == (768, 12, 12, 50257, 3072)
    assert m.mlp_kind == "gelu" and m.tied_embeddings
    assert m.params_b == pytest.approx(PRESETS["gpt2"].params_b, rel=0.02)
    assert m.name == "my-gpt2"


def test_mixtral_config_counts_every_expert():
    m = from_hf_config(ModelConfigRef(config="mixtral-8x7b-config.json"), DATA)
    assert (m.experts, m.n_active_experts, m.n_kv_heads) == (8, 2, 8)
    # All experts are held in memory: ~46.7B, not the ~12.9B active per token.
    assert m.params_b == pytest.approx(46.703, rel=0.02)


def test_config_params_override(tmp_path):
    m = from_hf_config(ModelConfigRef(config="llama-2-7b-config.json", params_b=7.0), DATA)
    assert m.params_b == 7.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "must hold a JSON object"),
        ("{not json", "is not valid JSON"),
        (
            json.dumps(
                {
                    "hidden_size": "4096",
                    "num_hidden_layers": 2,
                    "num_attention_heads": 2,
                    "vocab_size": 10,
                }
            ),
            # A number written as text is named as such, not said to be missing.
            'hidden_size is "4096", not a whole number. To fix: write "hidden_size": 4096',
        ),
        (
            json.dumps(
                {
                    "hidden_size": 64,
                    "num_hidden_layers": 2,
                    "num_attention_heads": 4,
                    "num_key_value_heads": 3,
                    "vocab_size": 10,
                }
            ),
            "kv_heads (3) must divide",
        ),
        (
            json.dumps(
                {
                    "hidden_size": 64,
                    "num_hidden_layers": 0,
                    "num_attention_heads": 4,
                    "vocab_size": 10,
                }
            ),
            "has unusable figures",
        ),
    ],
)
def test_bad_config_files(tmp_path, content: str, message: str):
    (tmp_path / "config.json").write_text(content)
    with pytest.raises(ValueError, match=re.escape(message)):
        from_hf_config(ModelConfigRef(config="config.json"), tmp_path)


def test_resolve_every_shape(tmp_path):
    assert resolve(None, tmp_path) is None
    assert resolve("gpt2", tmp_path) is PRESETS["gpt2"]
    inline = resolve({"params_b": 1, "hidden": 64, "layers": 2, "heads": 4, "vocab": 10}, tmp_path)
    assert isinstance(inline, ModelArch) and inline.hidden == 64
    assert resolve({"config": "gpt2-config.json"}, DATA).layers == 12
