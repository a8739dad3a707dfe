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
    a correction quoting the client's words, the model's fix, a link to the derivation,
    nothing left unexpanded."""
    _, entries = departures()
    notes = re.findall(r'<span class="rl-departure" role="note" data-departure="([a-z0-9-]+)">'
                       r'<strong class="rl-departure-title">Correction:</strong> “'
                       # a glossary term's first appearance may fall in a note (<abbr>)
                       r'((?:[^”<]|</?abbr\b[^>]*>)+)”: ((?:[^<]|</?abbr\b[^>]*>)*) '
                       r'<a href="[^"]+">\(derivation\)</a></span>', lesson_html)
    assert {e.id for e in entries} <= {n[0] for n in notes}, notes
    # No other shape of departure anywhere: every rl-departure span matched the pattern.
    assert lesson_html.count('class="rl-departure"') == len(notes)
    for _, _, text in notes:
        assert "rl:" not in text


def test_departure_figures_are_computed():
    """SRAM: 132 SMs × 128 B/clk × 1.98 GHz ≈ 33.5 TB/s ≈ 10× HBM. 228 KiB is the maximum
    shared memory per SM, 256 KiB the unified L1 (CUDA C++ Programming Guide)."""
    ctx = load_context()
    out = {e.id: expand(f"<!-- rl:departure id={e.id} -->", ctx, "test")
           for e in departures()[1]}
    assert "about 10×:" in out["sram-speedup"]
    assert "132 SMs × 128 bytes per clock × 1.98 GHz ≈ 33.5 TB/s" in out["sram-speedup"]
    assert "228 KiB is the most shared memory" in out["smem-per-sm"]
    assert "256 KiB L1/shared array; L2 is a tier of its own" in out["smem-per-sm"]
    assert "80 GiB (85.9 GB)" in out["hbm-gib"]
    with pytest.raises(RooflineError, match="unknown departure 'nope'"):
        expand("<!-- rl:departure id=nope -->", ctx, "test")


def test_tb_vs_tib_is_about_what_a_reader_sees(lesson_text):
    """HBM is binary: an H100 80GB is 80 GiB. The old text's "74.5 GiB as PyTorch reports it"
    was wrong."""
    assert "74.5" not in lesson_text
    assert "the H100's \"80 GB\" is 80 GiB (85.9 GB)" in lesson_text
    assert "3.35 TB/s is only 3.05 TiB/s" in lesson_text


def test_fp8_does_not_speed_up_the_norm(lesson_text):
    """FP8 training casts only GEMM operands to fp8 (NVIDIA Transformer Engine; Micikevicius et
    al. 2022, "FP8 Formats for Deep Learning"): norms stay bf16, so the RMSNorm's time floor is
    unchanged and the ridge moves right."""
    i = lesson_text.index("does an RMSNorm get faster?")
    answer = lesson_text[i:i + 900]
    assert "The RMSNorm does not get faster" in answer and "time floor stays 80.1 µs" in answer
    assert "halves" not in answer


def test_one_rounding_rule_for_the_peak(built_site, lesson_text):
    """The model prints 989 TFLOP/s everywhere (issue #13); 990 survives only in the client's
    own sentences (issue #46: its text is verbatim), the first of them corrected by a note,
    and no other page prints it."""
    assert lesson_text.count("989 TFLOP/s") >= 2
    # §2 and §6 in the client's words, and the §2 note quoting them
    assert lesson_text.count("990 TFLOP/s") == 3
    sec2 = lesson_text[lesson_text.index("roughly 990 TFLOP/s"):]
    note, table = sec2.index("the dense bf16 peak is the table's"), sec2.index("Rate")
    assert note < sec2.index("Put the two rates") < table < sec2.index("989 TFLOP/s")
    for page in built_site.rglob("*.html"):
        if page.name != LESSON.split("/")[-1]:
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
