"""The plan checker: verifies one plan against the plan rules alone (docs/solver.md).

It knows the catalog, the workload file and the estimator, never the integer program, so a
modelling bug cannot hide behind itself: it keeps its own arithmetic on purpose (an oracle
must not share the code it checks). ``check_plan`` returns every violation found; the
pipeline refuses to report a plan with any. A plan it exists to catch (an unknown SKU, a
placement on a server that is not in the plan, a negative count) is a violation line, never
an exception.

One module per rule family: ``servers`` (catalog SKUs, slots, bays, R14), ``memory``
(R8, R10, R11, R12, R15, R17, R19), ``orderable`` (O1, O3, O4), ``throughput`` (T3, T4),
``owning`` (P1–P4, with the fabric's switches), ``network`` (N3: added NICs and the
fabric of each pod) and ``cost`` (bill of materials with the fabric, budget, excluded SKUs); over a horizon
``time`` (H3, H5, H6) and ``moments`` (H4) check the schedule against ``windows``, the
file's runs as the checker reads them; ``subject`` holds what they all read. ``RULES`` finds
a rule's checks by its id. Without a horizon the time checks find nothing to check.
"""

from __future__ import annotations

from collections.abc import Callable

from ..inputs.catalog import Catalog
from ..inputs.workload import WorkloadFile
from ..plan_types import PlanOption
from .chance import check_u1
from .cost import check_bom, check_exclude
from .memory import check_r8_r10, check_r11_r12, check_r17, check_r19
from .moments import check_h4
from .network import check_n3
from .orderable import check_o1, check_o3, check_o4
from .owning import check_p1_p2, check_p3, check_p4
from .servers import check_servers
from .subject import Subject
from .throughput import check_t3_t4
from .time import check_h3, check_h5, check_h6, check_time

__all__ = ["CHECKS", "RULES", "Check", "check_plan", "check_rule", "check_time"]

Check = Callable[[Subject], list[str]]
"""A check: the violations of its rules in one plan (empty when it keeps them)."""

CHECKS: tuple[Check, ...] = (
    check_servers,
    check_r8_r10,
    check_r17,
    check_r11_r12,
    check_r19,
    check_o4,
    check_t3_t4,
    check_n3,
    check_bom,
    check_exclude,
    check_o1,
    check_o3,
    check_p4,
    check_p3,
    check_p1_p2,
    check_h3,
    check_h4,
    check_h5,
    check_h6,
    check_u1,
)
"""Every check, in the order ``check_plan`` reports their violations."""

RULES: dict[str, tuple[Check, ...]] = {
    "R8": (check_r8_r10,),
    "R10": (check_r8_r10,),
    "R11": (check_r8_r10, check_r11_r12),
    "R12": (check_r8_r10, check_r11_r12),
    "R14": (check_servers,),
    "R15": (check_r8_r10, check_r17, check_r11_r12, check_o4),
    "R17": (check_r17,),
    "R19": (check_r19,),
    "O1": (check_o1,),
    "O3": (check_o3,),
    "O4": (check_o4,),
    "T3": (check_t3_t4,),
    "T4": (check_t3_t4,),
    "P1": (check_p1_p2,),
    "P2": (check_p1_p2,),
    "P3": (check_p3,),
    "P4": (check_p4, check_bom, check_exclude),
    "H3": (check_h3,),
    "N2": (check_h3,),
    "N3": (check_n3, check_bom, check_p1_p2, check_p3),
    "H4": (check_h4,),
    "H5": (check_h5,),
    "H6": (check_h6,),
    "U1": (check_u1, check_r19),
}
"""Rule id -> the checks that verify it (docs/solver.md); a check may verify several."""


def check_plan(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """Every way ``option`` breaks the SPEC's plan rules (empty when it is valid)."""
    sub = Subject.of(option, wf, catalog)
    return [err for check in CHECKS for err in check(sub)]


def check_rule(rule: str, option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> list[str]:
    """The violations the checks of one rule id find (``RULES``; KeyError for an unknown id).

    A check that verifies several rules reports them all."""
    sub = Subject.of(option, wf, catalog)
    return [err for check in RULES[rule] for err in check(sub)]
