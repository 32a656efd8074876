"""Bad input never runs and never shows a traceback; good input loads unchanged.

Every ``tests/bad_inputs/*.yaml`` is one case: its header lines ``# expect: TEXT`` must all
appear in the error, ``# absent: TEXT`` must not. Files named ``catalog-*`` are catalogs; the
others are workload files. Each case runs through the library (``InputError``) and the CLI
(exit code 2, the message, no traceback).
"""

from __future__ import annotations

import re
import sys
import time
import types
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import BAD_INPUTS, DATA, DEFAULT_CATALOG, EXAMPLES, WORKLOADS

from solver.errors import InputError
from solver.inputs.loading import load_catalog, load_workloads
from solver.inputs.model import ModelArch
from solver.inputs.safe_yaml import MAX_FILE_BYTES, read_yaml
from solver.inputs.workload import Workload, WorkloadFile

CASES = sorted(BAD_INPUTS.glob("*.yaml"))
FAST_S = 2.0  # every bad input must be refused within this


def _expectations(path: Path) -> tuple[list[str], list[str]]:
    text = path.read_text(encoding="utf-8")
    return (
        re.findall(r"^# expect: (.*)$", text, re.MULTILINE),
        re.findall(r"^# absent: (.*)$", text, re.MULTILINE),
    )


def _load(path: Path):
    return (load_catalog if path.name.startswith("catalog-") else load_workloads)(path)


def _assert_message(message: str, expect: list[str], absent: list[str]) -> None:
    for text in expect:
        assert text in message, f"expected {text!r} in:\n{message}"
    for text in absent:
        assert text not in message, f"did not expect {text!r} in:\n{message}"


def test_every_case_states_what_it_expects():
    assert len(CASES) >= 20
    for path in CASES:
        expect, _ = _expectations(path)
        assert expect, f"{path.name} has no '# expect:' line"


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_bad_input_library(path: Path):
    expect, absent = _expectations(path)
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        _load(path)
    assert time.perf_counter() - start < FAST_S
    message = str(info.value)
    assert str(path) in message  # names the file
    _assert_message(message, expect, absent)


@pytest.fixture
def cli(monkeypatch):
    """(click group, the commands that load input).

    ``estimate`` imports solver.report.estimate_table before loading; while that module is not
    written yet a stub stands in (bad input must fail in loading, before it is used).
    """
    try:
        import solver.report.estimate_table  # noqa: F401
    except ImportError:
        stub = types.ModuleType("solver.report.estimate_table")

        def never(*args, **kwargs):
            raise AssertionError("bad input reached the estimator")

        stub.estimate_rows = stub.render_estimate_table = never
        monkeypatch.setitem(sys.modules, "solver.report.estimate_table", stub)
    from cli import main

    return main, [c for c in ("estimate", "plan") if c in main.commands]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_bad_input_cli(path: Path, cli):
    main, commands = cli
    expect, absent = _expectations(path)
    for command in commands:
        if path.name.startswith("catalog-"):
            args = [command, str(WORKLOADS / "q3.yaml"), "--catalog", str(path)]
        else:
            args = [command, str(path)]
        result = CliRunner().invoke(main, args)
        output = result.output + (result.stderr if result.stderr_bytes is not None else "")
        assert result.exit_code == 2, (args, output)
        assert "Traceback" not in output
        _assert_message(output, expect, absent)


def test_cli_missing_file(cli):
    main, commands = cli
    for command in commands:
        result = CliRunner().invoke(main, [command, "no/such/file.yaml"])
        assert result.exit_code == 2
        assert "no/such/file.yaml" in result.output
        assert "Traceback" not in result.output


# --- inputs too large to keep as files ------------------------------------------------------


def _refused_fast(path: Path, *expect: str) -> str:
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        load_workloads(path)
    assert time.perf_counter() - start < FAST_S
    _assert_message(str(info.value), list(expect), [])
    return str(info.value)


def test_million_workloads_by_alias_fail_fast(write_yaml):
    text = (
        "name: big\nw: &w {name: x, kind: preprocess}\nworkloads: ["
        + ",".join(["*w"] * 1_000_000)
        + "]\n"
    )
    _refused_fast(write_yaml(text), "expands to", "YAML aliases")


def test_too_many_workloads_fail_fast(write_yaml):
    body = "".join(f"  - {{name: w{i}, kind: preprocess}}\n" for i in range(6000))
    _refused_fast(write_yaml("name: many\nworkloads:\n" + body), "at most 5,000 workloads")


def test_huge_file_fails_fast(write_yaml):
    padding = "# " + "x" * 1000 + "\n"
    text = "name: huge\n" + padding * (MAX_FILE_BYTES // len(padding) + 1)
    _refused_fast(write_yaml(text), "bytes; plan-buy reads input files up to")


def test_deep_nesting_fails_fast(write_yaml):
    _refused_fast(
        write_yaml("name: deep\nworkloads: " + "[" * 5000 + "]" * 5000 + "\n"), "YAML syntax error"
    )


def test_block_nesting_fails_fast(write_yaml):
    text = (
        "name: deep\nworkloads:\n"
        + "".join(" " * (2 * i + 2) + f"k{i}:\n" for i in range(150))
        + " " * 302
        + "v\n"
    )
    _refused_fast(write_yaml(text), "nested more than 100 levels deep")


def test_no_such_file():
    with pytest.raises(InputError, match="no such file"):
        load_workloads(Path("no/such/file.yaml"))


def test_not_utf8(write_yaml, tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8"):
        read_yaml(path)


def test_safe_loader_never_runs_code(write_yaml, tmp_path):
    marker = tmp_path / "pwned"
    text = f"name: !!python/object/apply:os.system ['touch {marker}']\nworkloads: []\n"
    with pytest.raises(InputError, match="is not allowed"):
        load_workloads(write_yaml(text))
    assert not marker.exists()


def test_anchors_and_merge_keys_are_fine(write_yaml):
    text = """
name: anchors
workloads:
  - &serve {name: a, kind: inference, model: mistral-7b, context: 4096, batch: 8}
  - {<<: *serve, name: b, batch: 16}
"""
    wf = load_workloads(write_yaml(text))
    assert [(w.name, w.batch) for w in wf.workloads] == [("a", 8), ("b", 16)]


# --- good input -------------------------------------------------------------------------------


def test_q3_loads_and_resolves_every_model(q3):
    assert q3.name == "q3" and len(q3.workloads) == 7
    for w in q3.workloads:
        assert (w.model is None) == (w.kind == "preprocess")
        if w.model is not None:
            assert isinstance(w.arch, ModelArch)
    assert q3.workloads[0].arch.name == "llama-2-13b"
    assert q3.workloads[4].arch.name == "bge-large"
    assert q3.planned_replicas(q3.workloads[1]) == 4  # ceil(3 x 1.25), R19


def test_customer_example_loads_unchanged():
    wf = load_workloads(EXAMPLES / "customer-q3.yaml")
    assert wf.name == "customer-q3" and len(wf.workloads) == 7
    load_catalog(EXAMPLES / "catalog-shape.yaml")


def test_q3_is_the_customer_mix(q3):
    customer = load_workloads(EXAMPLES / "customer-q3.yaml")
    assert customer.workloads == q3.workloads and customer.policy == q3.policy


def test_defaults_follow_the_rules(write_yaml):
    wf = load_workloads(write_yaml("name: d\nworkloads:\n  - {name: p, kind: preprocess}\n"))
    assert wf.policy.headroom == 0.2  # R15
    assert (
        wf.policy.ram_ratio_single_gpu_train,
        wf.policy.ram_ratio_multi_gpu_train,
        wf.policy.ram_ratio_inference,
    ) == (1.5, 0.8, 0.5)  # R12
    w = Workload(name="t", kind="train", model="llama-2-7b", seq_len=512, global_batch=8)
    assert w.uses_master_weights  # R4: bf16 mixed precision keeps an fp32 copy
    assert not w.model_copy(update={"master_weights": False}).uses_master_weights


def test_config_reference_resolves_relative_to_the_file(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "config.json").write_text((DATA / "llama-2-7b-config.json").read_text())
    path = tmp_path / "mix.yaml"
    path.write_text(
        "name: cfg\nworkloads:\n  - {name: s, kind: inference, context: 4096, "
        "batch: 4, model: {config: models/config.json}}\n"
    )
    arch = load_workloads(path).workloads[0].arch
    assert (arch.hidden, arch.layers, arch.heads, arch.vocab) == (4096, 32, 32, 32000)
    assert arch.params_b == pytest.approx(6.738, rel=0.02)


def test_workload_direct_construction_resolves_models():
    w = Workload.model_validate(
        {
            "name": "s",
            "kind": "inference",
            "context": 128,
            "batch": 1,
            "model": {"params_b": 1, "hidden": 64, "layers": 2, "heads": 4, "vocab": 100},
        }
    )
    assert w.arch.hidden == 64
    assert Workload(name="p", kind="inference", model="gpt2", context=8, batch=1).arch.layers == 12


def test_duplicate_names_rejected_without_the_loader():
    with pytest.raises(ValueError, match="already the name of workloads\\[0\\]"):
        WorkloadFile.model_validate(
            {
                "name": "x",
                "workloads": [
                    {"name": "a", "kind": "preprocess"},
                    {"name": "a", "kind": "preprocess"},
                ],
            }
        )


def test_default_catalog_loads():
    cat = load_catalog(DEFAULT_CATALOG)
    assert cat.currency == "USD"


# Largest model in each of the seed's reference scenarios (R20), billions of parameters.
R20_SIZES = {"small": (7, 13.1), "medium": (30, 73), "large": (100, 1000)}


@pytest.mark.parametrize("name", R20_SIZES)
def test_reference_scenarios_validate(name: str):
    path = WORKLOADS / f"{name}.yaml"
    wf = load_workloads(path)
    assert wf.name == name and 3 <= len(wf.workloads) <= 6
    assert "R20" in path.read_text().splitlines()[0]
    low, high = R20_SIZES[name]
    assert low <= max(w.arch.params_b for w in wf.workloads if w.model) <= high
    assert sum(w.storage_tb for w in wf.workloads) > 0


# --- requests_per_s: the request rate serving teams quote ------------------------------------
REQUESTS = """name: rq
workloads:
  - {name: chat, kind: inference, model: llama-3.1-8b, batch: auto, prompt_tokens: 1024,
     output_tokens: 256, RATE, max_tpot_ms: 50}
"""


def test_requests_per_s_is_requests_times_output_tokens(write_yaml):
    from solver.estimate.throughput import target_tokens_per_s

    w = load_workloads(write_yaml(REQUESTS.replace("RATE", "requests_per_s: 20"))).workloads[0]
    assert w.requests_per_s == 20 and w.tokens_per_s is None
    assert w.output_tokens_per_s == target_tokens_per_s(w) == 20 * 256
    assert w.context == 1024 + 256


def test_plan_json_shows_the_request_rate_and_what_it_means(write_yaml):
    import json

    from cli import main

    def plan(rate: str) -> dict:
        path = write_yaml(REQUESTS.replace("RATE", rate), f"{rate.split(':')[0]}.yaml")
        result = CliRunner().invoke(main, ["plan", str(path), "--no-workbook", "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    by_requests, by_tokens = plan("requests_per_s: 20"), plan("tokens_per_s: 5120")
    fig = by_requests["options"][0]["throughput"][0]
    assert fig["target_requests_per_s"] == 20 and fig["output_tokens_per_request"] == 256
    assert fig["target_tokens_per_s"] == 20 * 256
    assert fig["requests_per_s"] == pytest.approx(fig["tokens_per_s"] / 256, abs=0.01)
    assert fig["requests_per_s"] >= 20
    # The same target as tokens_per_s = 20 x 256: the same purchase.
    same = by_tokens["options"][0]
    assert same["throughput"][0]["target_requests_per_s"] is None
    assert same["total_cost"] == by_requests["options"][0]["total_cost"]
    assert same["lines"] == by_requests["options"][0]["lines"]


def test_every_plain_field_has_a_value_to_offer_in_to_fix():
    # A new field without an example or default would fall back to restating its description.
    from pydantic import BaseModel

    from solver.inputs import catalog, owned, ownership, workload
    from solver.inputs.examples import example_for

    sku_lists = {"exclude", "includes"}  # names of the catalog: no example fits every catalog
    lacking = []
    for module in (catalog, owned, ownership, workload):
        for model in vars(module).values():
            if not (isinstance(model, type) and issubclass(model, BaseModel)
                    and model.__module__ == module.__name__):
                continue
            for name, info in model.model_fields.items():
                nested = "solver.inputs" in repr(info.annotation)  # a mapping of fields
                if not nested and name not in sku_lists and example_for(name, info) is None:
                    lacking.append(f"{model.__name__}.{name}")
    assert not lacking


def test_plan_text_reads_a_request_rate_in_requests(write_yaml):
    from cli import main

    path = write_yaml(REQUESTS.replace("RATE", "requests_per_s: 20"))
    result = CliRunner().invoke(main, ["plan", str(path), "--no-workbook"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the line may wrap
    assert re.search(r"chat: 2\d\.\d requests/s of 20\.0 needed \([\d,]+ output tokens/s of "
                     r"5,120, at 256 per request\)", text), text
