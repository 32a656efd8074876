"""The cheapest cover of a family's replicas by server patterns (``family_pack``), and its
use in expansion's family repack (``expand.repack.cover``): hand-solved instances."""

from __future__ import annotations

import solver_fixtures as fx

from solver.optimize.candidates import enumerate_candidates
from solver.optimize.expand.box import Box, Item, box_price
from solver.optimize.expand.repack import cover
from solver.optimize.family_pack import ServerConfig, cheapest_cover
from solver.rules import usable

# Kinds (GPUs, host RAM GB, cores): a CPU-only replica of 2,880 GB, an 8-GPU replica of
# 564 GB, a 2-GPU replica of 141 GB.
BIG, EIGHT, TWO = (0, 2880.0, 0.0), (8, 564.0, 0.0), (2, 141.0, 0.0)
LARGE = ServerConfig(price=100.0, slots=8, ram_gb=3276.8, cores=112.0)
SMALL = ServerConfig(price=90.0, slots=8, ram_gb=819.2, cores=112.0)


def _holds(pattern, kinds, configs) -> bool:
    config, counts = configs[pattern[0]], pattern[1]
    use = [sum(a * k[d] for a, k in zip(counts, kinds, strict=True)) for d in range(3)]
    return use[0] <= config.slots and use[1] <= config.ram_gb + 1e-9 and use[2] <= config.cores


def test_the_cover_puts_the_light_replicas_beside_the_big_ones():
    """Two 2,880 GB replicas, one 8-GPU replica of 564 GB and four 2-GPU replicas of
    141 GB. A first fit that put one 2-GPU replica beside each big one (6 slots left idle,
    3,021 GB) needs a fourth server for the other two: 4 x 100. Two 2-GPU replicas fit
    beside each big one (3,162 GB of 3,276.8), and the 8-GPU replica (564 GB) goes on the
    smaller configuration: 100 + 100 + 90 = 290."""
    kinds, demand, configs = [BIG, EIGHT, TWO], [2, 1, 4], [LARGE, SMALL]
    start = [(0, (1, 0, 1)), (0, (1, 0, 1)), (0, (0, 1, 0)), (0, (0, 0, 2))]
    chosen = cheapest_cover(kinds, demand, configs, start)
    assert sum(configs[s].price for s, _ in chosen) == 290
    assert all(_holds(p, kinds, configs) for p in chosen)
    for k, need in enumerate(demand):
        assert sum(counts[k] for _, counts in chosen) >= need


def test_the_cover_never_costs_more_than_the_packing_in_hand():
    """Already the cheapest (two big replicas can never share a server): the packing in
    hand comes back as it is."""
    kinds, demand, configs = [BIG], [2], [LARGE]
    start = [(0, (1,)), (0, (1,))]
    assert cheapest_cover(kinds, demand, configs, start) == start


def test_expansion_repacks_a_family_by_its_cheapest_cover(monkeypatch):
    """box4 ($2,000, 4 slots) with 4 x 64 GB ($1,200, 204.8 GB usable), 4 x 32 GB ($400,
    102.4 GB) or 2 x 32 GB ($200, 51.2 GB). Replicas: two preprocess jobs of 130 GB, one
    2-GPU replica of 60 GB, two 1-GPU replicas of 30 GB. A packing in hand of three
    servers with 4 x 64 GB (each preprocess job beside one 1-GPU replica, 160 GB, and the
    2-GPU replica alone on a third), $13,600 with the four GPUs ($1,000 each), is covered
    by two: a preprocess job beside the 2-GPU replica (190 GB), the other beside both 1-GPU
    replicas (190 GB), $10,400."""
    fx.install(monkeypatch, {"a": (30, 30), "d": (15, 30), "p": (0, 130)})
    wf = fx.workloads({"name": "a"}, {"name": "d", "replicas": 2},
                      {"name": "p", "kind": "preprocess", "replicas": 2})
    platforms = [
        {"sku": "box4", "gpu_slots": 4, "form_factors": ["pcie"], "dimm_slots": 4,
         "memory_type": "ddr4", "memory_channels": 2, "drive_bays": 2, "price": 2000},
    ]
    cat = fx.catalog(platforms=platforms)
    cand = enumerate_candidates(wf, cat)
    members = [t for t in cand.types if t.platform.sku == "box4" and t.gpu is not None
               and t.gpu.sku == "small"]
    large = next(t for t in members if t.ram_gb == 256)
    option = {w: next(o for o in cand.options[w] if o.gpu in (None, "small")) for w in "adp"}
    assert [option[w].degree for w in "adp"] == [2, 1, 0]
    boxes = []
    for held in (("p", "d"), ("p", "d"), ("a",)):
        box = Box(large)
        for w in held:
            box.add(Item(option[w].degree, option[w].ram_gb, (option[w],)))
        boxes.append(box)
    covered = cover(boxes, members, wf.policy, cat)
    assert len(covered) == 2
    assert sum(box_price(b, cat) for b in boxes) == 3 * (2000 + 4 * 300) + 4 * 1000
    assert sum(box_price(b, cat) for b in covered) == 2 * (2000 + 4 * 300) + 4 * 1000
    assert sorted(sorted(o.workload for it in b.items for o in it.replicas)
                  for b in covered) == [["a", "p"], ["d", "d", "p"]]
    assert all(b.ram_used <= usable(b.type.ram_gb, wf.policy) for b in covered)


def test_pricing_takes_no_more_of_a_kind_than_the_family_holds():
    """A 1-GPU kind of 10 GB worth 5 and a 2-GPU kind of 100 GB worth 6, on 8 slots and
    819.2 GB: unbounded, eight of the first (40); with two of them in the family, two of
    the first and three of the second (28)."""
    from solver.optimize.patterns import best_pattern

    kinds = [(1, 10.0), (2, 100.0)]
    assert best_pattern(kinds, [5.0, 6.0], 8, 819.2) == (40.0, (8, 0))
    assert best_pattern(kinds, [5.0, 6.0], 8, 819.2, most=[2, 5]) == (28.0, (2, 3))
