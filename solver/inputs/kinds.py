"""Which fields each kind of workload takes: required figures, time targets, LoRA modules.

``kind_problems`` says what a workload of a kind lacks or should not have, from the fields
it gives (the loader also runs it on raw data whose field errors stopped validation, so all
problems show at once); ``lora_targets_value`` reads ``lora_targets``.
"""

from __future__ import annotations

import difflib
from typing import Any

from .base import clip
from .examples import FIELD_EXAMPLES, yaml_value

TRAINING_KINDS = ("train", "lora", "qlora")
TRAINING_TARGETS = ("tokens", "deadline_days", "deadline", "start", "repeat")
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


def lora_targets_value(v: Any) -> Any:
    """``lora_targets`` as written (a list of ``LORA_MODULES`` names or ``all-linear``) to
    the modules in canonical order; None stays None. ValueError with one clear message
    naming the allowed modules (not a union of type errors)."""
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
    return out + _target_problems(kind, given, lengths) + _mode_problems(kind, given)


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
    if kind in TRAINING_KINDS:
        out += _run_problems(given)
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


def _run_problems(given: dict[str, Any]) -> list[str]:
    """A training target is tokens by a deadline (deadline_days, or a deadline date with a
    horizon); start and repeat shape a run, so they need tokens (T1, H2)."""
    out = []
    ends = [f for f in ("deadline_days", "deadline") if given.get(f) is not None]
    if len(ends) == 2:
        out.append("give deadline_days or deadline, not both (a deadline date is start + "
                   "deadline_days). To fix: remove one of them")
    if given.get("tokens") is not None and not ends:
        out.append(f"tokens needs deadline_days: a training target is tokens by a deadline. "
                   f"To fix: add {_add(['deadline_days'])} (or a deadline date) or remove tokens")
    if given.get("tokens") is None:
        lone = ends + [f for f in ("start", "repeat") if given.get(f) is not None]
        if lone:
            out.append(f"{', '.join(lone)} {'needs' if len(lone) == 1 else 'need'} tokens: a "
                       "run is tokens to train by a deadline. To fix: add "
                       f"{_add(['tokens'])} or remove {', '.join(lone)}")
    return out


TRAINING_MODES = ("optimizer_in_backward", "optimizer_offload", "loss", "sharding")
"""E1 memory-mode fields of training kinds."""
INFERENCE_MODES = ("kv_cache_precision",)
"""E1 memory-mode fields of inference."""


def _mode_problems(kind: str, given: dict[str, Any]) -> list[str]:
    """E1: the memory modes belong to their kinds (training modes to train, lora and qlora;
    the KV-cache dtype to inference)."""
    wrong = [f for f in TRAINING_MODES if kind not in TRAINING_KINDS and given.get(f) is not None]
    wrong += [f for f in INFERENCE_MODES if kind != "inference" and given.get(f) is not None]
    if not wrong:
        return []
    where = ("training kinds (train, lora, qlora)" if wrong[0] in TRAINING_MODES
             else "inference")
    msg = (f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not for "
           f"{_a(kind)} '{kind}' workload ({wrong[0]} is for {where}). "
           f"To fix: remove {', '.join(wrong)} or change kind")
    return [msg]
