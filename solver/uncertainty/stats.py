"""The statistics of a Monte Carlo sweep, read back from its rows file one line at a time.

Per option: the share of scenarios in which it holds, with Wilson's 95 % interval; each
cost (capex, TCO, rent, horizon cost) at p10, p50 and p90 (linear interpolation between
order statistics) and its CVaR90, the mean of the worst (dearest) 10 % of scenarios
(⌈n / 10⌉ of them); which workload breaks first (the first line the checker reports) and
how often each workload breaks by each rule. The same cost figures for the plan
re-solved in each scenario. Only the numbers are kept (never the rows themselves).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

COSTS = ("capex", "tco", "rent", "horizon_cost")
"""The cost figures summarised, in the order shown."""
Z95 = 1.959963984540054
"""Two-sided 95 % normal quantile."""


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a proportion k / n (0, 1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def cost_stats(values: list[float]) -> dict | None:
    """p10, p50, p90, CVaR90 (mean of the dearest ⌈n/10⌉) and mean; None without values."""
    if not values:
        return None
    a = np.sort(np.asarray(values, dtype=float))
    worst = a[-max(1, math.ceil(len(a) / 10)):]
    p10, p50, p90 = (float(np.percentile(a, q)) for q in (10, 50, 90))
    return {"p10": round(p10, 2), "p50": round(p50, 2), "p90": round(p90, 2),
            "cvar90": round(float(worst.mean()), 2), "mean": round(float(a.mean()), 2)}


@dataclass
class Tally:
    """What is kept of one option's (or the re-solved plans') scenarios."""

    n: int = 0
    held: int = 0
    costs: dict[str, list[float]] = field(default_factory=lambda: {c: [] for c in COSTS})
    first: Counter = field(default_factory=Counter)
    breaks: Counter = field(default_factory=Counter)

    def add_costs(self, row: dict) -> None:
        for c in COSTS:
            if row.get(c) is not None:
                self.costs[c].append(float(row[c]))

    def summary(self) -> dict:
        """The option's entry of the document (docs/json.md, "`options[]` (uncertainty)")."""
        lo, hi = wilson(self.held, self.n)
        return {
            "scenarios": self.n,
            "holds": {"count": self.held, "probability": _p(self.held / self.n if self.n else 0),
                      "low": _p(lo), "high": _p(hi)},
            "costs": {c: cost_stats(v) for c, v in self.costs.items()},
            "breaks_first": _shares(self.first, self.n),
            "breaks": _shares(self.breaks, self.n),
        }


def _p(x: float) -> float:
    return round(x, 4)


def _shares(counts: Counter, n: int) -> list[dict]:
    """[{workload, rule, count, share}] most frequent first, then by name."""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [{"workload": w, "rule": r, "count": k, "share": _p(k / n if n else 0)}
            for (w, r), k in items]


@dataclass
class Summary:
    """Every option's tally, the re-solved plans' and the scenarios that failed."""

    options: dict[int, Tally] = field(default_factory=dict)
    resolved: Tally = field(default_factory=Tally)
    resolve_failed: Counter = field(default_factory=Counter)
    failed: list[dict] = field(default_factory=list)
    scenarios: int = 0

    def add(self, row: dict) -> None:
        """One scenario's row (a failed scenario: ``{"scenario": i, "failed": why}``)."""
        self.scenarios += 1
        if "failed" in row:
            if len(self.failed) < 20:  # the first few are shown; the rows file has them all
                self.failed.append({"scenario": row["scenario"], "error": row["failed"]})
            else:
                self.failed.append({"scenario": row["scenario"], "error": ""})
            return
        for o in row["options"]:
            t = self.options.setdefault(o["rank"], Tally())
            t.n += 1
            t.held += bool(o["holds"])
            t.add_costs(o)
            if o["breaks"]:
                t.first[(o["breaks"][0]["workload"], o["breaks"][0]["rule"])] += 1
            for key in {(b["workload"], b["rule"]) for b in o["breaks"]}:
                t.breaks[key] += 1
        r = row.get("resolved")
        if r is not None:
            self.resolved.n += 1
            if r.get("planned"):
                self.resolved.held += 1
                self.resolved.add_costs(r)
            else:
                self.resolve_failed[r.get("error", "no plan")[:200]] += 1


def summarise(rows_file: Path) -> Summary:
    """Read a rows file (one JSON object a line) into a ``Summary``."""
    out = Summary()
    with Path(rows_file).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.add(json.loads(line))
    return out
