"""Reading one YAML input file safely: plain types only, bombs and absurd nesting refused.

Input is parsed with a safe YAML loader (libyaml's when installed): no Python objects are
ever constructed, and a tag that asks for one is rejected. Before anything is built the
parsed node graph is checked, so that an alias bomb ("billion laughs"), a file nested
absurdly deep, or a million workloads fail in well under a second instead of hanging.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError
from .base import clip
from .files import FileProblem, read_text

MAX_FILE_BYTES = 5_000_000
"""Largest input file read; a real workload file or catalog is a few KB."""
MAX_NODES = 1_000_000
"""Most YAML values a file may expand to once aliases are followed (billion-laughs guard)."""
MAX_DEPTH = 100
"""Deepest nesting of mappings and lists accepted."""
_SAFE_TAGS = {
    f"tag:yaml.org,2002:{t}"
    for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "merge")
}


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML, reading ``1e11`` and ``1.0e11`` as numbers as YAML 1.2 does.

    YAML 1.1 (PyYAML's default) wants a dot and a signed exponent (``1.0e+11``) and reads the
    plain scientific notation people write for token counts as a string.
    """


yaml.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
    Loader=_Loader,
)
_CHECKED_SCALARS = {f"tag:yaml.org,2002:{t}" for t in ("int", "float", "timestamp")}
"""Scalars whose construction can fail (a date like 2026-13-45, an int of 5,000 digits)."""
SHAPE_HINT = (
    "see workloads/small.yaml (a workload mix) or catalogs/default.yaml (a catalog) for the shape"
)


def _yaml_error(path: Path, exc: yaml.YAMLError) -> InputError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "an unknown line"
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    detail = f"{context}, {problem}" if context else problem
    return InputError(
        f"{path}: YAML syntax error at {where}: {detail}. "
        "To fix: check indentation, colons, brackets and quotes on that line or the one above."
    )


def _scalar_problem(path: Path, node: yaml.ScalarNode, loader: Any) -> str | None:
    """Why YAML cannot build this number or date (it raises a bare ValueError), or None."""
    try:
        loader.construct_object(node)
    except (ValueError, OverflowError) as exc:
        where = f"line {node.start_mark.line + 1}, column {node.start_mark.column + 1}"
        if node.tag.endswith("timestamp"):
            return (
                f"{path}: {where}: '{clip(node.value)}' reads as a date but is not a real "
                f"one ({exc}). To fix: write a valid date as YYYY-MM-DD, or put the value "
                f"in quotes if it is text ('{clip(node.value)}')"
            )
        return (
            f"{path}: {where}: '{clip(node.value)}' reads as a number but cannot be one "
            f"({clip(exc)}). To fix: write a plain number, or put the value in quotes if it is text"
        )
    return None


def _check_nodes(path: Path, root: yaml.Node, loader: Any = None) -> list[str]:
    """Problems of the parsed node graph: unsafe tags, duplicate keys, depth, expanded size,
    and numbers or dates that YAML recognises but cannot build (2026-13-45)."""
    problems: list[str] = []
    sizes: dict[int, int] = {}

    def line(node: yaml.Node) -> int:
        return node.start_mark.line + 1

    def walk(node: yaml.Node, depth: int) -> int:
        key = id(node)
        if key in sizes:  # an alias: counted again by its parent, checked once
            return sizes[key]
        sizes[key] = 1  # guards against recursive aliases
        if node.tag not in _SAFE_TAGS:
            problems.append(
                f"{path}: line {line(node)}: YAML tag '{clip(node.tag)}' is not allowed; plan-buy "
                "reads plain YAML only and never builds objects from tags. To fix: remove "
                "the tag and write the value as plain text, a number, a list or a mapping"
            )
        if loader is not None and isinstance(node, yaml.ScalarNode) and node.tag in _CHECKED_SCALARS:
            problem = _scalar_problem(path, node, loader)
            if problem:
                problems.append(problem)
        if depth > MAX_DEPTH:
            problems.append(
                f"{path}: line {line(node)}: nested more than {MAX_DEPTH} levels deep. "
                f"To fix: input files are a few levels deep; {SHAPE_HINT}"
            )
            return 1
        total = 1
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value != "<<":
                    if k.value in seen:
                        problems.append(
                            f"{path}: line {line(k)}: key '{clip(k.value)}' appears twice in one "
                            f"mapping (first on line {seen[k.value]}). To fix: keep one of them"
                        )
                    else:
                        seen[k.value] = line(k)
                total += walk(k, depth + 1) + walk(v, depth + 1)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                total += walk(item, depth + 1)
        sizes[key] = total
        return total

    size = walk(root, 0)
    if size > MAX_NODES:
        problems.append(
            f"{path}: the file expands to {size:,} values once YAML aliases (*name) are "
            f"followed; plan-buy reads at most {MAX_NODES:,}. To fix: write the entries out "
            "plainly; a real workload file or catalog holds a few thousand values"
        )
    return problems


def read_yaml(path: Path) -> Any:
    """Parse one YAML file safely; InputError for a missing, huge, empty or malformed file.

    Returns:
        The top-level mapping, built from plain YAML types only.
    """
    path = Path(path)
    try:
        text = read_text(path, MAX_FILE_BYTES, "the YAML file itself (a workload mix or catalog)")
    except FileProblem as exc:
        raise InputError(f"{path}: {exc}") from None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise InputError(f"{path}: the file is empty. To fix: {SHAPE_HINT}.")
        problems = _check_nodes(path, node, loader)
        if problems:
            raise InputError(f"{path}: cannot be read safely as plain YAML", problems)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise _yaml_error(path, exc) from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to read.") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise InputError(
            f"{path}: the top level must be a mapping of fields (name: ..., workloads: ...), "
            f"got {type(data).__name__}. To fix: {SHAPE_HINT}."
        )
    return data
