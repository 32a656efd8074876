"""Output files are written whole or not at all.

Every file plan-buy writes goes to a hidden temporary file beside its target and is
renamed over it (``os.replace``, atomic within a folder) only once complete. A full disk,
a failed writer or an interrupt leaves the previous file as it was and no temporary file
behind; a file that cannot be written is an ``InputError`` that says which and how to fix.
A run's several files (``plan``'s workbook and per-option quote CSVs) are renamed only once
all of them are complete (``replacing_together``), so none is left new beside old ones.
Which files a plan writes is ``plan_files``'s; this module knows nothing of their content.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import interrupt
from ..errors import InputError
from .cells import csv_frame

if TYPE_CHECKING:
    import pandas as pd


FIX = "To fix: pass --out with a folder you can write to, or free space on its disk."


def cannot_write(path: Path, exc: OSError) -> InputError:
    """The error for an output that could not be written (exit 2)."""
    return InputError(f"cannot write {path}: {exc.strerror or exc}. {FIX}")


def _reserve(path: Path) -> Path:
    """Create the folder and an empty temporary file beside ``path``; return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    return tmp


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, else it is removed.

    Raises:
        InputError: the folder or the file cannot be written (an ``OSError`` in the block).
    """
    path = Path(path)
    try:
        tmp = _reserve(path)
        with interrupt.on_exit(lambda: tmp.unlink(missing_ok=True)):
            yield tmp
            os.replace(tmp, path)
    except OSError as exc:
        raise cannot_write(path, exc) from None


def check_writable(path: Path) -> None:
    """Fail fast (before a long solve) when ``path`` could not be written.

    Raises:
        InputError: the folder or a file in it cannot be created.
    """
    path = Path(path)
    try:
        _reserve(path).unlink()
    except OSError as exc:
        raise cannot_write(path, exc) from None


def write_csv(path: Path, df: pd.DataFrame) -> Path:
    """Write ``df`` as CSV atomically, every text cell safe from formula injection."""
    with replacing(path) as tmp:
        csv_frame(df).to_csv(tmp, index=False)
    return Path(path)


@contextlib.contextmanager
def replacing_together(paths: Sequence[Path]) -> Iterator[list[Path]]:
    """Like ``replacing`` for a run's several files: each is written to its temporary path,
    and only once every one is complete are they renamed over their targets, so a failure
    leaves all of the previous files as they were (none new beside old ones).

    Raises:
        InputError: a folder or a file cannot be written.
    """
    with contextlib.ExitStack() as stack:
        tmps = [stack.enter_context(_pending(Path(p))) for p in paths]
        yield tmps
        for path, tmp in zip(paths, tmps, strict=True):
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise cannot_write(Path(path), exc) from None


@contextlib.contextmanager
def _pending(path: Path) -> Iterator[Path]:
    """A reserved temporary path beside ``path``, removed on leaving unless renamed."""
    try:
        tmp = _reserve(path)
    except OSError as exc:
        raise cannot_write(path, exc) from None
    try:
        with interrupt.on_exit(lambda: tmp.unlink(missing_ok=True)):
            yield tmp
    except OSError as exc:
        raise cannot_write(path, exc) from None
    finally:
        tmp.unlink(missing_ok=True)
