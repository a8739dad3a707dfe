"""The hardware page's "which chip?" tables and the op-zoo page's MoE passage: each figure is
roofline.model.chip_ranking's or roofline.model.moe's, and a bad marker argument names its field."""

from __future__ import annotations

import re

import pytest

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model.chip_ranking import compare, running_example
from roofline.model.memory import sharding_text, what_fits
from roofline.model.tokens import critical_tokens
from roofline.model.transformer import get_model
from lesson_site import build  # noqa: F401  (registers every marker)
from lesson_site.context import load_context
from lesson_site.markers import expand


@pytest.fixture(scope="module")
def ctx():
    return load_context()


@pytest.mark.parametrize("phase", ["decode", "train"])
def test_which_chip_is_compare_on_the_running_example(ctx, phase):
    html = expand(f"<!-- rl:which_chip phase={phase} -->\n", ctx, "docs/hardware.md")
    c = compare(get_model(running_example()["model"]), phase, running_example()["batch"], running_example()["seq"],
                ctx.catalog, running_example()["precision"])
    names = re.findall(r'<th scope="row"[^>]*>([^<]+)</th>', html)
    assert names == [r.name for r in c.rows]
    first = c.rows[0]
    assert fmt.num(first.gpu_hours_per_billion_tokens, 3) in html
    assert get_model(running_example()["model"]).name in html and "$" not in html  # no bundled price
    fact = expand(f"<!-- rl:which_chip_fact phase={phase} field=name -->", ctx, "x.md")
    assert fact == first.name


def test_the_training_table_shows_the_least_sharding_that_fits(ctx):
    html = expand("<!-- rl:which_chip phase=train -->\n", ctx, "docs/hardware.md")
    ex = running_example()
    fix = what_fits(get_model(ex["model"]), ex["batch"], ex["seq"], 2.0,
                    ctx.hw("h100-sxm").hbm.capacity_bytes, flash=True, dp_degree=8)
    assert f"no: {sharding_text(fix)} over 8 GPUs" in html


def test_moe_passage_numbers_are_the_rules(ctx):
    h100 = ctx.hw("h100-sxm")
    dense = critical_tokens(h100.peak_flops_per_s("bf16"), h100.hbm_bandwidth_bytes_per_s, 2.0)
    text = expand("<!-- rl:moe_value model=deepseek-v3 field=critical --> "
                  "<!-- rl:moe_value model=mixtral-8x7b field=per_expert batch=256 --> "
                  "<!-- rl:moe_value model=deepseek-v3 field=touched batch=1 -->", ctx, "x.md")
    assert text.split() == [fmt.num(dense * 256 / 8, 3), "64", "8"]
    table = expand("<!-- rl:moe_table -->\n", ctx, "docs/op-zoo.md")
    assert re.findall(r'<th scope="row"[^>]*>([^<]+)</th>', table) == [
        "Mixtral 8x7B", "Mixtral 8x22B", "DeepSeek-V3", "Qwen3 30B-A3B"]
    assert "8 / 102 / 256" in table  # DeepSeek-V3's experts touched at batch 1 / 16 / 256


@pytest.mark.parametrize("text, field", [
    ("<!-- rl:which_chip phase=serve -->\n", "phase"),
    ("<!-- rl:which_chip_fact phase=train field=price -->", "field"),
    ("<!-- rl:which_chip_fact phase=train field=name rank=99 -->", "rank"),
    ("<!-- rl:moe_value model=llama-3.1-8b field=k -->", "model"),
    ("<!-- rl:moe_value model=mixtral-8x7b field=q -->", "field"),
])
def test_bad_arguments_name_the_field(ctx, text, field):
    with pytest.raises(RooflineError) as err:
        expand(text, ctx, "docs/x.md")
    assert err.value.field == field and "docs/x.md" in str(err.value)
