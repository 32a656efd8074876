"""Pydantic's validation errors as lines a person can act on: ``file: path.inside: what is
wrong. To fix: ...``, with "did you mean ..." for unknown fields and an example value.
"""

from __future__ import annotations

import difflib
import types
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from .base import MAX_ECHO, clip
from .examples import example_for
from .model import MODEL_TAGS

MAX_MESSAGE = 1000
"""Longest single problem line: a validator that echoes a value cannot flood the terminal."""


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
            elif isinstance(part, str) and get_origin(m) is dict:  # a mapping's value
                nxt = get_args(m)[1]
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
