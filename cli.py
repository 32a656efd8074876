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


if __name__ == "__main__":
    main()
