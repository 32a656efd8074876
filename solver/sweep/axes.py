"""Sweep axes: parse --budget / --growth / --headroom ranges and --price multipliers.

Pure parsing and one validated catalog copy per price scenario; ``solver/sweep.py`` turns
the axes into scenarios and runs them. Every bad value is an InputError (exit 2) naming the
option, what is wrong and how to write it.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence

from pydantic import ValidationError

from ..errors import InputError
from ..inputs.catalog import Catalog
from ..inputs.fabric import LINK_SKU, Network
from ..inputs.money import parse_amount

MAX_SCENARIOS = 5000
"""More scenarios than this is a typo in a range, not a question a planner asks."""
PRICE_KINDS = {
    "gpu": "gpus",
    "gpus": "gpus",
    "platform": "platforms",
    "platforms": "platforms",
    "memory": "memory",
    "storage": "storage",
    "network": "network",
}
"""--price targets that name a whole kind -> the catalog field holding it ("network": its
NICs, switches and the price of a link, N3)."""
_RANGE = re.compile(r"^([^:]+):([^:]+):([^:]+)$")

Prices = tuple[tuple[str, float], ...]
"""(SKU or kind, multiplier) pairs, one per --price axis, in the order given."""


# -- Axes -------------------------------------------------------------------------------
def _number(text: str, option: str) -> float:
    # The parser plan --budget and policy.budget use too (k / M / G suffixes).
    try:
        return parse_amount(text)
    except ValueError as exc:
        raise InputError(f"{option}: {exc}") from None


def parse_values(
    text: str, option: str, minimum: float = 0.0, strict: bool = False, below: float | None = None,
    example: str = "",
) -> tuple[float, ...]:
    """Values of one axis: ``start:stop:steps`` (steps values, both ends included) or a list.

    Args:
        text: ``250000:2000000:8`` or ``1,1.25,1.5`` (k / M / G suffixes allowed).
        option: the option's name, for messages.
        minimum: smallest allowed value; ``strict`` makes it exclusive.
        below: values must be under this (exclusive), if given.
        example: a value that is in bounds, for the "To fix" of one that is not.

    Returns:
        The values in the order given (a range ascends), duplicates removed.

    Raises:
        InputError: not a number, a bad range, or a value out of bounds.
    """
    m = _RANGE.match(text.strip())
    if m:
        start, stop = _number(m[1], option), _number(m[2], option)
        steps = _number(m[3], option)
        if steps != int(steps) or steps < 1:
            raise InputError(
                f"{option}: steps in '{text}' must be a whole number >= 1 "
                "(start:stop:steps, e.g. 250000:2000000:8)"
            )
        if stop < start:
            raise InputError(
                f"{option}: range '{text}' runs backwards (stop {stop:g} < start "
                f"{start:g}). To fix: write start:stop:steps with start <= stop"
            )
        steps = int(steps)
        if steps > MAX_SCENARIOS:
            raise InputError(f"{option}: {steps:,} steps; at most {MAX_SCENARIOS:,}")
        if steps == 1 and stop != start:
            raise InputError(
                f"{option}: range '{text}' has one step but two ends. To fix: "
                "use at least 2 steps, or a single value"
            )
        values = [start + (stop - start) * i / max(steps - 1, 1) for i in range(steps)]
    else:
        parts = [p for p in text.split(",")]
        if not parts or any(not p.strip() for p in parts):
            raise InputError(
                f"{option}: '{text}' has an empty value. To fix: write a comma "
                "list (1,1.25,1.5) or a range start:stop:steps"
            )
        values = [_number(p, option) for p in parts]
    for v in values:
        sign = ">" if strict else ">="
        if v < 0 <= minimum:
            raise InputError(f"{option}: {v:g} is negative. To fix: use values {sign} {minimum:g}")
        if v < minimum or (strict and round(v, 10) <= minimum):
            # Values are kept to 10 decimals: 1e-300 would become 0 past this check.
            raise InputError(
                f"{option}: {v:g} is out of range. To fix: use values {sign} {minimum:g}"
                f"{', e.g. ' + example if example else ''}"
            )
        if below is not None and v >= below:
            raise InputError(f"{option}: {v:g} is out of range. To fix: use values < {below:g}")
    return tuple(dict.fromkeys(round(v, 10) for v in values))


def parse_prices(
    specs: Sequence[str], catalog: Catalog
) -> tuple[tuple[str, tuple[float, ...]], ...]:
    """``--price TARGET=MULT[,MULT…]`` options -> (target, multipliers) axes.

    TARGET is a SKU of the catalog (``fabric-link``: the price of one cable of the fabric)
    or a kind (gpu, platform, memory, storage, network); each
    multiplier scales that unit price (0.8 = 20 % cheaper). A SKU also covered by a kind
    axis gets both multipliers (their product).

    Raises:
        InputError: no '=', an unknown target (with the closest names), a repeated target,
            or a negative multiplier.
    """
    skus = [
        i.sku for kind in ("gpus", "platforms", "memory", "storage") for i in getattr(catalog, kind)
    ] + [n.sku for n in catalog.network.nics] + [w.sku for w in catalog.network.switches] + [
        LINK_SKU]
    axes: dict[str, tuple[float, ...]] = {}
    for spec in specs:
        target, eq, mults = spec.partition("=")
        target = target.strip()
        if not eq or not target or not mults.strip():
            raise InputError(
                f"--price: '{spec}' is not TARGET=MULT[,MULT...]. To fix: write "
                "e.g. --price h100-sxm=0.8,1.0 or --price memory=1.5"
            )
        if target not in skus and target not in PRICE_KINDS:
            close = difflib.get_close_matches(
                target, skus + ["gpu", "platform", "memory", "storage", "network"], n=3,
                cutoff=0.5
            )
            hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
            raise InputError(
                f"--price: '{target}' is not a SKU of the catalog nor a kind. "
                f"To fix: {hint}Kinds are gpu, platform, memory, storage, network; SKUs "
                "are listed in the catalog file"
            )
        key = target if target in skus else PRICE_KINDS[target].rstrip("s")
        if key in axes:
            raise InputError(
                f"--price: '{target}' is given twice. To fix: list all its "
                "multipliers in one option (h100-sxm=0.8,1.0)"
            )
        axes[key] = parse_values(mults, f"--price {target}")
    return tuple(axes.items())


def priced_catalog(catalog: Catalog, prices: Prices) -> Catalog:
    """A validated copy of ``catalog`` with unit prices scaled (the same object at 1.0).

    Raises:
        InputError: a scaled price breaks the catalog's rules.
    """
    if all(mult == 1.0 for _, mult in prices):
        return catalog
    update: dict[str, object] = {}
    try:
        for kind, field_name in (
            ("gpu", "gpus"),
            ("platform", "platforms"),
            ("memory", "memory"),
            ("storage", "storage"),
        ):
            items = []
            for item in getattr(catalog, field_name):
                factor = math.prod(m for t, m in prices if t in (item.sku, kind))
                data = item.model_dump()
                data["price"] = round(item.price * factor, 4)
                items.append(type(item).model_validate(data))
            update[field_name] = items
        update["network"] = _priced_network(catalog.network, prices)
        return Catalog.model_validate({**dict(catalog), **update}, context={"skus_checked": True})
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise InputError("a --price multiplier gives an invalid catalog", problems) from None


def _priced_network(net: Network, prices: Prices) -> Network:
    """The catalog's network with its NICs', switches' and link's prices scaled by the axes
    naming their SKU (``fabric-link`` for the link) or the kind ``network``."""
    def scaled(sku: str, price: float) -> float:
        return round(price * math.prod(m for t, m in prices if t in (sku, "network")), 4)

    data = net.model_dump()
    for field_name in ("nics", "switches"):
        for item in data[field_name]:
            item["price"] = scaled(item["sku"], item["price"])
    data["link_price"] = scaled(LINK_SKU, net.link_price)
    return Network.model_validate(data)


# -- Scenarios --------------------------------------------------------------------------
