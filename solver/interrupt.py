"""Stopping cleanly: Ctrl-C and SIGTERM end every command the same way.

An interrupted run exits 130 and leaves nothing behind: no solver process, no temporary
file. The pieces:

- ``on_exit(undo)`` holds something that must not outlive the run (a solver process, a
  temporary file or folder) for the length of a ``with`` block: ``undo`` runs when the
  block ends, however it ends. ``release_all`` runs every ``undo`` still held, for a
  process about to end without unwinding, or after a second interrupt cut one short.
- ``sigterm_interrupts`` makes SIGTERM raise ``KeyboardInterrupt`` as Ctrl-C does, so both
  unwind through the same ``finally`` blocks up to the CLI, which exits 130.
- ``worker_signals`` sets up a sweep worker: Ctrl-C is its parent's to handle, and the
  parent's SIGTERM releases what the worker holds and ends it at once.

Every ``undo`` must be safe to run twice (a signal can arrive while one runs).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
from collections.abc import Callable, Iterator

EXIT_CODE = 130
"""Exit status of an interrupted run (128 + SIGINT, the shell's convention)."""

_held: dict[int, Callable[[], None]] = {}
_keys = itertools.count()


@contextlib.contextmanager
def on_exit(undo: Callable[[], None]) -> Iterator[None]:
    """Run ``undo`` when the block ends, normally, by an error or by an interrupt."""
    key = next(_keys)
    _held[key] = undo
    try:
        yield
    finally:
        if key in _held:
            undo()  # still held if this is cut short: release_all runs it again
            _held.pop(key, None)


def release_all() -> None:
    """Run every ``undo`` still held (newest first); one that fails does not stop the rest."""
    while _held:
        _, undo = _held.popitem()
        with contextlib.suppress(Exception):
            undo()


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While the block runs, SIGTERM raises KeyboardInterrupt (main thread only)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    except ValueError:  # not the main thread: leave signals to whoever owns it
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Deferred:
    """Ctrl-C and SIGTERM while native code runs (a HiGHS solve): recorded, not raised.

    A Python signal handler runs only when the interpreter runs Python code; HiGHS calls
    back into Python at fixed points of its search, so there the handler records the signal
    and the callback asks HiGHS to stop. After the solve returns, ``raise_if_requested``
    raises ``KeyboardInterrupt`` so the run unwinds as for any interrupt (exit 130). A second
    signal raises at once, as the user clearly means it.
    """

    def __init__(self) -> None:
        self.requested = False

    def _handler(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    @contextlib.contextmanager
    def deferring(self) -> Iterator[Deferred]:
        """While the block runs, SIGINT and SIGTERM only set ``requested`` (main thread)."""
        try:
            previous = {s: signal.signal(s, self._handler)
                        for s in (signal.SIGINT, signal.SIGTERM)}
        except ValueError:  # not the main thread: signals are not ours to take
            yield self
            return
        try:
            yield self
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)

    def raise_if_requested(self) -> None:
        if self.requested:
            raise KeyboardInterrupt


def _end_worker(signum, frame) -> None:
    # The pool may send SIGTERM again once a worker has gone: it must not cut this short.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    release_all()
    os._exit(EXIT_CODE)


def worker_signals() -> None:
    """A sweep worker's signals: ignore Ctrl-C (the parent decides), end cleanly on SIGTERM."""
    _held.clear()  # a forked worker starts with a copy of its parent's: those are not its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end_worker)
