"""JSON Schemas of the documents ``plan``, ``estimate`` and ``sweep`` print with ``--json``.

``plan-buy schema plan|estimate|sweep`` prints them, so a pipeline can check what it reads.
Each object lists the keys every document carries as ``required`` with their types; keys a
document has only sometimes (``gap``, ``baseline``; ``robust`` with --robust; ``horizon``
and an option's ``runs`` and horizon costs, with a horizon only; a server's ``nics`` and ``pod``, when set;
``tokens_per_s`` of a preprocess row) are described but not required. Objects accept keys added later (``additionalProperties`` is left
open), so a reader written against this schema keeps working when plan-buy adds a field; a
key removed or retyped fails it. docs/json.md explains every field.

Written out here rather than derived from the code that builds the documents: a schema
derived from its own output could never disagree with it.
"""

from __future__ import annotations

from typing import Any, Literal

OutputKind = Literal["plan", "estimate", "sweep"]
"""Which command's ``--json`` document."""

JSON_SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"

_BASE = {"text": "string", "int": "integer", "number": "number", "bool": "boolean",
         "object": "object"}


def _t(spec: str | dict) -> dict:
    """A schema from a short spec: ``number``, ``int``, ``text``, ``bool``, ``object``;
    ``?`` after it allows null; ``[]`` makes a list of it. A dict is a schema already."""
    if isinstance(spec, dict):
        return spec
    nullable = spec.endswith("?")
    spec = spec.removesuffix("?")
    schema: dict[str, Any] = ({"type": "array", "items": _t(spec[:-2])} if spec.endswith("[]")
                              else {"type": _BASE[spec]})
    if nullable:
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def _obj(fields: dict[str, str | dict], optional: tuple[str, ...] = (),
         description: str = "") -> dict:
    """An object with these keys; all required but ``optional``."""
    out: dict[str, Any] = {"type": "object",
                           "properties": {k: _t(v) for k, v in fields.items()},
                           "required": [k for k in fields if k not in optional]}
    if description:
        out["description"] = description
    return out


def _nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


_COUNTS = {"type": "object", "additionalProperties": {"type": "integer"},
           "description": "{GPU SKU: count}"}
_SERVER = _obj({
    "id": "text", "platform": "text", "gpu": "text?", "gpu_count": "int", "memory": "text",
    "dimm_count": "int", "storage": "text?", "drive_count": "int", "owned": "bool",
    "disk_tb": "number", "disk_used_tb": "number",
    "nics": {"type": "array", "items": _obj({"sku": "text", "count": "int"})},
    "pod": "text"}, optional=("nics", "pod"), description="One physical server.")
_LINE = _obj({"sku": "text",
              "kind": {"enum": ["platform", "gpu", "memory", "storage", "network"]},
              "qty": "int", "unit_price": "number", "extended": "number"},
             description="One line of the bill of materials.")
_PLACEMENT = _obj({
    "workload": "text", "replica": "int", "server": "text", "gpu": "text?", "gpus": "int",
    "vram_gb_per_gpu": "number", "host_ram_gb": "number", "tokens_per_s": "number?",
    "measured": "text[]"}, optional=("measured",),
    description="Where one replica runs.")
_THROUGHPUT = _obj({
    "workload": "text", "tokens_per_s": "number", "target_tokens_per_s": "number",
    "replicas": "int", "gpus": "int", "compute_utilisation": "number",
    "days_to_finish": "number?", "gpu_hours": "number?", "tpot_ms": "number?",
    "ttft_ms": "number?", "requests_per_s": "number?", "target_requests_per_s": "number?",
    "output_tokens_per_request": "int?"},
    description="What the plan delivers for one workload with a throughput target.")
_DIRECTION = _obj({
    "key": {"enum": ["tco", "servers", "consumer", "skus", "power", "vram"]},
    "value": "number", "unit": "text", "better": {"enum": ["lower", "higher"]},
    "best_possible": "number?", "proven_best": "bool", "cheapest_value": "number"},
    description="The option's figure in the direction it pushes.")
_SWITCHES = _obj({"sku": "text", "count": "int"}, description="Switches of one SKU.")
_FABRIC = _obj({
    "pod": "text", "kind": {"enum": ["ethernet", "infiniband"]}, "servers": "text[]",
    "ports": "int", "leaves": _SWITCHES, "spines": _nullable(_SWITCHES), "cables": "int"},
    description="N3: the switches and cables of one NIC kind of one pod.")
_RENTED = _obj({"gpus": "int", "hours": "number", "cost": "number"},
               description="The GPUs one run rents, each billed hours (H5).")
_RUN = _obj({
    "workload": "text", "run": "int", "begin_h": "number", "end_h": "number",
    "replicas": "int", "gpu": "text", "gpus": "int", "servers": "text[]?",
    "rented": _nullable(_RENTED), "start_h": "number", "deadline_h": "number",
    "tokens": "number", "tokens_per_s": "number", "dp_efficiency": "number"},
    description="One run of a finite workload in the schedule (H3).")
_HORIZON_KEYS: dict[str, str | dict] = {
    "runs": {"type": "array", "items": _RUN}, "capex_charged": "number",
    "rent_cost": "number", "running_cost": "number", "horizon_cost": "number",
    "run_servers": "text[]"}
_HORIZON = _obj({
    "start": "text", "months": "int", "hours": "number", "life_months": "int",
    "capex_share": "number", "rent": {"enum": ["allowed", "never"]},
    "dropped_runs": {"type": "object", "additionalProperties": {"type": "integer"}}},
    description="The horizon the options were planned over (H1).")
_OPTION = _obj({
    "rank": "int", "label": "text", "total_cost": "number", "over_cheapest": "number",
    "servers": {"type": "array", "items": _SERVER},
    "lines": {"type": "array", "items": _LINE},
    "placements": {"type": "array", "items": _PLACEMENT},
    "unserved": "text[]",
    "fabric": {"type": "array", "items": _FABRIC},
    "throughput": {"type": "array", "items": _THROUGHPUT},
    "direction": _nullable(_DIRECTION),
    "capex": "number", "energy_cost": "number?", "tco": "number?", "power_kw": "number",
    "racks": "int?", "cloud_cost": "number?", "bought_running_cost": "number?",
    "break_even_month": "number?",
    "idle": {"type": "array", "items": _SERVER}, **_HORIZON_KEYS},
    optional=tuple(_HORIZON_KEYS), description="One purchase plan.")
_BASELINE = _obj({
    "scenario": {"enum": ["small", "medium", "large"]}, "name": "text", "servers": "int",
    "gpus": "int", "gpu": "text", "total_cost": "number", "saving": "number",
    "saving_pct": "number"}, description="The rule-of-thumb reference configuration.")
_ROBUST = _obj({
    "target": "number", "samples": "int", "seed": "int", "met": "bool",
    "method": {"enum": ["plain", "program", "levels"]}, "level": "number?",
    "left_out": "text[]", "holds": "number", "holds_interval": "number[]",
    "plain_holds": "number", "plain_cost": "number", "cost": "number",
    "extra_cost": "number",
    "levels": {"type": "array", "items": _obj(
        {"level": "number", "cost": "number", "holds": "number"})}},
    description="plan --robust: how often option 1 holds in the sampled scenarios (U1).")
_PLAN = _obj({
    "status": {"enum": ["optimal", "feasible"]}, "currency": "text",
    "options": {"type": "array", "items": _OPTION, "minItems": 1},
    "gap": "number", "baseline": _BASELINE, "notes": "text[]", "warnings": "text[]",
    "full_plan_cost": "number?", "horizon": _HORIZON, "robust": _ROBUST},
    optional=("gap", "baseline", "notes", "warnings", "full_plan_cost", "horizon", "robust"),
    description="The ranked purchase plans.")
_NOTHING = _obj({
    "status": {"const": "infeasible"}, "currency": "text", "budget": "number",
    "unserved": "text[]", "cheapest_workload": "text?", "cheapest_workload_cost": "number?",
    "workload_costs": {"type": "array", "items": _obj(
        {"workload": "text", "total_cost": "number?"})},
    "full_plan_cost": "number?", "options": {"type": "array", "maxItems": 0},
    "error": "text"},
    description="A budget that buys nothing (exit 3): what each workload would cost.")

_BREAKDOWN = _obj({f"{k}_gb": "number" for k in (
    "weights", "gradients", "optimizer", "master_weights", "activations", "kv_cache",
    "overhead")}, description="The parts of vram_gb_per_gpu, GB per GPU.")
_BAND = _obj({"regime": "text", "cases": "int", "within_pct": "int", "median_pct": "number",
              "low_pct": "number", "high_pct": "number", "text": "text"},
             description="E3: the estimate's error on the published cases of its regime.")
_MEASURED = _obj({"peak_gb": "number", "meter": "text", "estimated_peak_gb": "number",
                  "peak_error": "number", "tokens_per_s": "number",
                  "estimated_tokens_per_s": "number", "tokens_per_s_error": "number"},
                 optional=("peak_gb", "meter", "estimated_peak_gb", "peak_error",
                           "tokens_per_s", "estimated_tokens_per_s", "tokens_per_s_error"),
                 description="E2: the workload's own measurement of this cell, the "
                             "estimate of it and the estimate's error.")
_ROW = _obj({
    "workload": "text", "gpu": "text?", "degree": "int", "fits": "bool",
    "vram_gb_per_gpu": "number", "allocated_gb": "number", "reserved_gb": "number",
    "comm_buffers_gb": "number", "host_ram_gb": "number", "micro_batch": "int?",
    "grad_accum_steps": "int?", "batch": "int?", "cpu_cores": "int",
    "breakdown": _BREAKDOWN, "tokens_per_s": "number?", "mfu": "number?", "mbu": "number?",
    "tpot_ms": "number?", "ttft_ms": "number?",
    "band": {"type": "object", "additionalProperties": _nullable(_BAND)},
    "measured": _MEASURED},
    optional=("tokens_per_s", "mfu", "mbu", "tpot_ms", "ttft_ms", "band", "measured"),
    description="One workload on one GPU at one parallel degree.")
_FEWEST: dict[str, str | dict] = {"fewest_gpus": "int?", "gpus": "text[]"}
_CHECKPOINTING = _obj({**_FEWEST, "workload": "text", "with_checkpointing": _obj(_FEWEST)},
                      description="A training workload that would fit on fewer GPUs with "
                                  "activation_checkpointing.")
_GPU_HOURS = _obj({"workload": "text", "gpu": "text", "degree": "int", "gpu_hours": "number",
                   "rent_cost": "number?", "currency": "text"},
                  description="GPU-hours one run of a training job with tokens needs on one "
                              "GPU type, and what renting them costs (null: no cloud price).")
_ESTIMATE = _obj({"rows": {"type": "array", "items": _ROW},
                  "checkpointing": {"type": "array", "items": _CHECKPOINTING},
                  "gpu_hours": {"type": "array", "items": _GPU_HOURS}},
                 optional=("checkpointing",),
                 description="Memory, host RAM and throughput per workload, GPU and degree.")

_AXES: dict[str, str | dict] = {"growth": "number", "headroom": "number",
         "prices": {"type": "object", "additionalProperties": {"type": "number"}},
         "owning": "object"}
_KNEE = _obj({
    **_AXES, "status": "text", "knee_budget": "number?", "gpus": _COUNTS, "error": "text?",
    "lowest_tco_plan": "object?"},
    description="A group of scenarios that differ only in budget, and its cheapest full plan.")
_SWEEP_ROW = _obj({
    "scenario": "int", "budget": "number?", **_AXES, "status": "text",
    "total_cost": "number?", "served_priority": "number?", "total_priority": "number",
    "served": "text[]", "unserved": "text[]", "gpus": _COUNTS, "knee_budget": "number?",
    "marginal_priority_per_dollar": "number?", "reused_knee": "bool", "seconds": "number",
    "error": "text?", "tco": "number?", "power_kw": "number?", "gap": "number?",
    "status_note": "text"}, description="One scenario.")
_SWEEP = _obj({
    "status": {"enum": ["complete", "interrupted"]}, "name": "text", "currency": "text",
    "scenarios": "int", "not_run": "int", "jobs": "int", "solves": "int", "seconds": "number",
    "knees": {"type": "array", "items": _KNEE},
    "rows": {"type": "array", "items": _SWEEP_ROW}, "files": "text[]"},
    description="What each scenario of the grid buys.")

_DOCUMENTS: dict[str, dict] = {
    "plan": {"anyOf": [_PLAN, _NOTHING]},
    "estimate": _ESTIMATE,
    "sweep": _SWEEP,
}


def output_schema(kind: OutputKind) -> dict:
    """The JSON Schema (draft 2020-12) of ``plan-buy <kind> --json``'s document, as a dict."""
    return {"$schema": JSON_SCHEMA_DRAFT, "title": f"plan-buy {kind} --json",
            **_DOCUMENTS[kind]}
