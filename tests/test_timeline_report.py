"""Reports of a plan over time (H6): the terminal's buy and rent lines and schedule, the
workbook's Timeline sheet, rented GPU-hours and runs tables, and GPU use per span.

``timeline_plan`` builds a hand-made result over tests/data/timeline.yaml (one year from
2027-01-04, a third of the hardware's 36-month life): chat-serving always on 2 of the 4
L40S of server s1; finetune's 52 weekly runs (2 replicas x 4 H100, 30 h each) on run server
s2 but the last, rented on 8 A100 80GB; pretrain's one run rented on 64 H100 for 14.2 days.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest
from conftest import ROOT
from recalc import recalculate, soffice, stored_vs_recalculated
from test_report import CATALOG, bom

from solver.horizon.runs import runs_of
from solver.inputs.loading import load_catalog, load_workloads
from solver.plan_types import Placement, PlanOption, Server
from solver.report import timeline_data as td
from solver.report.summary import render_plan_summary
from solver.report.workbook import write_workbook
from solver.result import PlanResult
from solver.run_types import HorizonInfo, Rented, RunEntry, TimeCost

TIMELINE = ROOT / "tests" / "data" / "timeline.yaml"
PRETRAIN_H = 14.2 * 24


def _run(spec, servers, gpu, replicas, gpus, hours, price=None) -> RunEntry:
    rented = None
    if price is not None:
        n = replicas * gpus
        rented = Rented(n, hours, n * hours * price, price)
    return RunEntry(spec.workload, spec.run, spec.start_h, spec.start_h + hours, replicas,
                    gpu, gpus, servers, rented, spec.start_h, spec.deadline_h, spec.tokens,
                    1.0e4)


def timeline_plan():
    """(PlanResult, WorkloadFile, Catalog): the hand-made plan over time described above."""
    catalog = load_catalog(CATALOG)
    wf = load_workloads(TIMELINE)
    s1 = Server("s1", "srv-4gpu-ddr4", "l40s", 4, "ddr4-3200-64g", 8, "nvme-u2-3.84t", 1)
    s2 = Server("s2", "hgx-h100-8gpu-ddr5", "h100-sxm", 8, "ddr5-4800-64g", 16,
                "nvme-u2-7.68t", 2)
    chat = [Placement("chat-serving", k + 1, "s1", "l40s", 1, 20.0, 30.0, (k,))
            for k in range(2)]
    runs = []
    run_set = runs_of(wf)
    assert run_set is not None
    frame = run_set.frame
    for spec in run_set.runs:
        if spec.workload == "pretrain":
            runs.append(_run(spec, None, "h100-sxm", 8, 8, PRETRAIN_H, 2.99))
        elif spec.run < 52:
            runs.append(_run(spec, ("s2", "s2"), "h100-sxm", 2, 4, 30.0))
        else:
            runs.append(_run(spec, None, "a100-80g-sxm", 2, 4, 40.0, 1.79))
    lines = bom([s1, s2], catalog)
    capex = round(sum(ln.extended for ln in lines), 2)
    share = frame.capex_share
    rent = sum(r.rented.cost for r in runs if r.rented)
    option = PlanOption(rank=1, total_cost=capex, servers=(s1, s2), lines=lines,
                        placements=tuple(chat), label="cheapest", runs=tuple(runs),
                        time=TimeCost(capex * share, rent, 0.0, ("s2",)))
    info = HorizonInfo(frame.start, frame.months, frame.hours, frame.life_months, share,
                       "allowed", dict(run_set.dropped))
    result = PlanResult(status="optimal", currency="USD", options=(option,), solver="highs",
                        gap=0.0, horizon=info)
    return result, wf, catalog


@pytest.fixture(scope="module")
def plan():
    return timeline_plan()


def test_spans_month_and_week():
    info = HorizonInfo(dt.date(2027, 1, 4), 12, 8760.0, 36, 1 / 3, "allowed")
    months = td.spans(info)
    assert [s.label for s in months[:2]] == ["2027-01", "2027-02"]
    assert len(months) == 12 and months[0].hours == 31 * 24 and months[1].hours == 28 * 24
    assert months[-1].end_h == 8760.0
    short = HorizonInfo(dt.date(2027, 1, 4), 3, 90 * 24.0, 36, 1 / 12, "allowed")
    weeks = td.spans(short)
    assert [s.label for s in weeks[:2]] == ["2027-01-04", "2027-01-11"]
    assert len(weeks) == 13 and weeks[-1].hours == 6 * 24  # 90 days: 12 weeks and 6 days


def test_gpu_use_by_hand(plan):
    """January (744 h) by hand: chat keeps 2 L40S busy all month; finetune runs 1-5 begin in
    January (h 0, 168, ..., 672), each 2 x 4 H100 for 30 h, run 5 ending at h 702 < 744;
    pretrain rents 64 H100 for 340.8 h; nothing rented from A100s."""
    result, _, _ = plan
    opt = result.options[0]
    cols = td.spans(result.horizon)[:2]
    use = td.gpu_use(opt, cols)
    assert use[("l40s", "bought")] == pytest.approx([2 * 744, 2 * 672])
    assert use[("h100-sxm", "bought")][0] == pytest.approx(5 * 8 * 30)
    assert use[("h100-sxm", "rented")] == pytest.approx([64 * PRETRAIN_H, 0.0])
    assert ("a100-80g-sxm", "rented") not in td.gpu_use(opt, cols[:1]) or \
        td.gpu_use(opt, cols[:1])[("a100-80g-sxm", "rented")] == [0.0]
    # February 2027 starts at h 744 (a Monday, Feb 1st): runs begin at h 840, 1008, 1176, 1344.
    assert use[("h100-sxm", "bought")][1] == pytest.approx(4 * 8 * 30)
    # Over the whole horizon the rented GPU-hours are what is billed.
    total = td.gpu_use(opt, td.spans(result.horizon))
    billed = sum(r.rented.gpus * r.rented.hours for r in opt.runs if r.rented)
    assert sum(total[("h100-sxm", "rented")]) + sum(total[("a100-80g-sxm", "rented")]) == \
        pytest.approx(billed)


def test_use_rows(plan):
    result, _, _ = plan
    rows = td.use_rows(result.options[0], td.spans(result.horizon))
    assert [(r.label, r.kind) for r in rows] == [
        ("s2", "run server"), ("1 always-on server", "always-on"),
        ("rented a100-80g-sxm", "rented"), ("rented h100-sxm", "rented")]
    assert rows[0].installed == 8 and rows[1].installed == 4
    assert sum(rows[0].gpu_hours) == pytest.approx(51 * 8 * 30)


def test_terminal_says_what_is_bought_and_rented(plan):
    result, wf, catalog = plan
    text = render_plan_summary(result, catalog, wf.name, wf=wf, width=80)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), text
    buy = next(i for i, line in enumerate(lines) if line.startswith("Buy: "))
    assert lines[buy - 1].startswith("optimal") or "Option 1" in " ".join(lines[:buy])
    joined = " ".join(line.strip() for line in lines[buy:buy + 8])
    assert "Buy: 2 servers (8 x h100-sxm, 4 x l40s), USD 316,090" in joined
    assert "for chat-serving and finetune (51 of 52 runs)." in joined
    assert "Rent: pretrain run 1 on 64 x h100-sxm for 14.2 days" in joined
    assert f"({64 * PRETRAIN_H:,.0f} GPU-hours)" in joined
    assert "finetune run 52 on 8 x a100-80g-sxm" in joined
    opt = result.options[0]
    assert f"capex charged USD {opt.time.capex_charged:,.0f}" in joined
    assert "x 33%: 12 of the hardware's 36 months of life" in joined
    assert f"horizon cost USD {opt.time.horizon_cost:,.0f}." in joined
    assert "finetune: 1 repetition left out" in text


def test_terminal_schedule_is_summarised(plan):
    result, wf, catalog = plan
    text = render_plan_summary(result, catalog, wf.name, wf=wf, width=80)
    rows = [line for line in text.splitlines() if line.startswith("finetune ")]
    assert len(rows) == 2, text  # 52 runs in two rows: on s2, and the rented one
    assert "51 of 52" in rows[0] and "bought h100-sxm" in rows[0] and "2 x 4" in rows[0]
    assert "30.0 h" in rows[0]
    assert "2027-01-04" in rows[0]
    assert "1 of 52" in rows[1] and "rented a100-80g-sxm" in rows[1]
    last = [r for r in result.options[0].runs if r.workload == "finetune"][-1]
    assert last.begin_h == 51 * 168 and "2027-12-27" in rows[1]
    assert "GPUs in use, averaged over the horizon:" in text
    assert "l40s 2.0 of 4 bought busy" in text
    assert "a100-80g-sxm 0.037 rented" in text  # 320 GPU-hours over 8,760 h


def test_terminal_without_horizon_says_nothing_of_time(plan):
    result, wf, catalog = plan
    plain = replace(result, horizon=None,
                    options=tuple(replace(o, runs=(), time=None) for o in result.options))
    text = render_plan_summary(plain, catalog, wf.name, wf=wf, width=80)
    assert "Buy:" not in text and "Rent:" not in text and "Schedule" not in text


@pytest.fixture(scope="module")
def book(plan, tmp_path_factory) -> Path:
    result, wf, catalog = plan
    out = tmp_path_factory.mktemp("timeline") / "timeline.xlsx"
    return write_workbook(out, result, wf, catalog, {"workloads": TIMELINE})


def _find(ws, text: str, col: int = 1) -> int:
    for row in ws.iter_rows(min_col=col, max_col=col):
        if row[0].value == text:
            return row[0].row
    raise AssertionError(f"{text!r} not on {ws.title}")
