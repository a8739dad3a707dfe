"""The hardware catalog: every required chip, every figure sourced, bad entries refused with
file, entry and field named."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from roofline import RooflineError, load_catalog
from roofline.catalog import BASES

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
    ("unknown unit", 'unit = "tensor", source = "W2", note = "Dense; the datasheet\'s 989',
     'unit = "matrix", source = "W2", note = "Dense; the datasheet\'s 989', r"unknown unit 'matrix'"),
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
