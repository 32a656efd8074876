"""Plan metrics: what one option buys and how well it uses it (R14, R18, R20).

``option_metrics`` reads a checked ``PlanOption`` and the catalog it was priced from and
returns a frozen ``OptionMetrics``: counts, cost by kind, installed and planned VRAM and
host RAM, and host memory bandwidth per GPU. The terminal summary and the workbook both
read these figures, so they agree.

Units: GB = 10^9 bytes; bandwidth in GB/s; money in the catalog's currency; utilisation
as a fraction (0.85 = 85 %).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..inputs.catalog import Catalog
from ..optimize.plan import PlanOption

# R18 utilisation targets of the seed: a plan far below these wastes money.
VRAM_UTIL_TARGET = 0.85
"""R18: planned VRAM use should reach 85 % of installed VRAM."""
RAM_UTIL_TARGET = (0.70, 0.80)
"""R18: planned host RAM use should sit between 70 % and 80 % of installed RAM."""
COMPUTE_UTIL_TARGET = 0.90
"""R18: GPU compute should be busy 90 %+ (not measurable from a plan; shown for reference)."""
BANDWIDTH_UTIL_TARGET = 0.60
"""R18: memory bandwidth should be used 60 %+ (not measurable from a plan; for reference)."""

TARGETS: dict[str, tuple[float, float | None]] = {
    "vram": (VRAM_UTIL_TARGET, None),
    "ram": RAM_UTIL_TARGET,
    "compute": (COMPUTE_UTIL_TARGET, None),
    "bandwidth": (BANDWIDTH_UTIL_TARGET, None),
}
"""R18 targets as (low, high); high None means "or more"."""

TargetStatus = Literal["below", "within", "above"]


def target_status(metric: str, value: float | None) -> TargetStatus | None:
    """Where a utilisation stands against its R18 target.

    Args:
        metric: one of ``vram``, ``ram``, ``compute``, ``bandwidth``.
        value: utilisation as a fraction; None (nothing installed) gives None.

    Returns:
        ``below`` under the low end, ``above`` over the high end (RAM only), else ``within``.
    """
    low, high = TARGETS[metric]
    if value is None:
        return None
    if value < low - 1e-12:
        return "below"
    if high is not None and value > high + 1e-12:
        return "above"
    return "within"


def target_label(metric: str) -> str:
    """The R18 target as text: ``>= 85%`` or ``70-80%``."""
    low, high = TARGETS[metric]
    if high is None:
        return f">= {low:.0%}"
    return f"{low:.0%}-{high:.0%}"


@dataclass(frozen=True)
class OptionMetrics:
    """Figures of one option; money in catalog currency, memory in GB, bandwidth in GB/s."""

    rank: int
    total_cost: float
    gpu_count: int
    gpus_by_sku: dict[str, int]
    servers: int
    gpu_servers: int
    max_degree: int
    cost_by_kind: dict[str, float]
    """platform / gpu / memory / storage -> extended cost."""
    installed_vram_gb: float
    planned_vram_gb: float
    """Σ over placements of vram_gb_per_gpu × gpus (shareable jobs on one GPU add up)."""
    vram_util: float | None
    """planned_vram_gb ÷ installed_vram_gb; None with no GPU installed."""
    installed_ram_gb: float
    """Σ over servers of dimm_count × DIMM size_gb."""
    planned_ram_gb: float
    """Σ over placements of host_ram_gb."""
    ram_util: float | None
    """planned_ram_gb ÷ installed_ram_gb; None with no RAM installed."""
    host_bw_gbps_per_gpu: float | None
    """R14: min over GPU servers of memory_channels × MT/s × 8 / 1000 ÷ GPUs; None if none."""
    installed_storage_tb: float
    unserved: tuple[str, ...]

    @property
    def vram_status(self) -> TargetStatus | None:
        return target_status("vram", self.vram_util)

    @property
    def ram_status(self) -> TargetStatus | None:
        return target_status("ram", self.ram_util)


def server_host_bw_gbps(channels: int, speed_mts: int) -> float:
    """Host memory bandwidth of one fully populated server, GB/s: channels × MT/s × 8 B (R14)."""
    return channels * speed_mts * 8 / 1000


def option_metrics(option: PlanOption, catalog: Catalog) -> OptionMetrics:
    """Compute the figures of one option from its servers, placements and BOM lines.

    Args:
        option: a checked plan option.
        catalog: the catalog its SKUs come from (VRAM, DIMM sizes, channels, speeds).

    Returns:
        The option's ``OptionMetrics``.
    """
    installed_vram = 0.0
    installed_ram = 0.0
    installed_tb = 0.0
    bw_per_gpu: list[float] = []
    for s in option.servers:
        dimm = catalog.dimm(s.memory)
        installed_ram += s.dimm_count * dimm.size_gb
        if s.storage and s.drive_count:
            installed_tb += s.drive_count * catalog.drive(s.storage).size_tb
        if s.gpu and s.gpu_count:
            installed_vram += s.gpu_count * catalog.gpu(s.gpu).vram_gb
            channels = catalog.platform(s.platform).memory_channels
            bw_per_gpu.append(server_host_bw_gbps(channels, dimm.speed_mts) / s.gpu_count)
    planned_vram = sum(p.vram_gb_per_gpu * p.gpus for p in option.placements)
    planned_ram = sum(p.host_ram_gb for p in option.placements)
    return OptionMetrics(
        rank=option.rank,
        total_cost=option.total_cost,
        gpu_count=option.gpu_count,
        gpus_by_sku=option.gpus_by_sku(),
        servers=len(option.servers),
        gpu_servers=sum(1 for s in option.servers if s.gpu and s.gpu_count),
        max_degree=option.max_degree,
        cost_by_kind=option.cost_by_kind(),
        installed_vram_gb=installed_vram,
        planned_vram_gb=planned_vram,
        vram_util=planned_vram / installed_vram if installed_vram > 0 else None,
        installed_ram_gb=installed_ram,
        planned_ram_gb=planned_ram,
        ram_util=planned_ram / installed_ram if installed_ram > 0 else None,
        host_bw_gbps_per_gpu=min(bw_per_gpu) if bw_per_gpu else None,
        installed_storage_tb=installed_tb,
        unserved=tuple(option.unserved),
    )
