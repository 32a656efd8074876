"""What ``plan-buy sweep FILE --samples N`` does between parsing and printing: load and
check the inputs, merge the command line into the file's ``uncertainty:`` section, run.
The CLI keeps only the progress bar, the printing and the exit codes."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..inputs.loading import check_against_catalog, load_catalog, load_workloads
from .draws import resolve
from .run import UncertaintyRun
from .sweep import ProgressFn, Settings, run_uncertainty

SAMPLES_FIX = ("To fix: --samples 1000 (any whole number from 1 to 100,000), or leave it out "
               "for the file's uncertainty.samples (default 200)")


def is_monte_carlo(samples: int | None, seed: int | None, vary: tuple[str, ...]) -> bool:
    """Whether the command line asks for a Monte Carlo sweep rather than a grid."""
    return samples is not None or seed is not None or bool(vary)


def grid_axes_given(axes: dict) -> list[str]:
    """The grid options (``--budget``, ``--price`` ...) given: a sweep is one or the other."""
    return sorted({"prices": "--price"}.get(k, "--" + k.replace("_", "-"))
                  for k, v in axes.items() if v not in (None, (), ""))


def prepare(workloads: Path, catalog: Path, samples: int | None, seed: int | None,
            vary: tuple[str, ...], axes: dict):
    """The loaded inputs and the section to draw from.

    Raises:
        InputError: bad files, ``--samples`` below 1, a bad ``--vary``, grid axes given too.
    """
    if samples is not None and not 1 <= samples <= 100_000:
        raise InputError(f"--samples {samples}: a sweep draws 1 to 100,000 scenarios. "
                         f"{SAMPLES_FIX}")
    if seed is not None and not 0 <= seed < 2**32:
        raise InputError(f"--seed {seed}: a seed is a whole number from 0 to 4,294,967,295. "
                         "To fix: --seed 7")
    grid = grid_axes_given(axes)
    if grid:
        raise InputError(f"{', '.join(grid)} sweep a grid, --samples draws scenarios: one "
                         "sweep does one or the other. To fix: run them as two sweeps, or "
                         "give the range as a distribution with --vary (e.g. --vary "
                         "growth=uniform:1:1.5)")
    wf = load_workloads(workloads)
    cat = load_catalog(catalog)
    check_against_catalog(workloads, wf, catalog, cat)
    return wf, cat, resolve(wf, cat, str(workloads), samples=samples, seed=seed, vary=vary)


def run_command(workloads: Path, catalog: Path, out: Path, stem: str | None, *,
                samples: int | None, seed: int | None, vary: tuple[str, ...], axes: dict,
                settings: Settings, workbook: bool,
                on_progress: ProgressFn | None = None) -> UncertaintyRun:
    """Load, check, run; files ``<stem or name-uncertainty>.jsonl`` / ``.xlsx`` in ``out``."""
    wf, cat, unc = prepare(workloads, catalog, samples, seed, vary, axes)
    return run_uncertainty(wf, cat, unc, out, stem or f"{wf.name}-uncertainty", settings,
                           on_progress=on_progress, workbook=workbook)
