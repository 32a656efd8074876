"""JSON Schema of the input files, from the pydantic models, for editors.

A YAML language server reads it (``# yaml-language-server: $schema=...``) to complete
field names and show each field's docstring as you type; docs/workloads.md shows how.
"""

from __future__ import annotations

from typing import Literal

SchemaKind = Literal["workloads", "catalog"]
"""Which input file: a workload file or a hardware catalog."""

JSON_SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def input_schema(kind: SchemaKind) -> dict:
    """The JSON Schema (draft 2020-12) of a workload file or a catalog, as a dict.

    Field descriptions are the models' field docstrings, so the schema and docs/ agree.
    """
    if kind == "workloads":
        from .workload import WorkloadFile as model
    else:
        from .catalog import Catalog as model  # type: ignore[assignment]
    schema = model.model_json_schema(mode="validation")
    return {"$schema": JSON_SCHEMA_DRAFT, "title": f"plan-buy {kind} file", **{
        k: v for k, v in schema.items() if k != "title"}}
