"""Predict, then reveal, in Chromium: the Checkpoint's guess form driven by keyboard alone,
one page load per palette, from file:// with every BokehJS request refused: the form works
before and without Bokeh. Also the glossary's focusable first mentions, and axe with the form
revealed."""

from __future__ import annotations

import json
import re

import pytest

from roofline import fmt

from pagecheck import COLOUR_RULES, axe_violations
from site_helpers import LESSON

pytestmark = [pytest.mark.browser, pytest.mark.slow]


# Every axe rule in light; in dark the rules that read colours, the only ones the palette
# changes (the same split as the every-page views, test_quality_browser.py).
AXE_RULES = {"light": None, "dark": COLOUR_RULES}


def on_screen(page, locator) -> None:
    """Scroll a block into view and wait until Chromium renders it: below the fold it skips
    rendering (visibility.css), innerText of skipped content is empty (while checkVisibility()
    still says true of the block), and the skip is lifted at a rendering step, not by the
    scroll itself, which a loaded machine can delay."""
    locator.scroll_into_view_if_needed()
    page.wait_for_function("el => el.innerText.trim() !== ''", arg=locator.element_handle())


def ctx_name(draw: dict) -> str:
    """The chip a draw's givens name, as the catalog spells it."""
    from roofline.model.catalog import default_catalog
    return default_catalog()[draw["hw"]].name


@pytest.mark.parametrize("palette", ["light", "dark"])
def test_predict_then_reveal_by_keyboard(built_site, tab_pool, palette):
    w = tab_pool.tab(scheme=palette)
    refused: list[str] = []

    def no_bokeh(route):
        refused.append(route.request.url)
        route.abort()
    w.page.route(re.compile(r"bokeh[^/]*\.js"), no_bokeh)
    page = w.page
    page.goto((built_site / LESSON).as_uri())
    try:
        root = page.locator("[data-rl-predict]")
        form, result, answer = (root.locator("form"), root.locator(".rl-predict-result"),
                                root.locator(".rl-predict-answer"))
        # On screen as a reader meets it: below the fold the block skips rendering
        # (visibility.css), and innerText of skipped content is empty whatever it holds.
        on_screen(page, root)
        assert form.is_visible() and not root.locator(".rl-predict-nojs").is_visible()
        assert result.get_attribute("aria-live") == "polite"
        assert result.inner_text() == "" and not answer.is_visible()  # nothing before a guess
        data = json.loads(root.locator("script.rl-predict-data").text_content())

        # The givens come first: the first case's first draw, before any guess.
        first = data["cases"][0]["draws"][0]
        givens = root.locator(".rl-predict-givens")
        assert givens.is_visible() and ctx_name(first) in givens.inner_text()

        # Keyboard only: op (second case), New numbers (its second draw), memory-bound, "5" µs,
        # Enter.
        page.focus("#rl-predict-case")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        page.keyboard.press("Space")
        page.keyboard.press("Tab")
        page.keyboard.type("5")
        page.keyboard.press("Enter")
        assert page.eval_on_selector("#rl-predict-case", "e => e.value") == data["cases"][1]["id"]
        drawn = data["cases"][1]["draws"][1]
        assert root.locator(".rl-predict-draw-n").inner_text() == (
            f"draw 2 of {len(data['cases'][1]['draws'])}")
        assert ctx_name(drawn) in givens.inner_text()
        truth = drawn["answer"]
        result.wait_for()
        said = result.inner_text()
        assert said.startswith(f"{'Right' if truth['regime'] == 'memory' else 'Not quite'}: "
                               f"it is {truth['regime']}-bound"), said
        assert "You said 5 µs" in said
        assert answer.is_visible() and "FLOPs" in answer.inner_text()
        assert page.evaluate("typeof window.Bokeh") == "undefined"  # revealed without Bokeh

        # A new question hides the old answer until the next guess, and starts at its first draw.
        page.focus("#rl-predict-case")
        page.keyboard.press("ArrowDown")
        assert result.inner_text() == "" and not answer.is_visible()
        assert root.locator(".rl-predict-draw-n").inner_text().startswith("draw 1 of")
        # An empty time is refused, in words, through the same live region.
        page.focus("#rl-predict-time")
        page.keyboard.press("Control+A")
        page.keyboard.press("Backspace")
        page.keyboard.press("Enter")
        assert "least time it takes" in result.inner_text() and not answer.is_visible()

        # Glossary: each term's first mention is focusable and carries its definition.
        abbrs = page.eval_on_selector_all(
            "article abbr", "els => els.map(e => [e.textContent, e.title, e.tabIndex])")
        assert {a[0] for a in abbrs} >= {"MFU", "HFU", "HBM", "ridge point"}
        titles = [a[1] for a in abbrs]
        assert len(titles) == len(set(titles)) and all(a[2] == 0 and a[1] for a in abbrs)
        page.focus("article abbr")
        assert page.evaluate("document.activeElement.tagName") == "ABBR"

        # Console clean so far (axe itself, next, fetches stylesheets that file:// refuses).
        errors = list(w.errors)
        page.focus("#rl-predict-time")
        page.keyboard.type("50")
        page.keyboard.press("Enter")
        assert answer.is_visible()
        # The glossary tooltip of the abbr focused above is taken down a moment after it loses
        # focus (Material mounts it in <body>, outside the landmarks): axe judges the page after.
        page.wait_for_function("() => !document.querySelector('.md-tooltip2')")
        assert axe_violations(page, AXE_RULES[palette]) == []
    finally:
        tab_pool.release(w)
    assert not [e for e in errors if "bokeh" not in e.lower() and "roofline" not in e.lower()
                and "failed to load" not in e.lower()], errors


MODEL_JS = """(names) => { const d = window.roofline.documents[0];
  return Object.fromEntries(names.map((n) => [n, d.get_model_by_name(n)]).map(([n, m]) =>
    [n, m.data !== undefined ? m.data : (m.text !== undefined ? m.text : m.value)])); }"""


@pytest.mark.parametrize("palette", ["light", "dark"])
def test_widget_tokens_slider_and_launch_floor_by_keyboard(site_url, tab_pool, palette):
    """§6's roofline, keyboard only: the tokens slider's End key is a training step, a mark's
    button is batch-1 decode, the presets offer the model's ops; the verdict, readout, URL and
    the launch floor follow (the same figures `roofline ops` prints), and axe finds nothing."""
    from pagecheck import settle
    from roofline.model.launch import load_launch
    w = tab_pool.tab(scheme=palette)
    page = w.page
    try:
        page.goto(site_url(LESSON))
        settle(page)
        models = lambda: page.evaluate(MODEL_JS, ["readout", "verdict", "launch-floor",  # noqa
                                                  "tokens-points", "tokens-slider"])

        def after(text):
            page.wait_for_function("(t) => window.roofline.documents[0]"
                                   ".get_model_by_name('readout').text.includes(t)", arg=text,
                                   timeout=5000)
            return models()
        handle = page.locator(".roofline-block [role=slider][aria-label='Tokens per step']")
        assert handle.count() == 1
        handle.focus()
        page.keyboard.press("End")
        from roofline.model.ops import default_zoo
        train = int(default_zoo().preset("gemm-train").shape["m"])  # the slider's last mark
        m = after(f"{train:,} tokens per step")
        assert m["tokens-points"]["color"][-1] == "#2e9e48"  # the MLP GEMMs under the roof
        preset = page.get_by_label("Op preset", exact=True)
        preset.focus()
        page.keyboard.press("End")  # the last preset: gate/up/down_proj at the slider's tokens
        m = after("gate/up/down_proj takes")
        ai = float(re.search(r"AI ([\d,]+) FLOP/byte", m["readout"])[1].replace(",", ""))
        assert ai > 295 and m["verdict"].startswith("Compute-bound")  # past the H100's ridge
        page.get_by_role("button", name="Decode 1", exact=True).focus()
        page.keyboard.press("Enter")
        m = after("1 token per step")
        assert "AI 1 FLOP/byte" in m["readout"] and m["verdict"].startswith("Memory-bound")
        # RMSNorm at 64 tokens: the launch outlasts its bytes; the floor is FLOPs / launch.
        page.get_by_role("button", name="Decode 64", exact=True).focus()
        page.keyboard.press("Enter")
        preset.focus()
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowUp")
        m = after("input/post norm takes")
        launch = load_launch().seconds
        assert "64 tokens per step" in m["readout"]
        assert m["verdict"].startswith("Overhead-bound: its 4 µs launch outlasts")
        # The launch is a gap added to the roofline time (#26): the op's ceiling is
        # FLOPs / (its roofline time + the launch), the model's attainable_flops_per_s.
        from roofline.model.catalog import default_catalog
        from roofline.model.launch import attainable_flops_per_s
        from roofline.model.ops import rmsnorm
        h100 = default_catalog()["h100-sxm"]
        op = rmsnorm(64, 4096, 2)  # rows × d × 4 FLOPs an element (roofline ops: 1.05 M)
        best = attainable_flops_per_s(op.flops, op.bytes, h100.peak_flops_per_s("bf16"),
                                      h100.hbm_bandwidth_bytes_per_s, launch)
        assert m["launch-floor"]["y"] == [pytest.approx(best / 1e12)] * 2
        assert f"best {fmt.tflops(best)}" in m["readout"]
        # The URL follows the state as the widget writes it (the tokens, then the op): wait for
        # both, not for the first, which a loaded machine can show alone.
        page.wait_for_function("() => location.search.includes('tokens=64') && "
                               "location.search.includes('op=input_layernorm')", timeout=3000)
        assert axe_violations(page, AXE_RULES[palette]) == []
        w.assert_clean()
    finally:
        tab_pool.release(w)
