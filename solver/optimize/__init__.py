"""Build and solve the purchase integer program (the only stage that imports PuLP)."""

import ctypes
import glob
import importlib.util


def _import_highspy() -> None:
    """Import HiGHS's Python module, if installed, before PuLP does.

    PuLP imports highspy under a bare ``except:``, which also swallows a Ctrl-C landing in
    that import (about half a second) and marks HiGHS unavailable for the rest of the run,
    which then solves with CBC. Imported here, before any module of this package imports
    PuLP, an interrupt propagates (exit 130); PuLP then finds highspy already imported.
    As PuLP does, its C extension is loaded with global symbols first (PuLP's own comment:
    without it the C++ runtime is split between extensions and a solve can crash).
    """
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
