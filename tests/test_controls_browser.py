"""One control look (#49): the lesson's Bokeh widgets (in their shadow roots), the serving
window's plain form and the profile page's file picker wear the same type size, colours, button
style and focus ring (render/blockstyle.py, one copy), in both palettes; a slider's drag leaves
its title readable, and a handle at either end of its track is drawn whole. Each page is loaded
once per palette."""

from __future__ import annotations

import pytest

from pagecheck import first_block_ready, frames

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LESSON = "lessons/06-gpus-the-hardware-youre-renting.html"

# Every control under `root` (shadow roots included), with the styles that make its look, and
# Material's primary colour and page colours, resolved by the page.
LOOK_JS = """(sel) => {
  const all = [];
  const walk = (n) => n.querySelectorAll('*').forEach((e) => {
    all.push(e); if (e.shadowRoot) walk(e.shadowRoot); });
  document.querySelectorAll(sel).forEach(walk);
  const probe = document.createElement('div');
  probe.style.cssText = 'background:var(--md-primary-fg-color);color:var(--md-default-fg-color);' +
    'border-color:var(--md-default-bg-color)';
  document.body.append(probe);
  const cs0 = getComputedStyle(probe);
  const page = {primary: cs0.backgroundColor, fg: cs0.color, bg: cs0.borderTopColor};
  probe.remove();
  const look = (e, pseudo) => { const c = getComputedStyle(e, pseudo);
    return {tag: e.tagName, type: e.type || '', size: c.fontSize, weight: c.fontWeight,
            family: c.fontFamily, color: c.color, bg: c.backgroundColor,
            radius: c.borderTopLeftRadius, border: c.borderTopColor,
            height: e.getBoundingClientRect().height}; };
  const out = [];
  for (const e of all) {
    if (e.tagName === 'SELECT' || e.tagName === 'BUTTON') out.push(look(e));
    else if (e.tagName === 'INPUT' && e.type === 'number') out.push(look(e));
    else if (e.classList.contains('rl-button')) out.push({...look(e), tag: 'FILE'});
  }
  return {page, controls: out};
}"""


def _open(built_site, tab_pool, rel: str, palette: str, ready: str):
    w = tab_pool.tab(scheme=palette)
    w.page.goto((built_site / rel).as_uri())
    w.page.locator(ready).first.scroll_into_view_if_needed()
    return w


@pytest.fixture(scope="module", params=["light", "dark"])
def pages(request, built_site, tab_pool):
    """The lesson, the serving page and the profile page in one palette, each loaded once."""
    lesson = _open(built_site, tab_pool, LESSON, request.param, ".roofline-block")
    first_block_ready(lesson.page, errors=lesson.errors)
    serving = _open(built_site, tab_pool, "serving.html", request.param, ".rl-window")
    serving.page.wait_for_selector(".rl-window[data-rl-window-state=ready]")
    profile = _open(built_site, tab_pool, "profile.html", request.param, ".rl-drop")
    profile.page.wait_for_selector(".rl-drop[data-rl-drop-state]")
    yield {"lesson": lesson, "serving": serving, "profile": profile, "palette": request.param}
    for w in (lesson, serving, profile):
        tab_pool.release(w)


def looks(pages) -> dict:
    return {"lesson": pages["lesson"].page.evaluate(LOOK_JS, ".roofline-block"),
            "serving": pages["serving"].page.evaluate(LOOK_JS, ".rl-window-controls"),
            "profile": pages["profile"].page.evaluate(LOOK_JS, ".rl-drop-form")}


def test_every_control_wears_one_look(pages):
    got = looks(pages)
    kinds = {where: {c["tag"] for c in L["controls"]} for where, L in got.items()}
    assert {"SELECT", "BUTTON"} <= kinds["lesson"], kinds
    assert {"SELECT", "BUTTON", "INPUT"} <= kinds["serving"], kinds
    assert "FILE" in kinds["profile"], kinds  # the file picker's button
    every = [(where, c, L["page"]) for where, L in got.items() for c in L["controls"]]
    sizes = {c["size"] for _, c, _ in every}
    assert len(sizes) == 1, f"{len(sizes)} type sizes: " + ", ".join(
        f"{w} {c['tag']} {c['size']}" for w, c, _ in every)
    assert 13.5 <= float(sizes.pop()[:-2]) <= 16  # Material's UI size, not Bokeh's 12-13 px
    assert len({c["family"] for _, c, _ in every}) == 1
    for where, c, page in every:
        what = f"{where} {c['tag']} ({pages['palette']})"
        assert c["radius"] == "2px", (what, c)
        if c["tag"] in ("BUTTON", "FILE"):  # Material's primary button: filled, bold
            assert c["bg"] == page["primary"], (what, c, page)
            assert c["weight"] == "700", (what, c)
        else:  # a field: the page's own colours, a visible border
            assert c["color"] == page["fg"] and c["bg"] == page["bg"], (what, c, page)
    fields = {c["height"] for _, c, _ in every if c["tag"] in ("SELECT", "INPUT")}
    assert max(fields) - min(fields) < 1, fields


def test_a_focused_control_shows_the_accent_ring(pages):
    page = pages["serving"].page
    page.keyboard.press("Shift")  # a keyboard user
    page.locator(".rl-window-controls select[name=hardware]").first.focus()
    ring = page.evaluate("""() => { const c = getComputedStyle(document.activeElement);
      return [document.activeElement.matches(':focus-visible'), c.outlineStyle,
              parseFloat(c.outlineWidth)]; }""")
    assert ring[0] and ring[1] == "solid" and ring[2] >= 2, ring
    # the file picker: its hidden input takes the focus, its button shows the ring
    page = pages["profile"].page
    page.keyboard.press("Shift")
    page.locator(".rl-drop-zone input[type=file]").focus()
    ring = page.evaluate("""() => { const b = document.querySelector('.rl-drop-zone .rl-button');
      const c = getComputedStyle(b);
      return [document.activeElement.matches(':focus-visible'), c.outlineStyle,
              parseFloat(c.outlineWidth)]; }""")
    assert ring[0] and ring[1] == "solid" and ring[2] >= 2, ring


SLIDERS_JS = """() => {
  const all = [];
  const walk = (n) => n.querySelectorAll('*').forEach((e) => {
    all.push(e); if (e.shadowRoot) walk(e.shadowRoot); });
  walk(document.querySelector('.roofline-block'));
  const box = (e) => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  return all.filter((e) => e.shadowRoot && e.shadowRoot.querySelector('.noUi-target')).map((s) => {
    const r = s.shadowRoot;
    const tip = r.querySelector('.noUi-tooltip');
    return {host: box(s), handle: box(r.querySelector('.noUi-handle')),
            title: box(r.querySelector('.bk-slider-title')),
            tip: tip && getComputedStyle(tip).display !== 'none' ? box(tip) : null};
  });
}"""


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_sliders_keep_their_title_and_whole_handles(pages):
    page = pages["lesson"].page
    doc = "window.roofline.documents[0]"
    for end in ("start", "end"):
        page.evaluate(f"""() => {{ for (const n of ['ai-slider', 'tokens-slider']) {{
          const m = {doc}.get_model_by_name(n); m.value = m.{end}; }} }}""")
        frames(page)
        for s in page.evaluate(SLIDERS_JS):
            assert s["host"][0] - 0.5 <= s["handle"][0] and s["handle"][2] <= s["host"][2] + 0.5, \
                (end, s)
    # a drag: the handle held down and moved; nothing covers the slider's title meanwhile
    s = page.evaluate(SLIDERS_JS)[0]
    x, y = (s["handle"][0] + s["handle"][2]) / 2, (s["handle"][1] + s["handle"][3]) / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 120, y, steps=4)
    try:
        during = page.evaluate(SLIDERS_JS)[0]
    finally:
        page.mouse.up()
    assert during["tip"] is None or not _overlap(during["tip"], during["title"]), during
