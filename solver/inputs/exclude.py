"""Allowed SKUs: ``policy.exclude`` checked against the catalog it is planned with.

The workload file and the catalog are validated apart, so a SKU the policy excludes can
only be checked once both are loaded; an unknown one is a typo that would silently exclude
nothing, hence an input error with the closest names.
"""

from __future__ import annotations

import difflib

from ..errors import InputError
from .catalog import SKU_KINDS, Catalog


def catalog_skus(catalog: Catalog) -> list[str]:
    """Every SKU of the catalog, of all four kinds."""
    return [item.sku for kind in SKU_KINDS for item in getattr(catalog, kind)]


def check_exclude(exclude: tuple[str, ...] | list[str], catalog: Catalog) -> None:
    """Raise InputError (exit 2) listing each excluded SKU the catalog does not have.

    Raises:
        InputError: one line per unknown SKU, with the closest catalog SKUs.
    """
    problems = exclude_problems(exclude, catalog)
    if problems:
        raise InputError("unknown SKU to exclude", problems)


def exclude_problems(exclude: tuple[str, ...] | list[str], catalog: Catalog,
                     where: str = "policy.exclude") -> list[str]:
    """One line per SKU of ``exclude`` the catalog does not have, with the closest catalog
    SKUs; ``where`` names the list (``policy.exclude``, ``--exclude``)."""
    known = catalog_skus(catalog)
    problems = []
    for sku in exclude:
        if sku in known:
            continue
        close = difflib.get_close_matches(sku, known, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else f"the catalog's SKUs are {', '.join(known)}"
        problems.append(f"{where}: '{sku}' is not a SKU of the catalog; {hint} "
                        "To fix: spell it as the catalog does")
    return problems
