"""Workload names: what a name may be, and what two names must differ in.

Workbook sheets and CSV rows are told apart by a workload's name, and Excel ignores case, so
two names may not differ only in case, surrounding spaces or Unicode form.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator

from .base import Name, clip


def _workload_name(name: str) -> str:
    """A workload name is not blank and has no spaces around it (a trailing space made
    'serve ' a second workload beside 'serve', told apart by nothing a reader sees)."""
    if not name.strip():
        raise ValueError("is only spaces. To fix: name the job, e.g. serve-chat")
    if name != name.strip():
        raise ValueError(f"has spaces around it. To fix: write '{clip(name.strip())}'")
    return name


WorkloadName = Annotated[Name, AfterValidator(_workload_name)]
"""A workload's name: a ``Name`` that is not blank and has no spaces around it."""


def name_key(name: str) -> str:
    """What two workload names must differ in: not only case, spaces around them or the
    Unicode form of one letter (``é`` written as one character or as e + accent). Excel
    tells sheets apart ignoring case, and a reader cannot see the rest."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def duplicate_name_problems(names: list[Any]) -> list[str]:
    """One line per workload name that repeats an earlier one (raw or validated names),
    compared by ``name_key``."""
    seen: dict[str, tuple[int, str]] = {}
    problems = []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            continue
        key = name_key(name)
        if key not in seen:
            seen[key] = (i, name)
            continue
        j, first = seen[key]
        how = ("is already the name of" if name == first else
               f"differs only in case, spaces or Unicode form from '{clip(first)}',")
        problems.append(
            f"workloads[{i}].name: '{clip(name)}' {how} workloads[{j}]; workload names must "
            f"be unique. To fix: rename one of them, e.g. '{clip(first.strip() + '-2')}'"
        )
    return problems
