"""Roofline maths: properties (hypothesis) and the lesson's own claims as golden values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from roofline import default_catalog
from roofline.model.maths import attainable, bound, intensity, ridge, time_lower_bound

pos = st.floats(min_value=1e-3, max_value=1e18, allow_nan=False, allow_infinity=False)
ai_s = st.floats(min_value=1e-4, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(ai=ai_s, peak=pos, bw=pos)
def test_attainable_never_exceeds_peak(ai, peak, bw):
    assert attainable(ai, peak, bw) <= peak


@given(a=ai_s, b=ai_s, peak=pos, bw=pos)
def test_attainable_is_monotone_in_intensity(a, b, peak, bw):
    lo, hi = sorted((a, b))
    assert attainable(lo, peak, bw) <= attainable(hi, peak, bw)


@given(peak=pos, bw=pos, frac=st.floats(min_value=1e-3, max_value=0.999))
def test_below_ridge_is_bandwidth_times_ai(peak, bw, frac):
    ai = ridge(peak, bw) * frac
    assert math.isclose(attainable(ai, peak, bw), ai * bw, rel_tol=1e-12)
    assert bound(ai, ridge(peak, bw)) == "memory"


@given(peak=pos, bw=pos, mult=st.floats(min_value=1.0, max_value=1e3))
def test_at_or_above_ridge_is_peak(peak, bw, mult):
    ai = ridge(peak, bw) * mult
    # peak / bw * bw can round one ulp below peak: equal to within float precision
    assert math.isclose(attainable(ai, peak, bw), peak, rel_tol=1e-12)
    assert bound(ai, ridge(peak, bw)) == "compute"


@given(flops=pos, bytes_=pos, peak=pos, bw=pos)
def test_time_bound_is_the_binding_ceiling(flops, bytes_, peak, bw):
    t = time_lower_bound(flops, bytes_, peak, bw)
    assert t >= flops / peak and t >= bytes_ / bw
    # attainable throughput is exactly the FLOPs delivered in the bound time
    assert math.isclose(flops / t, attainable(intensity(flops, bytes_), peak, bw), rel_tol=1e-9)


def test_vectorised_over_numpy_arrays():
    ai = np.logspace(-2, 4, 601)
    y = attainable(ai, 989.4e12, 3.35e12)
    assert y.shape == ai.shape and np.all(np.diff(y) >= 0) and y.max() == 989.4e12


# Golden values. Sources: lesson 06 §2–§3 ("≈ 990 ÷ 3.3 ≈ 300", FP8 "~600"); JAX scaling book
# gpus.md Quiz 1 Q3 (H100 990e12 / 3.35e12 = 295, fp8 590). B200: NVIDIA's current HGX B200
# spec gives 7.7 TB/s (issue 13; the book's 8 TB/s gave 281): 2250e12 / 7.7e12 = 292.
@pytest.mark.parametrize("hw, precision, expected, rel", [
    ("h100-sxm", "bf16", 295, 0.01),
    ("h100-sxm", "fp8", 590, 0.01),
    ("b200", "bf16", 292, 0.01),
    ("a100-sxm-80gb", "bf16", 153, 0.01),  # A100 datasheet: 312 TFLOP/s / 2.039 TB/s
])
def test_ridge_golden(hw, precision, expected, rel):
    assert default_catalog()[hw].ridge_flops_per_byte(precision) == pytest.approx(expected, rel=rel)


def test_fp8_roughly_doubles_the_h100_ridge():
    h100 = default_catalog()["h100-sxm"]
    ratio = h100.ridge_flops_per_byte("fp8") / h100.ridge_flops_per_byte("bf16")
    assert ratio == pytest.approx(2.0, rel=0.01)
