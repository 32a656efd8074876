"""Terminal reports follow the reader's width: no line wider than COLUMNS (or ``width``)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from cli import main
from solver.report.text import Column, table, terminal_width

WIDTHS = (80, 120)


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["q3.yaml", "deadlines.yaml"])
@pytest.mark.parametrize("command", [["plan", "--no-workbook"], ["estimate"]])
def test_plan_and_estimate_fit_the_width(root, command, name, width):
    res = CliRunner().invoke(main, [command[0], str(root / "workloads" / name), *command[1:]],
                             env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.output
    assert _widest(res.output) <= width


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["q3.yaml", "deadlines.yaml"])
def test_sweep_fits_the_width(root, tmp_path, name, width):
    res = CliRunner().invoke(
        main, ["sweep", str(root / "workloads" / name), "--budget", "100k,300k,900k",
               "--growth", "1,1.5", "--jobs", "1", "--no-workbook", "--out", str(tmp_path)],
        env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.output
    assert _widest(res.output) <= width


def test_budget_summary_says_what_is_left_out_and_what_everything_costs(root):
    res = CliRunner().invoke(main, ["plan", str(root / "workloads" / "q3.yaml"), "--budget",
                                    "40000", "--no-workbook"], env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    assert "support-bot-serving (inference, priority 10" in res.output
    assert "Serving every workload costs USD" in res.output and "over the budget" in res.output


def test_a_budget_that_buys_nothing_says_so(root):
    res = CliRunner().invoke(main, ["plan", str(root / "workloads" / "q3.yaml"), "--budget",
                                    "1000", "--no-workbook"], env={"COLUMNS": "100"})
    assert res.exit_code == 3  # infeasible: nothing to buy, no options printed
    assert "the budget of USD 1,000 buys nothing" in res.stderr
    assert "To fix: raise the budget" in res.stderr and "every workload: USD" in res.stderr
    assert res.stdout == ""


def test_partial_budget_summary_at_80_columns_names_what_is_served(root):
    res = CliRunner().invoke(main, ["plan", str(root / "workloads" / "small.yaml"), "--budget",
                                    "8000", "--no-workbook"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert _widest(res.output) <= 80
    text = " ".join(res.output.split())
    assert "serves 1 of 4 workloads (serve-mistral-7b). Left out:" in text
    # 1.45 kW, rounded half up as the workbook's cells show it
    assert "Power drawn at full load: 1.5 kW (option 1)." in text
    # Directions left out for one reason are named once, with that reason.
    # A search that came back with the cheapest plan's servers found nothing better: it
    # says so, not "the same servers as the cheapest plan" (read as if that plan, one RTX
    # 4090, had no consumer GPUs).
    assert ("left out: fewest servers, no consumer GPUs, fewest SKUs (none does better than "
            "the cheapest plan, proven by its search's bound); lowest power, most spare VRAM "
            "(no better plan found within its share of the search)") in text


def test_table_drops_least_needed_columns_and_says_so():
    cols = [Column("name", justify="left"), Column("a number", keep=1),
            Column("words", justify="left", wrap=True)]
    rows = [["first", "123456789", "alpha, beta, gamma, delta"]]
    lines = table(cols, rows, 30)
    assert max(map(len, lines)) <= 30
    assert "a number" in " ".join(lines) and "123456789" not in "".join(lines)
    assert max(map(len, table(cols, rows, 200))) < 60  # a wide terminal changes nothing


def test_columns_env_wins(monkeypatch):
    monkeypatch.setenv("COLUMNS", "90")
    assert terminal_width() == 90
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() == 100  # not a terminal


def test_error_messages_wrap_at_the_terminal_width_under_their_own_text():
    from solver.report.text import wrap_message

    message = ("plan-buy: /data/pool/workloads.yaml: invalid workload file\n"
               "  - /data/pool/workloads.yaml: workloads[0].replicas: Input should be greater "
               "than or equal to 1 (got -1). To fix: replicas = copies that run at once.")
    lines = wrap_message(message, 60).splitlines()
    assert all(len(line) <= 60 for line in lines), lines
    assert lines[0] == "plan-buy: /data/pool/workloads.yaml: invalid workload file"
    assert lines[1].startswith("  - /data/pool/workloads.yaml:")
    assert all(line.startswith("    ") for line in lines[2:])  # under the item's text
    # Words are never broken: a path too long for the line stays whole.
    path = "/very/long/" + "x" * 80 + "/workloads.yaml"
    assert path in wrap_message(f"plan-buy: {path} is invalid", 60).split()


def test_an_error_on_a_terminal_is_wrapped_and_one_in_a_pipe_is_not(root, monkeypatch,
                                                                     capsys):
    import sys

    import cli

    def fail(tty: bool) -> str:
        monkeypatch.setattr(sys.stderr, "isatty", lambda: tty, raising=False)
        monkeypatch.setenv("COLUMNS", "60")
        with pytest.raises(SystemExit):
            cli._fail(cli.InputError("x " * 60 + "end"))
        return capsys.readouterr().err

    assert max(len(line) for line in fail(True).splitlines()) <= 60
    assert len(fail(False).splitlines()) == 1


def test_servers_bought_only_for_their_drives_are_named(tmp_path):
    """350 TB of shared data beside one 8-GPU job: the plan buys servers that run nothing
    and hold drives; the summary says so, so 13 servers for 8 GPUs is not a puzzle."""
    f = tmp_path / "lake.yaml"
    f.write_text(
        "name: lake\nworkloads:\n"
        "  - {name: pretrain, kind: train, model: llama-3.1-8b, seq_len: 4096,"
        " global_batch: 256, activation_checkpointing: true, replicas: 2,\n"
        "     data: {in_memory_gb: 64, dataset_tb: 120, checkpoints_tb: 30, storage: shared}}\n"
        "  - {name: prep, kind: preprocess,\n"
        "     data: {in_memory_gb: 400, workers: 32, dataset_tb: 200, storage: shared}}\n")
    res = CliRunner().invoke(main, ["plan", str(f), "--top", "1", "--no-workbook"],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert _widest(res.output) <= 80
    text = " ".join(res.output.split())
    assert re.search(r"Option 1 buys \d+ servers? only for their drives \(shared datasets "
                     r"and checkpoints\): \d+ x ", text), text


def _block(text: str, title: str) -> str:
    """One workload's table in ``estimate`` output: from its title to the next blank line."""
    return text.split(f"\n{title}  (")[1].split("\n\n")[0]


def test_estimate_at_80_columns_keeps_what_a_service_is_asked(root):
    """Latencies answer 'can this GPU serve it in time': at 80 columns the host RAM and
    CPU cores go first, then tokens/s; ms per output token and to the first token stay
    (they were the first to go, beside a wide note)."""
    res = CliRunner().invoke(main, ["estimate", str(root / "workloads" / "deadlines.yaml")],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert _widest(res.output) <= 80
    chat = _block(res.output, "chat-8b")
    head = chat.split("\n---")[0]
    assert "output" in head and "first" in head and "tokens/s" in head and "idle" in head
    dropped = " ".join(chat.split("(Not shown at this width:")[1].split())
    assert "ms per output token" not in dropped and "ms to first token" not in dropped
    assert "host RAM" in dropped


def test_sweep_over_kwh_prices_at_80_columns_keeps_tco(root, tmp_path):
    """TCO is the one column that changes with the kWh price: at 80 columns the GPU mix and
    the priority gained go before it (TCO went first, and the table showed only costs that
    do not move)."""
    res = CliRunner().invoke(
        main, ["sweep", str(root / "workloads" / "expand-pool.yaml"), "--kwh-price",
               "0.1,0.3", "--budget", "400k,600k", "--jobs", "2", "--no-workbook", "--out",
               str(tmp_path)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert _widest(res.output) <= 80
    header = res.output.split("\n---")[0]
    assert "TCO" in header
    assert "TCO" not in res.output.split("(Not shown at this width:")[1].split(")")[0]
