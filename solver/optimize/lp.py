"""PuLP for the modules of this package, imported after HiGHS's own module.

PuLP imports highspy under a bare ``except:``, which also swallows a Ctrl-C landing in
that import (about half a second) and marks HiGHS unavailable for the rest of the run,
which then solves with CBC. Every module here takes PuLP from this one
(``from .lp import pulp``), so highspy is imported first, where an interrupt propagates
(exit 130); PuLP then finds it already imported. The modules that only describe a plan
(``plan``, ``outcome``, ``expand``) do not import this, so they load no solver.
"""

from __future__ import annotations

import ctypes
import glob
import importlib.util


def _import_highspy() -> None:
    """Import highspy if it is installed. As PuLP does, its C extension is loaded with
    global symbols first (PuLP's comment: otherwise the C++ runtime is split between
    extensions and a solve can crash)."""
    try:
        spec = importlib.util.find_spec("highspy")
        if spec is None:
            return
        for folder in spec.submodule_search_locations or ():
            for core in glob.glob(folder + "/_core*.so"):
                ctypes.CDLL(core, ctypes.RTLD_GLOBAL)
                break
        import highspy  # noqa: F401
    except (ImportError, OSError, ValueError):
        return  # not usable here: PuLP finds the same, and plan-buy uses CBC


_import_highspy()

import pulp  # after highspy, on purpose

__all__ = ["pulp"]
