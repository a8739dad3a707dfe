"""The teaching markers (site/teach.py): worked derivations, the tokens-per-step rule, FLOPs
against time, the launch floor and the problems' figures print the model's numbers, and follow
the catalog: with the H100's HBM set to 2 TB/s (in-process, no site build) each one changes."""

from __future__ import annotations

import re

import pytest

from roofline import fmt
from roofline.model.catalog import default_catalog, load_catalog
from roofline.model.ops import default_zoo
from lesson_site import build
from lesson_site.context import Context, load_context
from lesson_site.markers import expand
from roofline.model import datafile as _toml

from lesson_site import DATA_DIR as LESSON_DATA

NEW_BW = 2.0e12
LESSON_MD = "docs/lessons/06-gpus-the-hardware-youre-renting.md"

# Every teaching marker the lesson uses, as the lesson writes it.
TEACH = ["<!-- rl:norm_steps -->", "<!-- rl:gemm_steps -->", "<!-- rl:tokens_rule -->",
         "<!-- rl:tokens_table -->", "<!-- rl:flops_vs_time step=train -->",
         "<!-- rl:flops_vs_time step=decode -->", "<!-- rl:critical_tokens -->",
         "<!-- rl:critical_tokens field=activations -->",
         "<!-- rl:critical_tokens weight_bytes=1 -->", "<!-- rl:step_share -->",
         "<!-- rl:step_share fused=flash -->", "<!-- rl:step_share what=mfu -->",
         "<!-- rl:launch field=share -->", "<!-- rl:launch field=step -->",
         "<!-- rl:decode_tokens_per_s -->", "<!-- rl:decode_tokens_per_s weight_bytes=1 -->"]


@pytest.fixture(scope="module")
def ctx() -> Context:
    return load_context()


@pytest.fixture(scope="module")
def slow_ctx(tmp_path_factory) -> Context:
    """The same model with the H100 SXM's HBM at 2 TB/s, from an edited copy of the catalog."""
    text = (_toml.DATA_DIR / "hardware.toml").read_text(encoding="utf-8")
    # Only the H100 SXM's entry: another chip may have the same HBM (the H800's 3.35 TB/s).
    start = text.index('id = "h100-sxm"')
    end = text.index("[[accelerator]]", start)
    old = "bandwidth_bytes_per_s = 3.35e12"
    assert text[start:end].count(old) == 1, (
        "the H100 SXM HBM entry changed shape; update this test")
    edited = text[start:end].replace(old, f"bandwidth_bytes_per_s = {NEW_BW:.3g}")
    path = tmp_path_factory.mktemp("catalog") / "hardware.toml"
    path.write_text(text[:start] + edited + text[end:], encoding="utf-8")
    catalog = load_catalog(path)
    assert catalog["h100-sxm"].hbm_bandwidth_bytes_per_s == NEW_BW
    return Context(catalog, default_zoo())


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_lesson_uses_every_teaching_marker():
    page = (_toml.DATA_DIR.parents[2] / LESSON_MD).read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8") for p in LESSON_DATA.glob("*.toml"))
    for m in TEACH:
        name = m.split()[1]
        assert name in page, f"{name} not on the lesson page"


def test_worked_rmsnorm_prints_each_step_from_the_model(ctx):
    h100 = default_catalog()["h100-sxm"]
    p = ctx.point("rmsnorm", "h100-sxm", "bf16")
    out = _text(expand("<!-- rl:norm_steps -->", ctx, "t"))
    for piece in (f"= {fmt.count(p.op.flops)} FLOPs", f"total {fmt.capacity(p.op.bytes)}",
                  f"= {fmt.num(p.intensity_flops_per_byte)} FLOP/byte",
                  f"= {fmt.seconds(p.time_s)}", fmt.percent(p.fraction_of_peak),
                  fmt.bandwidth(h100.hbm_bandwidth_bytes_per_s), "memory-bound"):
        assert piece in out, (piece, out)


def test_worked_gemm_prints_2mnk_bytes_ai_and_time(ctx):
    p = ctx.point("gemm-train", "h100-sxm", "bf16")
    s = p.op.shape
    out = _text(expand("<!-- rl:gemm_steps -->", ctx, "t"))
    assert (f"2 × {int(s['m']):,} × {int(s['n']):,} × {int(s['k']):,} = "
            f"{fmt.count(p.op.flops)}") in out
    assert f"= {fmt.capacity(p.op.bytes)}" in out and "compute-bound" in out
    assert f"{fmt.num(p.intensity_flops_per_byte)} FLOP/byte" in out
    assert fmt.seconds(p.time_s) in out


def test_tokens_figures(ctx):
    out = expand("<!-- rl:critical_tokens --> <!-- rl:critical_tokens field=activations --> "
                 "<!-- rl:critical_tokens field=min --> <!-- rl:critical_tokens precision=fp8 --> "
                 "<!-- rl:critical_tokens weight_bytes=1 -->", ctx, "t").split()
    assert out == ["295", "328", "328", "295", "148"]


def test_flops_are_not_time(ctx):
    """Issue #26's figures for the running example, one pass (no recomputation): 0.11 % of the
    FLOPs; of the time about 19 % unfused and 6.4 % with FlashAttention once ZeRO-1 shards the
    optimizer (56.3 ms -> 7.04 ms), and 23 % and 7.5 % once the non-matmul ops' backward bytes
    are counted as their gradients move them (softmax 1.5 x, SiLU·mul 5n against 3n, RMSNorm
    ≈ 1.5 x; roofline.model.kernels)."""
    out = expand("<!-- rl:step_share what=memory_flops --> <!-- rl:step_share --> "
                 "<!-- rl:step_share fused=flash -->", ctx, "t").split()
    assert out == ["0.11%", "23%", "7.5%"]
    table = _text(expand("<!-- rl:flops_vs_time step=train -->", ctx, "t"))
    assert "FLOP share" in table and "Time share, fused" in table


def test_flops_vs_time_trains_a_run_that_fits(ctx):
    """§4's training step is the running example (ZeRO-1, full recomputation), which fits in
    the 85.5 GB an H100 lets programs use; the caption says so with the model's figures, and
    that ZeRO-1 shards the optimizer's work too. Seeded: the same step unsharded does not fit,
    and its caption would have to say something else."""
    from roofline.model.example import EXAMPLE
    from roofline.model.memory import Sharding
    from lesson_site import teach
    # The caption's run is the fused one, the running example (#46: it printed the unfused
    # run's memory and recomputation time as the example's).
    bg = teach._budget(ctx, "train", "h100-sxm", "bf16", frozenset(EXAMPLE.fusions))
    assert bg.sharding == EXAMPLE.sharding and bg.memory.fits
    text = _text(expand("<!-- rl:flops_vs_time step=train -->", ctx, "t"))
    assert f"{fmt.capacity(bg.memory.total)} of the 85.5 GB a GPU lets programs use" in text
    assert f"adds {fmt.seconds(bg.recompute_time_s)}:" in text
    unfused = teach._budget(ctx, "train", "h100-sxm", "bf16")
    assert f"{fmt.capacity(unfused.memory.total)} of the" not in text
    assert "ZeRO-1 over 8 data-parallel GPUs, so each keeps and updates 1/8" in text
    assert "not these kernels' floors" not in text  # the old, false caption
    import dataclasses
    assert not dataclasses.replace(bg, sharding=Sharding()).memory.fits
    # decode needs no sharding and gets no such note
    assert "ZeRO" not in _text(expand("<!-- rl:flops_vs_time step=decode -->", ctx, "t"))


def test_launch_gap_at_batch_1_decode(ctx):
    """roofline.model.launch: 483 launches × 4 µs = 1.93 ms on a 4.6 ms roofline step, +42 %;
    across the source's range, +9.5 % at 0.9 µs and +70 % at 6.7 µs."""
    from roofline.model.launch import load_launch
    out = expand("<!-- rl:launch --> <!-- rl:launch field=kernels --> "
                 "<!-- rl:launch field=share --> <!-- rl:launch field=share at=overlapped --> "
                 "<!-- rl:launch field=share at=synchronised -->", ctx, "t").split()
    assert out[0] == fmt.num(load_launch().seconds * 1e6) == "4"
    assert out[1:] == ["483", "42%", "9.5%", "70%"]


def test_problem_figures(ctx):
    out = expand("<!-- rl:decode_tokens_per_s --> <!-- rl:decode_tokens_per_s weight_bytes=1 -->"
                 " <!-- rl:decode_attention_ai --> <!-- rl:decode_attention_ai kv_heads=8 -->",
                 ctx, "t").split()
    rate16, rate8 = float(out[0].replace(",", "")), float(out[1].replace(",", ""))
    assert 240 < rate16 < 260 and rate8 == pytest.approx(2 * rate16, rel=0.01)
    assert float(out[3]) == pytest.approx(4 * float(out[2]), rel=0.01)  # 32 heads share 8 K/V


@pytest.mark.parametrize("marker", TEACH)
def test_changing_h100_bandwidth_changes_every_teaching_figure(ctx, slow_ctx, marker):
    before, after = expand(marker, ctx, "t"), expand(marker, slow_ctx, "t")
    assert before != after, f"{marker} ignores the catalog's H100 bandwidth"


def test_changed_bandwidth_flows_into_the_derivations(slow_ctx):
    ridge = 989.4e12 / NEW_BW
    t = _text(expand("<!-- rl:tokens_rule -->", slow_ctx, "t"))
    assert f"≈ {fmt.num(ridge)} tokens per step" in t  # peak × 2 B ÷ (2 × 2 TB/s)
    assert "2 TB/s" in _text(expand("<!-- rl:norm_steps -->", slow_ctx, "t"))
    table = _text(expand("<!-- rl:tokens_table -->", slow_ctx, "t")).replace("|", " ")
    row = re.search(r"H100 SXM5 80GB\s+([0-9,.]+)", table)
    assert row and row.group(1) == fmt.num(ridge)


# ---------------------------------------------------------------- problems, glossary

def test_problems_have_collapsed_worked_answers(ctx):
    out = expand("<!-- rl:problems -->", ctx, "t")
    assert out.count('??? success "Worked answer"') == 4
    for pid in ("critical-tokens", "decode-rate", "gqa", "a100-batch"):
        assert f'id="problem-{pid}"' in out
    t = _text(out)
    # A100: 153 by weights, 161.3 with activations
    assert "smallest compute-bound batch is **162**" in t


def test_glossary_defines_the_issue_terms_and_refuses_bad_lines(tmp_path):
    from roofline.errors import RooflineError
    from lesson_site.glossary import load_glossary
    terms = {t.term for t in load_glossary()}
    # Issue #27's list: every word the checks and the text lean on.
    wanted = {"roofline", "ridge point", "arithmetic intensity", "memory-bound", "compute-bound",
              "overhead-bound", "kernel", "launch", "fusion", "CUDA graph", "GEMM", "GEMV",
              "prefill", "decode", "KV cache", "tensor core", "HBM", "SRAM", "L2", "MFU", "HFU",
              "occupancy", "warp", "SM", "recomputation", "ZeRO"}
    assert wanted <= terms
    warp = next(t.definition for t in load_glossary() if t.term == "warp")
    assert "Volta" in warp and "need not run in lockstep" in warp  # not "execute in lockstep"
    bad = tmp_path / "g.md"
    bad.write_text("*[MFU]: one\nnot a definition\n", encoding="utf-8")
    with pytest.raises(RooflineError, match="line 2"):
        load_glossary(bad)
    bad.write_text("*[MFU]: one\n*[MFU]: two\n", encoding="utf-8")
    with pytest.raises(RooflineError, match="defined twice"):
        load_glossary(bad)


def test_only_a_terms_first_appearance_keeps_a_focusable_abbr():
    import markdown
    src = ("The MFU is low. MFU again, and *MFU* in emphasis.\n\n- HBM first\n- HBM again\n\n"
           "*[MFU]: Model FLOPs utilisation\n*[HBM]: High-bandwidth memory\n")
    out = markdown.markdown(src, extensions=["abbr", "lesson_site.glossary"])
    assert out.count("<abbr") == 2 and out.count('tabindex="0"') == 2
    assert '<abbr tabindex="0" title="Model FLOPs utilisation">MFU</abbr> is low. MFU again' in out
    assert "<em>MFU</em>" in out and "<li>HBM again</li>" in out
    plain = markdown.markdown(src, extensions=["abbr"])  # the seeded defect: every mention
    assert plain.count("<abbr") == 5 and "tabindex" not in plain


def test_an_abbr_inside_a_link_is_not_the_first_appearance():
    import markdown
    src = ("See [the roofline](#x) first, then the roofline here.\n\n"
           "*[roofline]: The best throughput an op can reach\n")
    out = markdown.markdown(src, extensions=["abbr", "lesson_site.glossary"])
    assert '<a href="#x">the roofline</a>' in out  # unwrapped inside the link
    assert out.count("<abbr") == 1 and 'then the <abbr tabindex="0"' in out
    plain = markdown.markdown(src, extensions=["abbr"])  # the seeded defect: an abbr in the link
    assert '<a href="#x">the <abbr' in plain
