"""Read and validate the two input files; every problem is reported at once, with its place.

Input is parsed with ``yaml.safe_load`` (no object construction). Errors become one
``InputError`` whose problems read ``file: path.inside: what is wrong. To fix: ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .catalog import Catalog
from .errors import InputError
from .presets import resolve
from .workload import WorkloadFile

MAX_FILE_BYTES = 5_000_000


def read_yaml(path: Path) -> Any:
    """Parse one YAML file safely; InputError for a missing, huge, empty or malformed file."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file. To fix: check the path.")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise InputError(
            f"{path}: file is {size:,} bytes; plan-buy reads input files up to "
            f"{MAX_FILE_BYTES:,} bytes. To fix: split the mix or remove generated content."
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the file: {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(
            f"{path}: YAML syntax error at {where}: {problem}. "
            "To fix: check indentation, colons and quotes on that line."
        ) from None
    if data is None:
        raise InputError(f"{path}: the file is empty. To fix: see shared/examples/ for the shape.")
    if not isinstance(data, dict):
        raise InputError(
            f"{path}: the top level must be a mapping of fields, got {type(data).__name__}."
        )
    return data


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def format_validation(path: Path, exc: ValidationError, model_fields: dict | None = None) -> list[str]:
    """One readable line per pydantic error: file, path inside it, what is wrong."""
    lines = []
    for err in exc.errors(include_url=False):
        # Union members add their class name to the location; drop those for readability.
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p[:1].isupper()))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field (typo?). To fix: remove it or use a documented field name"
        lines.append(f"{path}: {_loc(loc)}: {msg}")
    return lines


def load_catalog(path: Path) -> Catalog:
    """Load and validate a catalog file."""
    path = Path(path)
    data = read_yaml(path)
    try:
        return Catalog.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{path}: invalid catalog", format_validation(path, exc)) from None


def load_workloads(path: Path) -> WorkloadFile:
    """Load and validate a workload file; every model is resolved to a ModelArch."""
    path = Path(path)
    data = read_yaml(path)
    try:
        wf = WorkloadFile.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{path}: invalid workload file", format_validation(path, exc)) from None
    problems = []
    resolved = []
    for i, w in enumerate(wf.workloads):
        try:
            resolved.append(w.model_copy(update={"model": resolve(w.model, path.parent)}))
        except ValueError as exc:
            problems.append(f"{path}: workloads[{i}].model: {exc}")
    if problems:
        raise InputError(f"{path}: invalid workload file", problems)
    return wf.model_copy(update={"workloads": resolved})
