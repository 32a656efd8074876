"""Report tables: what each workbook sheet holds, checked without Excel.

``sample_plan`` builds a hand-made two-option PlanResult on the default catalog and the Q3
mix (plus a workload named like a formula, of a team named like a command); the metrics
and workbook tests import it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from solver.inputs.loading import load_catalog, load_workloads
from solver.inputs.policy import Policy
from solver.plan_types import BomLine, DirectionFigure, Placement, PlanOption, Server
from solver.report import chargeback, placement_tables, run_tables
from solver.report import tables as report
from solver.result import Baseline, PlanResult

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "catalogs" / "default.yaml"
WORKLOADS = ROOT / "workloads" / "q3.yaml"
EVIL_NAME = '=HYPERLINK("http://x")'
EVIL_TEAM = "@cmd"


def bom(servers, catalog) -> tuple[BomLine, ...]:
    """Bill of materials of a list of servers, priced from the catalog."""
    qty: Counter = Counter()
    for s in servers:
        qty[s.platform] += 1
        if s.gpu:
            qty[s.gpu] += s.gpu_count
        qty[s.memory] += s.dimm_count
        if s.storage:
            qty[s.storage] += s.drive_count
    return tuple(
        BomLine(sku, catalog.kind_of(sku), n, catalog.price_of(sku)) for sku, n in qty.items()
    )


def _option(rank, servers, placements, catalog, unserved=()) -> PlanOption:
    lines = bom(servers, catalog)
    return PlanOption(
        rank=rank,
        total_cost=round(sum(ln.extended for ln in lines), 2),
        servers=tuple(servers),
        lines=lines,
        placements=tuple(placements),
        unserved=tuple(unserved),
        lower_bound=None,
    )


def sample_plan():
    """(PlanResult, WorkloadFile, Catalog): two options over shared and preprocess jobs."""
    catalog = load_catalog(CATALOG)
    wf = load_workloads(WORKLOADS)
    first = wf.workloads[0]  # chat-sft-13b, team assistant
    evil = first.model_copy(update={"name": EVIL_NAME, "team": EVIL_TEAM, "replicas": 1})
    wf = wf.model_copy(update={"workloads": [*wf.workloads, evil]})

    def P(w, rep, server, gpu, gpus, idx, vram, ram, mb=None, acc=None):
        return Placement(w, rep, server, gpu, gpus, vram, ram, tuple(idx), mb, acc)

    s1 = Server("s1", "hgx-h100-8gpu-ddr5", "h100-sxm", 8, "ddr5-4800-64g", 32, "nvme-u2-7.68t", 2)
    s2 = Server("s2", "srv-4gpu-ddr4", "l40s", 4, "ddr4-3200-64g", 16, "nvme-u2-3.84t", 2)
    s3 = Server("s3", "cpu-node-ddr5", None, 0, "ddr5-4800-128g", 24, "nvme-u2-7.68t", 2)
    one = [
        P("chat-sft-13b", 1, "s1", "h100-sxm", 2, [0, 1], 60.0, 200.0, 4, 16),
        P(EVIL_NAME, 1, "s1", "h100-sxm", 2, [2, 3], 60.0, 200.0, 4, 16),
        P("support-bot-serving", 1, "s1", "h100-sxm", 2, [4, 5], 50.0, 80.0),
        P("support-bot-serving", 2, "s1", "h100-sxm", 2, [6, 7], 50.0, 80.0),
        P("code-lora-8b", 1, "s2", "l40s", 1, [0], 30.0, 45.0, 2, 16),
        P("code-lora-8b", 2, "s2", "l40s", 1, [1], 30.0, 45.0, 2, 16),
        P("embeddings-serving", 1, "s2", "l40s", 1, [2], 6.0, 3.0),
        P("embeddings-serving", 2, "s2", "l40s", 1, [2], 6.0, 3.0),
        P("embeddings-serving", 3, "s2", "l40s", 1, [3], 6.0, 3.0),
        P("tokenize-and-dedup", 1, "s3", None, 0, [], 0.0, 900.0),
    ]
    t1 = Server(
        "t1", "hgx-a100-8gpu-ddr4", "a100-80g-sxm", 8, "ddr4-3200-64g", 32, "nvme-u2-7.68t", 3
    )
    t2 = Server("t2", "cpu-node-ddr5", None, 0, "ddr5-4800-128g", 24, "nvme-u2-7.68t", 1)
    two = [
        P("chat-sft-13b", 1, "t1", "a100-80g-sxm", 2, [0, 1], 62.0, 210.0, 4, 16),
        P(EVIL_NAME, 1, "t1", "a100-80g-sxm", 2, [2, 3], 62.0, 210.0, 4, 16),
        P("support-bot-serving", 1, "t1", "a100-80g-sxm", 2, [4, 5], 50.0, 80.0),
        P("embeddings-serving", 1, "t1", "a100-80g-sxm", 1, [6], 6.0, 3.0),
        P("embeddings-serving", 2, "t1", "a100-80g-sxm", 1, [6], 6.0, 3.0),
        P("tokenize-and-dedup", 1, "t2", None, 0, [], 0.0, 900.0),
    ]
    o1 = _option(1, [s1, s2, s3], one, catalog)
    o2 = _option(2, [t1, t2], two, catalog, unserved=("code-lora-8b",))
    result = PlanResult(
        status="optimal",
        currency="USD",
        options=(o1, o2),
        solver="highs",
        gap=0.0,
        baseline=Baseline(
            scenario="medium",
            name="R20 medium: 4x A100 80GB",
            servers=2,
            gpus=8,
            gpu="a100-80g-pcie",
            total_cost=o1.total_cost + 20000.0,
            saving=20000.0,
            saving_pct=20000.0 / (o1.total_cost + 20000.0),
        ),
        notes=("hand-made fixture",),
    )
    return result, wf, catalog


@pytest.fixture(scope="module")
def plan():
    return sample_plan()


def test_summary_has_one_row_per_option_and_costs_add_up(plan):
    result, _, catalog = plan
    df = report.summary_table(result, catalog, Policy())
    assert list(df["rank"]) == [1, 2]
    for _, row in df.iterrows():
        parts = sum(row[f"{k}_cost"] for k in report.KINDS)
        assert parts == pytest.approx(row["total_cost"], abs=0.005)
    assert df.loc[0, "saving_vs_reference"] == pytest.approx(20000.0)
    assert df.loc[1, "unserved"] == "code-lora-8b"
    assert df.loc[0, "gpus_by_sku"] == "8 x h100-sxm, 4 x l40s"


def test_bom_is_ordered_by_kind_and_extended_is_qty_times_price(plan):
    result, _, catalog = plan
    df = report.bom_table(result.options[0], catalog)
    order = [report.KINDS.index(k) for k in df["kind"]]
    assert order == sorted(order)
    assert (df["extended"] == (df["qty"] * df["unit_price"]).round(2)).all()
    assert df["extended"].sum() == pytest.approx(result.options[0].total_cost)
    assert df.loc[df["sku"] == "h100-sxm", "description"].item() == "NVIDIA H100 80GB SXM5"


def test_placement_table_shows_usable_vram_and_cpu_jobs(plan):
    result, wf, catalog = plan
    df = placement_tables.placement_table(result, wf, catalog)
    assert len(df) == sum(len(o.placements) for o in result.options)
    h100 = df[(df["gpu"] == "h100-sxm")].iloc[0]
    assert h100["usable_vram_gb"] == pytest.approx(80 * 0.8)
    cpu = df[df["workload"] == "tokenize-and-dedup"].iloc[0]
    assert cpu["degree"] == 0 and cpu["gpu"] == "(none, CPU)"
    assert set(df.loc[df["workload"] == EVIL_NAME, "team"]) == {EVIL_TEAM}


def test_memory_table_calls_the_estimator_for_the_placed_gpu(plan):
    result, wf, catalog = plan
    df = placement_tables.memory_table(result, wf, catalog)
    row = df[(df["option"] == "Option 1") & (df["workload"] == "chat-sft-13b")].iloc[0]
    assert row["gpu"] == "h100-sxm" and row["degree"] == 2
    assert row["weights_gb"] > 0
    parts = [
        c
        for c in df.columns
        if c.endswith("_gb") and c not in ("total_gb_per_gpu", "usable_vram_gb", "host_ram_gb")
    ]
    assert row[parts].sum() == pytest.approx(row["total_gb_per_gpu"], rel=1e-6)
    pre = df[df["workload"] == "tokenize-and-dedup"].iloc[0]
    assert pre["degree"] == 0 and pre["host_ram_gb"] > 0
    # one row per (option, workload, gpu, degree), not per replica
    assert not df.duplicated(["option", "workload", "gpu", "degree"]).any()


def test_team_costs_add_up_to_the_option_total(plan):
    result, wf, catalog = plan
    df = chargeback.teams_table(result, wf, catalog)
    for opt in result.options:
        part = df[df["option"] == f"Option {opt.rank}"]
        assert part["total_cost"].sum() == pytest.approx(opt.total_cost, abs=0.01)
        for k in report.KINDS:  # a kind the option buys none of is nobody's share
            bought = opt.cost_by_kind()[k] > 0
            assert part[f"{k}_share"].sum() == pytest.approx(1.0 if bought else 0.0)
    assert EVIL_TEAM in set(df["team"])


def test_team_costs_follow_use():
    """Hand-solved: one 2-GPU server, team a uses 1 GPU, two shareable jobs of b and c split
    the other by VRAM 3:1; RAM 30/10/0 GB; only a has storage."""
    catalog = load_catalog(CATALOG)
    wf = load_workloads(WORKLOADS)
    base = wf.workloads[4]  # embeddings-serving (inference, shareable)
    ws = [
        base.model_copy(
            update={"name": n, "team": n, "data": base.data.model_copy(update={"dataset_tb": tb})}
        )
        for n, tb in (("a", 1.0), ("b", 0.0), ("c", 0.0))
    ]
    wf = wf.model_copy(update={"workloads": ws})
    s = Server("s1", "ws-2gpu-ddr4", "rtx-4090", 2, "ddr4-3200-32g", 8, "nvme-m2-2t", 1)
    places = [
        Placement("a", 1, "s1", "rtx-4090", 1, 10.0, 30.0, (0,)),
        Placement("b", 1, "s1", "rtx-4090", 1, 6.0, 10.0, (1,)),
        Placement("c", 1, "s1", "rtx-4090", 1, 2.0, 0.0, (1,)),
    ]
    df = chargeback.team_costs(_option(1, [s], places, catalog), wf, catalog).set_index("team")
    assert df.loc["a", "gpu_cost"] == pytest.approx(1800.0)
    assert df.loc["b", "gpu_cost"] == pytest.approx(1800.0 * 0.75)
    assert df.loc["c", "gpu_cost"] == pytest.approx(1800.0 * 0.25)
    assert df.loc["a", "platform_cost"] == pytest.approx(2000.0)
    assert df.loc["a", "memory_cost"] == pytest.approx(8 * 90 * 0.75)
    assert df.loc["c", "memory_cost"] == 0.0
    assert df.loc["a", "storage_cost"] == pytest.approx(150.0)
    assert df.loc["b", "gpu_equivalents"] == pytest.approx(0.75)


def test_idle_server_is_charged_to_nobody_but_still_counted():
    catalog = load_catalog(CATALOG)
    wf = load_workloads(WORKLOADS)
    s = Server("s1", "cpu-node-ddr5", None, 0, "ddr5-4800-64g", 24, None, 0)
    df = chargeback.team_costs(_option(1, [s], [], catalog), wf, catalog)
    assert list(df["team"]) == [chargeback.UNASSIGNED]
    assert df["total_cost"].sum() == pytest.approx(6000 + 24 * 280)


def test_assumption_tables(plan, tmp_path):
    _result, wf, catalog = plan
    cat = run_tables.catalog_table(catalog)
    net = catalog.network  # NICs, switches and the fabric's cables (one price per link)
    assert cat["sku"].is_unique and len(cat) == (
        len(catalog.gpus) + len(catalog.platforms) + len(catalog.memory) + len(catalog.storage)
        + len(net.nics) + len(net.switches) + 1
    )
    src = tmp_path / "w.yaml"
    src.write_bytes(b"abc")
    s = run_tables.sources_table({"workloads": src, "catalog": tmp_path / "missing.yaml"})
    assert s.loc[0, "sha256"] == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert s.loc[1, "sha256"] == "(file not found)"
    pol = run_tables.policy_table(wf).set_index("field")
    assert pol.loc["headroom", "value"] == 0.2
    assert "R15" in " ".join(run_tables.rules_table()["rule"]) or "R15" in str(run_tables.RULES)


@pytest.mark.parametrize("fig, text", [
    (None, ""),
    (DirectionFigure("servers", 5, "server", True, False, 5), "5 servers (the best possible)"),
    (DirectionFigure("servers", 6, "server", True, False, 5),
     "6 servers (best possible: at least 5 servers)"),
    (DirectionFigure("consumer", 1, "consumer GPU", True, False, None),
     "1 consumer GPU (best possible not proven)"),
    (DirectionFigure("power", 2200, "W", False, False, 2176.24),
     "2,200 W (best possible: at least 2,176 W)"),
    (DirectionFigure("vram", 1002.9, "GB", False, True, 1134.9),
     "1,003 GB (best possible: at most 1,135 GB)"),
    # a quarter of a dollar short of proven: the same to the unit shown
    (DirectionFigure("tco", 10647.2, "USD", False, False, 10646.95),
     "USD 10,647 (the best possible)"),
    # beside the cheapest plan's figure: what the alternative buys for its extra cost
    (DirectionFigure("skus", 7, "SKU", True, False, 5, 8),
     "7 SKUs against 8 SKUs for option 1 (best possible: at least 5 SKUs)"),
    (DirectionFigure("vram", 1131, "GB", False, True, 1131.4, 971),
     "1,131 GB against 971 GB for option 1 (the best possible)"),
])
def test_the_summary_says_each_alternatives_figure_and_the_best_possible(fig, text):
    assert report.direction_text(fig) == text


def test_throughput_lines_say_once_what_two_alternatives_share():
    """Options 2 and 3 serve the target on the same replicas: option 3's block is one line."""
    from types import SimpleNamespace

    from solver.plan_types import TargetFigure
    from solver.report.running import throughput_lines

    def option(rank, replicas, rate):
        return SimpleNamespace(rank=rank, throughput=(TargetFigure(
            "pretrain", "train", 23148, rate, replicas, 4 * replicas, 0.9,
            tokens=2e10, days_to_finish=2e10 / rate / 86400),))

    result = SimpleNamespace(options=[option(1, 1, 26237), option(2, 3, 33108),
                                      option(3, 3, 33108)])
    text = "\n".join(throughput_lines(result, 100))
    assert text.count("pretrain: ") == 2
    assert "Throughput targets, option 2:\n" in text
    assert "Throughput targets, option 3: as option 2." in text
