"""plan-buy's command line: parse options, call the library, print, map errors to exit codes.

No business logic lives here; every command is a few lines over ``solver``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import sys
import threading
from pathlib import Path
from typing import Any

import click

from solver import __version__, interrupt
from solver.errors import InputError, NothingServedError, PlanBuyError


class DefaultToPlan(click.Group):
    """``plan-buy FILE`` means ``plan-buy plan FILE``."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["plan", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Ctrl-C and SIGTERM end every command alike: solvers and temp files gone, exit 130."""
        with interrupt.sigterm_interrupts():
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt:
                interrupt.release_all()
                click.echo("plan-buy: interrupted", err=True)
                ctx.exit(interrupt.EXIT_CODE)


class FiniteFloatRange(click.FloatRange):
    """A FloatRange that also refuses nan and inf (both pass every range comparison)."""

    def convert(self, value, param, ctx):
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number. To fix: give a number "
                      f"({self._describe_range()})", param, ctx)
        return rv


class Money(click.ParamType):
    """An amount above 0 read by the one money parser (1500000, 1.5M, 500k), as
    policy.budget and each value of sweep --budget are."""

    name = "AMOUNT"

    def convert(self, value, param, ctx):
        from solver.inputs.money import parse_money

        try:
            return parse_money(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


OUT_FILE_TYPES = (".xlsx", ".xls", ".xlsm", ".ods", ".csv", ".json", ".txt", ".pdf")
"""Endings that make ``--out`` a file name rather than a folder."""


def _out_option(writes: tuple[str, ...], help: str):
    """``--out``: a folder, or the name of a file of a type the command writes (``writes``,
    the first being the main one). Another file type is refused rather than made a folder."""

    def check(ctx: click.Context, param: click.Parameter, value: Path) -> Path:
        suffix = value.suffix.lower()
        if value.is_dir() or suffix in writes:
            return value
        if suffix in OUT_FILE_TYPES or value.is_file():
            kinds = " and ".join(writes)
            raise click.BadParameter(
                f"'{value}' is {'an existing file' if value.is_file() else f'a {suffix} file'}; "
                f"--out takes a folder or a file name ending {' or '.join(writes)} (this "
                f"command writes {kinds} files). To fix: --out {value.with_suffix(writes[0])}, "
                f"or a folder such as --out {value.parent / (value.stem + '-out')}", ctx, param)
        return value

    return click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("out"),
                        show_default=True, callback=check, help=help)


def _out_place(out: Path, stem: str) -> tuple[Path, str]:
    """(folder, file stem) of a run's files: ``--out`` names a folder (files
    ``<out>/<stem>.xlsx``...) or a file (``report.xlsx``): that file, and the run's other
    files beside it under its stem (``report.csv``)."""
    if out.suffix.lower() in OUT_FILE_TYPES and not out.is_dir():
        return out.parent, out.stem
    return out, stem


def _fail(exc: PlanBuyError) -> None:
    message = f"plan-buy: {exc}"
    if sys.stderr.isatty():  # a pipe or a log file keeps each line whole, for grep
        from solver.report.text import terminal_width, wrap_message

        message = wrap_message(message, terminal_width(sys.stderr))
    click.echo(message, err=True)
    sys.exit(exc.exit_code)


def _import_meanwhile(module: str) -> None:
    """Import ``module`` on another thread while this one plans: the workbook's pandas takes
    a tenth of a second or more to import, time the solver's own threads leave idle. The
    later ``import`` of it waits for this one; an import error is raised there, not here."""
    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(module)

    threading.Thread(target=load, name=f"import {module}", daemon=True).start()


def _default_catalog(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path:
    # The shipped catalog lives inside the package, so it is found from any working folder;
    # resolved here, not at import, so --help and --version stay fast.
    if value is not None:
        return value
    from solver.inputs.loading import DEFAULT_CATALOG

    return DEFAULT_CATALOG
def _print(text: str) -> None:
    """Print to stdout; a full disk or a closed pipe is a clear error (exit 2), no traceback."""
    try:
        click.echo(text)
        sys.stdout.flush()
    except OSError as exc:
        # Python flushes stdout again on exit; point it at the null device so that is silent.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        _fail(InputError(
            f"cannot write to standard output: {exc.strerror or exc}. To fix: redirect it "
            "to a file on a disk with free space, or to a program that reads all of it"
        ))


class _Progress:
    """Stage, best cost so far and seconds on stderr, once a plan has run PROGRESS_AFTER_S:
    refreshed every PROGRESS_EVERY_S by a thread of its own, so a long search shows too
    (the pipeline reports stages, and each better plan rank 1's search finds)."""

    def __init__(self, started: float, hint: str | None = None,
                 best: str = "cheapest so far") -> None:
        self.started = started
        self.hint = hint
        """Said once, on a line of its own, when the plan has run HINT_AFTER_S."""
        self.best_words = best
        """What the best figure is: its cost, or its TCO under objective tco."""
        self.stage = "starting"
        self.best: float | None = None
        self.shown = False
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._refresh, daemon=True)
        self.thread.start()

    def __call__(self, stage: str, best: float | None) -> None:
        with self.lock:
            self.stage, self.best = stage, best
        self._show()

    def _refresh(self) -> None:
        while not self.stop.wait(PROGRESS_EVERY_S):
            self._show()

    def _show(self) -> None:
        import time

        from solver.report.text import terminal_width, wrap_message

        seconds = time.perf_counter() - self.started
        if seconds < PROGRESS_AFTER_S:
            return
        with self.lock:
            if self.stop.is_set():
                return
            width = terminal_width(sys.stderr) - 1
            if self.hint is not None and seconds >= HINT_AFTER_S:
                click.echo("\r\033[K" + wrap_message(f"plan-buy: {self.hint}", width),
                           err=True)
                self.hint = None
            cost = f" ({self.best_words} {self.best:,.0f})" if self.best is not None else ""
            line = f"plan-buy: {self.stage}{cost}... {seconds:.0f} s"
            # One line, never wrapped: \r returns only to the start of the last line.
            if len(line) > width:
                line = line[:max(0, width - 3)] + "..."
            click.echo(f"\r\033[K{line}", err=True, nl=False)
            self.shown = True

    def done(self) -> None:
        with self.lock:
            self.stop.set()
            if self.shown:
                click.echo("\r\033[K", err=True, nl=False)


PROGRESS_AFTER_S = 2.0
"""A plan that has run longer than this shows its stage on a terminal."""
PROGRESS_EVERY_S = 1.0
"""How often the progress line is drawn again (its seconds move on)."""
HINT_AFTER_S = 30.0
"""A plan without --time-limit that has run this long says once how to stop sooner."""
NO_LIMIT_HINT = ("no --time-limit: the cheapest plan is being proven to within --gap, which "
                 "can take minutes on a large mix; --time-limit SECONDS returns the best "
                 "plan found by then, with how far it may be from the cheapest")


catalog_option = click.option(
    "--catalog",
    type=click.Path(path_type=Path),
    default=None,
    callback=_default_catalog,
    help="Priced hardware catalog (YAML). [default: the catalog shipped with plan-buy, "
         "identical to catalogs/default.yaml]",
)
# Spelled out here rather than read from solver.optimize.engines: importing it would load PuLP at
# start-up for every command.
solver_option = click.option(
    "--solver", type=click.Choice(["highs", "cbc"]), default=None,
    help="MIP solver [default: highs when installed, else cbc].",
)
gap_option = click.option(
    "--gap", type=FiniteFloatRange(0, 1), default=1e-4, show_default=True,
    help="Relative MIP gap counted as optimal.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document only.")


@click.group(cls=DefaultToPlan, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="plan-buy")
def main() -> None:
    """Plan what GPU hardware to buy for a workload mix.

    plan-buy WORKLOADS.yaml is the same as plan-buy plan WORKLOADS.yaml.
    """


@main.command()
@click.argument("workloads", type=click.Path(path_type=Path))
@catalog_option
@click.option("--gpu", "gpus", multiple=True, help="Only this GPU SKU (repeatable).")
@json_option
def estimate(workloads: Path, catalog: Path, gpus: tuple[str, ...], as_json: bool) -> None:
    """Per-workload VRAM and host-RAM breakdown for every GPU and parallel degree."""
    from solver.inputs.loading import load_catalog, load_workloads
    from solver.report.estimate_table import (
        estimate_document,
        estimate_rows,
        render_estimate_table,
        run_hours_rows,
    )
    from solver.report.text import terminal_width

    try:
        wf = load_workloads(workloads)
        cat = load_catalog(catalog)
        rows = estimate_rows(wf, cat, gpus)
        hours = run_hours_rows(wf, cat, gpus)
    except PlanBuyError as exc:
        _fail(exc)
    if as_json:
        _print(json.dumps(estimate_document(wf, cat, rows, hours), indent=2))
    else:
        _print(render_estimate_table(wf, cat, rows, width=terminal_width(sys.stdout), hours=hours))


def _kept(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """Keep a --robust setting in the context (the command has enough arguments)."""
    ctx.meta[param.name or ""] = value
    return value


def _robust_answer(path: Path, wf, cat, target: float, samples: int | None,
                   seed: int | None, answer_of, progress=None):
    """``plan --robust``: the plan of ``uncertainty.robust`` (the library decides)."""
    from solver.optimize.answer import Answer
    from solver.uncertainty.draws import resolve
    from solver.uncertainty.robust import plan_robust

    unc = resolve(wf, cat, str(path), samples=samples, seed=seed)
    return Answer(plan_robust(wf, cat, unc, target, lambda f: answer_of(f).result,
                              tell=progress))



@main.command()
@click.argument("workloads", type=click.Path(path_type=Path))
@catalog_option
@click.option("--top", type=click.IntRange(1, 20), default=3, show_default=True,
              help="How many distinct purchase plans to rank.")
@click.option("--budget", type=Money(), default=None,
              help="Spending cap (catalog currency; 1500000, 1.5M or 500k); overrides the "
                   "file's policy.budget.")
@_out_option((".xlsx",), "Folder for the workbook (<folder>/<name>.xlsx), or the workbook's "
                         "own file name ending .xlsx.")
@solver_option
@click.option("--time-limit", type=FiniteFloatRange(min=1), default=None,
              help="Seconds for the whole run; the best plan found by then is reported "
                   "(feasible, with its gap).")
@gap_option
@click.option("--alternatives", type=click.Choice(["kinds", "gpu-mix", "hardware"]),
              default="kinds", show_default=True,
              help="What options 2.. are: kinds = within --slack of the cheapest, each pushing one "
                   "direction (lowest TCO with policy.tco, fewest servers, no consumer GPUs, fewest "
                   "SKUs, lowest power, most spare VRAM); gpu-mix / hardware = the next cheapest "
                   "plans with another GPU mix / another GPU or server mix.")
@click.option("--slack", type=FiniteFloatRange(0, 1), default=0.05, show_default=True,
              help="With --alternatives kinds: how much more than the cheapest plan an "
                   "alternative may cost, as a fraction (0.05 = 5%); in TCO, over option 1's, "
                   "under policy.objective: tco.")
@click.option("--distinct", type=click.Choice(["gpus", "hardware"]), default=None, hidden=True,
              help="Old spelling of --alternatives gpu-mix / hardware.")
@click.option("--no-workbook", is_flag=True, help="Do not write the Excel workbook.")
@click.option("--exclude", "exclude", multiple=True, metavar="SKU",
              help="Never buy this SKU (GPU, platform, DIMM or drive); repeatable, adds to "
                   "the file's policy.exclude.")
@click.option("--robust", type=FiniteFloatRange(0.01, 1), default=None, metavar="P",
              help="Buy a pool that holds (every memory rule, target and deadline) in at "
                   "least this share of sampled scenarios, e.g. 0.9; the scenarios are the "
                   "file's uncertainty section (docs/sweep.md).")
@click.option("--samples", type=int, default=None, expose_value=False, callback=_kept,
              help="With --robust: scenarios drawn (default the file's uncertainty.samples).")
@click.option("--seed", type=int, default=None, expose_value=False, callback=_kept,
              help="With --robust: seed of the draws (default the file's uncertainty.seed).")
@json_option
def plan(workloads: Path, catalog: Path, top: int, budget: float | None, out_dir: Path,
         solver: str | None, time_limit: float | None, gap: float, alternatives: str,
         slack: float, distinct: str | None, no_workbook: bool, exclude: tuple[str, ...],
         robust: float | None, as_json: bool) -> None:
    """Solve for the cheapest pool: print the ranked options, write out/<name>.xlsx."""
    from solver.optimize.budget import process_started, workbook_reserve

    started = process_started()  # --time-limit counts from the command line, not from here
    from solver.inputs.loading import check_against_catalog, load_catalog, load_workloads
    from solver.inputs.scenario import with_exclusions, with_policy
    from solver.optimize.answer import answer
    from solver.report.summary import render_plan_summary
    from solver.report.text import terminal_width

    try:
        loaded = load_workloads(workloads)
        cat = load_catalog(catalog)
        check_against_catalog(workloads, loaded, catalog, cat, exclude)
        wf = with_exclusions(with_policy(loaded, budget=budget), exclude)
        if not no_workbook:
            from solver.report.files import check_writable

            folder, stem = _out_place(out_dir, wf.name)
            check_writable(folder / f"{stem}.xlsx")
            _import_meanwhile("solver.report.workbook")
        reserve = 0.0 if no_workbook else workbook_reserve(
            sum(wf.planned_replicas(w) for w in wf.workloads), top)
        if distinct is not None:
            alternatives = "gpu-mix" if distinct == "gpus" else "hardware"
        progress = None if as_json or not sys.stderr.isatty() else _Progress(
            started, NO_LIMIT_HINT if time_limit is None else None,
            "lowest TCO so far" if wf.policy.objective == "tco" else "cheapest so far")
        samples, seed = (click.get_current_context().meta.get(k) for k in ("samples", "seed"))
        if robust is None and wf.uncertainty is not None:
            robust = wf.uncertainty.robust  # the file's own uncertainty.robust
        if (samples is not None or seed is not None) and robust is None:
            raise InputError("--samples and --seed draw the scenarios of --robust. To fix: "
                             "add --robust 0.9, or use plan-buy sweep --samples N")
        try:
            if robust is None:
                got = answer(wf, cat, top=top, solver=solver, time_limit=time_limit, gap=gap,
                             alternatives=alternatives, slack=slack, started=started,
                             reserve_s=reserve, progress=progress)
            else:
                got = _robust_answer(workloads, wf, cat, robust, samples, seed,
                                     lambda f: answer(f, cat, top=top, solver=solver,
                                                      time_limit=time_limit, gap=gap,
                                                      alternatives=alternatives, slack=slack,
                                                      progress=progress), progress)
        finally:
            if progress is not None:
                progress.done()
        result, full = got.result, got.full
        book: Path | None = None
        quotes: list[Path] = []
        if not no_workbook:
            from solver.report.plan_files import write_plan_files

            book, quotes = write_plan_files(folder / f"{stem}.xlsx", result, wf, cat,
                                            {"workloads": workloads, "catalog": catalog},
                                            full=full)
    except NothingServedError as exc:
        if as_json:  # the facts as a document too; the message still goes to stderr
            _print(json.dumps(exc.to_json(), indent=2))
        _fail(exc)
    except PlanBuyError as exc:
        _fail(exc)
    if as_json:
        _print(json.dumps(got.to_json(), indent=2))
    else:
        _print(render_plan_summary(result, cat, wf.name, book, wf=wf, full=full,
                                   width=terminal_width(sys.stdout), quotes=quotes))


@main.command()
@click.argument("workloads", type=click.Path(path_type=Path))
@catalog_option
@click.option("--budget", default=None, metavar="START:STOP:STEPS|B1,B2,...",
              help="Budgets (catalog currency; 500k, 1.5M allowed). Default: the file's "
                   "policy.budget, else none (each scenario is the cheapest full plan).")
@click.option("--growth", default=None, metavar="VALUES",
              help="policy.growth values (demand multiplier: each workload plans "
                   "ceil(replicas x growth) replicas), e.g. 1,1.25,1.5.")
@click.option("--headroom", default=None, metavar="VALUES",
              help="policy.headroom values in [0, 1) (share of VRAM and host RAM kept free), "
                   "e.g. 0.1,0.2,0.3.")
@click.option("--price", "prices", multiple=True, metavar="SKU_OR_KIND=MULT[,MULT...]",
              help="Scale unit prices of a SKU or a kind (gpu, platform, memory, storage, network); "
                   "repeatable; each is one axis.")
@click.option("--kwh-price", default=None, metavar="VALUES",
              help="policy.tco.kwh_price values (per kWh), e.g. 0.08,0.15,0.30.")
@click.option("--years", default=None, metavar="VALUES",
              help="policy.tco.years values (whole years), e.g. 3,5.")
@click.option("--objective", default=None, metavar="capex,tco",
              help="policy.objective values: minimise capital cost, TCO, or both.")
@click.option("--rent-price", default=None, metavar="VALUES",
              help="Scale every catalog cloud price per GPU-hour (needs policy.horizon), "
                   "e.g. 0.5,1,2.")
@click.option("--horizon-months", default=None, metavar="VALUES",
              help="policy.horizon.months values (needs policy.horizon), e.g. 12,24,36.")
@click.option("--runs", multiple=True, metavar="WORKLOAD=N[,N...]",
              help="How many runs of a finite job start (its repeat, monthly by default); "
                   "repeatable; each is one axis.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: all CPUs].")
@_out_option((".xlsx", ".csv"), "Folder for the CSV and workbook (<folder>/<name>-sweep.csv, "
                                ".xlsx), or a file name ending .xlsx or .csv: report.xlsx "
                                "writes report.xlsx and report.csv.")
@solver_option
@click.option("--time-limit", type=FiniteFloatRange(min=1), default=None,
              help="Seconds for each scenario's run; a scenario that runs out says so.")
@gap_option
@click.option("--no-workbook", is_flag=True, help="Write the CSV only.")
@click.option("--samples", type=int, default=None,
              help="Monte Carlo: draw this many scenarios from the file's uncertainty: "
                   "section (docs/sweep.md, Uncertainty) instead of sweeping a grid.")
@click.option("--seed", type=int, default=None, help="Seed of the draws (same seed, same "
              "scenarios) [default: uncertainty.seed, else 0].")
@click.option("--vary", multiple=True, metavar="KEY=SHAPE",
              help="Draw KEY from SHAPE (repeatable), e.g. price.gpu=lognormal:0.15, "
                   "growth=normal:1.25:0.1, rent=uniform:0.8:1.5, "
                   "error.peak_memory=uniform:-10:10.")
@click.option("--scheduler", default=None, metavar="tcp://HOST:8786",
              help="Run the scenarios on this running Dask scheduler [default: "
                   "DASK_SCHEDULER_ADDRESS, else this machine: --jobs worker processes, "
                   "a local Dask cluster for --samples].")
@json_option
def sweep(workloads: Path, catalog: Path, jobs: int | None, out_dir: Path,
          solver: str | None, time_limit: float | None, gap: float, no_workbook: bool,
          as_json: bool, samples: int | None, seed: int | None, vary: tuple[str, ...],
          scheduler: str | None, **axes: Any) -> None:
    """What each budget / growth / headroom / price scenario buys, and the smallest budget
    that serves every workload; with --samples, how likely each option is to hold when
    prices, demand and estimates are off, and what it costs in the worst 10%.

    The scenarios are the cartesian product of the axes. Writes out/<name>-sweep.csv and
    out/<name>-sweep.xlsx; Ctrl-C stops and keeps the finished scenarios (exit 130).
    --samples writes out/<name>-uncertainty.jsonl and .xlsx; Ctrl-C leaves neither.
    """
    from solver.uncertainty.command import is_monte_carlo

    if is_monte_carlo(samples, seed, vary):
        return _sweep_uncertainty(workloads, catalog, jobs, out_dir, solver, time_limit, gap,
                                  no_workbook, as_json, samples, seed, vary, scheduler, axes)
    from solver.inputs.loading import check_against_catalog, load_catalog, load_workloads
    from solver.optimize.engines import default_solver
    from solver.report.text import terminal_width
    from solver.sweep.render import render_sweep
    from solver.sweep.report import sweep_document, write_sweep_files
    from solver.sweep.run import run_sweep
    from solver.sweep.scenarios import build_sweep

    try:
        wf = load_workloads(workloads)
        cat = load_catalog(catalog)
        check_against_catalog(workloads, wf, catalog, cat)
        grid = build_sweep(wf, cat, **axes)  # one keyword per axis option
        solver = solver or default_solver()
        bar = (click.progressbar(length=len(grid.scenarios), label="scenarios", file=sys.stderr)
               if sys.stderr.isatty() else None)
        seen = [0]

        def progress(done: int, total: int) -> None:
            if bar is not None:
                bar.update(done - seen[0])
            seen[0] = done

        try:
            run = run_sweep(grid, jobs=jobs, solver=solver, time_limit=time_limit, gap=gap,
                            with_base=not no_workbook, on_progress=progress,
                            scheduler=scheduler)
        finally:
            if bar is not None:
                bar.render_finish()
        folder, stem = _out_place(out_dir, f"{wf.name}-sweep")
        files, skipped = write_sweep_files(run, grid, folder,
                                           {"workloads": workloads, "catalog": catalog},
                                           workbook=not no_workbook, stem=stem)
    except PlanBuyError as exc:
        _fail(exc)
    if as_json:
        _print(json.dumps(sweep_document(run, grid, files), indent=2))
    else:
        _print(render_sweep(run, wf.name, cat.currency, grid.price_targets, files,
                            [skipped] if skipped else [], sweep=grid,
                            width=terminal_width(sys.stdout)))
    if run.interrupted:
        click.echo("plan-buy: interrupted; the finished scenarios are written", err=True)
        sys.exit(interrupt.EXIT_CODE)
    if run.rows and all(r.total_cost is None for r in run.rows):
        sys.exit(min(r.exit_code or 1 for r in run.rows))


def _sweep_uncertainty(workloads: Path, catalog: Path, jobs: int | None, out_dir: Path,
                       solver: str | None, time_limit: float | None, gap: float,
                       no_workbook: bool, as_json: bool, samples: int | None, seed: int | None,
                       vary: tuple[str, ...], scheduler: str | None, axes: dict) -> None:
    """``sweep --samples``: solver.uncertainty.command does the work; this prints it."""
    from solver.optimize.engines import default_solver
    from solver.report.text import terminal_width
    from solver.uncertainty.command import run_command
    from solver.uncertainty.render import render_uncertainty, uncertainty_document
    from solver.uncertainty.sweep import Settings

    bar = click.progressbar(length=1, label="scenarios", file=sys.stderr) \
        if sys.stderr.isatty() else None

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.length = total
            bar.update(done - bar.pos)

    try:
        folder, stem = _out_place(out_dir, "")
        settings = Settings(solver=solver or default_solver(), time_limit=time_limit, gap=gap,
                            scheduler=scheduler, workers=jobs)
        try:
            run = run_command(workloads, catalog, folder, stem or None, samples=samples,
                              seed=seed, vary=vary, axes=axes, settings=settings,
                              workbook=not no_workbook, on_progress=progress)
        finally:
            if bar is not None:
                bar.render_finish()
    except PlanBuyError as exc:
        _fail(exc)
    _print(json.dumps(uncertainty_document(run), indent=2) if as_json
           else render_uncertainty(run, width=terminal_width(sys.stdout)))


@main.command()
@click.argument("kind", type=click.Choice(["workloads", "catalog", "plan", "estimate", "sweep"]))
def schema(kind: str) -> None:
    """Print a JSON Schema: of an input file (workloads, catalog), for editors, or of the
    document plan, estimate or sweep prints with --json, for the programs that read it.

    Save an input schema next to your YAML and point the YAML language server at it with a
    first line such as: # yaml-language-server: $schema=workloads.schema.json
    """
    if kind in ("workloads", "catalog"):
        from solver.inputs.schema import input_schema

        doc = input_schema(kind)  # type: ignore[arg-type]
    else:
        from solver.report.output_schema import output_schema

        doc = output_schema(kind)  # type: ignore[arg-type]
    _print(json.dumps(doc, indent=2))


def entry() -> None:
    """The ``plan-buy`` command: ``main``, then an exit that skips tearing the interpreter
    down. Freeing pandas', numpy's and pydantic's modules one by one took about 0.1 s of q3's
    1.7 s; by then every file is closed (written to a temporary name, then renamed) and only
    the standard streams are left to flush. ``main`` itself exits normally (tests call it)."""
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    if not isinstance(code, int):  # sys.exit("message") prints it and exits 1
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
