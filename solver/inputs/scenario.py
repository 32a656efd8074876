"""Policy overrides from the command line or a sweep: a validated copy of the input."""

from __future__ import annotations

from pydantic import ValidationError

from ..errors import InputError
from .workload import Policy, WorkloadFile


def with_policy(wf: WorkloadFile, **overrides) -> WorkloadFile:
    """A copy of ``wf`` whose policy takes ``overrides`` (None values are ignored).

    Raises:
        InputError: an override is out of range (e.g. headroom 1.5).
    """
    changes = {k: v for k, v in overrides.items() if v is not None}
    if not changes:
        return wf
    try:
        policy = Policy.model_validate({**wf.policy.model_dump(), **changes})
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise InputError("invalid policy override", problems) from None
    return wf.model_copy(update={"policy": policy})


def with_exclusions(wf: WorkloadFile, skus: tuple[str, ...] | list[str]) -> WorkloadFile:
    """A copy of ``wf`` whose ``policy.exclude`` also lists ``skus`` (``--exclude``)."""
    added = tuple(s for s in skus if s not in wf.policy.exclude)
    if not added:
        return wf
    return with_policy(wf, exclude=(*wf.policy.exclude, *added))
