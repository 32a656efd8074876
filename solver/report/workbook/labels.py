"""Column headers: the words a table column's name is shown with."""

from __future__ import annotations


def header_label(name: str) -> str:
    if name.startswith("priority_gained_per_"):  # the sweep's marginal column
        amount = float(name.removeprefix("priority_gained_per_"))
        return f"Priority gained per {amount:,.0f} more" if amount >= 1 else (
            f"Priority gained per {amount:g} more")
    if name in LABELS:
        return LABELS[name]
    # Any other column: its words, acronyms upper-cased and a unit suffix in brackets
    # ("server_cpu_cores" -> "Server CPU cores", "power_kw" -> "Power (kW)").
    parts = name.split("_")
    words = [ACRONYMS.get(p, p) for p in parts]
    if len(parts) > 1 and parts[-1] in UNITS:
        words[-1] = UNITS[parts[-1]]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


ACRONYMS = {"cpu": "CPU", "gpu": "GPU", "gpus": "GPUs", "tco": "TCO", "vram": "VRAM",
            "ram": "RAM", "sku": "SKU", "bom": "BOM", "pue": "PUE"}
UNITS = {"kw": "(kW)", "gb": "(GB)", "tb": "(TB)", "ms": "(ms)", "w": "(W)"}


LABELS = {
    "sku": "SKU",
    "qty": "Quantity",
    "gpu": "GPU",
    "gpus": "GPUs",
    "gpu_indices": "GPU indices",
    "micro_batch": "Micro-batch",
    "grad_accum_steps": "x Accum. steps",
    "serving_batch": "Serving batch",
    "tpot_ms": "Time per output token (ms)",
    "ttft_ms": "Time to first token (ms)",
    "vram_gb_per_gpu": "VRAM per GPU (GB)",
    "usable_vram_gb": "Usable VRAM per GPU (GB)",
    "vram_fill": "VRAM fill",
    "host_ram_gb": "Host RAM (GB)",
    "total_gb_per_gpu": "Total per GPU (GB)",
    "weights_gb": "Weights (GB)",
    "gradients_gb": "Gradients (GB)",
    "optimizer_gb": "Optimizer (GB)",
    "master_weights_gb": "Master weights (GB)",
    "activations_gb": "Activations (GB)",
    "kv_cache_gb": "KV cache (GB)",
    "overhead_gb": "Overhead (GB)",
    "gpu_equivalents": "GPUs used",
    "owned_gpu_equivalents": "GPUs used on owned servers (not charged)",
    "owned_host_ram_gb": "Host RAM on owned servers (GB)",
    "storage_tb": "Storage (TB)",
    "server_disk_used_tb": "Server disk used (TB)",
    "server_disk_tb": "Server disk installed (TB)",
    "total_cost": "Total cost",
    "budget": "Budget",
    "served_priority": "Served priority",
    "sha256": "SHA-256",
    "replicas_asked": "Replicas asked",
    "replicas_planned": "Replicas planned (after growth)",
    "replicas_placed": "Replicas placed (option 1)",
    "gpus_per_replica": "GPUs per replica",
    "vram_per_replica_gb": "VRAM per replica (GB)",
    "host_ram_per_replica_gb": "Host RAM per replica (GB)",
    "charged_cost": "Cost charged (option 1)",
    "gpu_share": "GPU share",
    "gpu_cost": "GPU cost",
    "host_bw_gbps_per_gpu": "Host bandwidth per GPU (GB/s)",
    # E2/E3 (Memory sheet): a cell's measurements beside the estimate, and its error band
    "peak_error_pct": "Estimate's error on the peak",
    "measured_tokens_per_s": "Measured tokens/s",
    "estimated_tokens_per_s": "Estimated tokens/s",
    "tokens_per_s_error_pct": "Estimate's error on tokens/s",
    "memory_band": "Memory error band (published cases)",
    "throughput_band": "Tokens/s error band (published cases)",
}

