"""A true scrollbar (#49): the lesson's scroll height on load is the height it has once every
block has been drawn (scrolled to the end), within 10 %. Blocks that skip layout until near
view (content-visibility: auto) reserve a placeholder height instead of their own; the lesson
once reported 59,410 px on load and 23,155 px once scrolled (visibility.css says why none is
used now). The seeded defect puts that rule back and the check reports it."""

from __future__ import annotations

import pytest

from site_helpers import LESSON

pytestmark = pytest.mark.browser

# Sum of the page's layout shifts so far (what Lighthouse's CLS adds up on a short page),
# read two painted frames after load: the entries delivered by then and those still queued
# on the observer (takeRecords), so no timer decides which shifts are counted.
SHIFTS_JS = """() => new Promise((done) => { let sum = 0;
  const add = (entries) => { for (const e of entries) sum += e.value; };
  const po = new PerformanceObserver((list) => add(list.getEntries()));
  po.observe({type: 'layout-shift', buffered: true});
  requestAnimationFrame(() => requestAnimationFrame(() => {
    add(po.takeRecords()); po.disconnect(); done(sum); })); })"""

# Scroll a screen at a time to the end, two frames per step (a skipped block near view is laid
# out in the next frame); the scroll height then is what every block really takes.
SCROLL_TO_END_JS = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (let i = 0; i < 500; i++) {
    window.scrollBy(0, innerHeight); await frame();
    if (scrollY + innerHeight >= document.documentElement.scrollHeight - 2) break;
  }
  await frame();
  const h = document.documentElement.scrollHeight; window.scrollTo(0, 0); return h; }"""

# The rule as it was before #49: a 40rem placeholder for every block below the first heading.
SEEDED_PLACEHOLDERS = """@media screen { .md-typeset > h2 ~ :is(div, figure, ol, ul, table,
  details):not(.roofline-block):not(:has(.roofline-block)) { content-visibility: auto;
  contain-intrinsic-size: auto 40rem; } }"""


def _heights(w, css: str = "") -> tuple[int, int]:
    w.page.wait_for_load_state("load")
    if css:
        w.page.add_style_tag(content=css)
    on_load = w.page.evaluate("() => document.documentElement.scrollHeight")
    return on_load, w.page.evaluate(SCROLL_TO_END_JS)


def lies(on_load: int, drawn: int) -> bool:
    return abs(on_load - drawn) > 0.10 * drawn


@pytest.mark.parametrize("width", [1280, 412])
def test_the_scroll_height_on_load_is_the_real_one(built_site, open_page, width):
    w = open_page((built_site / LESSON).as_uri(), width=width, height=823)
    on_load, drawn = _heights(w)
    assert drawn > 10_000  # the whole lesson, else this proves nothing
    assert not lies(on_load, drawn), (on_load, drawn)
    w.assert_clean()


def test_seeded_placeholders_make_the_scrollbar_lie(built_site, open_page):
    w = open_page((built_site / LESSON).as_uri(), width=412, height=823)
    on_load, drawn = _heights(w, SEEDED_PLACEHOLDERS)
    assert lies(on_load, drawn), (on_load, drawn)
