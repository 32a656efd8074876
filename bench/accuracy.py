"""Accuracy of the memory estimator against tests/data/memory_cases.yaml.

Run: ``.venv/bin/python bench/accuracy.py`` (prints one row per case and the median).
The same functions drive tests/test_validation_cases.py, so the table and the test agree.

Comparison basis (like with like):
  formula        the components named in the case's ``compare`` field;
  nvml_used      Estimate.vram_gb_per_gpu (everything, CUDA context and allocator cache);
  max_allocated  Estimate.allocated_gb = vram_gb_per_gpu - CUDA context.
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

from solver.estimate.memory import CUDA_CONTEXT_GB, estimate
from solver.inputs.catalog import GpuSku
from solver.inputs.loading import load_catalog
from solver.inputs.presets import resolve
from solver.inputs.workload import ModelArch, Policy, Workload

CASES_PATH = REPO / "tests" / "data" / "memory_cases.yaml"
MEASURED_TOLERANCE = 0.15
"""Every measured case within +-15% (issue)."""
MEDIAN_TOLERANCE = 0.07
"""Median |error| of the measured cases within 7% (issue)."""
FORMULA_TOLERANCE = {"qlora-7b-4bit-base": 0.10}
"""Formula cases are exact (+-1%) except the QLoRA 4-bit base figure (+-10%, case file)."""
DEFAULT_FORMULA_TOLERANCE = 0.01

CONTEXT_INCLUDED = {
    "qlora-7b-4bit-base": (
        "QLoRA paper's 5,048 MB for the 4-bit LLaMA-7B base is a process reading: NF4 "
        "weights + 16-bit embeddings (3.87 GB) + the CUDA context (1.41 GB) = 5.27 GB; "
        "weights alone are 27% lower (see docs/memory-model.md)"
    ),
}
"""Cases whose source figure includes the CUDA context; compared as components + context."""

EXTRA_GPUS = {
    # Not in the default catalog; only their VRAM matters for these fixed-batch cases.
    "v100-16g": GpuSku(sku="v100-16g", name="V100 16GB SXM2", vram_gb=16, mem_bw_gbps=900,
                       bf16_tflops=125, power_w=300, form_factor="sxm", nvlink_gbps=300,
                       price=0),
    "a10g": GpuSku(sku="a10g", name="A10G 24GB", vram_gb=24, mem_bw_gbps=600,
                   bf16_tflops=70, power_w=300, form_factor="pcie", nvlink_gbps=0, price=0),
}
DEFAULT_GPU = "h100-sxm"
"""Formula cases name no GPU; any card works (they compare components only)."""


@dataclass(frozen=True)
class CaseResult:
    id: str
    metric: str
    estimate_gb: float
    measured_gb: float
    basis: str

    @property
    def error(self) -> float:
        return (self.estimate_gb - self.measured_gb) / self.measured_gb

    @property
    def tolerance(self) -> float:
        if self.metric == "formula":
            return FORMULA_TOLERANCE.get(self.id, DEFAULT_FORMULA_TOLERANCE)
        return MEASURED_TOLERANCE


def load_cases(path: Path = CASES_PATH) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]


def _gpus() -> dict[str, GpuSku]:
    cat = load_catalog(REPO / "catalogs" / "default.yaml")
    return {**{g.sku: g for g in cat.gpus}, **EXTRA_GPUS}


def _workload(spec: dict) -> Workload:
    spec = dict(spec)
    model = spec["model"]
    spec["model"] = resolve(ModelArch(**model) if isinstance(model, dict) else model, REPO)
    return Workload(**spec)


def evaluate(case: dict, gpus: dict[str, GpuSku] | None = None) -> CaseResult:
    """Estimate one case and pick the value comparable with its measurement."""
    gpus = gpus or _gpus()
    e = estimate(_workload(case["workload"]), gpus[case.get("gpu", DEFAULT_GPU)], 1, Policy())
    metric = case["metric"]
    if metric == "formula":
        parts = [p.strip() for p in case["compare"].split("+")]
        value = sum(getattr(e.breakdown, p) for p in parts)
        basis = " + ".join(parts)
        if case["id"] in CONTEXT_INCLUDED:
            value += CUDA_CONTEXT_GB
            basis += " + CUDA context"
    elif metric == "max_allocated":
        value, basis = e.allocated_gb, "total - CUDA context"
    elif metric == "nvml_used":
        value, basis = e.vram_gb_per_gpu, "total"
    else:
        raise ValueError(f"case {case['id']}: unknown metric {metric!r}")
    return CaseResult(case["id"], metric, value, float(case["measured_gb"]), basis)


def evaluate_all(path: Path = CASES_PATH) -> list[CaseResult]:
    gpus = _gpus()
    return [evaluate(c, gpus) for c in load_cases(path)]


def median_abs_error(results: list[CaseResult]) -> float:
    """Median |error| of the measured (non-formula) cases."""
    return statistics.median(abs(r.error) for r in results if r.metric != "formula")


def render(results: list[CaseResult]) -> str:
    head = (f"{'case':34} {'metric':13} {'estimate GB':>11} {'measured GB':>11} "
            f"{'error':>7} {'tol':>5}  basis")
    lines = [head, "-" * len(head)]
    for r in results:
        ok = "" if abs(r.error) <= r.tolerance else "  OUT"
        lines.append(f"{r.id:34} {r.metric:13} {r.estimate_gb:11.3f} {r.measured_gb:11.3f} "
                     f"{r.error:+7.1%} {r.tolerance:5.0%}  {r.basis}{ok}")
    lines.append(f"median |error| of measured cases: {median_abs_error(results):.1%} "
                 f"(goal <= {MEDIAN_TOLERANCE:.0%})")
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(evaluate_all()))
