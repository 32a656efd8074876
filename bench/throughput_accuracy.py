"""Accuracy of the throughput estimator against tests/data/throughput_cases.yaml.

Run: ``.venv/bin/python bench/throughput_accuracy.py`` (one row per case and the median).
The same functions drive tests/test_throughput_cases.py, so the table and the test agree.

Metrics (as the case file defines them):
  tokens_per_s_per_gpu  one replica's training tokens/s divided by its GPUs;
  tokens_per_s          one replica's tokens/s (training tokens, or inference output tokens);
  ttft_ms               inference time to first token (prefill of one prompt).
A case with ``batch: auto`` is served at :func:`serving_batch` (largest that fits VRAM).
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))

from solver.estimate.replica import serving_batch, throughput
from solver.estimate.throughput import Throughput
from solver.inputs.catalog import GpuSku
from solver.inputs.loading import load_catalog
from solver.inputs.model import ModelArch
from solver.inputs.policy import Policy
from solver.inputs.presets import resolve
from solver.inputs.workload import Workload

CASES_PATH = REPO / "tests" / "data" / "throughput_cases.yaml"
CASE_TOLERANCE = 0.25
"""Every case within +-25% (T6)."""
MEDIAN_TOLERANCE = 0.12
"""Median |error| over all cases within 12% (T6)."""


@dataclass(frozen=True)
class CaseResult:
    id: str
    metric: str
    estimate: float
    measured: float
    detail: str
    informational: bool = False
    """Shown but not scored (the case says why it cannot be reconciled)."""

    @property
    def error(self) -> float:
        return (self.estimate - self.measured) / self.measured


def load_cases(path: Path = CASES_PATH) -> list[dict]:
    """The cases whose ``needs`` (workload fields) the workload schema has."""
    cases = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    return [c for c in cases if set(c.get("needs", ())) <= set(Workload.model_fields)]


def _gpus() -> dict[str, GpuSku]:
    return {g.sku: g for g in load_catalog(REPO / "catalogs" / "default.yaml").gpus}


def _workload(spec: dict) -> tuple[Workload, bool]:
    """The case's workload; ``batch: auto`` is set to 1 here and resolved per GPU later."""
    spec = dict(spec)
    model = spec["model"]
    spec["model"] = resolve(ModelArch(**model) if isinstance(model, dict) else model, REPO)
    auto = spec.get("batch") == "auto"
    if auto:
        spec["batch"] = 1
    return Workload(**spec), auto


def _value(t: Throughput, metric: str) -> float:
    if metric == "tokens_per_s_per_gpu":
        return t.tokens_per_s / t.degree
    if metric == "tokens_per_s":
        return t.tokens_per_s
    if metric == "ttft_ms":
        return t.ttft_ms or 0.0
    if metric == "tpot_ms":
        return t.tpot_ms or 0.0
    raise ValueError(f"unknown metric {metric!r}")


def evaluate(case: dict, gpus: dict[str, GpuSku] | None = None) -> CaseResult:
    """Estimate one case and pick the value its measurement is of."""
    gpus = gpus or _gpus()
    gpu, degree, policy = gpus[case["gpu"]], int(case["degree"]), Policy()
    w, auto = _workload(case["workload"])
    if auto:
        w = w.model_copy(update={"batch": serving_batch(w, gpu, degree, policy)})
    t = throughput(w, gpu, degree, policy)
    eff = f"{t.efficiency_kind} {t.efficiency:.2f}"
    detail = f"batch {t.batch}, {eff}, {t.flops_per_token / 1e9:.1f} GFLOP/token, {t.bound}"
    return CaseResult(case["id"], case["metric"], _value(t, case["metric"]),
                      float(case["measured"]), detail, bool(case.get("informational")))


def evaluate_all(path: Path = CASES_PATH) -> list[CaseResult]:
    gpus = _gpus()
    return [evaluate(c, gpus) for c in load_cases(path)]


def median_abs_error(results: list[CaseResult]) -> float:
    """Median |error| over every scored (not informational) case."""
    return statistics.median(abs(r.error) for r in results if not r.informational)


def render(results: list[CaseResult]) -> str:
    head = (f"{'case':34} {'metric':20} {'estimate':>9} {'measured':>9} {'error':>7}  detail")
    lines = [head, "-" * len(head)]
    for r in results:
        out = "" if abs(r.error) <= CASE_TOLERANCE else "  OUT"
        out = "  (informational)" if r.informational else out
        lines.append(f"{r.id:34} {r.metric:20} {r.estimate:9.1f} {r.measured:9.1f} "
                     f"{r.error:+7.1%}  {r.detail}{out}")
    lines.append(f"median |error|: {median_abs_error(results):.1%} "
                 f"(goal <= {MEDIAN_TOLERANCE:.0%}; each case within {CASE_TOLERANCE:.0%})")
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(evaluate_all()))
