"""The budget explorer's words and paper follow its controls (#49): the page loaded once, each
of its ten controls changed in turn, the caption and the printed record of the settings read
back, and print media emulated after a change.

The caption's oracle is the catalog's and the model's names through Python; the record's,
the values the test set. Paper shows the static drawing, redrawn for the setting on screen: its
readout is the live readout's.
"""

from __future__ import annotations

import pytest

from pagecheck import first_block_ready, frames, poll
from roofline.model.catalog import default_catalog
from roofline.model.transformer import get_model

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PAGE = "budget.html"
PHASES = {"train": "training", "prefill": "prefill", "decode": "decode"}


def caption(model: str, phase: str, batch: int) -> str:
    """The budget figure's caption for a setting (the oracle)."""
    return (f"Where one {PHASES[phase]} step of {get_model(model).name} at batch {batch} × "
            f"4,096 tokens on the {default_catalog()['h100-sxm'].name} spends its time: the "
            "waterfall charges each leak its share of step time, from 100 % of peak down to the "
            "MFU, the bars split the step by op class, and each fusion you tick shrinks the "
            "memory-bound bars.")


# The budget block's caption (without "Figure n:"), record, static readout and whether each
# shows, with the live readout's text.
BLOCK_JS = """() => {
  const b = [...document.querySelectorAll('.roofline-block')].find(
    (e) => e.querySelector(':scope > .roofline-static .roofline-static-text'));
  const cap = b.querySelector(':scope > .roofline-caption');
  const num = cap.querySelector('.rl-fignum');
  const rec = b.querySelector(':scope > .roofline-record');
  const text = b.querySelector(':scope > .roofline-static > .roofline-static-text');
  const wide = b.querySelector(':scope > .roofline-static svg.roofline-svg-wide');
  const shown = (el) => !!el && getComputedStyle(el).display !== 'none' &&
    el.getBoundingClientRect().height > 0;
  const doc = Bokeh.documents.find((d) => d.get_model_by_name('budget-fusions'));
  return {caption: cap.textContent.replace(num ? num.textContent : '', '').trim(),
          fignum: num ? num.textContent : null, record: rec ? rec.textContent : '',
          recordShown: shown(rec), captionShown: shown(cap), drawingShown: shown(wide),
          staticText: text ? text.textContent : null, staticShown: shown(text),
          liveShown: shown(b.querySelector(':scope > .roofline-target')),
          readout: doc.get_model_by_name('budget-readout').text};
}"""


@pytest.fixture(scope="module")
def budget_page(built_site, tab_pool):
    """The budget page, loaded once for this module's tests (its controls changed in place)."""
    w = tab_pool.tab()
    w.page.goto((built_site / PAGE).as_uri())
    w.page.locator(".roofline-block", has=w.page.locator("script.roofline-item")).first \
        .scroll_into_view_if_needed()
    first_block_ready(w.page, timeout_ms=30000, errors=w.errors)
    w.page.wait_for_function(
        "() => window.Bokeh && Bokeh.documents && "
        "Bokeh.documents.some((d) => d.get_model_by_name('budget-fusions'))", timeout=20000)
    yield w
    tab_pool.release(w)


def set_control(page, name: str, prop: str, value) -> None:
    page.evaluate("""([n, p, v]) => { Bokeh.documents.find((d) => d.get_model_by_name(n))
      .get_model_by_name(n)[p] = v; }""", [name, prop, value])
    frames(page)


def test_the_budget_caption_and_record_follow_each_control(budget_page):
    page = budget_page.page
    first = poll(page, BLOCK_JS, lambda s: s["readout"] != "")
    assert first["caption"] == caption("llama-2-7b", "train", 4)
    assert first["fignum"] and first["fignum"].startswith("Figure ")
    assert not first["recordShown"]  # on screen the controls say it
    assert first["record"].startswith("Settings: training step of Llama 2 7B at batch 4 ×")
    assert first["staticText"] == first["readout"]  # the build drew the page's first setting
    steps = [("budget-model", "value", "llama-3-8b", ("llama-3-8b", "train", 4), "Llama 3 8B"),
             ("budget-batch", "value", "1", ("llama-3-8b", "train", 1), "at batch 1 ×"),
             ("budget-fusions", "active", [0, 3], None, "fused: norm, flash,"),
             ("budget-efficiency", "value", 0.6, None, "GEMM efficiency 60%"),
             ("budget-launch", "value", 10.0, None, "launch overhead 10 µs"),
             ("budget-dp", "value", "64", None, "64 data-parallel GPUs"),
             ("budget-overlap", "value", 0.5, None, "all-reduce overlap 50%"),
             ("budget-zero", "value", "3", None, "ZeRO stage 3"),
             ("budget-recompute", "value", "selective", None, "recomputation selective"),
             ("budget-phase", "value", "decode", ("llama-3-8b", "decode", 1), "decode step")]
    want = caption("llama-3-8b", "train", 4)
    for name, prop, value, view, says in steps:
        set_control(page, name, prop, value)
        if view:
            want = caption(*view)
        got = poll(page, BLOCK_JS, lambda s, want=want, says=says:
                   s["caption"] == want and says in s["record"])
        assert got["fignum"] == first["fignum"], got  # the figure keeps its number
    # a decode step has no data-parallel, ZeRO or recomputation knob to record
    assert "ZeRO" not in got["record"] and "GEMM efficiency 60%" in got["record"], got
    # the static drawing (paper's) follows, after the texts
    got = poll(page, BLOCK_JS, lambda s: s["staticText"] == s["readout"])
    assert got["staticText"] != first["staticText"]
    budget_page.assert_clean()


def test_paper_prints_the_setting_on_screen_with_its_record(budget_page):
    page = budget_page.page
    set_control(page, "budget-phase", "value", "train")
    set_control(page, "budget-model", "value", "llama-3-70b")
    on_screen = poll(page, BLOCK_JS, lambda s: "Llama 3 70B" in s["caption"] and
                     s["staticText"] == s["readout"])
    page.emulate_media(media="print")
    try:
        paper = page.evaluate(BLOCK_JS)
    finally:
        page.emulate_media(media="screen")
    assert paper["recordShown"] and paper["captionShown"] and paper["drawingShown"], paper
    assert not paper["liveShown"], paper
    assert paper["staticShown"] and paper["staticText"] == on_screen["readout"], paper
    assert paper["record"].startswith("Settings: training step of Llama 3 70B"), paper
    # a print straight after a change (as the caption changes, before the drawing's timer):
    # the drawing is drawn before the page prints
    drawn = page.evaluate("""() => new Promise((done) => {
      const b = [...document.querySelectorAll('.roofline-block')].find(
        (e) => e.querySelector(':scope > .roofline-static .roofline-static-text'));
      const cap = b.querySelector(':scope > .roofline-caption');
      const doc = Bokeh.documents.find((d) => d.get_model_by_name('budget-fusions'));
      new MutationObserver((_, obs) => {
        if (!cap.textContent.includes('Llama 2 7B')) return;
        obs.disconnect();
        window.dispatchEvent(new Event('beforeprint'));
        done([b.querySelector('.roofline-static-text').textContent,
              doc.get_model_by_name('budget-readout').text]);
      }).observe(cap, {childList: true, characterData: true, subtree: true});
      doc.get_model_by_name('budget-model').value = 'llama-2-7b';
    })""")
    assert drawn[0] == drawn[1], drawn
