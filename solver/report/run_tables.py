"""The inputs of a run, as tidy tables for the Assumptions sheet: run facts, input files
with their SHA-256, catalog prices, the policy's settings and the sizing rules."""

from __future__ import annotations

import datetime as dt
import hashlib
from enum import Enum
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel

from .. import __version__
from ..inputs.catalog import Catalog
from ..inputs.fabric import LINK_SKU
from ..inputs.workload import WorkloadFile
from ..result import PlanResult
from .network import LINK_TEXT

RULES = (
    ("R1-R5", "VRAM per GPU = weights + gradients + optimizer state + FP32 master copy"),
    ("R6", "Activations ~ batch x seq_len x hidden x layers x bytes x coefficient"),
    ("R8", "Split a job over GPUs only when needed; parallel degree capped by policy"),
    ("R9", "Gradient accumulation when the global batch does not fit (micro-batch x steps)"),
    ("R10", "GPUs without NVLink are capped at the PCIe parallel degree"),
    ("R11", "Host data RAM = in-memory data x expansion x loader factor + 20% system reserve"),
    ("R12", "Host RAM ratios: 1.5x VRAM (1-GPU training), 0.8x (multi-GPU), 0.5x (inference)"),
    ("R14", "Every memory channel populated evenly; host bandwidth per GPU reported"),
    ("R15", "Headroom: VRAM and RAM planned only up to (1 - headroom) of installed"),
    ("R16", "Heterogeneous pool: each job on the cheapest GPU that fits it"),
    ("R17", "Shareable jobs share a GPU; pool cost charged back to teams by use"),
    ("R18", ("Utilisation targets: planned VRAM and host RAM >= 85% of usable (installed "
             "less headroom; host RAM: or what the fewest DIMMs the servers take allow), "
             "compute >= 90%, bandwidth >= 60%")),
    ("R19", "Growth: replicas planned = ceil(replicas x growth)"),
    ("R20", "Saving measured against the rule-of-thumb reference configuration for the mix's scale"),
)


def sha256_of(path: Path) -> str:
    """SHA-256 of a file's bytes, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run_table(
    result: PlanResult, wf: WorkloadFile, catalog: Catalog, now: dt.datetime
) -> pd.DataFrame:
    """Facts of the run: tool version, time, workload file, currency, price date, solver."""
    items = [
        ("Tool", f"plan-buy {__version__}"),
        ("Run at (UTC)", now.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")),
        ("Mix name (the file's name field)", wf.name),
        ("Currency", catalog.currency),
        ("Prices as of", catalog.prices_as_of.isoformat()),
        ("Price note", catalog.price_note or "catalog prices; replace with vendor quotes"),
        ("Solver", result.solver or "(not recorded)"),
        ("Solver status", result.status),
        ("Relative gap of option 1", "" if result.gap is None else f"{result.gap:.4%}"),
    ]
    items += [("Note", n) for n in result.notes]
    items += [("Warning", w) for w in result.warnings]
    return pd.DataFrame(items, columns=["item", "value"])


def catalog_table(catalog: Catalog) -> pd.DataFrame:
    """Every SKU of the catalog with its kind, description, key figures and unit price."""
    rows = []
    for g in catalog.gpus:
        spec = (
            f"{g.vram_gb:g} GB, {g.mem_bw_gbps:g} GB/s, {g.form_factor}, NVLink {g.nvlink_gbps:g}"
        )
        rows.append(("gpu", g.sku, g.name, spec, g.price))
    for p in catalog.platforms:
        spec = (
            f"{p.gpu_slots} GPU slots, {p.memory_type} x {p.memory_channels} ch, "
            f"{p.dimm_slots} DIMM slots, {p.drive_bays} bays"
        )
        rows.append(("platform", p.sku, p.name, spec, p.price))
    for m in catalog.memory:
        rows.append(("memory", m.sku, m.name, f"{m.size_gb:g} GB {m.type}-{m.speed_mts}", m.price))
    for s in catalog.storage:
        rows.append(("storage", s.sku, s.name, f"{s.size_tb:g} TB, {s.read_gbps:g} GB/s", s.price))
    net = catalog.network
    for n in net.nics:
        rows.append(("network", n.sku, n.name, f"NIC, {n.ports} x {n.gbps:g} Gb/s {n.kind}",
                     n.price))
    for w in net.switches:
        spec = f"switch, {w.ports} x {w.gbps:g} Gb/s {w.kind}, {w.rack_units} U"
        rows.append(("network", w.sku, w.name, spec, w.price))
    if net.switches:
        rows.append(("network", LINK_SKU, LINK_TEXT, "per cable", net.link_price))
    return pd.DataFrame(rows, columns=["kind", "sku", "description", "spec", "unit_price"])


def policy_table(wf: WorkloadFile) -> pd.DataFrame:
    """The planning policy, one row per field, with its documented meaning, written as a
    person reads it: a nested setting (``tco``) one row per field (``tco.kwh_price``), lists
    joined by commas, nothing set as "(none)", descriptions on one line without markup."""
    return pd.DataFrame(_setting_rows(wf.policy), columns=["field", "value", "meaning"])


def _setting_rows(model: BaseModel, prefix: str = "") -> list[tuple[str, Any, str]]:
    fields = type(model).model_fields
    rows: list[tuple[str, Any, str]] = []
    for name, field in fields.items():
        value, desc = getattr(model, name), plain_text(field.description or "")
        if isinstance(value, BaseModel):
            rows.append((prefix + name, "(set: the rows below)", desc))
            rows += _setting_rows(value, f"{prefix}{name}.")
        else:
            rows.append((prefix + name, _setting_value(value), desc))
    return rows


def _setting_value(value: Any) -> Any:
    """A setting's value for a cell: numbers and words as they are, a list as its items
    joined by commas, nothing as "(none)"."""
    if value is None or (isinstance(value, (list, tuple, set, frozenset, dict)) and not value):
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(str(_setting_value(v)) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_setting_value(v)}" for k, v in value.items())
    if isinstance(value, Enum):
        return value.value
    return value


def plain_text(text: str) -> str:
    """A docstring as a cell reads it: one line, without reStructuredText backticks."""
    return " ".join(text.replace("``", "").replace("`", "").split())


def rules_table() -> pd.DataFrame:
    """The seed's R-rules this plan applies."""
    return pd.DataFrame(RULES, columns=["rule", "what plan-buy does"])


def sources_table(sources: dict[str, Path]) -> pd.DataFrame:
    """Input files: label, file name, size and SHA-256 of the content the run read."""
    rows: list[tuple[str, str, int | None, str]] = []
    for label, path in sources.items():
        path = Path(path)
        if path.is_file():
            rows.append((label, path.name, path.stat().st_size, sha256_of(path)))
        else:
            rows.append((label, path.name, None, "(file not found)"))
    return pd.DataFrame(rows, columns=["input", "file", "bytes", "sha256"])
