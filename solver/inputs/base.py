"""What every input model shares: strictness, and the string types names and notes use.

Strictness lives here once. Input models are strict (``strict=True``): a count written as
``"3"`` or ``true`` is refused instead of turned into 3 or 1, and a number written as a
string is refused too. YAML-natural numbers keep working: ``params_b: 7`` is an int that a
float field takes as 7.0. A field that should take another spelling says so itself
(``prices_as_of`` takes a date or a 'YYYY-MM-DD' string).

Strings that end up in reports, file names and solver variable names have capped lengths
and no control characters (a NUL or an escape code in a name would corrupt the workbook or
a terminal; Excel cuts cells at 32,767 characters without a word).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints

MAX_NAME = 128
"""Longest name, SKU or team (characters)."""
MAX_TEXT = 1000
"""Longest free text: descriptions, notes, sources (characters)."""
MAX_ECHO = 80
"""Longest piece of user input repeated in an error message (characters)."""


class StrictModel(BaseModel):
    """Base of every input model: unknown fields, coercion, NaN and infinity are refused."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        allow_inf_nan=False,
        use_attribute_docstrings=True,
    )


def clip(value: object, limit: int = MAX_ECHO) -> str:
    """``value`` as text for an error message, cut to ``limit`` characters with an ellipsis."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _control_chars(text: str, allowed: str = "") -> list[str]:
    return sorted(
        {f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cc" and c not in allowed}
    )


# Invisible characters a name must not hide: format characters (U+200B zero width space,
# U+202E right-to-left override, which shows "abc" for "cba") and line and paragraph
# separators (U+2028, U+2029). The zero width joiners that some scripts and emoji need
# (U+200C, U+200D) are kept.
_HIDDEN = ("Cf", "Zl", "Zp")
_JOINERS = "\u200c\u200d"


def _plain_name(text: str) -> str:
    bad = _control_chars(text)
    if bad:
        raise ValueError(
            f"contains control characters ({', '.join(bad[:5])}); names are printed in "
            "reports and used in file names. To fix: use letters, digits, spaces and "
            "punctuation only"
        )
    hidden = sorted({f"U+{ord(c):04X}" for c in text
                     if unicodedata.category(c) in _HIDDEN and c not in _JOINERS})
    if hidden:
        raise ValueError(
            f"contains invisible or direction-changing characters ({', '.join(hidden[:5])}): "
            "the name would read otherwise than it is. To fix: retype it with letters, "
            "digits, spaces and punctuation only"
        )
    return text


def _plain_text(text: str) -> str:
    bad = _control_chars(text, allowed="\t\n\r")
    if bad:
        raise ValueError(
            f"contains control characters ({', '.join(bad[:5])}). To fix: remove them; "
            "plain text, tabs and line breaks are fine"
        )
    return text


Name = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_NAME), AfterValidator(_plain_name)
]
"""A name, SKU or team: 1 to 128 characters, no control characters."""
Label = Annotated[str, StringConstraints(max_length=MAX_NAME), AfterValidator(_plain_name)]
"""An optional short label (may be empty): up to 128 characters, no control characters."""
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT), AfterValidator(_plain_text)]
"""Free text (descriptions, notes, sources): up to 1,000 characters, line breaks allowed."""
PathText = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_TEXT), AfterValidator(_plain_name)
]
"""A file path written in an input file: up to 1,000 characters, no control characters."""
