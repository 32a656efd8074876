"""Plan metrics: what one option buys and how well it uses it (R14, R18, R20).

``option_metrics`` reads a checked ``PlanOption``, the catalog it was priced from and the
policy it was planned under, and returns a frozen ``OptionMetrics``: counts, cost by kind,
installed, usable and planned VRAM and host RAM, and host memory bandwidth per GPU. The
terminal summary and the workbook both read these figures, so they agree.

Utilisation targets and the headroom are one rule. The headroom (R15) keeps a share of
every GPU's VRAM and every server's host RAM free, so a plan can never plan more than
(1 − headroom) of what is installed: that part is the *usable* memory. Use is measured
against it, and the target is 85 % of it (``USE_TARGET``), so a plan that packs its
memory to the headroom line is at 100 % and "below" always names memory a plan could use.
Host RAM comes in steps (every channel populated evenly, R14, with the catalog's DIMM
sizes) and is sized from VRAM by the R12 ratios, so a server may hold more than its jobs
need and no less; its target is therefore the lower of 85 % and what the least host RAM
the same servers could hold allows (``OptionMetrics.ram_target``).

Units: GB = 10^9 bytes; bandwidth in GB/s; money in the catalog's currency; utilisation
as a fraction (0.85 = 85 %).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .. import rules
from ..inputs.catalog import Catalog
from ..inputs.policy import Policy
from ..plan_types import PlanOption, Server

USE_TARGET = 0.85
"""R18 with R15: planned VRAM and host RAM should reach 85 % of usable memory (installed
less the headroom)."""
COMPUTE_UTIL_TARGET = 0.90
"""R18: GPU compute should be busy 90 %+ (not measurable from a plan; shown for reference)."""
BANDWIDTH_UTIL_TARGET = 0.60
"""R18: memory bandwidth should be used 60 %+ (not measurable from a plan; for reference)."""

TARGETS: dict[str, float] = {
    "vram": USE_TARGET,
    "ram": USE_TARGET,
    "compute": COMPUTE_UTIL_TARGET,
    "bandwidth": BANDWIDTH_UTIL_TARGET,
}
"""R18 targets, each "this share or more"; VRAM and host RAM are shares of usable memory."""

TargetStatus = Literal["below", "within"]


def target_status(metric: str, value: float | None, target: float | None = None
                  ) -> TargetStatus | None:
    """Where a utilisation stands against its target, compared as the reports show both
    (whole percents), so "85%" is never called below a target of 85%.

    Args:
        metric: one of ``vram``, ``ram``, ``compute``, ``bandwidth``.
        value: utilisation as a fraction; None (nothing installed) gives None.
        target: the target to use instead of the metric's (``OptionMetrics.ram_target``).

    Returns:
        ``below`` under the target, else ``within``.
    """
    if value is None:
        return None
    low = TARGETS[metric] if target is None else target
    return "below" if round(value * 100) < round(low * 100) else "within"


def target_label(metric: str) -> str:
    """The target as text: ``>= 85% of usable`` (VRAM, host RAM) or ``>= 90%``."""
    usable = " of usable" if metric in ("vram", "ram") else ""
    return f">= {TARGETS[metric]:.0%}{usable}"


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
    """platform / gpu / memory / storage / network -> extended cost."""
    installed_vram_gb: float
    usable_vram_gb: float
    """installed_vram_gb × (1 − headroom): what the plan may fill (R15)."""
    planned_vram_gb: float
    """Σ over placements of vram_gb_per_gpu × gpus (shareable jobs on one GPU add up)."""
    vram_util: float | None
    """planned_vram_gb ÷ usable_vram_gb; None with no GPU installed."""
    installed_ram_gb: float
    """Σ over servers of dimm_count × DIMM size_gb."""
    usable_ram_gb: float
    """installed_ram_gb × (1 − headroom)."""
    planned_ram_gb: float
    """Σ over placements of host_ram_gb."""
    ram_util: float | None
    """planned_ram_gb ÷ usable_ram_gb; None with no RAM installed."""
    least_ram_gb: float
    """Σ over servers of the least host RAM each could hold for its jobs under the headroom
    (its platform's channels filled evenly with the catalog's DIMMs of its type, R14); an
    owned server counts what it holds."""
    host_bw_gbps_per_gpu: float | None
    """R14: min over GPU servers of memory_channels × MT/s × 8 / 1000 ÷ GPUs; None if none."""
    installed_storage_tb: float
    unserved: tuple[str, ...]

    @property
    def ram_target(self) -> float:
        """Host RAM use to reach: 85 %, or less where even the least RAM these servers
        could hold leaves more free (planned ÷ usable part of ``least_ram_gb``)."""
        if self.least_ram_gb <= 0 or self.installed_ram_gb <= 0:
            return USE_TARGET
        reachable = self.planned_ram_gb / (self.least_ram_gb * self.usable_ram_gb
                                           / self.installed_ram_gb)
        return min(USE_TARGET, reachable)

    @property
    def vram_status(self) -> TargetStatus | None:
        return target_status("vram", self.vram_util)

    @property
    def ram_status(self) -> TargetStatus | None:
        return target_status("ram", self.ram_util, self.ram_target)


def server_host_bw_gbps(channels: int, speed_mts: int) -> float:
    """Host memory bandwidth of one fully populated server, GB/s: channels × MT/s × 8 B (R14)."""
    return channels * speed_mts * 8 / 1000


def least_ram_gb(server: Server, planned_gb: float, catalog: Catalog, policy: Policy) -> float:
    """The least host RAM, GB, ``server``'s platform can hold with ``planned_gb`` under its
    headroom line: every channel filled evenly (R14) with one of the catalog's DIMMs of its
    type that the policy does not exclude; what it holds when owned or when nothing smaller
    would do."""
    held = server.dimm_count * catalog.dimm(server.memory).size_gb
    if server.owned:
        return held
    p = catalog.platform(server.platform)
    sizes = {d.size_gb for d in catalog.memory
             if d.type == p.memory_type and d.sku not in policy.exclude}
    fits = [n * size for size in sizes for n in p.dimm_counts()
            if rules.usable(n * size, policy) >= planned_gb - 1e-9]
    return min([held, *fits])


def option_metrics(option: PlanOption, catalog: Catalog, policy: Policy) -> OptionMetrics:
    """Compute the figures of one option from its servers, placements and BOM lines.

    Args:
        option: a checked plan option.
        catalog: the catalog its SKUs come from (VRAM, DIMM sizes, channels, speeds).
        policy: the policy it was planned under (its headroom sets usable memory).

    Returns:
        The option's ``OptionMetrics``.
    """
    installed_vram = 0.0
    installed_ram = 0.0
    least_ram = 0.0
    installed_tb = 0.0
    bw_per_gpu: list[float] = []
    ram_on: dict[str, float] = {}
    for p in option.placements:
        ram_on[p.server] = ram_on.get(p.server, 0.0) + p.host_ram_gb
    # Servers bought for runs (H4) are used in turns, not all the time: their use over time
    # is the timeline's; these figures are those of the servers that run all the time.
    timed = set(option.time.run_servers) if option.time is not None else set()
    for s in option.servers:
        if s.id in timed:
            continue
        dimm = catalog.dimm(s.memory)
        installed_ram += s.dimm_count * dimm.size_gb
        least_ram += least_ram_gb(s, ram_on.get(s.id, 0.0), catalog, policy)
        if s.storage and s.drive_count:
            installed_tb += s.drive_count * catalog.drive(s.storage).size_tb
        if s.gpu and s.gpu_count:
            installed_vram += s.gpu_count * catalog.gpu(s.gpu).vram_gb
            channels = catalog.platform(s.platform).memory_channels
            bw_per_gpu.append(server_host_bw_gbps(channels, dimm.speed_mts) / s.gpu_count)
    planned_vram = sum(p.vram_gb_per_gpu * p.gpus for p in option.placements)
    planned_ram = sum(ram_on.values())
    usable_vram = rules.usable(installed_vram, policy)
    usable_ram = rules.usable(installed_ram, policy)
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
        usable_vram_gb=usable_vram,
        planned_vram_gb=planned_vram,
        vram_util=planned_vram / usable_vram if usable_vram > 0 else None,
        installed_ram_gb=installed_ram,
        usable_ram_gb=usable_ram,
        planned_ram_gb=planned_ram,
        ram_util=planned_ram / usable_ram if usable_ram > 0 else None,
        least_ram_gb=least_ram,
        host_bw_gbps_per_gpu=min(bw_per_gpu) if bw_per_gpu else None,
        installed_storage_tb=installed_tb,
        unserved=tuple(option.unserved),
    )
