"""The departure boxes' own figures (lesson_site/figures.py) and the claims their titles type:
a thread's registers from the CUDA limits and the catalog's register file; the op zoo's spread
of shares of peak, its compute-bound rows and the training GEMM's AI; the sparse fp8 peak."""

from __future__ import annotations

import pytest

from roofline.errors import RooflineError
from lesson_site import teach  # noqa: F401  (registers the markers)
from lesson_site.context import load_context
from lesson_site.figures import thread_limits
from lesson_site.markers import expand


@pytest.fixture(scope="module")
def ctx():
    return load_context()


def test_registers_per_thread_are_the_cuda_limits(ctx):
    # CUDA C++ Programming Guide, compute capability 9.0: 255 registers of 4 bytes at most per
    # thread; 64 K registers (256 KiB) and 2,048 resident threads per SM -> 128 B, 32 registers.
    out = expand("<!-- rl:registers --> <!-- rl:registers field=max_kib --> "
                 "<!-- rl:registers field=full_bytes --> <!-- rl:registers field=full_registers -->"
                 " <!-- rl:registers field=file_kib -->", ctx, "t").split()
    assert out == ["1,020", "1", "128", "32", "256"]


def test_execution_limits_refuse_an_unknown_field_and_chip(tmp_path):
    bad = tmp_path / "execution.toml"
    bad.write_text('[limits.h100-sxm]\ncompute_capability = "9.0"\nmax_registers_per_thread = '
                   "255\nbytes_per_register = 4\nmax_resident_threads_per_unit = 2048\n"
                   "max_threads_per_sm = 2048\n", encoding="utf-8")
    with pytest.raises(RooflineError, match="max_threads_per_sm"):
        thread_limits("h100-sxm", bad)
    with pytest.raises(RooflineError, match="a100-sxm-80gb"):
        thread_limits("a100-sxm-80gb")


def test_zoo_claims_the_titles_make(ctx):
    """'Fractions of a percent': every memory-bound zoo op under 1 % of peak; 'Thousands, not
    hundreds': the training GEMM's AI; 'Training attention is compute-bound too'."""
    mem = [p for p in ctx.points("h100-sxm", "bf16") if p.bound == "memory"]
    assert mem and max(p.fraction_of_peak for p in mem) < 0.01
    assert ctx.point("gemm-train", "h100-sxm", "bf16").intensity_flops_per_byte >= 1000
    assert ctx.point("attention-train", "h100-sxm", "bf16").bound == "compute"
    assert {ctx.point(o, "h100-sxm", "bf16").bound for o in ("attention-decode",
                                                             "gemv-decode")} == {"memory"}
    out = expand("<!-- rl:zoo_range --> <!-- rl:zoo_range field=max_percent --> "
                 "<!-- rl:zoo_bound -->", ctx, "t").split()
    assert out == ["0.085%", "0.68%", "2"]  # the 0.085–0.68 % and two rows
    assert expand("<!-- rl:zoo_bound field=labels -->", ctx, "t") == (
        "GEMM (training) and Attention (training, fused)")


def test_fp8_with_sparsity_is_four_times_dense_bf16(ctx):
    assert expand("<!-- rl:sparse_ratio -->", ctx, "t") == "4"
    assert expand("<!-- rl:sparse_ratio a=bf16 -->", ctx, "t") == "2"  # sparsity alone
