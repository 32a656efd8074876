"""``plan --robust P`` (solver/uncertainty/robust.py) on a hand-made file whose answer is
known by construction: one inference job of 4 replicas, one GPU per replica; demand growth
uniform on [1, 2] and no other uncertainty, so a plan of k replicas holds in a scenario
exactly when ⌈4 × growth⌉ ≤ k, which the test counts on its own from the draws.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from solver.inputs.workload import WorkloadFile
from solver.uncertainty.draws import draw, resolve
from solver.uncertainty.robust import default_planner, plan_robust
from tests.solver_fixtures import catalog
from tests.test_uncertainty import MODEL, gpu

GROWTH_ONLY = {"growth": {"dist": "uniform", "low": 1.0, "high": 2.0},
               "estimates": {"source": "none"}, "samples": 60, "seed": 3}


def _file(unc: dict) -> WorkloadFile:
    return WorkloadFile.model_validate({
        "name": "robust", "policy": {"max_parallel_degree": 1},
        "workloads": [{"name": "serve", "kind": "inference", "model": MODEL,
                       "precision": "bf16", "context": 2048, "batch": 4, "replicas": 4}],
        "uncertainty": unc})


def _catalog():
    return catalog(gpus=[gpu(80)])


def _replicas(result) -> int:
    return sum(1 for p in result.options[0].placements if p.workload == "serve")


def _covered(unc, wf, k: int) -> int:
    """Counted apart from the checker: the scenarios whose demand k replicas cover."""
    return sum(math.ceil(4 * draw(unc, wf, i).growth - 1e-9) <= k for i in range(60))


def test_the_robust_plan_is_the_fewest_replicas_that_hold_as_often_as_asked():
    wf, cat = _file(GROWTH_ONLY), _catalog()
    unc = resolve(wf, cat, "robust.yaml")
    result = plan_robust(wf, cat, unc, 0.9, default_planner(cat, top=1))
    info = result.robust
    k = _replicas(result)
    # Solved by hand: one GPU a replica, so the cheapest pool is the fewest replicas that
    # cover 54 of the 60 scenarios' demand; one replica fewer covers too few.
    assert _covered(unc, wf, k) >= 54 > _covered(unc, wf, k - 1)
    assert info.held == _covered(unc, wf, k) and info.met and info.method == "program"
    assert info.plain_held == _covered(unc, wf, 4) < 54 and _replicas_plain(wf, cat) == 4
    assert info.cost > info.plain_cost and info.tried == ()
    assert result.to_json()["robust"]["extra_cost"] == round(info.cost - info.plain_cost, 2)
    assert "cheapest pool" in result.notes[0] and "robustness costs" in result.notes[0]
    assert result.status.value == "optimal"


def _replicas_plain(wf, cat) -> int:
    return _replicas(default_planner(cat, top=1)(wf))


def test_a_plan_that_already_holds_costs_nothing_more():
    unc_file = {**GROWTH_ONLY, "growth": {"dist": "fixed", "mean": 1.0}}
    wf, cat = _file(unc_file), _catalog()
    result = plan_robust(wf, cat, resolve(wf, cat, "robust.yaml"), 0.9,
                         default_planner(cat, top=1))
    assert result.robust.method == "plain" and result.robust.held == 60
    assert result.robust.cost == result.robust.plain_cost
    assert "costs nothing more" in result.notes[0]


@pytest.fixture
def robust_yaml(tmp_path: Path) -> Path:
    import yaml
    path = tmp_path / "robust.yaml"
    path.write_text(yaml.safe_dump(_file(GROWTH_ONLY).model_dump(mode="json",
                                                                 exclude_defaults=True)))
    return path


def test_samples_without_robust_exit_2(robust_yaml: Path, tmp_path: Path):
    got = CliRunner().invoke(main, ["plan", str(robust_yaml), "--samples", "10",
                                    "--no-workbook"])
    assert got.exit_code == 2 and "--robust" in got.output


def test_robust_above_one_exits_2(robust_yaml: Path):
    got = CliRunner().invoke(main, ["plan", str(robust_yaml), "--robust", "1.5",
                                    "--no-workbook"])
    assert got.exit_code == 2


def test_over_a_horizon_the_plan_is_sized_by_levels_and_says_it_is_not_proven():
    """The runs' program has no U1 rows: over a horizon ``--robust`` sizes the file at the
    least quantile level whose plan holds often enough, counted in the same worlds."""
    from solver.inputs.loading import load_catalog, load_workloads
    from solver.uncertainty.worlds import worlds

    root = Path(__file__).resolve().parents[1]
    wf = load_workloads(root / "workloads" / "startup.yaml")
    cat = load_catalog(root / "catalogs" / "default.yaml")
    unc = resolve(wf, cat, "startup.yaml", samples=6, seed=3)
    result = plan_robust(wf, cat, unc, 0.8, default_planner(cat, top=1))
    info = result.robust
    assert info.method == "levels" and info.level is not None and info.tried
    assert info.tried[-1][0] == info.level
    held_to = wf.model_copy(update={"uncertainty": unc.model_copy(update={"robust": 0.8})})
    from solver.check.verdict import held_in

    assert held_in(result.options[0], (w.wf for w in worlds(held_to, cat)), cat) == info.held
    assert info.held > info.plain_held
    assert any("not proven the cheapest" in n for n in result.notes)


def test_under_a_budget_the_robust_plan_names_what_it_leaves_out():
    """With a budget the plain plan's four replicas fit and the robust count does not: the
    most priority that holds in 90% of the scenarios within it is none of the job, and the
    note says so rather than calling robustness free."""
    from solver.inputs.scenario import with_policy

    wf, cat = _file(GROWTH_ONLY), _catalog()
    plain = default_planner(cat, top=1)(wf).options[0]
    tight = with_policy(wf, budget=plain.total_cost)
    result = plan_robust(tight, cat, resolve(tight, cat, "robust.yaml"), 0.9,
                         default_planner(cat, top=1))
    info = result.robust
    assert info.method == "program" and info.left_out == ("serve",)
    assert result.options[0].unserved == ("serve",)
    assert result.to_json()["robust"]["left_out"] == ["serve"]
    assert any("leaves out serve, which the plain plan serves" in n for n in result.notes)


@pytest.mark.usefixtures("sweeps_in_process")
def test_a_sweep_of_a_file_held_to_its_scenarios_judges_it_out_of_sample(tmp_path: Path):
    """``uncertainty.robust`` in the file: ``sweep --samples`` evaluates the held plan, and
    says that its shares are out of sample when it draws other scenarios."""
    import yaml

    data = _file({**GROWTH_ONLY, "robust": 0.9}).model_dump(mode="json", exclude_defaults=True)
    path = tmp_path / "held.yaml"
    path.write_text(yaml.safe_dump(data))
    cat_path = tmp_path / "cat.yaml"
    cat_path.write_text(yaml.safe_dump(_catalog().model_dump(mode="json", exclude_none=True)))
    got = CliRunner().invoke(main, ["sweep", str(path), "--catalog", str(cat_path),
                                    "--samples", "30", "--seed", "99", "--no-workbook",
                                    "--out", str(tmp_path), "--json"])
    assert got.exit_code == 0, got.output
    doc = json.loads(got.stdout)
    assert doc["planned_robust"] == {"target": 0.9, "samples": 60, "seed": 3}
    wf = _file(GROWTH_ONLY)
    k = _replicas(plan_robust(wf, _catalog(), resolve(wf, _catalog(), "robust.yaml"), 0.9,
                              default_planner(_catalog(), top=1)))
    unc = resolve(wf, _catalog(), "x", samples=30, seed=99)
    # Counted from the other draws alone: the held plan's k replicas cover their demand.
    covered = sum(math.ceil(4 * draw(unc, wf, i).growth - 1e-9) <= k for i in range(30))
    assert doc["options"][0]["holds"]["count"] == covered
    text = CliRunner().invoke(main, ["sweep", str(path), "--catalog", str(cat_path),
                                     "--samples", "30", "--seed", "99",
                                     "--out", str(tmp_path)]).output
    assert "out of sample" in text
    import openpyxl

    sheet = openpyxl.load_workbook(tmp_path / "robust-uncertainty.xlsx")["Uncertainty"]
    assert "planned to hold in 90% of the file's own 60 scenarios" in sheet["A3"].value


def test_the_robust_document_validates_against_the_printed_schema(robust_yaml: Path):
    import jsonschema

    got = CliRunner().invoke(main, ["plan", str(robust_yaml), "--robust", "0.9", "--samples",
                                    "20", "--json", "--no-workbook"])
    assert got.exit_code == 0, got.output
    doc = json.loads(got.stdout)
    schema = json.loads(CliRunner().invoke(main, ["schema", "plan"]).stdout)
    jsonschema.validate(doc, schema)
    assert doc["robust"]["method"] == "program" and doc["robust"]["samples"] == 20
    broken = {**doc, "robust": {**doc["robust"], "method": "guess"}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
