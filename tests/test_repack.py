"""Expansion's family repack: when a type's replicas do not pack into the servers the program
bought, the types of the same platform and GPU (which differ only in memory) are packed as
one pool, and a server takes a memory upgrade rather than a second server being bought.

Catalog (tests/solver_fixtures.py): box2 $2000 with 2 PCIe slots; DIMMs 32 GB $100, 64 GB
$300; GPU small $1000; CPU node $500. Headroom 20%: box2 with 2 x 32 GB holds 51.2 GB of
host RAM, with 4 x 32 GB 102.4 GB.
"""

from __future__ import annotations

import solver_fixtures as fx

from solver.check import check_plan
from solver.inputs.ownership import Site
from solver.optimize.candidates import enumerate_candidates
from solver.optimize.expand import expand
from solver.optimize.outcome import Outcome
from solver.plan_types import PlanOption
from solver.result import SolveStatus


def _outcome(n: dict[str, int], x: dict[tuple[str, int, str], int]) -> Outcome:
    return Outcome(SolveStatus.FEASIBLE, 0.0, 0.0, 0.0, 0.0, n, x, {}, {}, {},
                   {}, gpus={})


def _option(exp) -> PlanOption:
    return PlanOption(rank=1, total_cost=exp.cost, servers=exp.servers, lines=exp.lines,
                      placements=exp.placements)


def test_a_memory_upgrade_beats_a_second_server(monkeypatch):
    """Two 1-GPU replicas of 30 GB host RAM on one box2 with 2 x 32 GB (51.2 GB usable):
    the slots fit, the RAM does not (60 > 51.2). Type by type, repair buys a second box2
    ($2,200 more); pooled with its family, the server takes 4 x 32 GB ($200 more)."""
    fx.install(monkeypatch, {"a": (15, 30)})
    wf = fx.workloads({"name": "a", "replicas": 2})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    small = next(t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
                 and t.gpu.sku == "small" and t.ram_gb == 64)
    oi = next(i for i, o in enumerate(cand.options["a"]) if o.gpu == "small")
    exp = expand(_outcome({small.key: 1}, {("a", oi, small.key): 2}), cand, wf, cat)
    assert exp.failed_types == (small.key,)  # the program's sums lied: the type is tightened
    assert exp.repaired == 0  # no server added
    assert [(s.memory, s.dimm_count, s.gpu_count) for s in exp.servers] == [("d32", 4, 2)]
    assert exp.cost == 2000 + 4 * 100 + 2 * 1000
    assert check_plan(_option(exp), wf, cat) == []


def test_a_cpu_only_replica_that_fits_nowhere_gets_the_cheapest_server(monkeypatch):
    """A preprocess replica of 180 GB beside a 1-GPU replica of 30 GB on one box2 with
    4 x 64 GB (204.8 GB usable; 210 needed). Type by type, repair buys a second such box2
    ($3,200); pooled, the preprocess replica overflows its family (no box2 memory holds
    both) to the cheapest server that holds it alone, a CPU node with 4 x 64 GB ($1,700),
    and the box2 keeps the cheapest memory its 30 GB need (2 x 32 GB)."""
    fx.install(monkeypatch, {"a": (15, 30), "p": (0, 180)})
    wf = fx.workloads({"name": "a"}, {"name": "p", "kind": "preprocess"})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    box = next(t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
               and t.gpu.sku == "small" and t.ram_gb == 256)
    oa = next(i for i, o in enumerate(cand.options["a"]) if o.gpu == "small")
    exp = expand(_outcome({box.key: 1}, {("a", oa, box.key): 1, ("p", 0, box.key): 1}),
                 cand, wf, cat)
    assert exp.repaired == 1
    assert sorted((s.platform, s.memory, s.dimm_count) for s in exp.servers) == [
        ("box2", "d32", 2), ("cpu", "d64", 4)]
    assert exp.cost == 2000 + 2 * 100 + 1000 + 500 + 4 * 300
    assert check_plan(_option(exp), wf, cat) == []


def _two_gpu_boxes(monkeypatch, site=None):
    """box2 (2 slots, $2,000) with 2 x 32 GB only (51.2 GB usable, no memory upgrade);
    GPUs small ($1,000, 24 GB) and big ($1,500, 80 GB). Workload a: two 1-GPU replicas of
    15 GB VRAM and 30 GB host RAM (either GPU); b: one of 60 GB VRAM, 10 GB RAM (big only).
    The program bought one small box for both a's and one big box for b."""
    fx.install(monkeypatch, {"a": (15, 30), "b": (60, 10)})
    wf = fx.workloads({"name": "a", "replicas": 2}, {"name": "b"})
    if site is not None:
        wf = wf.model_copy(update={"site": Site.model_validate(site)})
    gpus = [
        {"sku": "small", "vram_gb": 24, "mem_bw_gbps": 1000, "bf16_tflops": 100,
         "power_w": 300, "form_factor": "pcie", "nvlink_gbps": 0, "price": 1000},
        {"sku": "big", "vram_gb": 80, "mem_bw_gbps": 2000, "bf16_tflops": 300,
         "power_w": 400, "form_factor": "pcie", "nvlink_gbps": 0, "price": 1500},
    ]
    memory = [{"sku": "d32", "type": "ddr4", "speed_mts": 3200, "size_gb": 32, "price": 100}]
    platforms = [{"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 2,
                  "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2,
                  "price": 2000, "power_w": 500, "rack_units": 2}]
    cat = fx.catalog(gpus=gpus, memory=memory, platforms=platforms)
    cand = enumerate_candidates(wf, cat)
    small = next(t for t in cand.types if t.gpu is not None and t.gpu.sku == "small")
    big = next(t for t in cand.types if t.gpu is not None and t.gpu.sku == "big")
    oa = next(i for i, o in enumerate(cand.options["a"]) if o.gpu == "small")
    ob = next(i for i, o in enumerate(cand.options["b"]) if o.gpu == "big")
    out = _outcome({small.key: 1, big.key: 1}, {("a", oa, small.key): 2, ("b", ob, big.key): 1})
    return wf, cat, expand(out, cand, wf, cat)


def test_an_added_server_is_emptied_into_a_free_slot_on_another_gpu(monkeypatch):
    """The two a's do not share the small box (60 > 51.2 GB) and no memory upgrade exists:
    repair buys a second small box ($3,200). The big box has a free slot and 41.2 GB left,
    and a runs on big too: one more big GPU ($1,500) instead, $1,700 less."""
    wf, cat, exp = _two_gpu_boxes(monkeypatch)
    assert exp.failed_types  # the program's sums lied
    assert exp.repaired == 0
    assert sorted((s.gpu, s.gpu_count) for s in exp.servers) == [("big", 2), ("small", 1)]
    assert exp.cost == (2000 + 200 + 1000) + (2000 + 200 + 2 * 1500)
    placed = sorted((p.workload, next(s.gpu for s in exp.servers if s.id == p.server))
                    for p in exp.placements)
    assert placed == [("a", "big"), ("a", "small"), ("b", "big")]
    assert check_plan(_option(exp), wf, cat) == []


def test_no_gpu_is_added_to_a_server_under_site_limits(monkeypatch):
    """With a site (P3) a GPU added to a server adds power a rack may not have: the
    repair's second small box stays."""
    wf, cat, exp = _two_gpu_boxes(
        monkeypatch, site={"racks": 1, "rack_kw": 10, "rack_units": 42})
    assert exp.repaired == 1
    assert sorted((s.gpu, s.gpu_count) for s in exp.servers) == [
        ("big", 1), ("small", 1), ("small", 1)]
    assert check_plan(_option(exp), wf, cat) == []


def test_an_added_server_is_replaced_by_a_smaller_one(monkeypatch):
    """Five 1-GPU replicas (10 GB RAM) on one box4 ($6,000, 4 slots): the fifth needs a
    server. Repair buys a second box4 with one GPU ($7,200); a box2 with one GPU holds it
    for $3,200."""
    fx.install(monkeypatch, {"a": (15, 10)})
    wf = fx.workloads({"name": "a", "replicas": 5})
    memory = [{"sku": "d32", "type": "ddr4", "speed_mts": 3200, "size_gb": 32, "price": 100}]
    platforms = [
        {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 2,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000},
        {"sku": "box4", "gpu_slots": 4, "form_factors": ["pcie"], "dimm_slots": 2,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 6000},
    ]
    cat = fx.catalog(memory=memory, platforms=platforms)
    cand = enumerate_candidates(wf, cat)
    box4 = next(t for t in cand.types if t.platform.sku == "box4" and t.gpu is not None
                and t.gpu.sku == "small")
    oa = next(i for i, o in enumerate(cand.options["a"]) if o.gpu == "small")
    exp = expand(_outcome({box4.key: 1}, {("a", oa, box4.key): 5}), cand, wf, cat)
    assert exp.repaired == 1  # one server more than bought, but not another box4
    assert sorted((s.platform, s.gpu, s.gpu_count) for s in exp.servers) == [
        ("box2", "small", 1), ("box4", "small", 4)]
    assert exp.cost == (6000 + 200 + 4 * 1000) + (2000 + 200 + 1000)
    assert check_plan(_option(exp), wf, cat) == []


def test_a_big_cpu_only_replica_gets_the_ram_light_gpu_replicas_beside_it(monkeypatch):
    """Two box4 ($2,000, 4 slots) with 4 x 64 GB (204.8 GB usable each, $7,200 with four
    small GPUs), and a preprocess replica of 130 GB (more than half a server: it shares a
    server only with replicas of at most 74.8 GB). GPU replicas: a, 2 GPUs and 120 GB;
    b, 2 GPUs and 16 GB; four d's, 1 GPU and 24 GB. The sums fit (8 GPUs, 378 GB); so does
    one packing: preprocess + b + d + d (194 GB) and a + d + d (168 GB), $14,400.

    Every order of first fit or best fit misses it: most GPUs first, a and b fill one
    server's slots and the preprocess job fits beside neither server's RAM (a CPU node of
    $1,700, the d's server then taking 4 x 32 GB: $900 more); most RAM first, three d's join the preprocess job and b finds no two
    slots together (a third box4). Seeded, the preprocess job takes a server
    first and its slots take the replicas of least RAM per GPU (b, then d's)."""
    fx.install(monkeypatch, {"a": (30, 60), "b": (30, 8), "d": (15, 24), "p": (0, 130)})
    wf = fx.workloads({"name": "a"}, {"name": "b"}, {"name": "d", "replicas": 4},
                      {"name": "p", "kind": "preprocess"})
    platforms = [
        {"sku": "box4", "gpu_slots": 4, "form_factors": ["pcie"], "dimm_slots": 4,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000},
        {"sku": "cpu", "gpu_slots": 0, "dimm_slots": 4, "memory_type": "ddr4",
         "memory_channels": 4, "drive_bays": 4, "price": 500},
    ]
    cat = fx.catalog(platforms=platforms)
    cand = enumerate_candidates(wf, cat)
    box = next(t for t in cand.types if t.platform.sku == "box4" and t.gpu is not None
               and t.gpu.sku == "small" and t.ram_gb == 256)
    x = {(w, next(i for i, o in enumerate(cand.options[w]) if o.gpu == "small"), box.key): k
         for w, k in (("a", 1), ("b", 1), ("d", 4))}
    assert [o.degree for w in "abd" for o in cand.options[w] if o.gpu == "small"] == [2, 2, 1]
    x[("p", 0, box.key)] = 1
    exp = expand(_outcome({box.key: 2}, x), cand, wf, cat)
    assert exp.failed_types == (box.key,)  # no first fit packs it
    assert exp.repaired == 0
    assert [(s.platform, s.memory, s.dimm_count, s.gpu_count) for s in exp.servers] == [
        ("box4", "d64", 4, 4)] * 2
    assert exp.cost == 2 * (2000 + 4 * 300 + 4 * 1000)
    by_server = {}
    for p in exp.placements:
        by_server.setdefault(p.server, []).append(p.workload)
    assert sorted(sorted(v) for v in by_server.values()) == [
        ["a", "d", "d"], ["b", "d", "d", "p"]]
    assert check_plan(_option(exp), wf, cat) == []


def test_servers_are_emptied_into_the_idle_gpus_of_a_board_bought_whole(monkeypatch):
    """A "board" is sold with both its GPUs (O1): $3,000 + 2 x $1,000 + 2 x 64 GB $600 =
    $5,600, 102.4 GB usable; box2 ($2,000 + one 64 GB DIMM, 51.2 GB usable) buys GPUs one by
    one. The program put a preprocess replica p (90 GB) and b (1 GPU, 20 GB) on one board
    (110 > 102.4: no) and a (1 GPU, 10 GB) on a box2. Repair buys a second board for p,
    which no other server holds, its two GPUs idle: $14,500. Emptied into free GPU slots,
    the least loaded first: a goes beside p on an idle GPU (100 <= 102.4 GB, no GPU to buy),
    and b to the box2's free slot (one more GPU, $1,000, instead of a $5,600 board):
    $8,900, a board for p and a, a box2 for b."""
    fx.install(monkeypatch, {"a": (15, 10), "b": (15, 20), "p": (0, 90)})
    wf = fx.workloads({"name": "a"}, {"name": "b"}, {"name": "p", "kind": "preprocess"})
    memory = [{"sku": "d64", "type": "ddr4", "speed_mts": 3200, "size_gb": 64, "price": 300}]
    platforms = [
        {"sku": "box2", "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 1,
         "memory_type": "ddr4", "memory_channels": 1, "drive_bays": 2, "price": 2000},
        {"sku": "board", "gpu_slots": 2, "gpu_counts": [2], "form_factors": ["pcie"],
         "dimm_slots": 2, "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2,
         "price": 3000},
    ]
    cat = fx.catalog(memory=memory, platforms=platforms)
    cand = enumerate_candidates(wf, cat)

    def small(sku):
        return next(t for t in cand.types if t.platform.sku == sku and t.gpu is not None
                    and t.gpu.sku == "small")

    def on_small(name):
        return next(i for i, o in enumerate(cand.options[name]) if o.gpu == "small")

    box2, board = small("box2"), small("board")
    out = _outcome({box2.key: 1, board.key: 1}, {("a", on_small("a"), box2.key): 1,
                                                 ("b", on_small("b"), board.key): 1,
                                                 ("p", 0, board.key): 1})
    exp = expand(out, cand, wf, cat)
    by_server = {}
    for p in exp.placements:
        by_server.setdefault(p.server, []).append(p.workload)
    assert sorted((s.platform, s.gpu_count, sorted(by_server[s.id])) for s in exp.servers) == [
        ("board", 2, ["a", "p"]), ("box2", 1, ["b"])]
    assert exp.cost == 5600 + (2000 + 300 + 1000)
    assert check_plan(_option(exp), wf, cat) == []


def test_a_swap_takes_a_server_back_to_less_memory(monkeypatch):
    """Two box2 servers with 4 x 32 GB ($2,400 without GPUs, 102.4 GB usable): A runs
    x (40 GB) and y (20 GB), 60 GB, just over the 51.2 GB of 2 x 32 GB ($2,200); B runs
    z (80 GB) and v (10 GB), its two slots full. Nothing moves alone, but y and v swap:
    A holds 50 GB and takes 2 x 32 GB ($200 less), B holds 100 <= 102.4 GB as it is.
    When x and y read a local 4 TB dataset, every swap out of A gives B a copy ($400 of
    drives at $100 a TB), more than it saves: none is made."""
    from solver.optimize.expand.box import Box, Item
    from solver.optimize.expand.memory import shed

    fx.install(monkeypatch, {"a": (15, 10)})
    wf = fx.workloads({"name": "a"})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    family = [t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
              and t.gpu.sku == "small"]
    two, four = (next(t for t in family if t.ram_gb == ram) for ram in (64, 128))
    option = cand.options["a"][0]

    def item(ram, dataset=None):
        return Item(1, ram, (option.__class__(**{**option.__dict__, "ram_gb": ram,
                                                   "local_tb": 4.0 if dataset else 0.0,
                                                   "workload": dataset or "a"}),))

    def servers(y_dataset=None):
        a, b = Box(four), Box(four)
        for box, rams in ((a, (40, 20)), (b, (80, 10))):
            for ram in rams:
                box.add(item(ram, y_dataset if box is a else None))
        return a, b

    a, b = servers()
    shed([a, b], family, wf.policy, cat)
    assert (a.type, sorted(it.ram_gb for it in a.items)) == (two, [10, 40])
    assert (b.type, sorted(it.ram_gb for it in b.items)) == (four, [20, 80])

    a, b = servers(y_dataset="xy")
    shed([a, b], family, wf.policy, cat)
    assert (a.type, b.type) == (four, four)


def test_an_excluded_drive_does_not_price_the_copies_a_swap_makes(monkeypatch):
    """The swap above saves $200 of DIMMs and gives B a copy of a 4 TB dataset. With a
    second drive at $10 a TB the copy costs $40 and the swap is made; once that drive is
    excluded (never bought), the copy costs what the drive left costs, $400, and none is."""
    from solver.optimize.expand import memory
    from solver.optimize.expand.box import Box, Item

    fx.install(monkeypatch, {"a": (15, 10)})
    storage = [{"sku": "ssd4", "size_tb": 4, "price": 400},
               {"sku": "cheap4", "size_tb": 4, "price": 40}]
    cat = fx.catalog(storage=storage)

    def shed(wf):
        cand = enumerate_candidates(wf, cat)
        family = [t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
                  and t.gpu.sku == "small"]
        four = next(t for t in family if t.ram_gb == 128)
        option = cand.options["a"][0]

        def item(ram, dataset=None):
            return Item(1, ram, (option.__class__(**{**option.__dict__, "ram_gb": ram,
                                                       "local_tb": 4.0 if dataset else 0.0,
                                                       "workload": dataset or "a"}),))
        a, b = Box(four), Box(four)
        for box, rams in ((a, (40, 20)), (b, (80, 10))):
            for ram in rams:
                box.add(item(ram, "xy" if box is a else None))
        memory.shed([a, b], family, wf.policy, cat)
        return a.type.ram_gb, b.type.ram_gb

    assert shed(fx.workloads({"name": "a"})) == (64, 128)
    assert shed(fx.workloads({"name": "a"}, exclude=["cheap4"])) == (128, 128)


def test_dataset_copies_are_gathered_onto_fewer_drives(monkeypatch):
    """Two box2 servers (2 bays; ssd4 4 TB $400, 3.2 TB under the 20% headroom line), each
    running one replica of x, which reads a local 3 TB dataset, beside a replica without
    data: each server needs one drive, $800. A swap puts both x replicas on one server
    ($400) and the other needs none. When two x replicas are too big for one server's
    RAM, nothing moves."""
    from solver.optimize.expand.box import Box, Item
    from solver.optimize.expand.gather import gather_datasets

    fx.install(monkeypatch, {"a": (15, 10)})
    wf = fx.workloads({"name": "a"})
    cat = fx.catalog()
    cand = enumerate_candidates(wf, cat)
    two = next(t for t in cand.types if t.platform.sku == "box2" and t.gpu is not None
               and t.gpu.sku == "small" and t.ram_gb == 64)  # 51.2 GB usable
    option = cand.options["a"][0]

    def item(ram, dataset=None):
        return Item(1, ram, (option.__class__(**{**option.__dict__, "ram_gb": ram,
                                                   "local_tb": 3.0 if dataset else 0.0,
                                                   "workload": dataset or "a"}),))

    def servers(x_ram, b_ram):
        a, b = Box(two), Box(two)
        for box, ram in ((a, 10), (b, b_ram)):
            box.add(item(x_ram, "x"))
            box.add(item(ram))
        return a, b

    a, b = servers(x_ram=20, b_ram=10)
    assert (a.local_tb, b.local_tb) == (3.0, 3.0)
    gather_datasets({two.key: [a, b]}, wf.policy, cat)
    held, empty = (a, b) if a.local_tb else (b, a)
    assert [sorted(it.datasets) for it in held.items] == [["x"], ["x"]]
    assert (held.local_tb, empty.local_tb, held.ram_used, empty.ram_used) == (3.0, 0.0, 40, 20)

    a, b = servers(x_ram=30, b_ram=20)  # two x replicas, 60 GB, fit no server's 51.2
    gather_datasets({two.key: [a, b]}, wf.policy, cat)
    assert (a.local_tb, b.local_tb) == (3.0, 3.0)


def test_idle_gpus_go_to_the_server_that_saves_most(monkeypatch):
    """A board bought whole for a preprocess replica of 90 GB, which only it holds (two GPUs,
    both idle, and 12.4 GB of RAM left), and two servers that could be emptied into them: a box2 with one replica ($3,300, the least loaded)
    and a big2 with two ($8,000 + $300 + 2 x $1,000 = $10,300, dearer per GPU). The site
    has limits, so no new server may take what finds no room. Least loaded first, the box2
    takes one idle GPU and the big2 no longer fits: $15,900. The dearest per GPU first, the
    big2's two replicas take both: $8,900. The cheaper is kept."""
    from solver.optimize.expand.box import Box, Item
    from solver.optimize.expand.rehome import empty_into_idle

    fx.install(monkeypatch, {"a": (15, 5), "p": (0, 90)})
    wf = fx.workloads({"name": "a", "replicas": 3}, {"name": "p", "kind": "preprocess"})
    memory = [{"sku": "d64", "type": "ddr4", "speed_mts": 3200, "size_gb": 64, "price": 300}]
    platforms = [
        {"sku": sku, "gpu_slots": 2, "form_factors": ["pcie"], "dimm_slots": 1,
         "memory_type": "ddr4", "memory_channels": 1, "drive_bays": 2, "price": price}
        for sku, price in (("box2", 2000), ("big2", 8000))
    ] + [{"sku": "board", "gpu_slots": 2, "gpu_counts": [2], "form_factors": ["pcie"],
          "dimm_slots": 2, "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2,
          "price": 3000}]
    cat = fx.catalog(memory=memory, platforms=platforms)
    cand = enumerate_candidates(wf, cat)
    small = {t.platform.sku: t for t in cand.types if t.gpu is not None and t.gpu.sku == "small"}
    replica = Item(1, 5, (next(o for o in cand.options["a"] if o.gpu == "small"),))
    board, box2, big2 = Box(small["board"]), Box(small["box2"]), Box(small["big2"])
    board.add(Item(0, 90, (cand.options["p"][0],)))
    box2.add(replica)
    big2.add(replica)
    big2.add(replica)
    plan = {t.key: [b] for t, b in ((board.type, board), (box2.type, box2), (big2.type, big2))}
    assert empty_into_idle(plan, cand, wf.policy, cat, site=True) == 1
    kept = {k: [(b.gpus_used, len(b.items)) for b in v] for k, v in plan.items() if v}
    assert kept == {board.type.key: [(2, 3)], box2.type.key: [(1, 1)]}
