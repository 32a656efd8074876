"""``plan-buy schema``: JSON Schema of the input files, for editors and people's own checks.

Every shipped input file must validate against the schema plan-buy prints, whichever YAML
loader reads it: PyYAML (YAML 1.1, what most scripts use) and ruamel.yaml (YAML 1.2, what
editors' language servers follow). A file that means one thing to plan-buy and another to
those loaders (``1.0e11`` is text to YAML 1.1; an unquoted date is a date object) fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from conftest import DEFAULT_CATALOG, ROOT, WORKLOADS
from ruamel.yaml import YAML

from cli import main
from solver.inputs.safe_yaml import read_yaml

SHIPPED = [*sorted(WORKLOADS.glob("*.yaml")), DEFAULT_CATALOG,
           ROOT / "solver" / "data" / "default-catalog.yaml"]


def _kind(path: Path) -> str:
    return "workloads" if path.parent == WORKLOADS else "catalog"


def _schema(kind: str) -> dict:
    res = CliRunner().invoke(main, ["schema", kind])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _pyyaml(text: str):
    return yaml.safe_load(text)


def _ruamel(text: str):
    return YAML(typ="safe", pure=True).load(text)


LOADERS = {"pyyaml-1.1": _pyyaml, "ruamel-1.2": _ruamel}


@pytest.mark.parametrize(("kind", "field"), [("workloads", "workloads"), ("catalog", "gpus")])
def test_schema_is_json_with_field_descriptions(kind, field):
    doc = _schema(kind)
    assert doc["$schema"].startswith("https://json-schema.org/")
    assert field in doc["properties"]
    described = [p for d in doc["$defs"].values() for p in d.get("properties", {}).values()
                 if p.get("description")]
    assert len(described) > 10  # field docstrings became descriptions


def test_every_shipped_file_is_checked():
    names = {p.name for p in SHIPPED}
    assert {"q3.yaml", "deadlines.yaml", "default.yaml", "default-catalog.yaml"} <= names


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_file_validates_against_the_printed_schema(path, loader):
    data = LOADERS[loader](path.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(_schema(_kind(path))).iter_errors(data),
                    key=lambda e: list(map(str, e.absolute_path)))
    assert not errors, "\n".join(
        f"{path.name}: {'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_file_means_the_same_to_every_loader(path, loader):
    # plan-buy reads 1e11 as a number (YAML 1.2); a file written for it must not depend on that.
    assert LOADERS[loader](path.read_text(encoding="utf-8")) == read_yaml(path)


# --- The --json documents of plan, estimate and sweep -----------------------------------------
def _json(*args: str, code: int = 0) -> dict:
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> dict[str, list[dict]]:
    """Real output of each command: plain, with throughput targets and request rates,
    under a budget that buys nothing (exit 3)."""
    out = tmp_path_factory.mktemp("out")
    small, deadlines = str(WORKLOADS / "small.yaml"), str(WORKLOADS / "deadlines.yaml")
    rates = tmp_path_factory.mktemp("in") / "rates.yaml"
    rates.write_text("name: rates\nworkloads:\n  - {name: chat, kind: inference, model: "
                     "llama-3.1-8b, batch: auto, prompt_tokens: 1024, output_tokens: 256, "
                     "requests_per_s: 20}\n", encoding="utf-8")
    return {
        "plan": [_json("plan", p, "--no-workbook") for p in (small, deadlines, str(rates))]
        + [_json("plan", small, "--no-workbook", "--budget", "1000", code=3)],
        "estimate": [_json("estimate", p) for p in (small, deadlines)],
        "sweep": [_json("sweep", small, "--no-workbook", "--out", str(out), "--budget",
                        "5k,20k", "--growth", "1,2", "--jobs", "1")],
    }


@pytest.mark.parametrize("kind", ["plan", "estimate", "sweep"])
def test_json_output_validates_against_its_printed_schema(kind, documents):
    schema = _schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    for doc in documents[kind]:
        jsonschema.validate(doc, schema)


def test_the_documents_cover_what_the_schemas_describe(documents):
    plans = documents["plan"]
    assert plans[-1]["status"] == "infeasible"  # the document of a budget that buys nothing
    figures = [t for p in plans[:-1] for o in p["options"] for t in o["throughput"]]
    assert any(t["target_requests_per_s"] == 20 for t in figures)
    assert any(t["days_to_finish"] is not None for t in figures)


@pytest.mark.parametrize(("kind", "path", "value"), [
    ("plan", ("options", 0, "total_cost"), None),
    ("plan", ("options", 0, "lines", 0, "qty"), "3"),
    ("estimate", ("rows", 0, "breakdown"), None),
    ("sweep", ("rows", 0, "reused_knee"), 1),
])
def test_a_document_missing_or_retyping_a_field_fails_its_schema(kind, path, value, documents):
    doc = json.loads(json.dumps(documents[kind][0]))
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    if value is None:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, _schema(kind))
