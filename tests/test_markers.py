"""Markers: the registry refuses unknown names and arguments, names file, line and field, and
each number it prints is the model's."""

from __future__ import annotations

import pytest

from roofline import fmt
from roofline.model.catalog import default_catalog
from roofline.errors import RooflineError
from lesson_site import build
from lesson_site.context import load_context
from lesson_site.markers import REGISTRY, expand, parse


@pytest.fixture(scope="module")
def ctx():
    return load_context()


def test_unknown_marker_names_page_line_and_field(ctx):
    with pytest.raises(RooflineError) as err:
        expand("one\ntwo <!-- rl:hbm_bandwith -->\n", ctx, "docs/x.md")
    msg = str(err.value)
    assert "docs/x.md" in msg and "line 2" in msg and "rl:hbm_bandwith" in msg
    assert "hbm_tbps" in msg  # the valid names are listed


@pytest.mark.parametrize("text, field", [
    ("<!-- rl:ridge hw=h100 -->", "hardware"),
    ("<!-- rl:ridge precision=fp7 -->", "precision"),
    ("<!-- rl:ridge colour=red -->", "rl:ridge.colour"),
    ("<!-- rl:ridge digits=many -->", "digits"),
    ("<!-- rl:op op=rmsnorm field=speed -->", "field"),
    ("<!-- rl:op op=nope field=ai -->", "op"),
    ("<!-- rl:sm_fill m=x n=4 -->", "rl:sm_fill.m"),
    ("<!-- rl:ridge hw -->", "rl:ridge"),
    ("<!-- rl:ridge ", "rl:"),
    ("<!-- rl: -->", "rl:"),
    ("text <!-- rl:tiers_table --> text", "rl:tiers_table"),
])
def test_bad_markers_fail_naming_the_field(ctx, text, field):
    with pytest.raises(RooflineError) as err:
        expand(text, ctx, "docs/page.md")
    assert "docs/page.md" in str(err.value)
    assert f"'{field}'" in str(err.value)


def test_inline_numbers_are_the_models(ctx):
    h100 = default_catalog()["h100-sxm"]
    ridge = h100.ridge_flops_per_byte("bf16")
    out = expand("<!-- rl:ridge --> <!-- rl:ridge digits=3 --> <!-- rl:hbm_tbps --> "
                 "<!-- rl:peak_tflops --> <!-- rl:ridge precision=fp8 -->", ctx, "t")
    assert out.split() == [fmt.approx(ridge), fmt.num(ridge),
                           fmt.num(h100.hbm_bandwidth_bytes_per_s / 1e12),
                           fmt.num(h100.peak_flops_per_s("bf16") / 1e12),
                           fmt.approx(h100.ridge_flops_per_byte("fp8"))]
    # the lesson's golden claims: ridge ≈ 300 in bf16, ≈ 600 in fp8
    assert out.split()[0] == "300" and out.split()[-1] == "600"


def test_rmsnorm_ai_counts_read_and_write(ctx):
    assert expand("<!-- rl:op op=rmsnorm field=ai -->", ctx, "t") == "1"
    assert expand("<!-- rl:reads_only_ai -->", ctx, "t") == "2"


def test_block_marker_keeps_indent(ctx):
    out = expand("- item\n\n    <!-- rl:formula name=ridge -->\n", ctx, "t")
    assert all(line.startswith("    ") for line in out.splitlines()[2:] if line)


def test_parse_finds_every_marker_in_order():
    calls = parse("a <!-- rl:ridge --> b\n<!-- rl:hbm_tbps hw=h200 -->", "t")
    assert [(c.name, c.args, c.line) for c in calls] == [("ridge", {}, 1),
                                                        ("hbm_tbps", {"hw": "h200"}, 2)]

