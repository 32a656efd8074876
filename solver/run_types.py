"""What a plan over time adds to an option (H3–H6): each run's window, replicas and where
they run, what is rented, and the horizon's costs. SKUs and numbers only, like
``plan_types``; the checker, the optimiser and the reports all read these."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rented:
    """H5: the GPUs one run rents: ``gpus`` GPUs (replicas x GPUs per replica), each billed
    ``hours`` (at least the cloud's ``min_hours``), costing ``cost``."""

    gpus: int
    hours: float
    cost: float
    per_gpu_hour: float

    def to_json(self) -> dict:
        return {"gpus": self.gpus, "hours": round(self.hours, 3), "cost": round(self.cost, 2)}


@dataclass(frozen=True)
class RunEntry:
    """H3: one run of a finite workload in the schedule."""

    workload: str
    run: int
    """Numbered from 1 in time order within its workload."""
    begin_h: float
    end_h: float
    """Hours from the horizon's start; start_h <= begin_h < end_h <= deadline_h."""
    replicas: int
    gpu: str
    gpus: int
    """GPUs per replica (its parallel degree)."""
    servers: tuple[str, ...] | None
    """One server id per replica (bought servers); None when rented."""
    rented: Rented | None
    start_h: float
    deadline_h: float
    tokens: float
    """Tokens the run must train (x growth)."""
    tokens_per_s: float
    """What one replica delivers (T2), before data-parallel efficiency."""
    efficiency: float = 1.0
    """Data-parallel efficiency of its replicas where they run (N2): 1 for one replica."""

    @property
    def gpu_hours(self) -> float:
        return self.replicas * self.gpus * (self.end_h - self.begin_h)

    def to_json(self) -> dict:
        """One entry of an option's ``runs`` (docs/json.md)."""
        return {
            "workload": self.workload,
            "run": self.run,
            "begin_h": round(self.begin_h, 4),
            "end_h": round(self.end_h, 4),
            "replicas": self.replicas,
            "gpu": self.gpu,
            "gpus": self.gpus,
            "servers": list(self.servers) if self.servers is not None else None,
            "rented": self.rented.to_json() if self.rented is not None else None,
            "start_h": round(self.start_h, 4),
            "deadline_h": round(self.deadline_h, 4),
            "tokens": self.tokens,
            "tokens_per_s": round(self.tokens_per_s, 1),
            "dp_efficiency": round(self.efficiency, 4),
        }


@dataclass(frozen=True)
class TimeCost:
    """H1, H6: what one option costs over the horizon."""

    capex_charged: float
    """Capex x the horizon's share of the hardware's life (H1)."""
    rent: float
    """Σ over rented runs of price x GPUs x hours billed (H5)."""
    running: float
    """Under objective tco: energy, support and racks over the horizon (energy of run
    servers for the hours they run); 0 under capex."""
    run_servers: tuple[str, ...] = ()
    """Ids of the servers bought for runs (they run only while a run is on them)."""

    @property
    def horizon_cost(self) -> float:
        """H6: what the program minimises: capex charged + rent (+ running costs)."""
        return self.capex_charged + self.rent + self.running

    def to_json(self) -> dict:
        return {"capex_charged": round(self.capex_charged, 2), "rent_cost": round(self.rent, 2),
                "running_cost": round(self.running, 2),
                "horizon_cost": round(self.horizon_cost, 2),
                "run_servers": list(self.run_servers)}


@dataclass(frozen=True)
class HorizonInfo:
    """H1: the horizon a result was planned over, for the reports."""

    start: dt.date
    months: int
    hours: float
    life_months: int
    capex_share: float
    rent: str
    """policy.rent: allowed or never."""
    dropped: dict[str, int] = field(default_factory=dict)
    """Per workload, repetitions left out because they would end after the horizon."""

    def at(self, hours: float) -> dt.datetime:
        return dt.datetime.combine(self.start, dt.time()) + dt.timedelta(hours=hours)

    def to_json(self) -> dict:
        return {"start": self.start.isoformat(), "months": self.months,
                "hours": self.hours, "life_months": self.life_months,
                "capex_share": round(self.capex_share, 6), "rent": self.rent,
                "dropped_runs": dict(self.dropped)}
