"""What a plan option is: physical servers, a placement of every replica, its bill of
materials and the figures measured on it.

These are the typed results every later stage (checker, report, JSON) reads. They hold
SKUs and numbers only, never solver objects; the checker and the optimiser both import
this module, and it imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass

from .run_types import RunEntry, TimeCost


@dataclass(frozen=True)
class Server:
    """One physical server of the plan."""

    id: str
    platform: str
    gpu: str | None
    gpu_count: int
    memory: str
    dimm_count: int
    storage: str | None
    drive_count: int
    owned: bool = False
    """Already owned (P4): used at no capital cost, never on the bill of materials."""
    disk_tb: float = 0.0
    """Drives installed, TB (``drive_count`` × the drive's size)."""
    disk_used_tb: float = 0.0
    """O4: the datasets of the workloads it runs that are read locally, each once, TB."""
    nics: tuple[tuple[str, int], ...] = ()
    """N3: network cards added to the platform's included ones, (SKU, count)."""
    pod: str = ""
    """N3: the pod whose fabric it is cabled to ("" the always-on pool, "runs" the servers
    bought for runs)."""

    def parts(self) -> tuple[tuple[str, int], ...]:
        """What the server is bought as: (SKU, quantity) of its platform, GPUs, DIMMs,
        drives and added NICs, those of quantity zero left out."""
        parts = ((self.platform, 1), (self.gpu, self.gpu_count), (self.memory, self.dimm_count),
                 (self.storage, self.drive_count), *self.nics)
        return tuple((sku, q) for sku, q in parts if sku and q)

    def to_json(self) -> dict:
        """One entry of ``servers[]`` (and of ``idle``) in ``--json`` (docs/json.md)."""
        return {
            "id": self.id,
            "platform": self.platform,
            "gpu": self.gpu,
            "gpu_count": self.gpu_count,
            "memory": self.memory,
            "dimm_count": self.dimm_count,
            "storage": self.storage,
            "drive_count": self.drive_count,
            "owned": self.owned,
            "disk_tb": round(self.disk_tb, 4),
            "disk_used_tb": round(self.disk_used_tb, 4),
            **({"nics": [{"sku": k, "count": n} for k, n in self.nics]} if self.nics else {}),
            **({"pod": self.pod} if self.pod else {}),
        }


@dataclass(frozen=True)
class Placement:
    """One replica of one workload on ``gpus`` GPUs of one server (0 GPUs: preprocess)."""

    workload: str
    replica: int
    server: str
    gpu: str | None
    gpus: int
    vram_gb_per_gpu: float
    host_ram_gb: float
    gpu_indices: tuple[int, ...] = ()
    """Which GPUs of the server (0-based); a shareable replica may share its GPU."""
    micro_batch: int | None = None
    grad_accum_steps: int | None = None
    tokens_per_s: float | None = None
    """Tokens/s this replica delivers (T2; training tokens or output tokens); None for
    preprocess."""
    tpot_ms: float | None = None
    """Inference: time per output token at the batch it serves, ms."""
    ttft_ms: float | None = None
    """Inference: time to the first token (one prompt's prefill), ms."""
    measured: tuple[str, ...] = ()
    """E2: figures taken from the workload's measurements (``peak_gb``, ``tokens_per_s``)."""


@dataclass(frozen=True)
class BomLine:
    """One line of a bill of materials."""

    sku: str
    kind: str  # platform | gpu | memory | storage | network
    qty: int
    unit_price: float

    @property
    def extended(self) -> float:
        return round(self.qty * self.unit_price, 2)


@dataclass(frozen=True)
class FabricPod:
    """N3: the switches and cables of one kind of fabric in one pod (``rules/fabric.py``)."""

    pod: str
    """"pool" (the always-on servers) or "runs" (the servers bought for runs)."""
    kind: str
    """ethernet or infiniband."""
    servers: tuple[str, ...]
    """Ids of the servers cabled to it."""
    ports: int
    """Server NIC ports in use."""
    leaves: tuple[str, int]
    """(switch SKU, count) of the leaf layer."""
    spines: tuple[str, int] | None
    """(switch SKU, count) of the spine layer; None for one leaf."""
    cables: int
    """Cables or transceiver pairs: one per server port and per uplink."""

    def to_json(self) -> dict:
        return {"pod": self.pod, "kind": self.kind, "servers": list(self.servers),
                "ports": self.ports,
                "leaves": {"sku": self.leaves[0], "count": self.leaves[1]},
                "spines": ({"sku": self.spines[0], "count": self.spines[1]}
                           if self.spines else None),
                "cables": self.cables}


@dataclass(frozen=True)
class TargetFigure:
    """What a plan delivers for one workload with a throughput target (T5)."""

    workload: str
    kind: str
    target_tokens_per_s: float
    """The target the plan meets: the workload's target x growth (R19)."""
    tokens_per_s: float
    """Delivered: Σ replica tokens/s, x data-parallel efficiency for training."""
    replicas: int
    gpus: int
    """GPUs its replicas hold."""
    fraction: float
    """Share of summed replica throughput that counts (data-parallel efficiency; 1 for
    inference)."""
    tokens: float | None = None
    """Training: tokens to train on, x growth (what ``days_to_finish`` divides)."""
    days_to_finish: float | None = None
    """Training: tokens x growth / (delivered tokens/s x 86,400)."""
    tpot_ms: float | None = None
    """Inference: the slowest replica's time per output token, ms."""
    ttft_ms: float | None = None
    """Inference: the slowest replica's time to first token, ms."""
    output_tokens: int | None = None
    """Inference with a ``requests_per_s`` target: output tokens per request, which turns
    tokens/s into requests/s (requests/s = tokens/s ÷ output_tokens)."""

    @property
    def requests_per_s(self) -> float | None:
        """Requests/s delivered: tokens/s ÷ output tokens per request (requests_per_s only)."""
        return None if not self.output_tokens else self.tokens_per_s / self.output_tokens

    @property
    def target_requests_per_s(self) -> float | None:
        """The request rate to serve, x growth (requests_per_s targets only)."""
        return None if not self.output_tokens else self.target_tokens_per_s / self.output_tokens

    @property
    def compute_utilisation(self) -> float:
        """Share of the bought throughput the target uses: target ÷ delivered (R18 asks
        for 90%+ of GPU compute; lower means GPUs bought for this job will sit idle)."""
        return self.target_tokens_per_s / self.tokens_per_s if self.tokens_per_s > 0 else 0.0

    @property
    def gpu_hours(self) -> float | None:
        """Training: GPU-hours the run takes (its GPUs x days to finish x 24)."""
        if self.days_to_finish is None:
            return None
        return self.gpus * self.days_to_finish * 24.0

    def to_json(self) -> dict:
        """The ``throughput`` entry of an option (docs/json.md)."""
        def r(v: float | None, nd: int) -> float | None:
            return None if v is None else round(v, nd)
        return {
            "workload": self.workload,
            "tokens_per_s": round(self.tokens_per_s, 1),
            "target_tokens_per_s": round(self.target_tokens_per_s, 1),
            "replicas": self.replicas,
            "gpus": self.gpus,
            "compute_utilisation": round(self.compute_utilisation, 4),
            "days_to_finish": r(self.days_to_finish, 3),
            "gpu_hours": r(self.gpu_hours, 1),
            "tpot_ms": r(self.tpot_ms, 2),
            "ttft_ms": r(self.ttft_ms, 1),
            "requests_per_s": r(self.requests_per_s, 2),
            "target_requests_per_s": r(self.target_requests_per_s, 2),
            "output_tokens_per_request": self.output_tokens,
        }


@dataclass(frozen=True)
class OwnCost:
    """What one plan draws and costs to own over the horizon (currency units)."""

    capex: float
    """Capital cost: what is bought (owned servers cost nothing)."""
    power_kw: float
    """Σ rated power of the servers the plan runs, kW (idle owned servers draw nothing)."""
    rack_units: int
    """Σ rack units of those servers (platforms without rack_units count 0)."""
    racks: int | None = None
    """Racks used (needs ``site``)."""
    energy: float | None = None
    """Energy over the horizon (needs ``policy.tco``)."""
    support: float | None = None
    """Support over the horizon."""
    rack_cost: float | None = None
    """Rack cost over the horizon."""
    tco: float | None = None
    """capex + energy + support + rack cost (needs ``policy.tco``)."""
    cloud: float | None = None
    """P5: renting the GPUs bought (owned servers' GPUs left out) for the horizon at the same
    utilisation (needs ``policy.tco`` and a cloud price for every GPU SKU bought)."""
    years: int | None = None
    bought_power_kw: float | None = None
    """Σ rated power of the servers bought, kW (the owned ones left out)."""
    racks_added: int | None = None
    """Racks the plan uses beyond those its owned servers alone would take (P3)."""
    bought_running: float | None = None
    """P5: running cost of what is bought over the horizon: its energy, support on capex and
    the racks it adds (what renting is compared with, beside capex)."""

    @property
    def running_per_year(self) -> float | None:
        """Energy + support + racks per year, of every server the plan runs."""
        if self.tco is None or not self.years:
            return None
        return (self.tco - self.capex) / self.years

    @property
    def break_even_month(self) -> float | None:
        """P5: the month from which buying has cost less than renting the same GPUs, both of
        what is bought only: capex ÷ (monthly rent − monthly running cost of what is bought).
        None when renting stays cheaper or no rent is known."""
        if self.cloud is None or self.bought_running is None or not self.years:
            return None
        monthly_gain = (self.cloud - self.bought_running) / (12 * self.years)
        if monthly_gain <= 0:
            return None
        return round(self.capex / monthly_gain, 1)


def amount_in(value: float, unit: str, counted: bool, currency: bool = False) -> str:
    """``value`` in a direction's unit: "140 W", "2 servers", "1 SKU"; a currency goes
    first: "USD 1,200"."""
    if currency:
        return f"{unit} {value:,.0f}"
    plural = "s" if counted and round(value) != 1 else ""
    return f"{value:,.0f} {unit}{plural}"


@dataclass(frozen=True)
class DirectionFigure:
    """A1: an alternative's figure in the direction it pushes, and the best figure any plan
    within the slack can reach there, as its search's bound proves it."""

    key: str
    """The direction: ``servers``, ``consumer``, ``skus``, ``power``, ``vram`` or ``tco``."""
    value: float
    """The option's figure, in ``unit``: servers, consumer GPUs, SKUs, W, GB of VRAM left
    spare, or TCO."""
    unit: str
    """"server", "consumer GPU", "SKU", "W", "GB", or the catalog's currency."""
    counted: bool
    """The figure counts whole things (servers, consumer GPUs, SKUs)."""
    more_is_better: bool
    """True for spare VRAM (the most); every other direction seeks the least."""
    best_possible: float | None
    """No plan within the slack does better than this figure: a floor where less is better,
    a ceiling for spare VRAM (``alternatives.least_in_direction``); None when the search
    proved nothing in the direction."""
    cheapest: float | None = None
    """Option 1's figure in the same direction, read the same way (the cheapest plan; the
    lowest TCO under ``objective: tco``, as ``over_cheapest`` is): what the alternative
    gains over it for what it costs more."""

    @property
    def proven_best(self) -> bool:
        """No plan within the slack does better than this option in its direction."""
        if self.best_possible is None:
            return False
        better_by = (self.best_possible - self.value if self.more_is_better
                     else self.value - self.best_possible)
        return better_by <= 1e-9 * max(1.0, abs(self.value))

    def amount(self, value: float) -> str:
        """``value`` in this figure's unit (``amount_in``)."""
        return amount_in(value, self.unit, self.counted, currency=self.key == "tco")

    def to_json(self) -> dict:
        """The ``direction`` of an option in ``--json`` (docs/json.md)."""
        def rounded(v: float | None) -> float | None:
            return None if v is None else round(v, 3)
        return {"key": self.key, "value": rounded(self.value), "unit": self.unit,
                "better": "higher" if self.more_is_better else "lower",
                "best_possible": rounded(self.best_possible),
                "proven_best": self.proven_best, "cheapest_value": rounded(self.cheapest)}


@dataclass(frozen=True)
class PlanOption:
    """One ranked, checked purchase plan."""

    rank: int
    total_cost: float
    servers: tuple[Server, ...]
    lines: tuple[BomLine, ...]
    placements: tuple[Placement, ...]
    unserved: tuple[str, ...] = ()
    lower_bound: float | None = None
    """Best bound the solver proved for this rank (cost units)."""
    throughput: tuple[TargetFigure, ...] = ()
    """T5: one figure per served workload with a throughput target."""
    label: str = ""
    """What this option optimises: "cheapest", or an alternative's direction ("fewest
    servers") or ranked mix ("next GPU mix")."""
    over_cheapest: float = 0.0
    """Its cost over the cheapest option's, as a fraction (0.016 = 1.6% more)."""
    own: OwnCost | None = None
    """P1–P5: power, racks, energy, TCO and the rental comparison (None: not computed)."""
    idle: tuple[Server, ...] = ()
    """P4: owned servers the plan leaves idle (they draw nothing)."""
    direction: DirectionFigure | None = None
    """A1: an alternative's figure in its direction and what its search proved there (None:
    the cheapest plan, a ranked mix)."""
    runs: tuple[RunEntry, ...] = ()
    """H3: the schedule of the finite runs (with a horizon); always-on replicas stay in
    ``placements``."""
    time: TimeCost | None = None
    """H1, H6: the option's costs over the horizon (None without a horizon)."""
    fabric: tuple[FabricPod, ...] = ()
    """N3: the switches and cables of each pod (on ``lines`` as kind "network")."""

    @property
    def capex(self) -> float:
        """Capital cost of what is bought (the same as ``total_cost``)."""
        return self.total_cost

    def objective_value(self, objective: str) -> float:
        """What the options are ranked by: over a horizon its cost there (H6); else TCO
        under ``objective: tco``, else capital cost."""
        if self.time is not None:
            return self.time.horizon_cost
        if objective == "tco" and self.own is not None and self.own.tco is not None:
            return self.own.tco
        return self.total_cost

    @property
    def gpu_count(self) -> int:
        return sum(s.gpu_count for s in self.servers)

    @property
    def max_degree(self) -> int:
        return max((p.gpus for p in self.placements), default=0)

    def gpus_by_sku(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.servers:
            if s.gpu and s.gpu_count:
                out[s.gpu] = out.get(s.gpu, 0) + s.gpu_count
        return out

    def cost_by_kind(self) -> dict[str, float]:
        out = {"platform": 0.0, "gpu": 0.0, "memory": 0.0, "storage": 0.0, "network": 0.0}
        for line in self.lines:
            out[line.kind] += line.extended
        return out

    def to_json(self) -> dict:
        """The ``--json`` shape of one option (docs/json.md)."""
        return {
            "rank": self.rank,
            "label": self.label,
            "total_cost": round(self.total_cost, 2),
            "over_cheapest": round(self.over_cheapest, 4),
            "servers": [s.to_json() for s in self.servers],
            "lines": [
                {
                    "sku": ln.sku,
                    "kind": ln.kind,
                    "qty": ln.qty,
                    "unit_price": ln.unit_price,
                    "extended": ln.extended,
                }
                for ln in self.lines
            ],
            "placements": [
                {
                    "workload": p.workload,
                    "replica": p.replica,
                    "server": p.server,
                    "gpu": p.gpu,
                    "gpus": p.gpus,
                    "vram_gb_per_gpu": round(p.vram_gb_per_gpu, 3),
                    "host_ram_gb": round(p.host_ram_gb, 3),
                    "tokens_per_s": (round(p.tokens_per_s, 1) if p.tokens_per_s is not None
                                     else None),
                    "tpot_ms": round(p.tpot_ms, 2) if p.tpot_ms is not None else None,
                    "ttft_ms": round(p.ttft_ms, 1) if p.ttft_ms is not None else None,
                    **({"measured": list(p.measured)} if p.measured else {}),
                }
                for p in self.placements
            ],
            "unserved": list(self.unserved),
            "fabric": [f.to_json() for f in self.fabric],
            "throughput": [f.to_json() for f in self.throughput],
            "direction": None if self.direction is None else self.direction.to_json(),
            **self._own_json(),
            **self._time_json(),
        }

    def _time_json(self) -> dict:
        """H3–H6 keys, only over a horizon (a file without one keeps its JSON)."""
        if self.time is None:
            return {}
        return {"runs": [r.to_json() for r in self.runs], **self.time.to_json()}

    def _own_json(self) -> dict:
        """P1–P5 keys of an option (docs/json.md): null where not computed."""
        own = self.own
        def get(name: str):
            return None if own is None else getattr(own, name)
        return {
            "capex": round(self.total_cost, 2),
            "energy_cost": get("energy"),
            "tco": get("tco"),
            "power_kw": None if own is None else round(own.power_kw, 3),
            "racks": get("racks"),
            "cloud_cost": get("cloud"),
            "bought_running_cost": get("bought_running") if get("cloud") is not None else None,
            "break_even_month": None if own is None else own.break_even_month,
            "idle": [s.to_json() for s in self.idle],
        }
