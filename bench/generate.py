"""Seeded benchmark instances: N workloads over the default catalog or one twice its size.

Everything here is a pure function of its arguments (a seed in, the same instance out), so
figures in bench/results.md can be reproduced: ``generate(200, seed=1)`` is the same
workload file on every machine and every run.

A workload mix is drawn like a real pool's (shares of kind by weight, models from the
presets that the kind can actually run, replicas 1-8 skewed to small, priorities 1-10);
every drawn workload is checked to have at least one replica option under the policy
(the estimator's ``fits`` on some GPU and degree), and redrawn if not, so an instance is
never trivially infeasible.

The doubled catalog adds, to every SKU kind of ``catalogs/default.yaml``, as many synthetic
SKUs again (GPUs, platforms, DIMMs, drives), with vendors' figures where a real part exists
and illustrative prices: it only serves to measure how the program grows with the catalog.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import yaml

from solver.inputs.catalog import Catalog
from solver.inputs.loading import load_catalog
from solver.inputs.policy import Policy
from solver.inputs.presets import PRESETS
from solver.inputs.workload import Workload, WorkloadFile
from solver.optimize.replicas import replica_options

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CATALOG = ROOT / "catalogs" / "default.yaml"

KIND_WEIGHTS = {"inference": 35, "lora": 18, "qlora": 10, "train": 22, "preprocess": 15}
"""Share of each kind in a drawn mix (weights, not percentages)."""

MODELS_BY_KIND = {
    # Full training of 70B+ does not fit any 8-GPU server at 20% headroom: left to LoRA.
    "train": [
        "gpt2",
        "gpt2-xl",
        "llama-2-7b",
        "mistral-7b",
        "qwen2.5-7b",
        "llama-3.1-8b",
        "llama-2-13b",
        "qwen2.5-14b",
    ],
    "lora": [
        "llama-2-7b",
        "mistral-7b",
        "qwen2.5-7b",
        "llama-3.1-8b",
        "llama-2-13b",
        "qwen2.5-14b",
        "qwen2.5-32b",
        "mixtral-8x7b",
        "llama-2-70b",
        "llama-3.1-70b",
    ],
    "qlora": [
        "llama-3.1-8b",
        "qwen2.5-14b",
        "qwen2.5-32b",
        "mixtral-8x7b",
        "llama-2-70b",
        "llama-3.1-70b",
        "qwen2.5-72b",
    ],
    "inference": [
        "gpt2",
        "gpt2-xl",
        "llama-2-7b",
        "mistral-7b",
        "qwen2.5-7b",
        "llama-3.1-8b",
        "llama-2-13b",
        "qwen2.5-14b",
        "qwen2.5-32b",
        "mixtral-8x7b",
        "llama-2-70b",
        "llama-3.1-70b",
        "qwen2.5-72b",
        "llama-3.1-405b",
    ],
}
TEAMS = ("assistant", "search", "research", "devtools", "data", "ads", "vision", "infra")
MAX_REDRAWS = 50


def _pick_weighted(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _replicas(rng: random.Random) -> int:
    return rng.choices((1, 2, 3, 4, 6, 8), weights=(45, 25, 10, 10, 5, 5))[0]


def _draw(rng: random.Random, i: int) -> dict[str, Any]:
    """One workload as the YAML mapping a user would write."""
    kind = _pick_weighted(rng, KIND_WEIGHTS)
    w: dict[str, Any] = {
        "name": f"{kind}-{i:04d}",
        "team": rng.choice(TEAMS),
        "kind": kind,
        "replicas": _replicas(rng),
        "priority": rng.randint(1, 10),
    }
    if kind == "preprocess":
        w["data"] = {
            "in_memory_gb": rng.choice((20, 50, 100, 200, 400)),
            "expansion": rng.choice((1.5, 2.0, 2.5, 3.0)),
            "workers": rng.choice((4, 8, 16)),
            "dataset_tb": rng.choice((0.5, 1.0, 2.0, 5.0, 10.0)),
        }
        return w
    w["model"] = rng.choice(MODELS_BY_KIND[kind])
    if kind == "inference":
        small = w["model"] in (
            "gpt2",
            "gpt2-xl",
            "llama-2-7b",
            "mistral-7b",
            "qwen2.5-7b",
            "llama-3.1-8b",
        )
        w["precision"] = rng.choice(("fp16", "bf16", "fp8", "int8", "int4"))
        w["context"] = rng.choice((2048, 4096, 8192, 32768))
        w["batch"] = rng.choice((1, 4, 8, 16, 32, 64))
        if small and rng.random() < 0.4:
            w["shareable"] = True
            w["context"] = rng.choice((512, 1024, 2048))
            w["batch"] = rng.choice((1, 2, 4, 8))
        return w
    w["seq_len"] = rng.choice((1024, 2048, 4096, 8192))
    w["global_batch"] = rng.choice((8, 16, 32, 64, 128, 256))
    w["micro_batch"] = "auto"
    w["activation_checkpointing"] = rng.random() < 0.6
    if kind == "train":
        w["precision"] = rng.choice(("bf16", "bf16", "fp16"))
        w["optimizer"] = rng.choice(("adamw", "adamw", "adam", "sgd", "adamw8bit"))
    else:
        w["lora_rank"] = rng.choice((8, 16, 32, 64))
    w["data"] = {
        "in_memory_gb": rng.choice((0, 5, 10, 20, 40, 80)),
        "expansion": rng.choice((1.5, 2.0)),
        "workers": rng.choice((2, 4, 8)),
        "dataset_tb": rng.choice((0.0, 0.1, 0.5, 1.0, 2.0)),
        "checkpoints_tb": rng.choice((0.0, 0.1, 0.5, 1.0)),
    }
    return w


def _runs_somewhere(w: dict[str, Any], catalog: Catalog, policy: Policy) -> bool:
    wl = Workload.model_validate(w, context={"base_dir": ROOT})
    opts, _ = replica_options(wl, catalog, policy)
    return bool(opts)


def generate_data(n: int, seed: int, catalog: Catalog | None = None,
                  targets: bool = False) -> dict[str, Any]:
    """The YAML document (plain data) of a seeded N-workload mix.

    Args:
        n: number of workloads (1..5000).
        seed: random seed; the same (n, seed, catalog) gives the same document.
        catalog: workloads are redrawn until each runs on some GPU of this catalog
            (default: catalogs/default.yaml).
        targets: also give about half the GPU workloads a throughput target (training:
            tokens and a deadline; inference: tokens/s with prompt/output lengths and a
            TPOT limit), drawn from a second random stream so the mix itself is the same.
    """
    catalog = catalog or load_catalog(DEFAULT_CATALOG)
    rng = random.Random(f"plan-buy-bench/{n}/{seed}")
    policy_data = {
        "headroom": 0.2,
        "max_parallel_degree": 8,
        "max_pcie_parallel_degree": 2,
        "growth": rng.choice((1.0, 1.25)),
    }
    policy = Policy.model_validate(policy_data)
    workloads = []
    for i in range(n):
        for _ in range(MAX_REDRAWS):
            w = _draw(rng, i)
            if _runs_somewhere(w, catalog, policy):
                break
        else:  # pragma: no cover - the pools above always fit something
            raise RuntimeError(f"could not draw a runnable workload #{i} (seed {seed})")
        workloads.append(w)
    if targets:
        _add_targets(workloads, catalog, policy, random.Random(f"plan-buy-targets/{n}/{seed}"))
    return {"name": f"bench-n{n}-s{seed}", "policy": policy_data, "workloads": workloads}


TARGET_SCALES = (0.5, 1.5, 3.0, 6.0)
"""A target is this many times the fastest single replica's tokens/s."""


def _add_targets(workloads: list[dict[str, Any]], catalog: Catalog, policy: Policy,
                 rng: random.Random) -> None:
    """Give about half the GPU workloads a target that some whole number of replicas meets."""
    from solver.estimate.replica import replica_throughput

    for w in workloads:
        if w["kind"] == "preprocess" or rng.random() < 0.5:
            continue
        wl = Workload.model_validate(w, context={"base_dir": ROOT})
        opts, _ = replica_options(wl, catalog, policy)
        best = max(replica_throughput(wl, catalog.gpu(o.gpu), o.degree, policy, o.estimate)
                   .tokens_per_s for o in opts if o.gpu is not None)
        rate = round(best * rng.choice(TARGET_SCALES), 1)
        if w["kind"] == "inference":
            w.pop("shareable", None)
            w["tokens_per_s"] = rate
            w["output_tokens"] = min(rng.choice((128, 256, 512)), w["context"] // 2)
            w["prompt_tokens"] = w["context"] - w["output_tokens"]
        else:
            days = rng.choice((7, 14, 30))
            w["deadline_days"] = days
            w["tokens"] = float(round(rate * days * 86_400, -6))


def generate(n: int, seed: int, catalog: Catalog | None = None) -> WorkloadFile:
    """A validated WorkloadFile of ``n`` seeded workloads (see ``generate_data``)."""
    data = generate_data(n, seed, catalog)
    return WorkloadFile.model_validate(data, context={"base_dir": ROOT})


def write_yaml(data: dict[str, Any], path: Path) -> Path:
    """Write a generated document as the YAML file a user would pass to plan-buy."""
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# --- the doubled catalog --------------------------------------------------------------------

_EXTRA_GPUS = [
    # Vendors' published figures; prices illustrative.
    {
        "sku": "l4",
        "name": "NVIDIA L4 24GB",
        "vram_gb": 24,
        "mem_bw_gbps": 300,
        "bf16_tflops": 121,
        "power_w": 72,
        "form_factor": "pcie",
        "nvlink_gbps": 0,
        "price": 2500,
    },
    {
        "sku": "a10",
        "name": "NVIDIA A10 24GB",
        "vram_gb": 24,
        "mem_bw_gbps": 600,
        "bf16_tflops": 125,
        "power_w": 150,
        "form_factor": "pcie",
        "nvlink_gbps": 0,
        "price": 3200,
    },
    {
        "sku": "rtx-6000-ada",
        "name": "NVIDIA RTX 6000 Ada 48GB",
        "vram_gb": 48,
        "mem_bw_gbps": 960,
        "bf16_tflops": 364,
        "power_w": 300,
        "form_factor": "pcie",
        "nvlink_gbps": 0,
        "price": 6800,
    },
    {
        "sku": "a40",
        "name": "NVIDIA A40 48GB",
        "vram_gb": 48,
        "mem_bw_gbps": 696,
        "bf16_tflops": 150,
        "power_w": 300,
        "form_factor": "pcie",
        "nvlink_gbps": 112.5,
        "nvlink_domain": 2,
        "price": 5000,
    },
    {
        "sku": "h100-nvl",
        "name": "NVIDIA H100 NVL 94GB",
        "vram_gb": 94,
        "mem_bw_gbps": 3900,
        "bf16_tflops": 835,
        "power_w": 400,
        "form_factor": "pcie",
        "nvlink_gbps": 600,
        "nvlink_domain": 2,
        "price": 29000,
    },
    {
        "sku": "h200-nvl",
        "name": "NVIDIA H200 NVL 141GB",
        "vram_gb": 141,
        "mem_bw_gbps": 4800,
        "bf16_tflops": 835,
        "power_w": 600,
        "form_factor": "pcie",
        "nvlink_gbps": 900,
        "nvlink_domain": 2,
        "price": 33000,
    },
    {
        "sku": "h20-sxm",
        "name": "NVIDIA H20 96GB SXM",
        "vram_gb": 96,
        "mem_bw_gbps": 4000,
        "bf16_tflops": 148,
        "power_w": 400,
        "form_factor": "sxm5",
        "nvlink_gbps": 900,
        "price": 12000,
    },
    {
        "sku": "a800-80g-sxm",
        "name": "NVIDIA A800 80GB SXM4",
        "vram_gb": 80,
        "mem_bw_gbps": 2039,
        "bf16_tflops": 312,
        "power_w": 400,
        "form_factor": "sxm4",
        "nvlink_gbps": 400,
        "price": 13000,
    },
]
_EXTRA_PLATFORMS = [
    {
        "sku": "srv-2gpu-1u-ddr4",
        "name": "1U 2-GPU PCIe server (1 socket)",
        "gpu_slots": 2,
        "form_factors": ["pcie"],
        "dimm_slots": 16,
        "memory_type": "ddr4",
        "memory_channels": 8,
        "drive_bays": 2,
        "power_w": 900,
        "price": 5000,
    },
    {
        "sku": "ws-4gpu-ddr5",
        "name": "4-GPU PCIe workstation (1 socket, DDR5)",
        "gpu_slots": 4,
        "form_factors": ["pcie"],
        "dimm_slots": 8,
        "memory_type": "ddr5",
        "memory_channels": 8,
        "drive_bays": 4,
        "power_w": 1600,
        "price": 7000,
    },
    {
        "sku": "srv-10gpu-ddr5",
        "name": "10-GPU PCIe server (2 sockets, Genoa-class)",
        "gpu_slots": 10,
        "form_factors": ["pcie"],
        "dimm_slots": 24,
        "memory_type": "ddr5",
        "memory_channels": 24,
        "drive_bays": 10,
        "power_w": 2600,
        "price": 22000,
    },
    {
        "sku": "hgx-a100-4gpu-ddr4",
        "name": "HGX A100 4-GPU (2 sockets, EPYC Milan)",
        "gpu_slots": 4,
        "form_factors": ["sxm4"],
        "dimm_slots": 16,
        "memory_type": "ddr4",
        "memory_channels": 16,
        "drive_bays": 4,
        "power_w": 1800,
        "price": 18000,
    },
    {
        "sku": "hgx-h100-8gpu-1dpc",
        "name": "HGX H100/H200 8-GPU, 1 DIMM per channel",
        "gpu_slots": 8,
        "form_factors": ["sxm5"],
        "dimm_slots": 16,
        "memory_type": "ddr5",
        "memory_channels": 16,
        "drive_bays": 8,
        "power_w": 2500,
        "price": 42000,
    },
    {
        "sku": "cpu-node-ddr4",
        "name": "CPU-only node (2 sockets, EPYC Milan-class)",
        "gpu_slots": 0,
        "form_factors": [],
        "dimm_slots": 32,
        "memory_type": "ddr4",
        "memory_channels": 16,
        "drive_bays": 12,
        "power_w": 700,
        "price": 4500,
    },
]
_EXTRA_MEMORY = [
    {
        "sku": "ddr4-3200-16g",
        "name": "16 GB DDR4-3200 RDIMM",
        "type": "ddr4",
        "speed_mts": 3200,
        "size_gb": 16,
        "price": 55,
    },
    {
        "sku": "ddr4-3200-128g",
        "name": "128 GB DDR4-3200 RDIMM",
        "type": "ddr4",
        "speed_mts": 3200,
        "size_gb": 128,
        "price": 420,
    },
    {
        "sku": "ddr5-4800-32g",
        "name": "32 GB DDR5-4800 RDIMM",
        "type": "ddr5",
        "speed_mts": 4800,
        "size_gb": 32,
        "price": 150,
    },
    {
        "sku": "ddr5-5600-96g",
        "name": "96 GB DDR5-5600 RDIMM",
        "type": "ddr5",
        "speed_mts": 5600,
        "size_gb": 96,
        "price": 520,
    },
]
_EXTRA_STORAGE = [
    {"sku": "nvme-m2-1t", "name": "1 TB NVMe M.2", "size_tb": 1.0, "read_gbps": 5.0, "price": 80},
    {
        "sku": "nvme-u2-15.36t",
        "name": "15.36 TB NVMe U.2",
        "size_tb": 15.36,
        "read_gbps": 7.0,
        "price": 1900,
    },
    {
        "sku": "nvme-u2-30.72t",
        "name": "30.72 TB NVMe U.2",
        "size_tb": 30.72,
        "read_gbps": 7.0,
        "price": 4200,
    },
]


def double_catalog(base: Catalog | None = None) -> Catalog:
    """The default catalog plus as many synthetic SKUs again of every kind (for scaling).

    8 -> 16 GPUs, 6 -> 12 platforms, 4 -> 8 DIMMs, 3 -> 6 drives.
    """
    base = base or load_catalog(DEFAULT_CATALOG)
    data = base.model_dump(mode="json")
    data["gpus"] += _EXTRA_GPUS
    data["platforms"] += _EXTRA_PLATFORMS
    data["memory"] += _EXTRA_MEMORY
    data["storage"] += _EXTRA_STORAGE
    data["price_note"] = (base.price_note + "; bench: synthetic extra SKUs").strip("; ")
    return Catalog.model_validate(data)


def catalog_by_name(name: str) -> Catalog:
    """``default`` (catalogs/default.yaml) or ``double`` (twice its SKUs)."""
    if name == "default":
        return load_catalog(DEFAULT_CATALOG)
    if name == "double":
        return double_catalog()
    raise ValueError(f"unknown bench catalog {name!r}; use 'default' or 'double'")


def presets_used() -> set[str]:
    """Every preset name the generator may draw (all must exist)."""
    names = {m for models in MODELS_BY_KIND.values() for m in models}
    missing = names - set(PRESETS)
    if missing:
        raise KeyError(f"bench uses unknown presets: {sorted(missing)}")
    return names
