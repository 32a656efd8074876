"""The progress line of ``plan`` on a terminal: stage, best cost so far and seconds, drawn
again every second once a plan has run two seconds, even while one long search runs."""

from __future__ import annotations

import time
from pathlib import Path

import cli
from solver.inputs.loading import load_catalog, load_workloads
from solver.optimize.pipeline import plan

ROOT = Path(__file__).resolve().parent.parent


def test_the_line_is_drawn_again_while_nothing_reports(capsys, monkeypatch):
    """A search that reports nothing for seconds still shows its stage and the seconds."""
    monkeypatch.setattr(cli, "PROGRESS_EVERY_S", 0.05)
    progress = cli._Progress(time.perf_counter() - 3.0)
    progress("the cheapest plan", None)
    first = capsys.readouterr().err
    time.sleep(0.3)
    progress.done()
    again = capsys.readouterr().err
    assert "plan-buy: the cheapest plan... 3 s" in first
    assert again.count("plan-buy: the cheapest plan...") >= 2  # redrawn, nobody calling
    assert again.endswith("\r")  # cleared at the end (click drops the escape off a tty)
    time.sleep(0.2)
    assert capsys.readouterr().err == ""  # nothing after done()


def test_nothing_before_two_seconds_and_never_wider_than_the_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    early = cli._Progress(time.perf_counter())
    early("the cheapest plan", 123.0)
    early.done()
    assert capsys.readouterr().err == ""
    late = cli._Progress(time.perf_counter() - 5.0)
    late("option 2: fewest consumer GPUs", 1_234_567.0)
    late.done()
    line = capsys.readouterr().err.split("\r")[1]
    assert len(line) == 39 and line.endswith("...")


def test_rank_one_reports_each_better_plan_its_search_finds():
    """HiGHS's better plans reach the progress line during the cheapest plan's search, each
    cheaper than the one before, the last the solve's own objective (within its gap of the
    plan's cost); alternatives, whose
    objective is not a cost, report none."""
    wf = load_workloads(ROOT / "workloads" / "q3.yaml")
    cat = load_catalog(ROOT / "catalogs" / "default.yaml")
    calls: list[tuple[str, float | None]] = []
    result = plan(wf, cat, top=2, with_baseline=False,
                  progress=lambda stage, best: calls.append((stage, best)))
    found = [best for stage, best in calls if stage == "the cheapest plan" and best is not None]
    assert found, calls
    assert found == sorted(found, reverse=True) and len(set(found)) == len(found)
    # The solve's last plan, in aggregate; its servers as packed may cost a little more (on
    # q3 two 4-GPU servers pack as four workstations, whose fabric takes 4 more cables: +190).
    total = result.options[0].total_cost
    assert total * (1 - 1e-3) <= found[-1] <= total + 1.0
    later = calls[[s for s, _ in calls].index("the cheapest plan") + len(found) + 1:]
    assert later and all(stage.startswith("option 2") for stage, _ in later)
    assert all(best == result.options[0].total_cost for _, best in later)


def test_a_run_without_a_time_limit_says_once_how_to_stop_sooner(capsys, monkeypatch):
    monkeypatch.setattr(cli, "PROGRESS_EVERY_S", 0.05)
    progress = cli._Progress(time.perf_counter() - cli.HINT_AFTER_S - 1, cli.NO_LIMIT_HINT)
    progress("the cheapest plan", 5_658_710.0)
    time.sleep(0.3)
    progress.done()
    err = capsys.readouterr().err
    assert err.count("--time-limit SECONDS returns the best plan found") == 1
    assert err.count("plan-buy: the cheapest plan (cheapest so far 5,658,710)") >= 2
    limited = cli._Progress(time.perf_counter() - cli.HINT_AFTER_S - 1, None)
    limited("the cheapest plan", None)
    limited.done()
    assert "--time-limit" not in capsys.readouterr().err
