"""The reference docs cannot drift from the code.

docs/workloads.md and docs/catalog.md must list every field of the input models, section by
section, and nothing that is not one; docs/json.md must list every key the three ``--json``
documents actually print. The examples in the docs must validate, and the user-facing docs
must stand on their own (no references to planning files outside the repository).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from pydantic import BaseModel

from cli import main
from solver.inputs.catalog import Catalog, GpuSku, MemorySku, Platform, StorageSku
from solver.inputs.data_spec import DataSpec
from solver.inputs.fabric import CloudPrice
from solver.inputs.horizon import Horizon, Repeat
from solver.inputs.measurements import Measurement
from solver.inputs.model import ModelArch, ModelConfigRef
from solver.inputs.ownership import OwnedServer, Site, TcoPolicy
from solver.inputs.policy import Policy
from solver.inputs.workload import Workload, WorkloadFile

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
WORKLOADS = ROOT / "workloads"
ROW = re.compile(r"^\| `([A-Za-z0-9_]+)` \|")


def sections(doc: str) -> dict[str, list[str]]:
    """Heading text (without the #s) -> the field names of the table rows under it."""
    out: dict[str, list[str]] = {}
    current = None
    for line in (DOCS / doc).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            current = line.lstrip("#").strip()
            out[current] = []
        elif current is not None and (m := ROW.match(line)):
            out[current].append(m.group(1))
    return out


INPUT_SECTIONS = [
    ("workloads.md", "Top level", WorkloadFile),
    ("workloads.md", "`policy`", Policy),
    ("workloads.md", "A workload", Workload),
    ("workloads.md", "Inline model mapping", ModelArch),
    ("workloads.md", "Config reference", ModelConfigRef),
    ("workloads.md", "`data`", DataSpec),
    ("workloads.md", "`measurements[]`", Measurement),
    ("workloads.md", "`policy.tco`", TcoPolicy),
    ("workloads.md", "`policy.horizon`", Horizon),
    ("workloads.md", "`repeat`", Repeat),
    ("workloads.md", "`site`", Site),
    ("workloads.md", "`inventory[]`", OwnedServer),
    ("catalog.md", "`cloud`", CloudPrice),
    ("catalog.md", "Top level", Catalog),
    ("catalog.md", "`gpus`", GpuSku),
    ("catalog.md", "`platforms`", Platform),
    ("catalog.md", "`memory`", MemorySku),
    ("catalog.md", "`storage`", StorageSku),
]


@pytest.mark.parametrize(
    "doc, heading, model", INPUT_SECTIONS, ids=[f"{d}:{m.__name__}" for d, _, m in INPUT_SECTIONS]
)
def test_every_input_field_is_documented(doc: str, heading: str, model: type[BaseModel]):
    documented = sections(doc)[heading]
    assert len(documented) == len(set(documented)), f"{doc} '{heading}' lists a field twice"
    assert set(documented) == set(model.model_fields), (
        f"docs/{doc} section '{heading}' is out of date: "
        f"undocumented {sorted(set(model.model_fields) - set(documented))}, "
        f"not a field {sorted(set(documented) - set(model.model_fields))}"
    )


def yaml_blocks(doc: str) -> list[str]:
    text = (DOCS / doc).read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)


def test_workload_doc_example_validates():
    wf = WorkloadFile.model_validate(yaml.safe_load(yaml_blocks("workloads.md")[0]))
    assert {w.kind for w in wf.workloads} == {"train", "inference", "preprocess"}


def test_catalog_doc_example_validates():
    Catalog.model_validate(yaml.safe_load(yaml_blocks("catalog.md")[0]))


# --- docs/json.md against what the commands print ------------------------------------------


def keys_in(doc: dict, path: str) -> set[str]:
    """Union of the keys of every object at ``path`` (``options[].servers[]``) in ``doc``."""
    objs = [doc]
    for part in filter(None, path.split(".")):
        name, is_list = part.removesuffix("[]"), part.endswith("[]")
        objs = [o[name] for o in objs if name in o]
        if is_list:
            objs = [item for items in objs for item in items]
    return {k for o in objs for k in o}


def run_json(*args: str) -> dict:
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


OPTIONAL_PLAN_KEYS = {"gap", "baseline", "notes", "warnings", "full_plan_cost"}


def test_json_doc_matches_plan_output():
    small = run_json("plan", str(WORKLOADS / "small.yaml"), "--no-workbook", "--top", "2")
    q3 = run_json("plan", str(WORKLOADS / "q3.yaml"), "--no-workbook", "--top", "1")
    docs = sections("json.md")
    top = set(docs["The plan document"])
    for got in (small, q3):
        assert set(got) <= top and top - set(got) <= OPTIONAL_PLAN_KEYS
    for heading, path in [
        ("`options[]`", "options[]"),
        ("`options[].servers[]`", "options[].servers[]"),
        ("`options[].lines[]`", "options[].lines[]"),
        ("`options[].placements[]`", "options[].placements[]"),
        ("`baseline`", "baseline"),
    ]:
        assert set(docs[heading]) == keys_in(small, path), heading


def test_json_doc_matches_estimate_output():
    got = run_json("estimate", str(WORKLOADS / "q3.yaml"), "--gpu", "h100-sxm")
    docs = sections("json.md")
    # checkpointing only where a job would fit on fewer GPUs with it (not on q3)
    advised = run_json("estimate", str(ROOT / "tests" / "data" / "qlora-70b.yaml"))
    assert set(docs["The estimate document"]) == set(got) | set(advised)
    assert set(docs["`rows[]` (estimate)"]) == keys_in(got, "rows[]")
    assert set(docs["`rows[].breakdown`"]) == keys_in(got, "rows[].breakdown")
    assert set(docs["`checkpointing[]` (estimate)"]) == keys_in(advised, "checkpointing[]")


def test_json_doc_matches_sweep_output(tmp_path):
    got = run_json("sweep", str(WORKLOADS / "small.yaml"), "--budget", "5000,50000", "--jobs",
                   "1", "--no-workbook", "--out", str(tmp_path))
    timed = run_json("sweep", str(WORKLOADS / "startup.yaml"), "--runs", "pretrain-7b=1",
                     "--jobs", "1", "--no-workbook", "--out", str(tmp_path))  # over time
    docs = sections("json.md")
    assert set(docs["The sweep document"]) == set(got)
    assert set(docs["`knees[]`"]) == keys_in(got, "knees[]") | keys_in(timed, "knees[]")
    assert set(docs["`rows[]` (sweep)"]) == keys_in(got, "rows[]") | keys_in(timed, "rows[]")


# --- the docs stand on their own ------------------------------------------------------------

OUTSIDE = re.compile(r"\bSPEC\b|SPEC\.md|\bSTYLE\b|STYLE habit|\bthe seed\b|\bseed's\b")
# docs/memory-model.md is maintained with the memory model and checked there.
USER_DOCS = ["README.md", "bench/README.md",
             *(f"docs/{p.name}" for p in sorted(DOCS.glob("*.md")) if p.name != "memory-model.md")]


@pytest.mark.parametrize("doc", USER_DOCS)
def test_user_docs_do_not_point_outside_the_repository(doc: str):
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert not OUTSIDE.findall(text), f"{doc}: {OUTSIDE.findall(text)}"


def test_help_texts_stand_on_their_own():
    for command in ([], ["plan"], ["estimate"], ["sweep"]):
        result = CliRunner().invoke(main, [*command, "--help"])
        assert result.exit_code == 0
        assert not OUTSIDE.findall(result.output), (command, OUTSIDE.findall(result.output))


def test_readme_links_the_reference_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in ("docs/workloads.md", "docs/catalog.md", "docs/json.md"):
        assert f"]({doc})" in readme, doc
        assert (ROOT / doc).is_file()


def test_readme_first_code_block_is_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", readme, re.DOTALL)
    first = block.group(1).strip().splitlines()
    assert len(first) == 2
    assert first[0].endswith("plan-buy workloads/q3.yaml")
    assert first[1].endswith("pytest")


def test_json_doc_matches_budget_that_buys_nothing():
    result = CliRunner().invoke(main, ["plan", str(WORKLOADS / "small.yaml"), "--budget", "1000",
                                       "--no-workbook", "--json"])
    assert result.exit_code == 3
    got = json.loads(result.stdout)
    assert set(sections("json.md")["A budget that buys nothing"]) == set(got)
