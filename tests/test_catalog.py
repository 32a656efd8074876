"""catalogs/default.yaml holds every SKU of the hardware table with its published figures."""

from __future__ import annotations

import datetime as dt

import pytest

from solver.inputs.catalog import Catalog, GpuSku, Platform

# The hardware table of the default catalog (vendors' published figures; prices are
# illustrative 2026 street prices). sku: vram GB, mem BW GB/s, dense BF16 TFLOPS, power W,
# form, NVLink GB/s (0 = none), price USD.
SPEC_GPUS = {
    "rtx-4090": (24, 1008, 165, 450, "pcie", 0, 1800),
    "l40s": (48, 864, 362, 350, "pcie", 0, 7500),
    "a100-40g": (40, 1555, 312, 250, "pcie", 600, 8000),
    "a100-80g-pcie": (80, 1935, 312, 300, "pcie", 600, 12000),
    "a100-80g-sxm": (80, 2039, 312, 400, "sxm", 600, 14000),
    "h100-pcie": (80, 2000, 756, 350, "pcie", 600, 24000),
    "h100-sxm": (80, 3350, 989, 700, "sxm", 900, 28000),
    "h200-sxm": (141, 4800, 989, 700, "sxm", 900, 32000),
}
# sku: GPU slots, form, memory type, MT/s, channels, DIMM slots, drive bays, price USD.
SPEC_PLATFORMS = {
    "ws-2gpu-ddr4": (2, "pcie", "ddr4", 8, 8, 4, 4000),
    "srv-4gpu-ddr4": (4, "pcie", "ddr4", 16, 16, 8, 9000),
    "srv-8gpu-ddr5": (8, "pcie", "ddr5", 24, 24, 8, 18000),
    "hgx-a100-8gpu-ddr4": (8, "sxm4", "ddr4", 16, 32, 8, 30000),
    "hgx-h100-8gpu-ddr5": (8, "sxm5", "ddr5", 16, 32, 8, 45000),
    "cpu-node-ddr5": (0, None, "ddr5", 24, 24, 8, 6000),
}
# sku: type, MT/s, GB, price USD (DDR4-3200: 25.6 GB/s per channel; DDR5-4800: 38.4).
SPEC_DIMMS = {
    "ddr4-3200-32g": ("ddr4", 3200, 32, 90),
    "ddr4-3200-64g": ("ddr4", 3200, 64, 170),
    "ddr5-4800-64g": ("ddr5", 4800, 64, 280),
    "ddr5-4800-128g": ("ddr5", 4800, 128, 750),
}
SPEC_DRIVES = {"nvme-m2-2t": (2.0, 150), "nvme-u2-3.84t": (3.84, 450), "nvme-u2-7.68t": (7.68, 900)}


def test_prices_are_dated_and_labelled(default_catalog: Catalog):
    assert default_catalog.currency == "USD"
    assert isinstance(default_catalog.prices_as_of, dt.date)
    assert "illustrative" in default_catalog.price_note


@pytest.mark.parametrize("sku", SPEC_GPUS)
def test_gpu_figures(default_catalog: Catalog, sku: str):
    vram, bw, tflops, power, form, nvlink, price = SPEC_GPUS[sku]
    g = default_catalog.gpu(sku)
    assert (g.vram_gb, g.mem_bw_gbps, g.bf16_tflops, g.power_w) == (vram, bw, tflops, power)
    # The catalog may name the SXM generation (sxm4 / sxm5); the table's column is the family.
    assert g.form_factor.startswith(form)
    assert g.nvlink_gbps == nvlink
    assert g.price == price
    assert default_catalog.price_of(sku) == price and default_catalog.kind_of(sku) == "gpu"


def test_nvlink_domains(default_catalog: Catalog):
    assert default_catalog.gpu("rtx-4090").nvlink_gpus == 1  # R10: no NVLink
    assert default_catalog.gpu("l40s").nvlink_gpus == 1
    assert default_catalog.gpu("a100-40g").nvlink_gpus == 2  # PCIe bridge joins pairs
    assert default_catalog.gpu("h100-sxm").nvlink_gpus == 8  # HGX baseboard


@pytest.mark.parametrize("sku", SPEC_PLATFORMS)
def test_platform_figures(default_catalog: Catalog, sku: str):
    slots, form, mem, channels, dimm_slots, bays, price = SPEC_PLATFORMS[sku]
    p = default_catalog.platform(sku)
    assert (p.gpu_slots, p.memory_type, p.memory_channels) == (slots, mem, channels)
    assert (p.dimm_slots, p.drive_bays, p.price) == (dimm_slots, bays, price)
    assert p.form_factors == ([form] if form else [])
    assert p.dimm_slots % p.memory_channels == 0  # 1 or 2 DIMMs per channel
    assert p.dimm_counts()[0] == p.memory_channels and p.dimm_counts()[-1] == p.dimm_slots


def test_platforms_take_the_right_gpus(default_catalog: Catalog):
    cat = default_catalog
    assert cat.platform("hgx-h100-8gpu-ddr5").takes(cat.gpu("h200-sxm"))
    assert cat.platform("hgx-a100-8gpu-ddr4").takes(cat.gpu("a100-80g-sxm"))
    assert not cat.platform("hgx-a100-8gpu-ddr4").takes(cat.gpu("h100-sxm"))
    assert not cat.platform("srv-8gpu-ddr5").takes(cat.gpu("h100-sxm"))
    assert cat.platform("srv-8gpu-ddr5").takes(cat.gpu("l40s"))
    assert not any(cat.platform("cpu-node-ddr5").takes(g) for g in cat.gpus)


@pytest.mark.parametrize("sku", SPEC_DIMMS)
def test_dimm_figures(default_catalog: Catalog, sku: str):
    kind, speed, size, price = SPEC_DIMMS[sku]
    m = default_catalog.dimm(sku)
    assert (m.type, m.speed_mts, m.size_gb, m.price) == (kind, speed, size, price)
    assert m.channel_gbps == pytest.approx({3200: 25.6, 4800: 38.4}[speed])  # R14


@pytest.mark.parametrize("sku", SPEC_DRIVES)
def test_drive_figures(default_catalog: Catalog, sku: str):
    size, price = SPEC_DRIVES[sku]
    d = default_catalog.drive(sku)
    assert (d.size_tb, d.price) == (size, price)


def test_every_platform_has_dimms_of_its_type(default_catalog: Catalog):
    types = {m.type for m in default_catalog.memory}
    assert all(p.memory_type in types for p in default_catalog.platforms)


def test_catalog_holds_only_spec_skus(default_catalog: Catalog):
    assert {g.sku for g in default_catalog.gpus} == set(SPEC_GPUS)
    assert {p.sku for p in default_catalog.platforms} == set(SPEC_PLATFORMS)
    assert {m.sku for m in default_catalog.memory} == set(SPEC_DIMMS)
    assert {s.sku for s in default_catalog.storage} == set(SPEC_DRIVES)


def test_unknown_sku_is_a_key_error(default_catalog: Catalog):
    with pytest.raises(KeyError):
        default_catalog.gpu("b200")
    with pytest.raises(KeyError):
        default_catalog.price_of("b200")


def test_models_reject_bad_figures():
    with pytest.raises(ValueError, match="whole multiple of memory_channels"):
        Platform(
            sku="p",
            gpu_slots=2,
            form_factors=["pcie"],
            dimm_slots=12,
            memory_type="ddr4",
            memory_channels=8,
            drive_bays=4,
            price=1,
        )
    with pytest.raises(ValueError, match="finite"):
        GpuSku(
            sku="g",
            vram_gb=float("inf"),
            mem_bw_gbps=1,
            bf16_tflops=1,
            power_w=1,
            form_factor="pcie",
            nvlink_gbps=0,
            price=1,
        )


def test_duplicate_skus_rejected_without_the_loader(default_catalog: Catalog):
    data = default_catalog.model_dump()
    data["storage"].append({"sku": data["gpus"][0]["sku"], "size_tb": 1.0, "price": 1})
    with pytest.raises(ValueError, match="already the SKU of gpus\\[0\\]"):
        Catalog.model_validate(data)
