"""Values that work, for the "To fix" of an input error.

"To fix: headroom = fraction of VRAM and RAM kept free" restates the field; "To fix: write
headroom: 0.2" can be typed in. :func:`example_for` offers, in order, the number the person
wrote as text (``'0.2'`` -> ``0.2``), the name they wrote with the characters a name
may not hold made '-', the field's example from :data:`FIELD_EXAMPLES`, its
default, then a few plain values, and keeps the first the field itself accepts (type and
bounds), so the value shown is one that would pass.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import PydanticSchemaGenerationError, PydanticUserError, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from .base import MAX_ECHO

FIELD_EXAMPLES: dict[str, Any] = {
    # workload file
    "name": "chat-serving", "team": "research", "kind": "inference", "model": "llama-3.1-8b",
    "seq_len": 4096, "global_batch": 512, "lora_rank": 16, "context": 4096, "batch": "auto",
    "tokens": 1.0e11, "deadline_days": 14, "tokens_per_s": 5000, "requests_per_s": 20,
    "prompt_tokens": 1024, "output_tokens": 256, "max_tpot_ms": 50, "max_ttft_ms": 500,
    "efficiency": 0.5, "budget": 1_500_000, "cpu_cores": 16, "in_memory_gb": 32,
    "dataset_tb": 2, "checkpoints_tb": 1, "start": "2027-01-04", "deadline": "2027-01-31",
    "months": 36, "step_days": 1, "every_days": 14, "until": "2027-06-30", "max_gpus": 64,
    "min_hours": 1, "comm_overlap": 0.5, "nic_slots": 2, "link_price": 300, "gbps": 100,
    "ports": 2, "fabric": "infiniband", "min_gbps": 200, "span_servers": False,
    "step_overhead_ms": 0.5,
    "params_b": 7, "hidden": 4096, "layers": 32, "heads": 32, "kv_heads": 8,
    "vocab": 32000, "intermediate": 14336, "active_experts": 2, "head_dim": 128,
    "racks": 2, "rack_kw": 15, "rack_units": 42, "kwh_price": 0.12,
    "rack_cost_per_year": 12000, "support_pct_per_year": 0.1, "dimm_count": 16,
    "gpu": "rtx-4090", "peak_gb": 17.5, "meter": "nvidia_smi",
    "low": 0.9, "high": 1.2, "mode": 1.0, "sd": 0.1, "mean": 1.0, "low_pct": -10,
    "high_pct": 10, "samples": 1000, "seed": 7, "uncertainty": {"samples": 1000},
    # catalog
    "currency": "USD", "prices_as_of": "2026-10-01", "vram_gb": 80, "mem_bw_gbps": 3350,
    "bf16_tflops": 989, "fp8_tflops": 1979, "power_w": 700, "nvlink_gbps": 900,
    "nvlink_domain": 8, "price": 25000, "per_gpu_hour": 2.5, "speed_mts": 4800,
    "size_gb": 64, "size_tb": 3.84, "gpu_slots": 8, "dimm_slots": 32,
    "memory_channels": 8, "drive_bays": 8, "mfu": 0.4, "mbu": 0.7, "arch": "hopper",
    "form_factor": "pcie", "form_factors": ["pcie"], "type": "ddr5", "memory_type": "ddr5",
    "mlp": "swiglu", "gpu_counts": [1, 2, 4, 8], "lora_targets": ("q", "v"),
    # memory modes (E1)
    "optimizer_in_backward": True, "optimizer_offload": "cpu", "loss": "chunked",
    "sharding": "zero3", "kv_cache_precision": "fp8",
}
"""A realistic value per field name, where a default is none or would not show the unit."""
_FALLBACKS = (1, 0.5, 0, 8, 100, 1000, True, "auto")


def yaml_value(value: Any) -> str:
    """``value`` as it is written in YAML: ``1500000``, ``1.0e+11``, ``0.2``, ``true``, ``[q, v]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(yaml_value(v) for v in value) + "]"
    if isinstance(value, float) and math.isfinite(value):
        if value.is_integer() and abs(value) < 1e7:
            return str(int(value))
        if abs(value) >= 1e7:
            return f"{value:.1e}"  # 1.0e+11: a number to YAML 1.1 and 1.2 loaders alike
        return repr(value)
    return str(value)


def _as_number(text: Any) -> Any:
    """The number ``text`` spells (``'0.2'`` -> 0.2, ``'2'`` -> 2), else None."""
    if not isinstance(text, str):
        return None
    try:
        return int(text.strip())
    except ValueError:
        pass
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _cleaned(text: Any) -> str | None:
    """``text`` with runs of characters other than letters, digits, '.', '_' and '-' made one
    '-' (``../etc/passwd`` -> ``etc-passwd``): the person's own name, made valid."""
    if not isinstance(text, str):
        return None
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._")
    # Only a name that needed cleaning, and short enough to repeat in a message.
    return cleaned if cleaned and cleaned != text and len(cleaned) <= MAX_ECHO else None


def example_for(name: str, info: FieldInfo, given: Any = None) -> tuple[str, bool] | None:
    """A value field ``name`` accepts, as YAML text, and whether it is the person's own
    number written without quotes; None when no candidate passes (a SKU list, a mapping).

    Args:
        name: the field's name.
        info: its pydantic FieldInfo (type, bounds).
        given: what the person wrote, if any.
    """
    try:
        form: Any = Annotated[info.annotation, info]  # the field's type with its bounds
        adapter: TypeAdapter[Any] = TypeAdapter(form)
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError):
        # An annotation pydantic cannot adapt alone: no example rather than a crash.
        return None
    own = _as_number(given)
    default = None if info.default is PydanticUndefined else info.default
    candidates = [own, _cleaned(given), FIELD_EXAMPLES.get(name), default, *_FALLBACKS]
    for i, value in enumerate(candidates):
        if value is None or (isinstance(value, dict | list | tuple) and not value):
            continue
        try:
            adapter.validate_python(value, strict=True)
        except (ValidationError, ValueError, TypeError):
            continue
        return yaml_value(value), i == 0
    return None
