"""plan-buy's command line: parse options, call the library, print, map errors to exit codes.

No business logic lives here; every command is a few lines over ``solver``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from solver.errors import PlanBuyError

HERE = Path(__file__).resolve().parent
DEFAULT_CATALOG = HERE / "catalogs" / "default.yaml"
COMMANDS = ("plan", "estimate", "sweep")


class DefaultToPlan(click.Group):
    """``plan-buy FILE`` means ``plan-buy plan FILE``."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["plan", *args]
        return super().parse_args(ctx, args)


def _fail(exc: PlanBuyError) -> None:
    click.echo(f"plan-buy: {exc}", err=True)
    sys.exit(exc.exit_code)


catalog_option = click.option(
    "--catalog",
    type=click.Path(path_type=Path, dir_okay=False),
    default=DEFAULT_CATALOG,
    show_default="catalogs/default.yaml",
    help="Priced hardware catalog (YAML).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document only.")


@click.group(cls=DefaultToPlan, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="plan-buy")
def main() -> None:
    """Plan what GPU hardware to buy for a workload mix.

    plan-buy WORKLOADS.yaml is the same as plan-buy plan WORKLOADS.yaml.
    """


@main.command()
@click.argument("workloads", type=click.Path(path_type=Path, dir_okay=False))
@catalog_option
@click.option("--gpu", "gpus", multiple=True, help="Only this GPU SKU (repeatable).")
@json_option
def estimate(workloads: Path, catalog: Path, gpus: tuple[str, ...], as_json: bool) -> None:
    """Per-workload VRAM and host-RAM breakdown for every GPU and parallel degree."""
    from solver.estimate_report import estimate_rows, render_estimate_table
    from solver.loading import load_catalog, load_workloads

    try:
        wf = load_workloads(workloads)
        cat = load_catalog(catalog)
        rows = estimate_rows(wf, cat, gpus)
    except PlanBuyError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps({"rows": [r.to_json() for r in rows]}, indent=2))
    else:
        click.echo(render_estimate_table(wf, cat, rows))


@main.command()
@click.argument("workloads", type=click.Path(path_type=Path, dir_okay=False))
@catalog_option
@click.option("--top", type=click.IntRange(1, 20), default=3, show_default=True,
              help="How many distinct purchase plans to rank.")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Spending cap (catalog currency); overrides the file's policy.budget.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False),
              default=Path("out"), show_default=True, help="Folder for the workbook.")
@click.option("--solver", type=click.Choice(["highs", "cbc"]), default=None,
              help="MIP solver [default: highs when installed, else cbc].")
@click.option("--time-limit", type=click.FloatRange(min=1), default=None,
              help="Seconds per solve; the best plan found so far is reported with its gap.")
@click.option("--gap", type=click.FloatRange(0, 1), default=1e-4, show_default=True,
              help="Relative MIP gap counted as optimal.")
@click.option("--distinct", type=click.Choice(["gpus", "hardware"]), default="gpus",
              show_default=True, help="Ranked options must differ in GPU mix, or in any hardware.")
@click.option("--no-workbook", is_flag=True, help="Do not write the Excel workbook.")
@json_option
def plan(workloads: Path, catalog: Path, top: int, budget: float | None, out_dir: Path,
         solver: str | None, time_limit: float | None, gap: float, distinct: str,
         no_workbook: bool, as_json: bool) -> None:
    """Solve for the cheapest pool: print the ranked options, write out/<name>.xlsx."""
    from solver.loading import load_catalog, load_workloads
    from solver.pipeline import plan as run_plan
    from solver.scenario import with_policy
    from solver.summary import render_plan_summary

    try:
        wf = with_policy(load_workloads(workloads), budget=budget)
        cat = load_catalog(catalog)
        result = run_plan(wf, cat, top=top, solver=solver, time_limit=time_limit, gap=gap,
                          distinct=distinct)
        book = None
        if not no_workbook:
            from solver.workbook import write_workbook

            book = write_workbook(out_dir / f"{wf.name}.xlsx", result, wf, cat,
                                  {"workloads": workloads, "catalog": catalog})
    except PlanBuyError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(render_plan_summary(result, cat, wf.name, book))


if __name__ == "__main__":
    main()
