"""Op costs from shapes: FLOPs at 2 per multiply-add, bytes as HBM traffic; the op zoo's place
on the H100 roofline as the lesson describes it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roofline import RooflineError, default_catalog, default_zoo, place
from roofline.model import ops as O

dim = st.integers(min_value=1, max_value=1 << 16)
H100 = "h100-sxm"


@given(m=dim, n=dim, k=dim)
def test_gemm_counts(m, n, k):
    op = O.gemm(m, n, k, 2.0)
    assert op.flops == 2 * m * n * k
    assert op.bytes == 2 * (m * k + k * n + m * n)


@given(b=dim, d=dim, f=dim)
def test_matmul_intensity_matches_the_scaling_book(b, d, f):
    # JAX scaling book, roofline chapter: bf16 X[B,D]·Y[D,F] has intensity BDF / (BD + DF + BF).
    op = O.gemm(b, f, d, 2.0)
    assert op.intensity_flops_per_byte == pytest.approx(b * d * f / (b * d + d * f + b * f),
                                                        rel=1e-12)


@given(rows=dim, d=dim, scale=st.integers(min_value=2, max_value=16))
def test_elementwise_costs_scale_linearly_with_rows(rows, d, scale):
    for fn in (O.rmsnorm, O.layernorm, O.softmax):
        one, many = fn(rows, d, 2.0), fn(rows * scale, d, 2.0)
        assert many.flops == pytest.approx(one.flops * scale)
        assert many.bytes <= one.bytes * scale  # the weight vector is read once either way


def test_bytes_follow_the_dtype():
    assert O.gemm(64, 64, 64, 1.0).bytes * 2 == O.gemm(64, 64, 64, 2.0).bytes
    assert O.gemm(64, 64, 64, 0.5).bytes * 4 == O.gemm(64, 64, 64, 2.0).bytes  # fp4 is a float


def test_fused_attention_moves_fewer_bytes_than_unfused():
    args = (8, 32, 8, 128, 4096, 4096, 2.0)
    fused = O.attention_fused(*args)
    unfused = O.attention_unfused(*args)
    assert fused.bytes < sum(o.bytes for o in unfused)
    assert fused.flops == pytest.approx(sum(o.flops for o in unfused))


def test_grouped_query_heads_raise_decode_attention_intensity():
    mha = O.attention_fused(1, 32, 32, 128, 1, 4096, 2.0)
    gqa = O.attention_fused(1, 32, 8, 128, 1, 4096, 2.0)
    assert gqa.intensity_flops_per_byte == pytest.approx(4 * mha.intensity_flops_per_byte,
                                                         rel=0.01)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_non_positive_shapes_are_refused_naming_the_field(bad):
    with pytest.raises(RooflineError, match="field 'm'"):
        O.gemm(bad, 4, 4, 2.0)


def test_zoo_has_exactly_the_lessons_ids():
    assert list(default_zoo().presets) == ["rmsnorm", "layernorm", "softmax", "gelu", "bias-add",
                                           "gemm-train", "gemv-decode", "attention-train",
                                           "attention-decode"]


def _zoo_points(precision="bf16", hw=H100):
    cat = default_catalog()
    b = cat.precision(precision).bytes_per_element
    return {op.name: place(op, cat[hw], precision) for op in default_zoo().ops(b)}


def test_lesson_claims_hold_on_the_model():
    """Lesson 06 §3–§4 and its interview prompts."""
    pts = _zoo_points()
    rms = pts["rmsnorm"]
    assert 0.5 <= rms.intensity_flops_per_byte <= 2.5          # "AI of order 1–2"
    assert rms.fraction_of_peak < 0.01                          # "under 1% of peak"
    assert rms.attainable_flops_per_s < 7e12                    # lesson: ≈ 6.6 TFLOP/s at AI 2
    gemm = pts["gemm-train"]
    assert 100 <= gemm.intensity_flops_per_byte <= 10_000       # "hundreds to thousands"
    assert gemm.bound == "compute"
    for name in ("gemv-decode", "attention-decode"):
        assert pts[name].intensity_flops_per_byte == pytest.approx(1.0, rel=0.05)  # "≈ 1"
        assert pts[name].bound == "memory"
    # "exactly one family is compute-bound": matmuls (GEMM and training attention)
    assert {n for n, p in pts.items() if p.bound == "compute"} == {"gemm-train", "attention-train"}


def test_fp8_pushes_memory_bound_ops_further_below_the_ridge():
    bf16, fp8 = _zoo_points("bf16"), _zoo_points("fp8")
    for name in ("rmsnorm", "softmax", "gelu"):
        assert fp8[name].fraction_of_peak < bf16[name].fraction_of_peak
