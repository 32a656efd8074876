"""What a plan buys and at what price: the bill of materials is the servers' parts and
their fabric's switches and cables (N3) at catalog prices, within the budget, and buys no
SKU the policy excludes (owned servers, P4, are neither bought nor excluded)."""

from __future__ import annotations

from .network import fabric_qty
from .subject import TOL, Subject


def check_bom(sub: Subject) -> list[str]:
    """The bill of materials lists exactly the servers' parts (added NICs too) and the
    fabric's switches and cables (N3) at catalog prices, and the total is their sum (within
    the budget, if any)."""
    option, budget = sub.option, sub.wf.policy.budget
    errs = []
    qty: dict[str, int] = {}
    for s in option.servers:
        if s.owned:
            continue  # owned servers are not bought (P4)
        for sku, q in s.parts():
            qty[sku] = qty.get(sku, 0) + q
    for sku, q in fabric_qty(option.fabric).items():
        qty[sku] = qty.get(sku, 0) + q
    lines = {ln.sku: ln for ln in option.lines}
    if set(lines) != set(qty):
        errs.append(f"BOM SKUs {sorted(lines)} differ from the servers' and fabric's "
                    f"{sorted(qty)}")
    total = 0.0
    for sku, q in qty.items():
        price = sub.skus.price(sku)
        if price is None:
            errs.append(f"BOM line {sku}: not in the catalog, so it has no price")
            continue
        total += q * price
        ln = lines.get(sku)
        if ln and (ln.qty != q or abs(ln.unit_price - price) > TOL):
            errs.append(f"BOM line {sku}: {ln.qty} x {ln.unit_price} != {q} x {price}")
    if abs(total - option.total_cost) > 0.01:
        errs.append(f"total {option.total_cost:.2f} != priced servers {total:.2f} (their "
                    "fabric included)")
    if budget is not None and total > budget + 0.01:
        errs.append(f"total {total:.2f} over the budget {budget:.2f}")
    return errs


def check_exclude(sub: Subject) -> list[str]:
    """Allowed SKUs: no server buys a SKU of ``policy.exclude``."""
    excluded = set(sub.wf.policy.exclude)
    errs = []
    for s in sub.option.servers:
        if s.owned:
            continue  # owned servers are exempt from exclude (P4)
        for sku, q in ((s.platform, 1), (s.gpu, s.gpu_count), (s.memory, s.dimm_count),
                       (s.storage, s.drive_count), *s.nics):
            if sku and q and sku in excluded:
                errs.append(f"{s.id}: buys {sku}, which the policy excludes")
    return errs
