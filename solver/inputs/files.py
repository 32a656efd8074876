"""Read an input file as text: regular files only, and never more than a cap.

A directory, a named pipe (FIFO), a device such as /dev/zero or a socket is refused by what
it is, before it is opened: opening a FIFO blocks until someone writes to it, and a device
can be read forever. The bytes read are capped as well, so a file that grows while it is
read (or reports a size of 0, as /proc files do) cannot be read past the cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class FileProblem(ValueError):
    """The path cannot be read as an input file; the message says why and how to fix it."""


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_text(path: Path, limit: int, what: str) -> str:
    """The UTF-8 text of ``path``, read only if it is a regular file of at most ``limit`` bytes.

    Args:
        path: the file.
        limit: most bytes read.
        what: what the file should be, for messages ("a YAML file", "a config.json").

    Raises:
        FileProblem: missing, not a regular file, too large, unreadable or not UTF-8.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileProblem(f"no such file. To fix: check the path of {what}") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise FileProblem(f"cannot open it: {exc}. To fix: check the path of {what}") from None
    kind = _kind(mode)
    if kind is not None:
        raise FileProblem(
            f"is {kind}, not a regular file; plan-buy reads input from regular files only. "
            f"To fix: give the path of {what}"
        )
    try:
        # O_NONBLOCK: should the path become a FIFO after the check, opening does not hang.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise FileProblem(f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise FileProblem(
            f"is over {limit:,} bytes; plan-buy reads input files up to {limit:,} bytes. "
            f"To fix: give the path of {what}, not generated or unrelated content"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(
            f"cannot read the file as UTF-8 text: {exc}. To fix: save it as UTF-8"
        ) from None
