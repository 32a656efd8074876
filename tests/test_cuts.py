"""Valid cuts added to the program, each on a hand-solved instance: the cut holds for the
optimal plan (the program stays a relaxation) and cuts off what the plain sums allowed.

Catalog (tests/solver_fixtures.py): box2 $2000 with 2 PCIe slots; DIMMs 32 GB $100, 64 GB
$300; GPU small $1000; CPU node $500. Headroom 20%: box2 with 4 x 32 GB holds 102.4 GB of
host RAM, with 4 x 64 GB 204.8 GB.
"""

from __future__ import annotations

import pulp
import pytest
import solver_fixtures as fx

from solver.check import check_plan
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.patterns import best_pattern, most_value
from solver.optimize.pipeline import plan
from solver.optimize.program import add_shared_big_rows, build
from solver.optimize.program.names import family, row_name
from solver.optimize.tighten import pattern_cut_weights


def test_pattern_cut_weights_are_the_pattern_lp_duals():
    """Kinds (1 GPU, 60 GB) and (1 GPU, 50 GB), two of each, on 2-slot servers of 102.4 GB:
    GPUs and RAM summed say 2 servers (4 GPUs, 220 GB); a 60 GB replica shares a server with
    nothing (60 + 50 > 102.4), the two 50 GB ones pair, so 3. The weights are 1 and 1/2:
    n ≥ x_60 + x_50 / 2 = 3, and no server holds more than weight 1 (valid for every plan)."""
    kinds = [(1, 60.0), (1, 50.0)]
    weights = pattern_cut_weights(kinds, [2, 2], 2, 102.4, None)
    assert weights is not None
    assert [round(w, 6) for w in weights] == [1.0, 0.5]
    most, _ = best_pattern(kinds, weights, 2, 102.4)
    assert most <= 1 + 1e-9
    assert sum(w * c for w, c in zip(weights, [2, 2], strict=True)) == 3


def test_most_value_falls_back_to_an_upper_bound():
    """Exact when the search is small (two 5 GB jobs of value 3 in 12 GB: 6); past the node
    limit the fractional bound cap x best ratio (12 x 3/5 = 7.2), never below the optimum."""
    assert most_value([(0.0, 5.0)], [3.0], (0, 12.0), limit=1000) == 6.0
    assert most_value([(0.0, 5.0)], [3.0], (0, 12.0), limit=1) == pytest.approx(7.2)


def _values(m, name):
    row = m.prob.constraints[name]
    return sum(coef * (v.varValue or 0) for v, coef in row.items()) + row.constant


def test_least_ram_fill_counts_whole_replicas():
    """GPUs filled by 2-GPU replicas of 225.6 GB and 4-GPU ones of 282 GB: 2 GPUs need 225.6,
    4 need 282 (not two 2-GPU ones), 6 need 507.6; odd counts cannot be filled."""
    from solver.optimize.program.board_cuts import _least_ram_fill
    from solver.optimize.replicas import ReplicaOption

    def opt(d, r):
        return ReplicaOption("w", "g", d, False, 0.0, r, None)  # type: ignore[arg-type]

    fill = _least_ram_fill([opt(2, 225.6), opt(4, 282.0)], 8)
    assert fill[1] == fill[3] == float("inf")
    assert fill[2] == 225.6 and fill[4] == 282.0 and fill[6] == pytest.approx(507.6)
    assert fill[8] == 564.0


def test_blocker_cut_keeps_a_big_cpu_job_off_the_gpu_servers(monkeypatch):
    """Three 1-GPU replicas needing 30 GB and a preprocess replica needing 90 GB. Summed,
    two box2 with 4 x 32 GB hold them (3 of 4 GPUs, 180 of 204.8 GB), but 90 > 102.4 − 30:
    the preprocess job sits beside no GPU replica there, so the third GPU replica needs a
    third server. The cut on that type,  x_gpu / 2 + 90 x_pre / 102.4 ≤ n  (2.38 > 2), cuts
    the lie off. By hand the optimum is $8,400: box2 with 4 x 64 GB for two GPU replicas and
    the preprocess job (150 ≤ 204.8 GB; $5,200) and box2 with 2 x 32 GB for the third ($3,200)
    (against $8,500 with the job on a CPU node, $8,600 with it beside one GPU replica)."""
    fx.install(monkeypatch, {"a": (15, 30), "p": (0, 90)})
    wf = fx.workloads({"name": "a", "replicas": 3}, {"name": "p", "kind": "preprocess"})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    m = build(wf, cat, cand, None)
    box = next(t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
               and t.ram_gb == 128)
    row = m.prob.constraints[row_name("block", box.key, 0)]
    coefs = {v.name: c for v, c in row.items()}
    oa = next(j for j, o in enumerate(cand.options["a"]) if o.gpu == "small")
    assert coefs[m.n[box.key].name] == -1
    assert coefs[m.x[("a", oa, box.key)].name] == pytest.approx(0.5)
    assert coefs[m.x[("p", 0, box.key)].name] == pytest.approx(90 / 102.4)
    lie = 3 * 0.5 + 90 / 102.4  # the summed rows allow n = 2 here
    assert lie > 2
    # GPU room: beside 90 GB, 12.4 GB is left, less than any GPU replica needs (30), so the
    # preprocess job's server holds none of the 2 GPUs:  x_gpu + 2 x_pre ≤ 2 n  (5 > 4).
    room = {v.name: c for v, c in m.prob.constraints[row_name("gpu.room", box.key, 0)].items()}
    assert room[m.n[box.key].name] == -2
    assert room[m.x[("a", oa, box.key)].name] == 1
    assert room[m.x[("p", 0, box.key)].name] == 2
    result = plan(wf, cat, top=1, with_baseline=False)
    assert result.status == "optimal"
    assert result.options[0].total_cost == 8400
    assert check_plan(result.options[0], wf, cat) == []
    m.prob.solve(pulp.HiGHS(msg=False))
    assert pulp.value(m.prob.objective) == pytest.approx(8400, abs=0.1)
    for name in m.prob.constraints:
        if family(name) == "block":
            assert _values(m, name) <= 1e-6  # every blocker cut holds at the optimum


def test_no_two_shared_replicas_of_over_half_a_gpu_share_one(monkeypatch):
    """Three shareable replicas of 12, 11 and 10 GB on small GPUs (19.2 GB usable): any two
    exceed 19.2, so each needs a GPU of its own. The VRAM sum (33 <= 2 x 19.2) and each
    workload's own fit row (one replica per GPU) let the program buy two shared GPUs on one
    box2 ($4,200); the row  s_t >= y_a + y_b + y_c  (each over 9.6 GB) asks for three:
    two box2, $4,400 + 3 x $1,000 = $7,400, by hand the optimum (one big GPU holding all
    three costs $12,200)."""
    fx.install(monkeypatch, {"a": (12, 1), "b": (11, 1), "c": (10, 1)})
    wf = fx.workloads(*({"name": n, "shareable": True} for n in "abc"))
    cat = fx.catalog()
    result = plan(wf, cat, top=1, with_baseline=False)
    assert result.status == "optimal" and result.options[0].total_cost == 7400
    assert check_plan(result.options[0], wf, cat) == []
    m = build(wf, cat, enumerate_candidates(wf, cat), None)
    m.prob.solve(pulp.HiGHS(msg=False))
    assert pulp.value(m.prob.objective) == pytest.approx(4200, abs=0.1)  # the sums lie
    rows = add_shared_big_rows(m, wf.policy)
    assert len(rows) == 3  # the small-GPU types; on a big GPU (64 GB) none is over half
    m.prob.solve(pulp.HiGHS(msg=False))
    assert pulp.value(m.prob.objective) == pytest.approx(7400, abs=0.1)
    assert [v.varValue for v in m.shared.values() if v.varValue] == [3]


def test_full_board_rows_keep_other_gpu_jobs_and_big_cpu_jobs_off_full_servers(monkeypatch):
    """Two 2-GPU replicas of 120 GB (full: they take a box2's both slots), two 1-GPU ones
    of 60 GB and a 90 GB preprocess job. Summed, three box2 with 4 x 64 GB hold them (6 of
    6 GPUs, 450 of 614.4 GB; the blocker row 2 + 90/204.8 ≤ 3), for $15,600. But nothing
    that needs a GPU sits beside a full replica, nor the 90 GB job (120 + 90 > 204.8): the
    1-GPU replicas and the job need the third server's 204.8 GB, and 60 + 60 + 90 = 210.
    The row  60 x_p + 90 x_c ≤ 204.8 (n − x_f)  (210 > 204.8 at n = 3) cuts the lie off.
    By hand the optimum is $16,500: two box2 of 4 x 64 GB with a full replica each ($5,200
    each), one with both 1-GPU replicas ($5,200) and the job on a CPU node with 4 x 32 GB
    ($900); against $18,000 with the job beside one 1-GPU replica and a fourth box2."""
    from solver.optimize.program import assemble as building

    monkeypatch.setattr(building, "FULL_BOARD_MIN_ROWS", 0)  # a tiny program
    fx.install(monkeypatch, {"f": (30, 60), "p": (10, 60), "c": (0, 90)})
    wf = fx.workloads({"name": "f", "replicas": 2, "shareable": False},
                      {"name": "p", "replicas": 2, "shareable": False},
                      {"name": "c", "kind": "preprocess"})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    m = build(wf, cat, cand, None)
    box = next(t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
               and t.gpu.sku == "small" and t.ram_gb == 256)
    full = row_name("full", box.key, 0)
    coefs = {v.name: c for v, c in m.prob.constraints[full].items()}
    of = next(j for j, o in enumerate(cand.options["f"]) if o.gpu == "small")
    op = next(j for j, o in enumerate(cand.options["p"]) if o.gpu == "small")
    assert coefs[m.n[box.key].name] == pytest.approx(-204.8)
    assert coefs[m.x[("f", of, box.key)].name] == pytest.approx(204.8)
    assert coefs[m.x[("p", op, box.key)].name] == 60
    assert coefs[m.x[("c", 0, box.key)].name] == 90
    m.prob.solve(pulp.HiGHS(msg=False))
    assert pulp.value(m.prob.objective) == pytest.approx(16500, abs=0.1)
    assert _values(m, full) <= 1e-6
    result = plan(wf, cat, top=1, with_baseline=False)
    assert result.status == "optimal" and result.options[0].total_cost == 16500
    assert check_plan(result.options[0], wf, cat) == []
    cpu = [s for s in result.options[0].servers if s.gpu is None]
    assert len(cpu) == 1 and cpu[0].platform == "cpu"

    monkeypatch.setattr(building, "define_full_boards", lambda m, wf: None)
    lie = build(wf, cat, cand, None)
    lie.prob.solve(pulp.HiGHS(msg=False))
    assert pulp.value(lie.prob.objective) == pytest.approx(15600, abs=0.1)  # the sums lie
