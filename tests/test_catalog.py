"""The hardware catalog: every required chip, every figure sourced, bad entries refused with
file, entry and field named."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from roofline import RooflineError, load_catalog
from roofline.model.catalog import BASES

DATA = Path(__file__).resolve().parent.parent / "site_src" / "roofline" / "data"
REQUIRED = ["h100-sxm", "h100-pcie", "h200", "a100-sxm-80gb", "b200", "gb200", "l4", "rtx-4090",
            "mi300x", "mi325x", "tpu-v5e", "tpu-v5p", "tpu-v6e", "gaudi-3"]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_required_ids_present(catalog):
    assert set(REQUIRED) <= set(catalog.accelerators)


def test_every_figure_has_a_known_source_and_basis(catalog):
    for acc in catalog:
        for pk in acc.peaks.values():
            assert pk.source in catalog.sources and pk.basis in BASES
        for t in acc.tiers:
            assert t.source in catalog.sources and t.basis in BASES
        for _, src, basis, _ in acc.facts.values():
            assert src in catalog.sources and basis in BASES


def test_peaks_are_dense_datasheet_values(catalog):
    # H100 SXM dense bf16 is 989.4 TFLOP/s (whitepaper); 1,979 is the 2:4-sparse figure.
    assert catalog["h100-sxm"].peak_flops_per_s("bf16") == pytest.approx(989.4e12)
    assert catalog["h100-sxm"].hbm_bandwidth_bytes_per_s == pytest.approx(3.35e12)
    assert catalog["a100-sxm-80gb"].peak_flops_per_s("bf16") == pytest.approx(312e12)
    assert catalog["mi300x"].peak_flops_per_s("fp8") == pytest.approx(2614.9e12)
    assert catalog["b200"].peak_flops_per_s("fp4") == pytest.approx(9000e12)


def test_precisions_carry_float_bytes_and_units(catalog):
    assert catalog.precision("fp4").bytes_per_element == 0.5
    assert catalog.precision("fp32").unit == "vector"
    assert catalog.precision("bf16").unit == "tensor"


def test_estimates_say_so(catalog):
    sram = catalog["h100-sxm"].tier("sram")
    assert sram.basis == "estimate" and "estimated" in sram.note


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    for name in ("hardware.toml", "precisions.toml"):
        shutil.copy(DATA / name, tmp_path / name)
    path = tmp_path / "hardware.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    return path


BAD = [
    # (what, old text, new text, pattern the message must contain)
    ("negative bandwidth", "bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = -3.35e12",
     r"entry 'h100-sxm'.*tiers\[3\]\.bandwidth_bytes_per_s.*> 0"),
    ("zero bandwidth", "bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = 0",
     r"bandwidth_bytes_per_s.*> 0"),
    ("bandwidth in TB/s", "bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = 3.35",
     r"bandwidth_bytes_per_s.*SI units"),
    ("unit in the wrong name", "bandwidth_bytes_per_s = 3.35e12", "bandwidth_tb_per_s = 3.35",
     r"bandwidth_tb_per_s.*unknown field"),
    ("peak in TFLOP/s", "flops_per_s = 989.4e12", "flops_per_s = 989.4",
     r"peaks\.bf16\.flops_per_s.*SI units"),
    ("missing field", 'name = "NVIDIA H100 SXM5 80GB"\n', "",
     r"entry 'h100-sxm'.*field 'name': missing"),
    ("duplicate id", 'id = "h100-pcie"', 'id = "h100-sxm"', r"h100-sxm.*duplicate id"),
    ("unknown source", 'tdp_source = "D1"', 'tdp_source = "NOPE"', r"tdp_source.*not defined"),
    ("unknown precision", "peaks.fp8 = {", "peaks.fp9 = {", r"unknown precision 'fp9'"),
    ("unknown unit", 'unit = "tensor", source = "W2", basis = "third-party", note = "Dense; the datasheet\'s 989',
     'unit = "matrix", source = "W2", basis = "third-party", note = "Dense; the datasheet\'s 989',
     r"unknown unit 'matrix'"),
    # Seeded defects for the #13 gates: a third-party page claimed as a datasheet, and an HBM
    # capacity typed as the decimal marketing figure.
    ("third-party as datasheet", 'source = "W2", basis = "third-party", note = "Dense; the datasheet\'s 989',
     'source = "W2", note = "Dense; the datasheet\'s 989', r"peaks\.tf32\.basis.*third-party page"),
    ("decimal HBM capacity", "capacity_bytes = 85_899_345_920, visible", "capacity_bytes = 80e9, visible",
     r"tiers\[3\]\.capacity_bytes.*not a whole number of GiB.*85,899,345,920"),
    ("visible above capacity", "visible_capacity_bytes = 85_520_809_984",
     "visible_capacity_bytes = 95_520_809_984", r"visible_capacity_bytes.*must not exceed"),
    ("shared above the unified array", "max_shared_per_unit_bytes = 233_472",
     "max_shared_per_unit_bytes = 333_472", r"max_shared_per_unit_bytes.*must not exceed"),
    ("tensor unit in vector_peaks", 'vector_peaks.bf16 = { flops_per_s = 133.8e12, unit = "vector"',
     'vector_peaks.bf16 = { flops_per_s = 133.8e12, unit = "tensor"', r"vector_peaks\.bf16\.unit"),
    ("string for a number", "compute_units = 132\n", 'compute_units = "132"\n',
     r"compute_units.*expected float"),
    ("bad TOML", "\n[sources]\n", "\n[sources\n", r"not valid TOML"),
]


@pytest.mark.parametrize("what, old, new, pattern", BAD, ids=[b[0] for b in BAD])
def test_bad_catalog_entries_are_refused(tmp_path, what, old, new, pattern):
    path = _broken(tmp_path, old, new)
    with pytest.raises(RooflineError) as exc:
        load_catalog(path, tmp_path / "precisions.toml")
    message = str(exc.value)
    assert str(path) in message, message
    assert re.search(pattern, message), message
    assert "\n" not in message


# ---------------------------------------------------------------- issue #13: figures an expert checks

KiB, MiB, GiB = 2 ** 10, 2 ** 20, 2 ** 30


def test_hbm_capacities_are_binary_as_the_hardware_has_them(catalog):
    """DRAM is binary: an H100 "80 GB" holds 80 GiB = 85.9e9 bytes. nvidia-smi shows 81,559 MiB
    on an H100 SXM5 80GB (the driver keeps the rest) and 81,920 MiB on an A100 80GB; torch's
    total_memory reads about 79.1 GiB on the H100 (public nvidia-smi logs; source SMI)."""
    h100 = catalog["h100-sxm"].hbm
    assert h100.capacity_bytes == 80 * GiB == pytest.approx(85.9e9, rel=1e-3)
    assert h100.visible_capacity_bytes == 81_559 * MiB
    assert 79.0 < h100.visible_capacity_bytes / GiB < 80.0
    assert catalog["a100-sxm-80gb"].hbm.visible_capacity_bytes == 81_920 * MiB
    for acc in catalog:
        assert acc.hbm.capacity_bytes % GiB == 0, acc.id
        assert "Sold as" in acc.hbm.note or acc.id in ("h100-pcie",), acc.id


def test_per_sm_arrays_are_binary():
    """256 KiB per SM, not 256 kB: 64K 32-bit registers (CUDA C++ Programming Guide, Compute
    Capabilities); the H100 register file is 132 x 256 KiB = 34.6 MB (the Hopper blog's
    "33,792 KB" counts KiB). Max shared memory per SM is 228 KiB of the 256 KiB L1 (C1)."""
    c = load_catalog()
    h100 = c["h100-sxm"]
    regs, sram = h100.tier("registers"), h100.tier("sram")
    assert regs.per_unit_capacity_bytes == sram.per_unit_capacity_bytes == 256 * KiB
    assert regs.capacity_bytes == 132 * 256 * KiB == pytest.approx(34.6e6, rel=1e-3)
    assert sram.max_shared_per_unit_bytes == 228 * KiB
    assert c["a100-sxm-80gb"].tier("sram").per_unit_capacity_bytes == 192 * KiB
    for acc in c:
        for t in acc.tiers:
            if t.kind in ("registers", "sram") and t.per_unit_capacity_bytes:
                assert t.per_unit_capacity_bytes % KiB == 0, (acc.id, t.kind)


def test_tpu_v5p_ici_and_vmem():
    """Google's current v5p table: 1,200 GB/s bidirectional ICI per chip, so 600 GB/s per
    direction (source TPUV5P). VMEM is per TensorCore: 64 MiB each, two per chip (JAX Pallas TPU
    hardware reference, source PALLAS)."""
    v5p = load_catalog()["tpu-v5p"]
    assert v5p.tier("scaleup").bandwidth_bytes_per_s == 600e9
    vmem = v5p.tier("sram")
    assert vmem.per_unit_capacity_bytes == 64 * MiB and vmem.capacity_bytes == 128 * MiB
    assert "per TensorCore" in vmem.note and vmem.source == "PALLAS"


def test_blackwell_current_nvidia_figures():
    """HGX B200 (1,000 W): 180 GB HBM3e at 7.7 TB/s, FP64 37, FP32 75 per GPU (NVIDIA HGX
    specifications, source HGXB200), so the bf16 ridge is 2,250 / 7.7 ≈ 292. GB200 per GPU:
    FP64 40, FP32 80 (GB200 NVL72 specifications ÷ 72), up to 1,200 W (Blackwell technical
    brief: a datasheet figure), 152 SMs (FlashInfer kernel code)."""
    c = load_catalog()
    b200, gb200 = c["b200"], c["gb200"]
    assert b200.hbm_bandwidth_bytes_per_s == 7.7e12 and b200.hbm.capacity_bytes == 180 * GiB
    assert b200.peak_flops_per_s("fp64") == 37e12 and b200.peak_flops_per_s("fp32") == 75e12
    assert b200.ridge_flops_per_byte("bf16") == pytest.approx(292, abs=0.5)
    assert gb200.peak_flops_per_s("fp64") == 40e12 and gb200.peak_flops_per_s("fp32") == 80e12
    assert gb200.facts["tdp_w"][:3] == (1200, "BWBRIEF", "datasheet")
    assert gb200.compute_units == 152 and gb200.facts["compute_units"][2] == "third-party"
    assert gb200.tier("registers").capacity_bytes == 152 * 256 * KiB


def test_third_party_pages_never_claim_datasheet(catalog):
    """Figures copied from a blog's table, a book or a repository are marked third-party
    (issue #13); the loader refuses "datasheet" on such a source (seeded in BAD above)."""
    tp = {k for k, s in catalog.sources.items() if s.third_party}
    assert {"W2", "G1", "S1", "B1", "J1", "P1"} <= tp
    for acc in catalog:
        figures = [(p.source, p.basis) for p in [*acc.peaks.values(), *acc.vector_peaks.values()]]
        figures += [(t.source, t.basis) for t in acc.tiers]
        figures += [(src, basis) for _, src, basis, _ in acc.facts.values()]
        for src, basis in figures:
            assert not (src in tp and basis == "datasheet"), (acc.id, src)


def test_vector_roof_for_the_dtype_the_math_runs_in(catalog):
    """bf16 elementwise math runs as packed bf16x2 on the CUDA cores: 133.8 TFLOP/s on an H100
    SXM (H100 whitepaper, peak BF16 non-Tensor), not the fp32 roof of 66.9."""
    h100 = catalog["h100-sxm"]
    assert h100.vector_peak_for("bf16").flops_per_s == 133.8e12
    assert h100.vector_peak_for("fp32").flops_per_s == 66.9e12
    assert h100.vector_peak_for("fp8") is None
