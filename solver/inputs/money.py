"""Amounts as people write them: ``1500000``, ``1_500_000``, ``1.5e6``, ``500k``, ``1.5M``.

One parser for every place a budget is written, so that what works in one place works in
all: ``plan --budget``, each value of ``sweep --budget`` (and of the sweep's other axes), and
``policy.budget`` in a workload file. A suffix multiplies: k = thousand, M = million,
G = billion (either case). Thousands separators are refused rather than guessed: ``1,500``
is a list of two values to ``sweep``.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema

from .base import clip

SUFFIXES = {"k": 1e3, "m": 1e6, "g": 1e9}
"""What a trailing letter multiplies by (case-insensitive)."""
AMOUNT_PATTERN = r"^\s*[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?\s*[kKmMgG]?\s*$"
"""The text forms of an amount (for the JSON Schema; :func:`parse_amount` is the rule)."""
EXAMPLES = "1500000, 1.5M or 500k"
"""Amounts that work, for messages."""


def parse_amount(text: str) -> float:
    """A number written with an optional k / M / G suffix and ``_`` between digits.

    Args:
        text: e.g. ``"1.5M"``, ``"500k"``, ``"1_500_000"``, ``"2.5e6"``.

    Returns:
        The value (1.5M -> 1500000.0).

    Raises:
        ValueError: not a number, or not finite; the message says what would work.
    """
    t = text.strip().replace("_", "")
    scale = SUFFIXES.get(t[-1:].lower(), 1.0) if t else 1.0
    if scale != 1.0:
        t = t[:-1].rstrip()
    try:
        value = float(t) * scale
    except ValueError:
        comma = " without thousands separators" if "," in text else ""
        raise ValueError(f"'{clip(text)}' is not a number. To fix: write it as a plain "
                         f"number{comma}, e.g. {EXAMPLES}") from None
    if not math.isfinite(value):
        raise ValueError(f"'{clip(text)}' is not a finite number. To fix: write e.g. "
                         f"{EXAMPLES}")
    return value


def parse_money(value: Any) -> float:
    """A spending cap: a number, or text :func:`parse_amount` reads; it must be above 0.

    Raises:
        ValueError: not an amount, not finite, or not above 0.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        # pydantic reports a ValueError (not a TypeError) as the field's problem.
        raise ValueError(f"a budget is an amount, got {clip(repr(value))}. To fix: write "  # noqa: TRY004
                         f"e.g. {EXAMPLES}")
    amount = parse_amount(value) if isinstance(value, str) else float(value)
    if not math.isfinite(amount):
        raise ValueError(f"{value!r} is not a finite number. To fix: write e.g. {EXAMPLES}")
    if amount <= 0:
        raise ValueError(f"a budget must be above 0, got {clip(value)}. To fix: write the "
                         f"most you may spend, e.g. {EXAMPLES}")
    return amount


Money = Annotated[
    float,
    BeforeValidator(parse_money),
    Field(gt=0),
    WithJsonSchema({"anyOf": [
        {"type": "number", "exclusiveMinimum": 0},
        {"type": "string", "pattern": AMOUNT_PATTERN},
    ]}),
]
"""An amount of money above 0 in a file: a number or text such as ``1.5M`` (see module)."""
