"""Seeded tiny files with a horizon, and the crosscheck of the plan over time against the time
brute force (``bench/bruteforce_time.py``) on them.

An instance: the catalog of ``bench.bruteforce.tiny_catalog`` cut to 1 or 2 GPU SKUs, each
GPU's cloud price scaled by 0.3-3 with, at random, ``max_gpus`` and ``min_hours``; 1-3 runs of
small training jobs (one-off, or one job weekly for 3 runs; some keep a 2 or 8 TB dataset,
read locally or shared, and checkpoints; windows of 2-10 days starting in the first weeks)
whose tokens take 0.3-4 of the slowest fitting GPU over the window; at random one always-on
inference service; a horizon of 1-36 months, at random a 7-day grid step, ``rent: never``,
growth 1.5, a GPU SKU excluded or ``objective: tco``.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: the repository root holds the bench package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bruteforce import TINY_MODELS, _degrees_for, tiny_catalog
from bench.bruteforce_time import brute_force_time
from solver.estimate.replica import estimate, replica_throughput
from solver.inputs.catalog import Catalog
from solver.inputs.policy import Policy
from solver.inputs.workload import WorkloadFile

START = dt.date(2027, 1, 1)


def _cloud(rng: random.Random, cat: Catalog) -> Catalog:
    """1 or 2 GPU SKUs; every one with a cloud price scaled, capped and billed at random."""
    data = cat.model_dump(mode="json")
    if rng.random() < 0.5:
        data["gpus"] = data["gpus"][:1]
    cloud = []
    for g in data["gpus"]:
        price = next((c["per_gpu_hour"] for c in data["cloud"] if c["gpu"] == g["sku"]),
                     g["price"] / 10_000)
        item = {"gpu": g["sku"], "per_gpu_hour": round(price * rng.choice((0.3, 1, 3)), 4)}
        if rng.random() < 0.4:
            item["max_gpus"] = rng.choice((1, 2, 4, 8))
        if rng.random() < 0.3:
            item["min_hours"] = rng.choice((24, 100))
        cloud.append(item)
    data["cloud"] = cloud
    out = Catalog.model_validate(data)
    data["platforms"] = [p.model_dump(mode="json") for p in out.platforms
                         if any(p.takes(g) for g in out.gpus)]
    return Catalog.model_validate(data)


def _run(rng: random.Random, i: int, cat: Catalog, policy, repeat: bool) -> dict | None:
    """A small training job with a window and tokens the slowest fitting GPU does in
    0.3-4 windows, ``repeat``: weekly for 3 runs (None: it fits no GPU of the catalog)."""
    kind = rng.choice(("train", "lora", "qlora"))
    w = {"name": f"r{i}-{kind}", "kind": kind, "model": rng.choice(TINY_MODELS[kind]),
         "seq_len": rng.choice((1024, 2048)), "global_batch": rng.choice((8, 32)),
         "activation_checkpointing": rng.random() < 0.5,
         "replicas": rng.choice((1, 1, 2)), "tokens": 1.0, "deadline_days": 1}
    if kind != "train":
        w["lora_rank"] = 16
    if rng.random() < 0.4:
        w["data"] = {"dataset_tb": rng.choice((0.0, 2.0, 8.0)),
                     "checkpoints_tb": rng.choice((0.0, 0.5)),
                     "storage": rng.choice(("local", "shared"))}
    probe = WorkloadFile.model_validate({"name": "p", "workloads": [w]}).workloads[0]
    rates = []
    for g in cat.gpus:
        for d in _degrees_for(g, policy):
            e = estimate(probe, g, d, policy)
            if e.fits:
                rates.append(replica_throughput(probe, g, d, policy, e).tokens_per_s)
    if not rates:
        return None
    days = rng.choice((2, 5, 10))
    start = START + dt.timedelta(days=rng.choice((0, 3, 7, 20)))
    w.update(deadline_days=days, start=str(start),
             tokens=round(min(rates) * rng.choice((0.3, 1.0, 4.0)) * days * 86_400, -3))
    if repeat:
        w["repeat"] = {"every": "weekly", "until": str(start + dt.timedelta(days=14))}
    return w


def tiny_horizon_instance(seed: int, base: Catalog) -> tuple[WorkloadFile, Catalog]:
    """Seeded tiny file with a horizon, and its catalog (module docstring)."""
    rng = random.Random(f"plan-buy-tiny-horizon/{seed}")
    while True:
        cat = _cloud(rng, tiny_catalog(rng, base))
        policy = {"headroom": 0.2,
                  "horizon": {"start": str(START), "months": rng.choice((1, 3, 12, 36))}}
        if rng.random() < 0.2:
            policy["horizon"]["step_days"] = 7
        if rng.random() < 0.15:
            policy["rent"] = "never"
        if rng.random() < 0.2:
            policy["growth"] = 1.5
        if len(cat.gpus) > 1 and rng.random() < 0.2:
            policy["exclude"] = [cat.gpus[1].sku]
        if rng.random() < 0.3:
            policy.update(objective="tco", tco={
                "kwh_price": rng.choice((0.15, 0.5)), "years": 3, "pue": 1.3,
                "utilisation": 0.7, "support_pct_per_year": rng.choice((0.0, 0.1))})
        count = rng.randint(1, 3)
        repeat = count == 1 and rng.random() < 0.5
        runs = [r for r in (_run(rng, i, cat, Policy(headroom=0.2), repeat)
                            for i in range(count)) if r]
        if runs:
            break
    works = list(runs)
    if rng.random() < 0.4:
        works.append({"name": "chat", "kind": "inference", "model": "gpt2-xl",
                      "precision": "fp16", "context": 2048, "batch": 8})
    return WorkloadFile.model_validate(
        {"name": f"tiny-horizon-{seed}", "policy": policy, "workloads": works}), cat


def crosscheck_time(count: int, first_seed: int = 0) -> dict:
    """Rank-1 horizon cost of ``plan_over_time`` vs ``brute_force_time`` in the run
    program's reading (full servers, no excluded GPU rented: must match) and over every
    server sold, excluded GPUs rentable (what that reading costs) on ``count`` seeded tiny
    instances; the time each side took."""
    from bench.generate import DEFAULT_CATALOG
    from solver.errors import InfeasibleError
    from solver.inputs.loading import load_catalog
    from solver.optimize.runs.plan import plan_over_time

    base = load_catalog(DEFAULT_CATALOG)
    match, mismatches, dearer, brute_s, plan_s = 0, [], [], 0.0, 0.0
    for seed in range(first_seed, first_seed + count):
        wf, cat = tiny_horizon_instance(seed, base)
        t0 = time.perf_counter()
        exact = brute_force_time(wf, cat, full_servers=True, rent_excluded=False)
        anywhere = brute_force_time(wf, cat)
        t1 = time.perf_counter()
        try:
            option = plan_over_time(wf, cat, top=1, gap=1e-9, with_baseline=False).options[0]
            got = option.time.horizon_cost if option.time is not None else None
        except InfeasibleError:
            got = None
        t2 = time.perf_counter()
        brute_s, plan_s = brute_s + t1 - t0, plan_s + t2 - t1
        if (exact is None and got is None) or (
                exact is not None and got is not None and abs(exact - got) <= 0.01):
            match += 1
        else:
            mismatches.append(f"seed {seed}: plan {got}, exhaustive {exact}")
        if got is not None and anywhere is not None and got > anywhere + 0.01:
            dearer.append(got / anywhere - 1)
    return {"match": match, "total": count, "mismatches": mismatches, "dearer": dearer,
            "brute_seconds": brute_s, "plan_seconds": plan_s}


if __name__ == "__main__":
    res = crosscheck_time(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
    print(f"{res['match']} of {res['total']} match the optimum in the program's reading; "
          f"brute force {res['brute_seconds']:.1f} s, plan over time "
          f"{res['plan_seconds']:.1f} s")
    if res["dearer"]:
        d = res["dearer"]
        print(f"{len(d)} cost more than the optimum over every server sold or rented: "
              f"+{min(d):.1%} to "
              f"+{max(d):.1%}, mean +{sum(d) / len(d):.1%}")
    for m in res["mismatches"]:
        print("  " + m)
