"""docs/assets/stylesheets/visibility.css: below-the-fold blocks skip layout until near view,
and nothing in the first screen does, so the first screen never moves once drawn (a skipped
block there is drawn at its estimated height, then at its real one: a layout shift)."""

from __future__ import annotations

from pathlib import Path

CSS = (Path(__file__).resolve().parents[1] / "docs" / "assets" / "stylesheets"
       / "visibility.css").read_text(encoding="utf-8")

# Sum of the page's layout shifts so far (what Lighthouse's CLS adds up on a short page),
# read two painted frames after load: the entries delivered by then and those still queued
# on the observer (takeRecords), so no timer decides which shifts are counted.
SHIFTS_JS = """() => new Promise((done) => { let sum = 0;
  const add = (entries) => { for (const e of entries) sum += e.value; };
  const po = new PerformanceObserver((list) => add(list.getEntries()));
  po.observe({type: 'layout-shift', buffered: true});
  requestAnimationFrame(() => requestAnimationFrame(() => {
    add(po.takeRecords()); po.disconnect(); done(sum); })); })"""


def _page(css: str) -> str:
    """A lesson's first screen in miniature: a title, a box of goals, a paragraph, then a
    section below the fold."""
    goals = "".join(f"<li>Goal {i}, a line long enough to wrap once or twice at a phone's "
                    "width.</li>" for i in range(8))
    return (f"<!doctype html><html><head><style>{css}</style><style>body {{ margin: 0; "
            "font: 16px/1.5 sans-serif }} .md-typeset {{ padding: 8px }}</style></head><body>"
            f'<article class="md-typeset"><h1>Title</h1><div class="admonition"><ul>{goals}'
            '</ul></div><p>The paragraph after the box.</p><h2 id="s">Section</h2>'
            f"<div><p>{'Below the fold. ' * 200}</p></div></article></body></html>")


def _shift(open_page, css: str) -> float:
    w = open_page("about:blank", width=412, height=823)
    w.page.set_content(_page(css))
    return w.page.evaluate(SHIFTS_JS)


def test_the_first_screen_does_not_move(open_page):
    assert ".md-typeset > h2 ~ :is(" in CSS  # the rule this test is about
    assert _shift(open_page, CSS) < 0.001


def test_seeded_a_skipped_block_in_the_first_screen_moves_what_follows(open_page):
    # The rule as it was before #31: every top-level block skipped, the first screen's too.
    everywhere = CSS.replace(".md-typeset > h2 ~ :is(", ".md-typeset > :is(")
    assert everywhere != CSS
    assert _shift(open_page, everywhere) > 0.01
