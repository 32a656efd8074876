"""Communication inside a replica and the serving floor (N4): solver/estimate/comms.py and
where throughput.py and the infeasibility message use it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli import main
from solver.estimate import comms as C
from solver.estimate import throughput as T
from solver.inputs.catalog import GpuSku
from solver.inputs.workload import Workload


def gpu(**kw) -> GpuSku:
    base = {"sku": "g", "vram_gb": 80, "mem_bw_gbps": 2000, "bf16_tflops": 312,
            "power_w": 400, "form_factor": "sxm4", "nvlink_gbps": 600, "nvlink_domain": 8,
            "price": 0, "arch": "ampere"}
    return GpuSku(**{**base, **kw})


def chat(**kw) -> Workload:
    return Workload(name="chat", kind="inference", model="llama-3.1-8b", batch=1,
                    prompt_tokens=1024, output_tokens=256, **kw)


def test_link_is_nvlink_inside_the_domain_and_pcie_beyond():
    g = gpu(nvlink_domain=2)
    assert C.tp_link(g, 1) is None
    assert C.tp_link(g, 2) == C.Link("NVLink", 300.0, C.NVLINK_HOP_LATENCY_S)
    assert C.tp_link(g, 4) == C.Link("PCIe", C.PCIE_GBPS, C.PCIE_HOP_LATENCY_S)
    assert C.tp_link(gpu(nvlink_gbps=0, form_factor="pcie"), 2).name == "PCIe"


def test_ring_allreduce_is_latency_plus_bus_bytes():
    link = C.Link("NVLink", 300.0, 2e-6)
    # 8 GPUs: 14 hops x 2 us + 14/8 x 8 MB at 300 GB/s x 0.8
    want = 14 * 2e-6 + 14 / 8 * 8e6 / (300e9 * 0.8)
    assert C.allreduce_seconds(link, 8, 8e6) == pytest.approx(want)
    # the published 8-GPU small-message figures come back
    assert C.allreduce_seconds(C.tp_link(gpu(), 8), 8, 0) == pytest.approx(33.7e-6)


def test_decode_pays_two_allreduces_per_layer_and_the_step_overhead():
    w, g = chat(step_overhead_ms=0), gpu()
    a = w.arch
    one = T.decode_step(w, g, 8, 1)[0]
    link = C.tp_link(g, 8)
    comm = 2 * a.layers * C.allreduce_seconds(link, 8, a.hidden * 2)
    gpu_only = one - comm
    assert gpu_only > 0
    with_overhead = T.decode_step(w.model_copy(update={"step_overhead_ms": 2.0}), g, 8, 1)[0]
    assert with_overhead == pytest.approx(one + 2e-3)
    # default: 0.5 ms
    assert T.decode_step(chat(), g, 8, 1)[0] == pytest.approx(one + C.STEP_OVERHEAD_MS / 1e3)


def test_ttft_carries_the_prompts_allreduces_and_the_floor():
    w, g = chat(), gpu()
    t = T.inference_throughput(w, g, 8, 1)
    floor = (2 * w.arch.layers * 14 * C.NVLINK_HOP_LATENCY_S + C.STEP_OVERHEAD_MS / 1e3) * 1e3
    assert t.floor_ms == pytest.approx(floor)
    assert t.ttft_ms > t.floor_ms and t.tpot_ms > t.floor_ms
    # on one GPU the floor is the framework's overhead alone
    assert T.inference_throughput(w, g, 1, 1).floor_ms == pytest.approx(C.STEP_OVERHEAD_MS)


def test_training_inside_nvlink_adds_no_traffic_beyond_it_adds_pcie():
    w = Workload(name="t", kind="train", model="llama-3.1-8b", seq_len=2048, global_batch=8,
                 micro_batch=1)
    assert T.training_comm_seconds_per_token(w, gpu(), 8, 1) == 0.0
    pcie = gpu(nvlink_gbps=0, form_factor="pcie")
    per_token = T.training_comm_seconds_per_token(w, pcie, 2, 1)
    each = C.allreduce_seconds(C.tp_link(pcie, 2), 2, 2048 * w.arch.hidden * 2)
    assert per_token == pytest.approx(2 * 2 * w.arch.layers * each / 2048)


def test_fp8_kv_cache_halves_the_kv_bytes():
    w = chat()
    assert T.kv_dtype_bytes(w) == 2.0
    assert T.kv_dtype_bytes(w.model_copy(update={"precision": "fp32"})) == 4.0

    class Fp8Kv:  # the field another module adds; read with getattr
        precision = "bf16"
        kv_cache_precision = "fp8"

    assert T.kv_dtype_bytes(Fp8Kv()) == 1.0  # type: ignore[arg-type]


def test_power_limited_boards_sustain_a_lower_clock():
    sxm = gpu()
    pcie = gpu(power_w=300, form_factor="pcie", nvlink_domain=2)
    assert T.clock_factor(sxm) == 1.0
    assert T.clock_factor(pcie) == pytest.approx(0.75 ** (1 / 3))
    w = chat()
    assert T.mfu_for(w, pcie) == pytest.approx(0.60 * 0.75 ** (1 / 3))
    assert T.mbu_for(w, pcie) == T.mbu_for(w, sxm)  # memory clocks are not power-limited
    assert T.clock_factor(gpu(arch="ada")) == 1.0  # no reference board measured
    assert T.mfu_for(w, gpu(power_w=300, mfu=0.5)) == 0.5  # a catalog figure is taken as is


def test_a_ttft_below_every_floor_exits_3_naming_it(tmp_path):
    # The case: an 8B chat service asking for 5 ms to first token.
    f = tmp_path / "w.yaml"
    f.write_text("name: t\nworkloads:\n  - name: chat\n    team: a\n    kind: inference\n"
                 "    model: llama-3.1-8b\n    batch: 8\n    prompt_tokens: 1024\n"
                 "    output_tokens: 256\n    max_ttft_ms: 5\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["plan", str(f)])
    assert res.exit_code == 3, res.output
    assert "shortest time to first token" in res.output
    assert "floor, all-reduce latency and the framework's step overhead" in res.output


def test_step_overhead_must_be_a_sane_number(tmp_path):
    f = tmp_path / "w.yaml"
    f.write_text("name: t\nworkloads:\n  - name: chat\n    team: a\n    kind: inference\n"
                 "    model: llama-3.1-8b\n    batch: 8\n    prompt_tokens: 1024\n"
                 "    output_tokens: 256\n    step_overhead_ms: -1\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["plan", str(f)])
    assert res.exit_code == 2
    assert "step_overhead_ms" in res.output and "To fix" in res.output
