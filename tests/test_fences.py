"""The ```roofline fence: options become a widget, bad input fails loudly with page and line."""

from __future__ import annotations

import markdown
import pytest
from pymdownx.superfences import SuperFencesException

from roofline import fences


def render(text: str, page: str | None = "notes/page.md") -> str:
    md = markdown.Markdown(extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": fences.custom_fences()}})
    token = fences.PAGE.set((page, text) if page else None)
    try:
        return md.convert(text)
    finally:
        fences.PAGE.reset(token)


def fence(body: str) -> str:
    return f"# Title\n\nIntro.\n\n```roofline\n{body}\n```\n"


def test_fence_renders_a_block_with_the_named_models():
    html = render(fence("hardware: a100-sxm-80gb\nprecision: bf16\n"
                        "ops: [rmsnorm, gemm-train]\nai: 2"))
    assert html.count('class="roofline-block"') == 1
    for name in ("roofline-figure", "ai-slider", "readout", "verdict", "hardware", "precision",
                 "presets"):
        assert f'"name":"{name}"' in html, name
    assert "NVIDIA A100 SXM4 80GB" in html


def test_empty_fence_uses_the_defaults():
    assert 'class="roofline-block"' in render(fence(""))


def test_same_input_gives_byte_identical_html():
    text = fence("hardware: h100-sxm\nceilings: [sram, host]")
    assert render(text) == render(text)


def test_registry_lists_roofline():
    assert "roofline" in fences.FENCES
    assert {f["name"] for f in fences.custom_fences()} >= {"roofline"}


@pytest.mark.parametrize("body, key, line, words", [
    ("hardware: h100-sxm\nprecison: bf16", "precison", 7, "unknown option"),
    ("hardware: h1000", "hardware", 6, "unknown hardware 'h1000'"),
    ("hardware: tpu-v5e\nprecision: fp8", "precision", 7, "unknown precision 'fp8'"),
    ("ops: [rmsnorm, nope]", "ops", 6, "unknown op 'nope'"),
    ("ai: -3", "ai", 6, "ai must be a number"),
    ("ai: lots", "ai", 6, "expected a number"),
    ("height: 5", "height", 6, "height must be an integer"),
    ("ceilings: [attic]", "ceilings", 6, "unknown ceiling 'attic'"),
    ("url: maybe", "url", 6, "expected true/false"),
    ("ops: rmsnorm", "ops", 6, "expected a list"),
])
def test_bad_option_names_page_line_and_key(body, key, line, words):
    with pytest.raises(SuperFencesException) as err:
        render(fence(body))
    message = str(err.value)
    assert message.startswith(f"notes/page.md:{line}: ```roofline fence: key '{key}'"), message
    assert words in message
    assert "\n" not in message


def test_bad_yaml_is_named():
    with pytest.raises(SuperFencesException, match=r"notes/page.md:5: ```roofline fence: bad YAML"):
        render(fence("ops: [rmsnorm"))


def test_without_a_page_the_message_still_names_the_key():
    with pytest.raises(SuperFencesException, match=r"^```roofline fence: key 'hardware'"):
        render(fence("hardware: h1000"), page=None)
