"""Read and validate the two input files; every problem is reported at once, with its place.

Each file is read by ``safe_yaml.read_yaml`` (plain YAML types only, bombs refused) and
validated by the pydantic models; ``messages.format_validation`` words pydantic's errors.

Errors become one :class:`InputError` whose problems read
``file: path.inside: what is wrong. To fix: ...``; unknown fields get "did you mean ...".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from pydantic import ValidationError

from ..errors import InputError
from .catalog import Catalog, duplicate_sku_problems
from .exclude import exclude_problems
from .kinds import kind_problems
from .measurements import measurement_problems
from .messages import format_validation
from .names import duplicate_name_problems
from .owned import inventory_problems, site_problem
from .safe_yaml import read_yaml
from .workload import MAX_WORKLOADS, Kind, WorkloadFile

DEFAULT_CATALOG = Path(__file__).resolve().parent.parent / "data" / "default-catalog.yaml"
"""The catalog used without ``--catalog``: package data, so an installed plan-buy finds it from
any folder. ``catalogs/default.yaml`` in the repository is the same file, for users to copy."""


def _hidden_workload_problems(path: Path, data: dict, exc: ValidationError) -> list[str]:
    """What a workload lacks or should not have for its kind, for each workload whose field
    errors stopped pydantic before those checks ran: every problem of a file shows at once
    instead of one fix revealing the next."""
    raw = data.get("workloads")
    if not isinstance(raw, list):
        return []
    locs = [tuple(e["loc"]) for e in exc.errors(include_url=False)]
    stopped = {loc[1] for loc in locs
               if len(loc) > 2 and loc[0] == "workloads" and isinstance(loc[1], int)}
    checked = {loc[1] for loc in locs if len(loc) == 2 and loc[0] == "workloads"}
    lines = []
    for i in sorted(stopped - checked):
        w = raw[i] if i < len(raw) else None
        if isinstance(w, dict) and w.get("kind") in get_args(Kind):
            lines += [f"{path}: workloads[{i}]: {p}" for p in kind_problems(w["kind"], w)]
    return lines


# --- the two loaders -------------------------------------------------------------------------


def load_catalog(path: Path) -> Catalog:
    """Load and validate a catalog file.

    Raises:
        InputError: listing every problem found, each with its place in the file.
    """
    path = Path(path)
    data = read_yaml(path)
    problems = [f"{path}: {p}" for p in duplicate_sku_problems(data)]
    try:
        cat = Catalog.model_validate(data, context={"skus_checked": True})
    except ValidationError as exc:
        problems += format_validation(path, exc, Catalog)
    if problems:
        raise InputError(f"{path}: invalid catalog", problems)
    return cat


def load_workloads(path: Path) -> WorkloadFile:
    """Load and validate a workload file; every model is resolved to a ModelArch.

    Model config paths are read relative to the workload file's folder.

    Raises:
        InputError: listing every problem found, each with its place in the file.
    """
    path = Path(path)
    data = read_yaml(path)
    raw = data.get("workloads")
    if isinstance(raw, list) and len(raw) > MAX_WORKLOADS:
        raise InputError(
            f"{path}: workloads: {len(raw):,} workloads; plan-buy plans at most "
            f"{MAX_WORKLOADS:,} workloads per file. To fix: merge identical jobs with `replicas`, "
            "or split the mix into several files"
        )
    names = (
        [w.get("name") if isinstance(w, dict) else None for w in raw or []]
        if isinstance(raw, list)
        else []
    )
    problems = [f"{path}: {p}" for p in duplicate_name_problems(names)]
    try:
        wf = WorkloadFile.model_validate(
            data, context={"base_dir": path.parent, "names_checked": True}
        )
    except ValidationError as exc:
        problems += format_validation(path, exc, WorkloadFile)
        problems += _hidden_workload_problems(path, data, exc)
    if problems:
        # Each workload's problems together, in file order (a stable sort keeps their order).
        at = re.compile(rf"^{re.escape(str(path))}: workloads\[(\d+)\]")
        problems.sort(key=lambda p: int(m[1]) if (m := at.match(p)) else -1)
        raise InputError(f"{path}: invalid workload file", problems)
    return wf


def check_against_catalog(path: Path, wf: WorkloadFile, catalog_path: Path, catalog: Catalog,
                          cli_exclude: tuple[str, ...] = ()) -> None:
    """What workload file ``path`` says of catalog ``catalog_path``, checked once both are
    loaded and before any solve: the SKUs its ``policy.exclude`` and ``--exclude`` name, its
    inventory, and that one server fits its site. Every problem names where it comes from,
    so a sweep refuses bad input up front instead of failing each scenario alike.

    Raises:
        InputError: exit 2, one line per problem.
    """
    path = Path(path)
    problems = [f"{path}: {p}" for p in exclude_problems(wf.policy.exclude, catalog)]
    problems += exclude_problems(cli_exclude, catalog, where="--exclude")
    problems += [f"{path}: {p}" for p in inventory_problems(wf, catalog)]
    problems += [f"{path}: {p}" for p in measurement_problems(wf.workloads, catalog)]
    site = site_problem(wf, catalog)
    if site is not None:
        problems.append(f"{path}: {site}")
    if problems:
        raise InputError(f"the inputs do not fit the catalog {catalog_path}", problems)
