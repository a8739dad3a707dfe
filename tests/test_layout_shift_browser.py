"""No jump on the phone (#49): at 412 px every live block of the lesson, measure and budget pages
keeps its height when the live plot replaces the static first frame (the block reserves the
live layout's height for a phone's column: embed.block's narrow_px), and the static frame
shown there has the live plot's x range and ends its x axis at the live plot's last tick (the
narrow drawing is the live plot's size: widgets/roofline/static.mjs VARIANTS). Seeded: a block
that reserves only its desktop height, and a static frame whose last x tick is dropped, are
each reported."""

from __future__ import annotations

import pytest

from pagecheck import bokeh_idle
from site_helpers import LESSON

pytestmark = pytest.mark.browser

PAGES = (LESSON, "measure.html", "budget.html")
WIDTH = 412

# Each block as the reader first sees it: its height and, for the static drawing shown at this
# width, its x range and the value of its last x tick label.
_STATIC = """() => [...document.querySelectorAll('.roofline-block')].map((b) => {
  const svg = [...b.querySelectorAll('.roofline-static svg')]
    .find((s) => s.getBoundingClientRect().width > 0);
  const ticks = svg ? [...svg.querySelectorAll('text.rl-xtick')] : [];
  return { height: b.getBoundingClientRect().height, state: b.dataset.rooflineState || '',
           drawing: svg ? svg.getAttribute('class') : null,
           x: svg && svg.getAttribute('data-x-range')  // a roofline drawing's (not the budget's)
             ? svg.getAttribute('data-x-range').split(' ').map(Number) : null,
           lastTick: ticks.length ? Number(ticks[ticks.length - 1].textContent.replace(/,/g, ''))
                                  : null };
})"""

# The same once live: the figure's x range and its last tick inside it.
_LIVE = """() => [...document.querySelectorAll('.roofline-block')].map((b, i) => {
  const doc = window.roofline.documents[i];
  const fig = doc && doc.get_model_by_name('roofline-figure');
  const ticks = fig ? fig.below[0].ticker.ticks.filter((t) => t <= fig.x_range.end * 1.0001) : [];
  return { height: b.getBoundingClientRect().height, state: b.dataset.rooflineState || '',
           x: fig ? [fig.x_range.start, fig.x_range.end] : null,
           lastTick: ticks.length ? Math.max(...ticks) : null };
})"""


def static_then_live(page, url: str, seed: str = "") -> tuple[list[dict], list[dict]]:
    """Each block before (the static frame: nothing scrolled into view yet) and after the swap;
    `seed` (JS) runs on the page before anything is measured."""
    page.goto(url)
    page.wait_for_load_state("load")
    if seed:
        page.evaluate(seed)
    before = page.evaluate(_STATIC)
    for i in range(len(before)):
        page.evaluate("i => document.querySelectorAll('.roofline-block')[i].scrollIntoView()", i)
        page.wait_for_function("""i => ['ready', 'failed'].includes(
            document.querySelectorAll('.roofline-block')[i].dataset.rooflineState)""",
                               arg=i, timeout=20000)
    bokeh_idle(page)
    return before, page.evaluate(_LIVE)


def shift_problems(before: list[dict], after: list[dict]) -> list[str]:
    out = []
    for i, (a, b) in enumerate(zip(before, after)):
        if a["state"] == "ready":
            out.append(f"block {i}: live before it was measured")
        if b["state"] != "ready":
            out.append(f"block {i}: never went live ({b['state']})")
            continue
        if abs(a["height"] - b["height"]) > 0.5:
            out.append(f"block {i} moves what follows it: {a['height']:.0f} px static, "
                       f"{b['height']:.0f} px live ({b['height'] - a['height']:+.0f})")
        if b["x"] and (a["x"] is None or any(abs(p / q - 1) > 1e-6 for p, q in zip(a["x"], b["x"]))):
            out.append(f"block {i}: static x range {a['x']} is not the live {b['x']}")
        if b["lastTick"] and a["lastTick"] != pytest.approx(b["lastTick"]):
            out.append(f"block {i}: the static x axis ends at {a['lastTick']}, "
                       f"the live one at {b['lastTick']:g}")
    return out


@pytest.fixture()
def phone(tab_pool):
    w = tab_pool.tab(width=WIDTH)
    yield w.page
    tab_pool.release(w)


@pytest.mark.parametrize("rel", PAGES)
def test_the_live_plot_replaces_the_static_one_without_a_shift(rel, site_server, phone):
    before, after = static_then_live(phone, site_server.url + rel)
    assert before and len(before) == len(after)
    assert all(a["drawing"] for a in before), before
    assert shift_problems(before, after) == []


def test_seeded_a_desktop_reserve_and_a_dropped_tick_are_reported(site_server, phone):
    """The block reserving its desktop height alone (the phone's reserve taken away), and the
    static frame's last x tick label removed (the old narrow drawing had no room for
    "10,000"), must each be reported."""
    seed = """() => { for (const t of document.querySelectorAll('.rl-reserve'))
                        t.classList.remove('rl-reserve');
                      for (const s of document.querySelectorAll('.roofline-static svg')) {
                        const t = s.querySelectorAll('text.rl-xtick'); if (t.length) t[t.length - 1].remove(); } }"""
    found = shift_problems(*static_then_live(phone, site_server.url + LESSON, seed))
    assert any("moves what follows it" in p for p in found), found
    assert any("x axis ends at" in p for p in found), found
