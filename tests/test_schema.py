"""``plan-buy schema``: JSON Schema of the input files, for editors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli import main


@pytest.mark.parametrize(("kind", "field"), [("workloads", "workloads"), ("catalog", "gpus")])
def test_schema_is_json_with_field_descriptions(kind, field):
    res = CliRunner().invoke(main, ["schema", kind])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["$schema"].startswith("https://json-schema.org/")
    assert field in doc["properties"]
    described = [p for d in doc["$defs"].values() for p in d.get("properties", {}).values()
                 if p.get("description")]
    assert len(described) > 10  # field docstrings became descriptions


def test_workloads_schema_accepts_the_shipped_examples(root):
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    doc = json.loads(CliRunner().invoke(main, ["schema", "workloads"]).stdout)
    for name in ("q3.yaml", "deadlines.yaml"):
        jsonschema.validate(yaml.safe_load((root / "workloads" / name).read_text()), doc)
