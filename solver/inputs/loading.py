"""Read and validate the two input files; every problem is reported at once, with its place.

Input is parsed with a safe YAML loader (libyaml's when installed): no Python objects are
ever constructed, and a tag that asks for one is rejected. Before anything is built the
parsed node graph is checked, so that an alias bomb ("billion laughs"), a file nested
absurdly deep, or a million workloads fail in well under a second instead of hanging.

Errors become one :class:`InputError` whose problems read
``file: path.inside: what is wrong. To fix: ...``; unknown fields get "did you mean ...".
"""

from __future__ import annotations

import difflib
import re
import types
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..errors import InputError
from .base import MAX_ECHO, clip
from .catalog import Catalog, duplicate_sku_problems
from .examples import example_for
from .exclude import exclude_problems
from .files import FileProblem, read_text
from .kinds import kind_problems
from .model import MODEL_TAGS
from .names import duplicate_name_problems
from .owned import inventory_problems, site_problem
from .workload import MAX_WORKLOADS, Kind, WorkloadFile

DEFAULT_CATALOG = Path(__file__).resolve().parent.parent / "data" / "default-catalog.yaml"
"""The catalog used without ``--catalog``: package data, so an installed plan-buy finds it from
any folder. ``catalogs/default.yaml`` in the repository is the same file, for users to copy."""
MAX_FILE_BYTES = 5_000_000
"""Largest input file read; a real workload file or catalog is a few KB."""
MAX_NODES = 1_000_000
"""Most YAML values a file may expand to once aliases are followed (billion-laughs guard)."""
MAX_DEPTH = 100
"""Deepest nesting of mappings and lists accepted."""
MAX_MESSAGE = 1000
"""Longest single problem line: a validator that echoes a value cannot flood the terminal."""

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


# --- turning pydantic errors into readable lines -------------------------------------------


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + clip(part)
    return out or "(top level)"


def _members(tp: Any) -> list[Any]:
    """The concrete types inside Annotated / Optional / Union wrappers."""
    origin = get_origin(tp)
    if origin is Annotated:
        return _members(get_args(tp)[0])
    if origin in (Union, types.UnionType):
        return [m for a in get_args(tp) for m in _members(a)]
    return [tp]


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _walk(root: type[BaseModel], loc: tuple) -> tuple[Any, type[BaseModel] | None, str | None]:
    """Follow ``loc`` through the model's annotations.

    Returns:
        (the type found at ``loc`` or None, the model class owning the last field on the way,
        that field's name).
    """
    tp: Any = root
    owner, field = None, None
    for part in loc:
        nxt = None
        for m in _members(tp):
            if isinstance(part, int) and get_origin(m) is list:
                nxt = get_args(m)[0]
            elif _is_model(m) and part == m.__name__:
                nxt = m
            elif _is_model(m) and isinstance(part, str) and part in m.model_fields:
                owner, field = m, part
                nxt = m.model_fields[part].annotation
            if nxt is not None:
                break
        if nxt is None:
            return None, None, None
        tp = nxt
    if not loc or loc[-1] != field:
        owner, field = None, None
    return tp, owner, field


def _model_at(root: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    tp, _, _ = _walk(root, loc)
    models = [m for m in _members(tp) if _is_model(m)] if tp is not None else []
    return models[0] if models else None


def _nested_home(parent: type[BaseModel], key: str) -> str | None:
    """The field of ``parent`` whose own model has a field ``key`` (a workload's
    ``cpu_cores`` written beside ``data`` instead of inside it); None when none has, or
    more than one."""
    homes = [name for name, info in parent.model_fields.items()
             if any(_is_model(m) and key in m.model_fields for m in _members(info.annotation))]
    return homes[0] if len(homes) == 1 else None


def _short(value: Any) -> str:
    if isinstance(value, str):
        return repr(clip(value, MAX_ECHO - 2))
    text = repr(value)
    if isinstance(value, dict | list):
        text = f"a {'mapping' if isinstance(value, dict) else 'list'} {text}"
    return clip(text)


def _example(owner: type[BaseModel] | None, field: str | None,
             given: Any) -> tuple[str, bool] | None:
    if owner is None or field is None:
        return None
    return example_for(field, owner.model_fields[field], given)


def _fix(owner: type[BaseModel] | None, field: str | None, about: str | None,
         given: Any) -> str:
    """" To fix: write headroom: 0.2 (fraction of VRAM ...)": a value the field accepts,
    then what the field is; "" for a place that is no field."""
    if field is None:
        return ""
    example = _example(owner, field, given)
    about = about.rstrip(".") if about else about
    if example is None:
        return f" To fix: {field} = {about}" if about else ""
    text, own = example
    unquoted = " without quotes" if own else ""
    return f" To fix: write {field}: {text}{unquoted}" + (f" ({about})" if about else "")


def _describe(
    err: ErrorDetails, root: type[BaseModel] | None
) -> tuple[tuple, str, str | None]:
    """(clean location, message, typo suggestion) for one pydantic error."""
    raw_loc = tuple(err["loc"])
    loc = tuple(p for p in raw_loc if p not in MODEL_TAGS)
    kind, msg = err["type"], err["msg"].removeprefix("Value error, ")
    _, owner, field = _walk(root, raw_loc) if root else (None, None, None)
    about = owner.model_fields[field].description if owner and field else None
    about = " ".join(about.split()) if about else None  # a docstring's line breaks
    first = about.split()[0] if about else ""
    if about and first[1:] == first[1:].lower():  # "Hidden size" -> "hidden size"; "LoRA ..." stays
        about = about[0].lower() + about[1:]
    hint = _fix(owner, field, about, err.get("input"))
    if kind == "extra_forbidden":
        key = str(raw_loc[-1])
        shown = clip(key)
        parent = _model_at(root, raw_loc[:-1]) if root else None
        names = list(parent.model_fields) if parent else []
        lower = {n.lower(): n for n in names}
        close = [lower[key.lower()]] if key.lower() in lower else []
        if not close and len(key) <= MAX_ECHO:  # a long key is no typo of a field name
            close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
        if close:
            return (
                loc,
                (
                    f"unknown field '{shown}'; did you mean '{close[0]}'? "
                    f"To fix: rename it to '{close[0]}'"
                ),
                close[0],
            )
        home = _nested_home(parent, key) if parent else None
        if home is not None:
            where = (f"unknown field '{shown}' here; it belongs under '{home}'. To fix: move it "
                     f"into {home}: ({home}.{key})")
            return loc, where, None
        allowed = f"; allowed fields: {', '.join(names)}" if names else ""
        return loc, f"unknown field '{shown}'. To fix: remove it{allowed}", None
    if kind == "missing":
        example = _example(owner, field, None)
        what = f"{field}: {example[0]}" if example else "it"
        what += f" ({about.rstrip('.')})" if about else ""
        return loc, f"missing required field '{clip(raw_loc[-1])}'. To fix: add {what}", None
    if kind in ("value_error", "assertion_error"):
        # A validator that finds several problems gives one per line: each stays whole.
        return loc, "\n".join(clip(m, MAX_MESSAGE) for m in msg.split("\n")), None
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        msg = "should be a mapping of fields"
    return loc, f"{msg} (got {_short(err.get('input'))}).{hint}", None


def format_validation(path: Path, exc: ValidationError, root: Any = None) -> list[str]:
    """One readable line per problem: file, path inside it, what is wrong and how to fix it.

    Args:
        path: the file the data came from.
        exc: pydantic's error.
        root: the model class that was validated (enables "did you mean" and field hints).
    """
    root = root if _is_model(root) else None
    described = [_describe(e, root) for e in exc.errors(include_url=False)]
    # A typo'd required field gives "unknown 'layer'" and "missing 'layers'": say it once.
    renamed = {loc[:-1] + (s,) for loc, _, s in described if s}
    lines: list[str] = []
    by_loc: dict[tuple, int] = {}
    for loc, msg, _ in described:
        if loc in renamed and msg.startswith("missing required field"):
            continue
        if loc in by_loc:  # several errors at one place (union members): one line
            lines[by_loc[loc]] += f"; or {msg}"
            continue
        by_loc[loc] = len(lines)
        lines += [f"{path}: {_loc(loc)}: {m}" if loc else f"{path}: {m}"
                  for m in msg.split("\n")]
    return lines


def _hidden_workload_problems(path: Path, data: dict, exc: ValidationError) -> list[str]:
    """What a workload lacks or should not have for its kind, for each workload whose field
    errors stopped pydantic before those checks ran: every problem of a file shows at once
    instead of one fix revealing the next."""
    raw = data.get("workloads")
    if not isinstance(raw, list):
        return []
    locs = [tuple(e["loc"]) for e in exc.errors(include_url=False)]
    stopped = {loc[1] for loc in locs
               if len(loc) > 2 and loc[0] == "workloads" and isinstance(loc[1], int)}
    checked = {loc[1] for loc in locs if len(loc) == 2 and loc[0] == "workloads"}
    lines = []
    for i in sorted(stopped - checked):
        w = raw[i] if i < len(raw) else None
        if isinstance(w, dict) and w.get("kind") in get_args(Kind):
            lines += [f"{path}: workloads[{i}]: {p}" for p in kind_problems(w["kind"], w)]
    return lines


# --- the two loaders -------------------------------------------------------------------------


def load_catalog(path: Path) -> Catalog:
    """Load and validate a catalog file.

    Raises:
        InputError: listing every problem found, each with its place in the file.
    """
    path = Path(path)
    data = read_yaml(path)
    problems = [f"{path}: {p}" for p in duplicate_sku_problems(data)]
    try:
        cat = Catalog.model_validate(data, context={"skus_checked": True})
    except ValidationError as exc:
        problems += format_validation(path, exc, Catalog)
    if problems:
        raise InputError(f"{path}: invalid catalog", problems)
    return cat


def load_workloads(path: Path) -> WorkloadFile:
    """Load and validate a workload file; every model is resolved to a ModelArch.

    Model config paths are read relative to the workload file's folder.

    Raises:
        InputError: listing every problem found, each with its place in the file.
    """
    path = Path(path)
    data = read_yaml(path)
    raw = data.get("workloads")
    if isinstance(raw, list) and len(raw) > MAX_WORKLOADS:
        raise InputError(
            f"{path}: workloads: {len(raw):,} workloads; plan-buy plans at most "
            f"{MAX_WORKLOADS:,} workloads per file. To fix: merge identical jobs with `replicas`, "
            "or split the mix into several files"
        )
    names = (
        [w.get("name") if isinstance(w, dict) else None for w in raw or []]
        if isinstance(raw, list)
        else []
    )
    problems = [f"{path}: {p}" for p in duplicate_name_problems(names)]
    try:
        wf = WorkloadFile.model_validate(
            data, context={"base_dir": path.parent, "names_checked": True}
        )
    except ValidationError as exc:
        problems += format_validation(path, exc, WorkloadFile)
        problems += _hidden_workload_problems(path, data, exc)
    if problems:
        # Each workload's problems together, in file order (a stable sort keeps their order).
        at = re.compile(rf"^{re.escape(str(path))}: workloads\[(\d+)\]")
        problems.sort(key=lambda p: int(m[1]) if (m := at.match(p)) else -1)
        raise InputError(f"{path}: invalid workload file", problems)
    return wf


def check_against_catalog(path: Path, wf: WorkloadFile, catalog_path: Path, catalog: Catalog,
                          cli_exclude: tuple[str, ...] = ()) -> None:
    """What workload file ``path`` says of catalog ``catalog_path``, checked once both are
    loaded and before any solve: the SKUs its ``policy.exclude`` and ``--exclude`` name, its
    inventory, and that one server fits its site. Every problem names where it comes from,
    so a sweep refuses bad input up front instead of failing each scenario alike.

    Raises:
        InputError: exit 2, one line per problem.
    """
    path = Path(path)
    problems = [f"{path}: {p}" for p in exclude_problems(wf.policy.exclude, catalog)]
    problems += exclude_problems(cli_exclude, catalog, where="--exclude")
    problems += [f"{path}: {p}" for p in inventory_problems(wf, catalog)]
    site = site_problem(wf, catalog)
    if site is not None:
        problems.append(f"{path}: {site}")
    if problems:
        raise InputError(f"the inputs do not fit the catalog {catalog_path}", problems)
