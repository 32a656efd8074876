"""Expansion work grows with the replicas and servers, not with their product.

10,000 replicas took 44 s under --time-limit 5 (first fit tested every item against every
server) and 100,000 TB of checkpoints over 4,000 servers ran past a minute (each step of
the drive fill weighed every server). These tests count work, never seconds.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from solver.inputs.loading import load_workloads
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.expand import drives as ex_drives
from solver.optimize.expand import gather as ex_gather
from solver.optimize.expand import pack as ex_pack
from solver.optimize.expand.box import Box, Item
from solver.plan_types import Server
from solver.rules import usable

SERVE = """name: many
workloads:
  - {name: w1, kind: inference, model: mistral-7b, context: 4096, batch: 8}
  - {name: w2, kind: preprocess, data: {in_memory_gb: 20, workers: 3}}
"""


@pytest.fixture
def packing(write_yaml, default_catalog):
    """(policy, a bought 2-GPU server type, its option for w1, a CPU-only option)."""
    wf = load_workloads(write_yaml(SERVE))
    cand = enumerate_candidates(wf, default_catalog)
    option = cand.options["w1"][0]
    t = next(t for t in cand.types
             if not t.owned and t.gpu is not None and t.gpu.sku == option.gpu
             and t.gpu_slots >= 2 * option.degree)
    return wf.policy, t, option, cand.options["w2"][0]


def _fit_tests(monkeypatch, items, t, policy) -> tuple[int, list]:
    calls = 0
    fits = ex_pack.fits

    def counted(*args):
        nonlocal calls
        calls += 1
        return fits(*args)

    monkeypatch.setattr(ex_pack, "fits", counted)
    boxes, _ = ex_pack.pack_type(items, [], t, policy)
    monkeypatch.setattr(ex_pack, "fits", fits)
    return calls, boxes


def test_first_fit_tests_grow_linearly_with_the_replicas(monkeypatch, packing):
    policy, t, option, _ = packing

    def work(n: int) -> int:
        items = [Item(option.degree, option.ram_gb, (option,)) for _ in range(n)]
        calls, boxes = _fit_tests(monkeypatch, items, t, policy)
        assert sum(len(b.items) for b in boxes) == n
        return calls

    small, large = work(400), work(800)
    # First fit against every server: 4 times the tests for twice the replicas.
    assert large <= 2.2 * small, (small, large)


def test_resumed_first_fit_places_as_plain_first_fit(packing):
    """The resume points skip only servers that can never take the item's shape again."""
    policy, t, option, cpu = packing
    assert t.disk_tb > 0
    tb = 0.4 * usable(t.disk_tb, policy)  # two datasets fit a server, three do not

    def reading(o, name: str):
        return replace(o, workload=name, local_tb=tb)

    rng = random.Random(7)
    shapes = [Item(option.degree, option.ram_gb, (option,)),
              Item(option.degree, option.ram_gb / 3, (option,)),
              Item(0, cpu.ram_gb, (cpu,))]
    shapes += [Item(o.degree, o.ram_gb, (reading(o, name),))
               for o in (option, cpu) for name in ("a", "b", "c")]
    items = [rng.choice(shapes) for _ in range(400)]
    cap = usable(t.ram_gb, policy)
    plain: list[Box] = []
    resumed: list[Box] = []
    first = ex_pack._FirstFit(resumed, cap, policy)
    for item in items:
        box = ex_pack._first_fit(plain, item, cap, policy)
        if box is None:
            box = Box(t)
            plain.append(box)
        box.add(item)
        box = first.find(item)
        if box is None:
            box = Box(t)
            resumed.append(box)
        first.add(box, item)
    assert [[id(i) for i in b.items] for b in plain] == [[id(i) for i in b.items]
                                                          for b in resumed]
    assert any(len(b.datasets) == 2 for b in plain)  # the disk limit was reached


def test_first_fit_tests_grow_linearly_with_replicas_reading_a_local_dataset(monkeypatch,
                                                                             packing):
    policy, t, option, _ = packing
    reading = replace(option, local_tb=0.1)

    def work(n: int) -> int:
        items = [Item(reading.degree, reading.ram_gb, (reading,)) for _ in range(n)]
        calls, boxes = _fit_tests(monkeypatch, items, t, policy)
        assert sum(len(b.items) for b in boxes) == n
        return calls

    small, large = work(400), work(800)
    assert large <= 2.2 * small, (small, large)


class _Counted(list):
    """A list that counts how often it is walked through."""

    walks = 0

    def __iter__(self):
        _Counted.walks += 1
        return super().__iter__()


def test_drive_fill_steps_weigh_groups_not_every_server(default_catalog):
    drives = list(default_catalog.storage)
    bays = 8

    def work(n: int) -> int:
        servers = [Server(f"s{i}", "p", None, 0, "m", 8, None, 0) for i in range(n)]
        options = {bays: _Counted(ex_drives.bay_configs(bays, drives))}
        _Counted.walks = 0
        most = max(c[2] for c in options[bays])
        chosen, extra, short = ex_drives._fill_pool(
            [None] * n, servers, [0.0] * n, [bays] * n, options, pooled=0.7 * most * n,
            line=0.8, drive_server=lambda tb: None)
        assert not short and not extra
        assert 0.8 * sum(c[2] for c in chosen if c) >= 0.7 * most * n - 1e-6
        return _Counted.walks

    small, large = work(200), work(400)
    # Every server weighed at every step: 4 times the walks for twice the servers.
    assert large <= 2.2 * small, (small, large)


def test_the_checker_estimates_each_option_once(monkeypatch, write_yaml, default_catalog):
    # 51,000 replicas re-estimated one by one, twice each, were 8 s of a 5 s limit.
    from solver import check
    from solver.check import subject
    from solver.optimize import pipeline

    wf = load_workloads(write_yaml(SERVE.replace("batch: 8}", "batch: 8, replicas: 40}")))
    option = pipeline.plan(wf, default_catalog, top=1, with_baseline=False).options[0]
    calls = 0
    estimate = subject.estimate

    def counted(*args):
        nonlocal calls
        calls += 1
        return estimate(*args)

    monkeypatch.setattr(subject, "estimate", counted)
    assert check.check_plan(option, wf, default_catalog) == []
    assert 40 <= sum(p.workload == "w1" for p in option.placements)
    assert calls <= 4, calls


def test_gathering_datasets_weighs_kinds_of_servers_not_every_server(monkeypatch, packing,
                                                                      default_catalog):
    """10,000 replicas reading one local dataset ran for minutes in ``_gather``: each
    replica weighed a move to every server holding the dataset."""
    policy, t, option, _ = packing
    reading = replace(option, local_tb=0.1)

    def work(n: int) -> int:
        items = [Item(reading.degree, reading.ram_gb, (reading,)) for _ in range(n)]
        boxes, _ = ex_pack.pack_type(items, [], t, policy)
        calls = 0
        tb_after = ex_gather._tb_after

        def counted(*args):
            nonlocal calls
            calls += 1
            return tb_after(*args)

        monkeypatch.setattr(ex_gather, "_tb_after", counted)
        ex_gather.gather_datasets({t.key: boxes}, policy, default_catalog)
        monkeypatch.setattr(ex_gather, "_tb_after", tb_after)
        return calls

    small, large = work(300), work(600)
    assert large <= 2.2 * small, (small, large)
