"""Issue #13 on the built site: the figures an expert checks, as a reader sees them, and the
departures from common figures made visible where ours are printed (one renderer, one look)."""

from __future__ import annotations

import re

import pytest

from roofline import RooflineError
from lesson_site import build
from lesson_site.context import load_context
from lesson_site.departures import departures
from lesson_site.markers import expand
from site_helpers import LESSON, main_text


@pytest.fixture(scope="module")
def lesson_html(built_site):
    return (built_site / LESSON).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def lesson_text(built_site):
    return main_text(built_site / LESSON)


def test_every_departure_is_rendered_the_same_way(lesson_html):
    """Each entry of data/departures.toml appears on the lesson page through the one marker:
    a note naming the often-quoted figure and computing ours, nothing left unexpanded."""
    _, entries = departures()
    notes = re.findall(r'<span class="rl-departure" role="note" data-departure="([a-z0-9-]+)">'
                       r'<strong class="rl-departure-title">([^<]+)</strong> Often quoted: “'
                       # a glossary term's first appearance may fall in a note (<abbr>)
                       r'([^”]+)”\. ((?:[^<]|</?abbr\b[^>]*>)*)</span>', lesson_html)
    assert {e.id for e in entries} <= {n[0] for n in notes}, notes
    # No other shape of departure anywhere: every rl-departure span matched the pattern.
    assert lesson_html.count('class="rl-departure"') == len(notes)
    for _, _, _, text in notes:
        assert "rl:" not in text and re.search(r"\d", text)


def test_departure_figures_are_computed():
    """SRAM: 132 SMs × 128 B/clk × 1.98 GHz ≈ 33.5 TB/s ≈ 10× HBM (the FlashAttention paper
    puts the A100 at ~19 TB/s: same arithmetic, 108 × 128 × 1.41 GHz). 228 KiB is the maximum
    shared memory per SM, 256 KiB the unified L1 (CUDA C++ Programming Guide). RMSNorm counts
    the write: AI 1, not 2 (issue #13)."""
    ctx = load_context()
    out = {e.id: expand(f"<!-- rl:departure id={e.id} -->", ctx, "test")
           for e in departures()[1]}
    assert "132 SMs × 128 bytes per clock × 1.98 GHz ≈ 33.5 TB/s, about 10×" in out["sram-speedup"]
    assert "≈ 19.5 TB/s here" in out["sram-speedup"]
    assert "228 KiB is the most shared memory" in out["smem-per-sm"]
    assert "The 256 KiB printed here" in out["smem-per-sm"]
    assert "AI = 1, at most 3.35 TFLOP/s" in out["rmsnorm-ai"]
    with pytest.raises(RooflineError, match="unknown departure 'nope'"):
        expand("<!-- rl:departure id=nope -->", ctx, "test")


def test_tb_vs_tib_is_about_what_a_reader_sees(lesson_text):
    """HBM is binary: an H100 80GB is 80 GiB; nvidia-smi shows 81,559 MiB (public nvidia-smi
    logs of H100 80GB HBM3). The old text's "74.5 GiB as PyTorch reports it" was wrong."""
    assert "74.5" not in lesson_text
    assert "the H100's \"80 GB\" is 80 GiB of HBM (85.9 GB)" in lesson_text
    assert "nvidia-smi shows 81,559 MiB" in lesson_text
    assert "3.35 TB/s is only 3.05 TiB/s" in lesson_text


def test_bf16_elementwise_math_uses_the_bf16_vector_roof(lesson_text):
    """H100 SXM peak BF16 non-Tensor is 133.8 TFLOP/s (H100 whitepaper), twice fp32's 66.9."""
    assert "packed bf16 (two values per instruction) reaches 134 TFLOP/s" in lesson_text


def test_fp8_does_not_speed_up_the_norm(lesson_text):
    """FP8 training casts only GEMM operands to fp8 (NVIDIA Transformer Engine; Micikevicius et
    al. 2022, "FP8 Formats for Deep Learning"): norms stay bf16, so the RMSNorm's time floor is
    unchanged and the ridge moves right."""
    i = lesson_text.index("does an RMSNorm get faster?")
    answer = lesson_text[i:i + 900]
    assert "The RMSNorm does not get faster" in answer and "time floor stays 80.1 µs" in answer
    assert "halves" not in answer


def test_one_rounding_rule_for_the_peak(built_site, lesson_text):
    """§6 printed 990 where every other line printed 989 (issue #13): the peak marker refuses
    any rounding but 3 figures or the 'call it' one, and no page prints 990 TFLOP/s."""
    assert lesson_text.count("989 TFLOP/s") >= 5
    for page in built_site.rglob("*.html"):
        assert "990 TFLOP" not in page.read_text(encoding="utf-8"), page
    with pytest.raises(RooflineError, match="digits=3"):
        expand("<!-- rl:peak_tflops digits=2 -->", load_context(), "test")


def test_layernorm_prompt_agrees_with_rmsnorm(lesson_text):
    """Per element read and written: RMSNorm AI 1, LayerNorm AI 2 in bf16."""
    assert "FLOPs per element read and written (2 + 2 bytes in bf16, so AI ≈ 1–2)" in lesson_text


def test_hardware_page_prints_binary_capacities(built_site):
    """Per-SM arrays and HBM in binary units as the hardware has them (issue #13): 256 KiB per
    SM, the H100 register file 33 MiB (= 34.6 MB, not the blog's "33.8 MB"), 80 GiB of HBM."""
    text = main_text(built_site / "hardware.html")
    assert "256 KiB" in text and "33 MiB" in text and "80 GiB" in text
    assert "256 kB" not in text and "85.9 GB" not in text and "262 kB" not in text
