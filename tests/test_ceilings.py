"""data/ceilings.toml, the measured matmul ceilings (roofline.model.ceilings): every entry a
catalog chip and precision, under its peak, sourced; errors name the file, entry and field."""

from __future__ import annotations

import pytest

from roofline import RooflineError, default_catalog
from roofline.model.ceilings import ceilings_path, gemm_efficiency, load_ceilings

GOOD = '''schema_version = 1
[sources]
S = { short = "s", title = "t", url = "https://example.org" }
[[ceiling]]
chip = "h100-sxm"
precision = "bf16"
flops_per_s = 794.5e12
shape = "2048x2048x13312"
software = "torch 2.7.0"
date = "2026-07-30"
source = "S"
basis = "third-party measurement"
'''


def test_every_ceiling_is_a_catalog_chip_under_its_peak_with_a_source():
    catalog = default_catalog()
    ceilings = load_ceilings()
    assert ceilings, "no ceilings read"
    for (chip, precision), c in ceilings.items():
        hw = catalog[chip]
        assert 0.3 < gemm_efficiency(hw, precision) < 1, (chip, precision)
        assert c.basis == "third-party measurement" and c.url.startswith("https://")
        assert c.date and c.software and "x" in c.shape
    # The figures #46 names, read from the source's present table (the issue quoted its
    # older v1 run: H100 792.1, A100 267.9, MI300X 781.9).
    assert ceilings[("h100-sxm", "bf16")].flops_per_s == 794.5e12
    assert ceilings[("a100-sxm-80gb", "bf16")].flops_per_s == 271.2e12
    assert ceilings[("mi300x", "bf16")].flops_per_s == 668.4e12
    # No borrowing: chips the table has no row of their own for have no entry.
    for chip in ("h200", "h100-pcie", "h800-sxm", "a100-sxm-40gb"):
        assert (chip, "bf16") not in ceilings


@pytest.mark.parametrize("edit, field", [
    (("794.5e12", "794.5"), "flops_per_s"),                    # TFLOP/s, not FLOP/s
    (('source = "S"', 'source = "T"'), "source"),
    (('basis = "third-party measurement"', 'basis = "guess"'), "basis"),
    (('date = "2026-07-30"\n', 'date = "2026-07-30"\ntflops = 1\n'), "tflops"),
    (("", ""), None),                                          # the good file reads
])
def test_a_bad_entry_is_named(tmp_path, edit, field):
    path = tmp_path / "ceilings.toml"
    path.write_text(GOOD.replace(*edit) if edit[0] else GOOD, encoding="utf-8")
    if field is None:
        assert load_ceilings(path)[("h100-sxm", "bf16")].flops_per_s == 794.5e12
        return
    with pytest.raises(RooflineError) as exc:
        load_ceilings(path)
    assert str(path) in str(exc.value) and field in str(exc.value)


def test_a_ceiling_above_the_peak_is_refused(tmp_path):
    path = tmp_path / "ceilings.toml"
    path.write_text(GOOD.replace("794.5e12", "1200e12"), encoding="utf-8")
    with pytest.raises(RooflineError, match="above the chip's"):
        gemm_efficiency(default_catalog()["h100-sxm"], "bf16", path)
    assert ceilings_path().name == "ceilings.toml"
