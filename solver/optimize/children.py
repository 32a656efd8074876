"""Command-line solvers (CBC) run as children that never outlive plan-buy (imports PuLP).

PuLP's CBC interface writes the problem to ``<tmpDir>/<uuid>-pulp.mps``, starts ``cbc``
with ``subprocess.Popen`` and waits for it. Interrupted in that wait, plan-buy used to
leave ``cbc`` running on to its time limit and the ``.mps``/``.sol`` files behind.
``contained(engine)`` gives one solve its own temporary folder and records the processes
PuLP starts; when the solve ends, however it ends, each is killed and the folder removed
(held through ``solver.interrupt.on_exit``, so a stopped sweep worker releases them too).

The children are started in their own session, so a Ctrl-C at the terminal reaches
plan-buy alone and plan-buy decides; on Linux the kernel also kills them if plan-buy dies
without unwinding (SIGKILL, out of memory).

PuLP starts its process through the ``subprocess`` name of ``pulp.apis.coin_api``; that
name is swapped for a recording stand-in for the length of one solve. plan-buy solves one
problem at a time per process, so the swap is never shared.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .. import interrupt
from .lp import pulp

_PR_SET_PDEATHSIG = 1


def _death_signal_setter() -> Callable[[], object] | None:
    """A pre-exec hook that has the kernel SIGKILL the child when its parent dies (Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


_SET_DEATH_SIGNAL = _death_signal_setter()


class _RecordingSubprocess:
    """``subprocess`` as PuLP sees it during a solve: Popen records what it starts."""

    def __init__(self, started: list[subprocess.Popen]):
        self._started = started

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    def Popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen:  # subprocess's name
        kwargs.setdefault("start_new_session", True)
        if _SET_DEATH_SIGNAL is not None:
            # One foreign call between fork and exec: it takes no lock another thread
            # (HiGHS's pool) could hold, the risk Python's docs warn of for preexec_fn.
            kwargs.setdefault("preexec_fn", _SET_DEATH_SIGNAL)
        proc = subprocess.Popen(*args, **kwargs)
        self._started.append(proc)
        return proc


def _end(proc: subprocess.Popen) -> None:
    """Kill ``proc`` unless it was reaped, then reap it.

    ``os.waitpid``, not ``proc.wait``: a sweep worker's SIGTERM handler runs this inside
    the ``proc.wait()`` it interrupted, which holds a lock that ``proc.wait`` would wait on.
    """
    if proc.returncode is not None:
        return
    with contextlib.suppress(OSError):
        proc.kill()
    with contextlib.suppress(OSError):
        os.waitpid(proc.pid, 0)


@contextlib.contextmanager
def contained(engine: Any) -> Iterator[None]:
    """While the block runs, ``engine``'s files and processes are this solve's own.

    For a command-line PuLP solver (one with ``tmpDir``): its files go to a fresh folder
    under the system temp dir (``TMPDIR``), removed with everything in it when the block
    ends; every process it starts is killed (if still running) and reaped then.
    In-process solvers (HiGHS) pass through unchanged.
    """
    if not hasattr(engine, "tmpDir"):
        yield
        return
    # The name is chosen before the folder exists and the undo is held before it is made,
    # so an interrupt at any point leaves no folder behind.
    folder = Path(tempfile.gettempdir()) / f"plan-buy-solve-{uuid.uuid4().hex}"
    started: list[subprocess.Popen] = []

    def undo() -> None:
        for proc in started:
            _end(proc)
        shutil.rmtree(folder, ignore_errors=True)

    coin_api = pulp.apis.coin_api
    real = coin_api.subprocess
    with interrupt.on_exit(undo):
        folder.mkdir(mode=0o700)
        engine.tmpDir = str(folder)
        coin_api.subprocess = _RecordingSubprocess(started)
        try:
            yield
        finally:
            coin_api.subprocess = real
