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
from solver.plan_types import OwnCost, Placement, PlanOption, Server
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
                        own=OwnCost(capex=capex, power_kw=11.9, rack_units=12),
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


def _header(ws, row: int) -> list:
    return [c.value for c in ws[row]]


def test_timeline_sheet_and_chart(book, plan):
    result, _, _ = plan
    wb = openpyxl.load_workbook(book)
    assert wb.sheetnames[:3] == ["Summary", "Option 1", "Timeline"]
    ws = wb["Timeline"]
    head = _header(ws, 4)
    months = [f"2027-{m:02d}" for m in range(1, 13)]
    assert head[:3] == ["Capacity", "Configuration", "GPUs installed"] and head[3:15] == months
    s2 = _find(ws, "s2")
    cols = td.spans(result.horizon)
    want = td.use_rows(result.options[0], cols)[0].gpu_hours
    got = [ws.cell(s2, 4 + i).value for i in range(12)]
    assert got == pytest.approx([h / s.hours for h, s in zip(want, cols, strict=True)])
    assert got[0] == pytest.approx(5 * 8 * 30 / 744)  # 5 runs of 8 GPUs x 30 h in January
    rented = _find(ws, "h100-sxm rented")
    assert ws.cell(rented, 4).value == pytest.approx(64 * PRETRAIN_H / 744)
    assert ws.cell(_find(ws, "l40s bought"), 3).value == 4
    assert len(ws._charts) == 1
    chart = ws._charts[0]
    assert len(chart.series) == 4  # a100 rented, h100 bought, h100 rented, l40s bought
    assert chart.grouping == "stacked"


def test_option_sheet_rent_runs_and_horizon_cost(book, plan):
    result, _, _ = plan
    opt = result.options[0]
    formulas = openpyxl.load_workbook(book)["Option 1"]
    values = openpyxl.load_workbook(book, data_only=True)["Option 1"]
    head = _find(formulas, "GPU SKU")
    assert _header(formulas, head)[3:6] == ["GPU-hours", "Price per GPU-hour (USD)",
                                              "Cost (USD)"]
    h100 = head + 2  # a100-80g-sxm, then h100-sxm
    assert formulas.cell(h100, 1).value == "h100-sxm"
    assert formulas.cell(h100, 2).value == "pretrain (1 run)"
    assert values.cell(h100, 4).value == pytest.approx(64 * PRETRAIN_H)
    assert formulas.cell(h100, 6).value == f"=D{h100}*E{h100}"
    total = _find(formulas, "Rent total")
    assert values.cell(total, 6).value == pytest.approx(opt.time.rent)
    cost = _find(formulas, "Cost over the horizon")
    assert values.cell(cost, 6).value == pytest.approx(opt.time.horizon_cost)
    charged = _find(formulas, "Capex charged")
    assert formulas.cell(charged, 6).value.startswith("='Option 1'!$F$")
    runs = _find(formulas, "Workload")
    assert _header(formulas, runs)[:7] == ["Workload", "Where", "Run", "Begins", "Ends",
                                           "Replicas", "GPUs per replica"]
    # In time order; finetune run 1 and pretrain both begin at the horizon's start.
    assert [values.cell(runs + k, 1).value for k in (1, 2, 3)] == ["finetune", "pretrain",
                                                                  "finetune"]
    rows = [values.cell(runs + 1 + k, 1).value for k in range(60)]
    assert rows.count("finetune") == 52 and rows.count("pretrain") == 1
    last = runs + 53  # the rented finetune run begins last, on 2027-12-27
    assert values.cell(last, 4).value == dt.datetime(2027, 12, 27)
    assert values.cell(last, 2).value == "rented: 8 GPUs for 40.0 h billed"
    assert values.cell(runs + 1, 2).value == "servers s2"
    assert values.cell(runs + 2, 2).value == "rented: 64 GPUs for 340.8 h billed"


def test_summary_horizon_rows(book, plan):
    result, _, _ = plan
    opt = result.options[0]
    formulas = openpyxl.load_workbook(book)["Summary"]
    values = openpyxl.load_workbook(book, data_only=True)["Summary"]
    for label, want in (("Horizon (months)", 12), ("  Capex charged", opt.time.capex_charged),
                        ("  Rent", opt.time.rent), ("Cost over the horizon",
                                                     opt.time.horizon_cost)):
        r = _find(formulas, label)
        assert formulas.cell(r, 3).value.startswith("='Option 1'!"), label
        assert values.cell(r, 3).value == pytest.approx(want), label
    assert "over the horizon" in formulas["A2"].value


def test_weekly_columns_for_a_short_horizon(plan, tmp_path):
    result, wf, catalog = plan
    short = replace(result.horizon, months=3, hours=90 * 24.0, capex_share=1 / 12)
    opt = result.options[0]
    cut = tuple(r for r in opt.runs if r.end_h <= 90 * 24)
    opt = replace(opt, runs=cut, time=replace(opt.time, capex_charged=opt.total_cost / 12,
                                              rent=sum(r.rented.cost for r in cut
                                                       if r.rented)))
    path = write_workbook(tmp_path / "short.xlsx", replace(result, horizon=short,
                                                           options=(opt,)),
                          wf, catalog, {"workloads": TIMELINE})
    ws = openpyxl.load_workbook(path)["Timeline"]
    head = [v for v in _header(ws, 4)[3:] if v]
    assert head[:2] == ["2027-01-04", "2027-01-11"] and len(head) == 13


def test_workbook_recalculates(book, tmp_path):
    """Every formula's stored value is what LibreOffice computes (skipped without it)."""
    if soffice() is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    copies = recalculate([book], tmp_path)
    count, diffs = stored_vs_recalculated(book, copies[book])
    assert count > 40 and not diffs, diffs


def test_workbook_renders_to_pdf(book, tmp_path):
    """The workbook converts to PDF (what soffice prints) with the Timeline on its pages."""
    if soffice() is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    done = subprocess.run([soffice(), "--headless", "--convert-to", "pdf", "--outdir",
                           str(tmp_path), str(book)], capture_output=True, timeout=300,
                          check=False)
    assert done.returncode == 0 and (tmp_path / "timeline.pdf").stat().st_size > 10_000


def test_json_matches_the_output_schema(plan):
    """The horizon keys are in the schema (optional), typed as the document writes them."""
    import jsonschema

    from solver.report.output_schema import output_schema

    result, _, _ = plan
    doc = result.to_json()
    schema = output_schema("plan")
    jsonschema.validate(doc, schema)
    plan_doc = schema["anyOf"][0]
    assert "horizon" in plan_doc["properties"] and "horizon" not in plan_doc["required"]
    option = plan_doc["properties"]["options"]["items"]
    for key in ("runs", "capex_charged", "rent_cost", "running_cost", "horizon_cost",
                "run_servers"):
        assert key in option["properties"] and key not in option["required"]
    doc["options"][0]["runs"][0]["servers"] = "s2"  # a list of ids, not one id
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_json_doc_lists_the_horizon_keys(plan):
    """docs/json.md's horizon sections list exactly the keys a plan over time prints."""
    from test_docs import keys_in, sections

    doc = plan[0].to_json()
    docs = sections("json.md")
    assert set(docs["`horizon`"]) == keys_in(doc, "horizon")
    assert set(docs["`options[].runs[]`"]) == keys_in(doc, "options[].runs[]")
    rented = {k for r in doc["options"][0]["runs"] if r["rented"] for k in r["rented"]}
    assert set(docs["`options[].runs[].rented`"]) == rented
    plain = replace(plan[0], horizon=None, options=tuple(replace(o, runs=(), time=None)
                                                          for o in plan[0].options))
    added = keys_in(doc, "options[]") - keys_in(plain.to_json(), "options[]")
    assert set(docs["`options[]` over a horizon"]) == added
    assert set(doc) - set(plain.to_json()) == {"horizon"}


def test_chargeback_charges_run_servers_to_the_teams_of_their_runs(plan):
    """s2 holds only finetune's runs (team support): support pays for all of it, and its
    GPUs used are finetune's GPU-hours there averaged over the year (51 x 8 x 30 / 8,760)."""
    from solver.report.chargeback import team_costs

    result, wf, catalog = plan
    opt = result.options[0]
    teams = team_costs(opt, wf, catalog).set_index("team")
    s2 = opt.servers[1]
    s2_price = sum(catalog.price_of(sku) * q for sku, q in s2.parts() if sku != s2.storage)
    assert teams.loc["support", "gpu_equivalents"] == pytest.approx(51 * 8 * 30 / 8760)
    assert teams.loc["support", "total_cost"] >= s2_price
    assert "(idle, no team)" not in teams.index
    assert teams["total_cost"].sum() == pytest.approx(opt.total_cost)


def test_buy_nothing_and_rent_nothing_are_said(plan):
    from solver.report.timeline_text import buy_line, rent_line

    result, _, catalog = plan
    opt = result.options[0]
    on_servers = replace(opt, runs=tuple(r for r in opt.runs if r.rented is None))
    never = replace(result.horizon, rent="never")
    assert rent_line(on_servers, never, catalog) == "Rent: nothing (policy.rent: never)."
    assert rent_line(on_servers, result.horizon, catalog) == "Rent: nothing."
    no_cloud = catalog.model_copy(update={"cloud": []})
    assert "no cloud prices" in rent_line(on_servers, result.horizon, no_cloud)
    rented = replace(opt, servers=(), placements=(), total_cost=0.0,
                     runs=tuple(r for r in opt.runs if r.rented is not None))
    assert buy_line(rented, "USD") == "Buy: nothing."
    assert buy_line(opt, "USD").endswith("for chat-serving and finetune (51 of 52 runs).")
