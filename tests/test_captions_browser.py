"""What a figure's words say follows its controls, on screen and on paper (#49): the lesson's
roofline, the serving window and the measure page's roofline, each loaded once (one tab per
page, every control changed in it), read back in Chromium. (The budget explorer's:
test_budget_captions_browser.py.)

- The caption is the view's: chip, precision (the lesson); model, chip, context, price (the
  serving window). Its oracle here is the catalog through Python's own formatting, not the JS
  that writes it.
- Paper prints the view on screen: the static drawing, the caption and a one-line record of
  the settings (print media emulated after the controls changed).
- The measure page's drawing carries a measurement's overlay the live plot cannot redraw: for
  another view paper leaves it out and the record says the drawing is on screen only.
- The serving window keeps a typed price across a chip change, says at the field why a value is
  refused, keeps its figure's height as the chip changes, and keys only the regimes it draws.
"""

from __future__ import annotations

import pytest

from pagecheck import first_block_ready, frames, poll
from roofline import fmt
from roofline.model.catalog import default_catalog
from roofline.widgets.window.figures import figures
from roofline.widgets.window.settings import WindowSettings

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LESSON = "lessons/06-gpus-the-hardware-youre-renting.html"
SERVING = "serving.html"


def roofline_caption(hardware: str, precision: str) -> str:
    """The lesson figure's caption for a view, from the catalog (the oracle)."""
    hw = default_catalog()[hardware]
    return (f"The roofline of the {hw.name} in {precision}: an op left of the ridge at "
            f"{fmt.num(hw.ridge_flops_per_byte(precision))} FLOP/byte is held to the "
            f"{fmt.bandwidth(hw.hbm_bandwidth_bytes_per_s)} bandwidth slope and one right of it "
            f"to the {fmt.tflops(hw.peak_flops_per_s(precision))} roof, so move the AI slider "
            "or pick an op to see which of the two holds.")


# The first roofline block's caption (without its "Figure n:"), record and wide static drawing's
# title, and whether each shows.
BLOCK_JS = """() => {
  const b = document.querySelector('.roofline-block');
  const cap = b.querySelector(':scope > .roofline-caption');
  const num = cap.querySelector('.rl-fignum');
  const rec = b.querySelector(':scope > .roofline-record');
  const wide = b.querySelector('.roofline-static svg.roofline-svg-wide');
  const shown = (el) => !!el && getComputedStyle(el).display !== 'none' &&
    el.getBoundingClientRect().height > 0;
  return {caption: cap.textContent.replace(num ? num.textContent : '', '').trim(),
          fignum: num ? num.textContent : null, record: rec ? rec.textContent : null,
          recordShown: shown(rec), captionShown: shown(cap),
          drawing: wide ? wide.getAttribute('aria-label') : null,
          drawingShown: shown(wide)};
}"""


def set_model(page, name: str, value) -> None:
    page.evaluate("([n, v]) => { window.roofline.documents[0].get_model_by_name(n).value = v; }",
                  [name, value])
    frames(page)


@pytest.fixture(scope="module")
def lesson(built_site, tab_pool):
    """The lesson, loaded once for this module's tests (its controls changed in place)."""
    w = tab_pool.tab()
    w.page.goto((built_site / LESSON).as_uri())
    w.page.locator(".roofline-block").first.scroll_into_view_if_needed()
    first_block_ready(w.page, errors=w.errors)
    yield w
    tab_pool.release(w)


def test_the_lesson_caption_and_record_follow_each_control(lesson):
    page = lesson.page
    first = page.evaluate(BLOCK_JS)
    assert first["caption"] == roofline_caption("h100-sxm", "bf16")
    assert first["fignum"] and first["fignum"].startswith("Figure ")
    assert not first["recordShown"]  # on screen the controls say it
    steps = [("hardware", "a100-sxm-80gb", ("a100-sxm-80gb", "bf16"), "NVIDIA A100 SXM4 80GB"),
             ("precision", "fp32", ("a100-sxm-80gb", "fp32"), "precision FP32"),
             ("presets", "gemv-decode", ("a100-sxm-80gb", "fp32"), "op preset GEMV (decode)"),
             ("ai-slider", 1.5, ("a100-sxm-80gb", "fp32"), "arithmetic intensity 31.6 FLOP/byte"),
             ("tokens-slider", 6, ("a100-sxm-80gb", "fp32"), "64 tokens per step")]
    for name, value, (hw, prec), says in steps:
        set_model(page, name, value)
        want = roofline_caption(hw, prec)
        got = poll(page, BLOCK_JS, lambda s, want=want, says=says:
                   s["caption"] == want and says in s["record"])
        assert got["fignum"] == first["fignum"], got  # the figure keeps its number
    assert "A100 SXM4 80GB at FP32: ridge at 9.56 FLOP/byte" in got["drawing"]
    lesson.assert_clean()


def test_paper_prints_the_view_on_screen_with_its_record(lesson):
    page = lesson.page
    set_model(page, "hardware", "a100-sxm-80gb")
    set_model(page, "precision", "fp32")
    poll(page, BLOCK_JS, lambda s: "FP32: ridge at 9.56" in (s["drawing"] or ""))
    page.emulate_media(media="print")
    try:
        paper = page.evaluate(BLOCK_JS)
    finally:
        page.emulate_media(media="screen")
    assert paper["drawingShown"] and "NVIDIA A100 SXM4 80GB at FP32" in paper["drawing"], paper
    assert paper["captionShown"] and paper["caption"] == roofline_caption("a100-sxm-80gb", "fp32")
    assert paper["recordShown"], paper
    assert paper["record"].startswith("Settings: Hardware NVIDIA A100 SXM4 80GB, precision FP32")
    # a print straight after a change: the drawing (laid out after the texts, on a timer) is
    # drawn before the page prints
    # (the print comes as the caption changes: a mutation observer runs before any timer)
    title = page.evaluate("""() => new Promise((done) => {
      const cap = document.querySelector('.roofline-block > .roofline-caption');
      new MutationObserver((_, obs) => {
        if (!cap.textContent.includes('H200')) return;
        obs.disconnect();
        window.dispatchEvent(new Event('beforeprint'));
        done(document.querySelector('.roofline-static svg.roofline-svg-wide')
          .getAttribute('aria-label'));
      }).observe(cap, {childList: true, characterData: true, subtree: true});
      window.roofline.documents[0].get_model_by_name('hardware').value = 'h200';
    })""")
    assert title.startswith("Roofline of the NVIDIA H200"), title


# ---------------------------------------------------------------- the serving window

WINDOW_JS = r"""() => {
  const r = document.querySelector('.rl-window');
  const shown = (el) => !!el && getComputedStyle(el).display !== 'none' &&
    el.getBoundingClientRect().height > 0;
  const err = (n) => { const f = r.querySelector(`[name=${n}]`);
    const m = r.querySelector('#' + f.getAttribute('aria-describedby'));
    return {value: f.value, invalid: f.getAttribute('aria-invalid'),
            message: m && !m.hidden ? m.textContent : ''}; };
  return {caption: r.querySelector('.rl-window-caption').textContent,
          key: [...r.querySelectorAll('.rl-window-key span')].map(
            (sw) => sw.nextSibling.textContent.replace(/[,.]\s*$/, '').trim()),
          source: r.querySelector('.rl-window-source').textContent,
          record: r.querySelector('.rl-window-record').textContent,
          recordShown: shown(r.querySelector('.rl-window-record')),
          captionShown: shown(r.querySelector('.roofline-caption')),
          price: err('price'), latency: err('latency'),
          figure: r.querySelector('.rl-window-figure').getBoundingClientRect().height,
          block: r.getBoundingClientRect().height,
          figures: JSON.parse(r.getAttribute('data-rl-window'))};
}"""


@pytest.fixture(scope="module")
def serving(built_site, tab_pool):
    """The serving page, loaded once for this module's tests."""
    w = tab_pool.tab()
    page = w.page
    page.goto((built_site / SERVING).as_uri())
    root = page.locator(".rl-window").first
    root.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-rl-window-state') === 'ready'",
                           arg=root.element_handle())
    yield w, root
    tab_pool.release(w)


def choose(page, root, name: str, value: str) -> dict:
    root.locator(f"select[name={name}]").select_option(value)
    return page.evaluate(WINDOW_JS)


def regimes_drawn(W: dict) -> list[str]:
    """The regimes a view shades (the oracle for the key): each band inside the window, and
    "does not fit" past a wall inside the batch axis."""
    end = W["wall"] + 0.5 if W["wall"] >= 1 else 0.8
    names = {"launch": "launch-bound", "memory": "memory-bound", "compute": "compute-bound"}
    inside = {b["regime"] for b in W["bands"]
              if min(end, b["to"] + 0.5) > max(0.8, b["from"] - 0.5)}
    out = [names[k] for k in ("launch", "memory", "compute") if k in inside]
    return out + (["does not fit"] if W["wall"] < W["x_max"] else [])


def test_the_serving_caption_key_source_and_record_follow_the_controls(serving):
    w, root = serving
    page = w.page
    # nothing typed yet: the price follows the chip's bundled one, or none
    P = figures(WindowSettings())["payload"]
    st = choose(page, root, "hardware", "h200")
    assert float(st["price"]["value"]) == P["prices"]["h200"]["usd_per_hour"]
    assert st["source"].startswith(f"Price: ${P['prices']['h200']['usd_per_hour']:.2f} per GPU-hour")
    choose(page, root, "hardware", "mi300x")
    choose(page, root, "model", "llama-3-70b")
    st = choose(page, root, "context", "32768")
    want = figures(WindowSettings(model="llama-3-70b", hardware="mi300x", context=32768))
    chip = want["payload"]["chips"]["mi300x"]["label"]
    model = want["payload"]["models"]["llama-3-70b"]["label"]
    assert f"of {model} on the {chip}" in st["caption"] and "32,768 tokens" in st["caption"]
    assert st["source"].startswith(f"No price: the bundled prices have none for the {chip}")
    assert "$3.00" not in st["source"]
    assert st["record"].startswith(f"Settings: {model}, {chip},") and "no price" in st["record"]
    assert st["key"] == regimes_drawn(want["figures"]) == ["memory-bound", "does not fit"]
    # a price typed here: the record and the source say it
    root.locator("input[name=price]").fill("4.5")
    root.locator("input[name=price]").press("Enter")
    st = poll(page, WINDOW_JS, lambda s: "$4.50 per GPU-hour" in s["record"])
    assert st["source"].startswith("Price: $4.50 per GPU-hour, the one typed here")
    # paper: the record and the caption print; the controls do not
    page.emulate_media(media="print")
    try:
        paper = page.evaluate(WINDOW_JS)
    finally:
        page.emulate_media(media="screen")
    assert paper["recordShown"] and paper["captionShown"], paper
    w.assert_clean()


def test_paper_leaves_out_the_empty_price_frame(serving):
    """On screen a view without a price keeps the price panel's place (an empty frame, so the
    figure keeps its height); paper leaves it out."""
    w, root = serving
    page = w.page
    frame = ".rl-window-figure .rl-window-wide .rl-window-noprice"
    # a fresh view (the one reload of this module) on a chip without a price, nothing typed
    page.goto(page.url.split("?")[0] + "?whw=mi300x")
    root = page.locator(".rl-window").first
    page.wait_for_function("el => el.getAttribute('data-rl-window-state') === 'ready'",
                           arg=root.element_handle())
    assert page.locator(frame).first.is_visible()
    page.emulate_media(media="print")
    try:
        assert not page.locator(frame).first.is_visible()
    finally:
        page.emulate_media(media="screen")


def test_a_typed_price_survives_a_chip_change(serving):
    w, root = serving
    page = w.page
    root.locator("input[name=price]").fill("5")
    root.locator("input[name=price]").press("Enter")
    poll(page, WINDOW_JS, lambda s: "$5.00 per GPU-hour" in s["record"])
    for chip in ("a100-sxm-80gb", "mi300x", "h100-sxm"):
        st = choose(page, root, "hardware", chip)
        assert st["price"]["value"] == "5", (chip, st["price"])
        assert "$5.00 per GPU-hour" in st["record"], st["record"]


@pytest.mark.parametrize("typed", ["0", "-2", ""])
def test_a_refused_value_says_why_at_its_field(serving, typed):
    w, root = serving
    page = w.page
    field = root.locator("input[name=price]")
    field.fill("3.5")
    field.press("Enter")
    poll(page, WINDOW_JS, lambda s: "$3.50 per GPU-hour" in s["record"])
    field.fill(typed)
    field.press("Enter")
    st = poll(page, WINDOW_JS, lambda s: s["price"]["message"] != "")
    assert st["price"]["invalid"] == "true"
    assert "above $0" in st["price"]["message"]
    message = root.locator("input[name=price] + .rl-control-error")
    assert message.is_visible()
    assert "$3.50 per GPU-hour" in st["record"]   # the view keeps the last good price
    field.fill("2")
    field.press("Enter")
    st = poll(page, WINDOW_JS, lambda s: "$2.00 per GPU-hour" in s["record"])
    assert st["price"]["message"] == "" and st["price"]["invalid"] == "false"
    assert not message.is_visible()


def test_a_refused_latency_budget_says_why_and_a_blank_one_is_none(serving):
    w, root = serving
    page = w.page
    field = root.locator("input[name=latency]")
    field.fill("-1")
    field.press("Enter")
    st = poll(page, WINDOW_JS, lambda s: s["latency"]["message"] != "")
    assert "leave it blank" in st["latency"]["message"]
    field.fill("")
    field.press("Enter")
    st = poll(page, WINDOW_JS, lambda s: "no latency budget" in s["record"])
    assert st["latency"]["message"] == ""


def test_the_figure_keeps_its_height_as_the_chip_changes(serving):
    """No panel vanishes while the inputs change: the figure's height is measured after every
    resize during the changes (a ResizeObserver), and never moves."""
    w, root = serving
    page = w.page
    choose(page, root, "model", "llama-2-7b")
    choose(page, root, "context", "4096")
    page.evaluate("""() => { const f = document.querySelector('.rl-window-figure');
      window.__heights = [f.getBoundingClientRect().height];
      new ResizeObserver((es) => es.forEach((e) => window.__heights.push(
        e.target.getBoundingClientRect().height))).observe(f); }""")
    blocks = [page.evaluate(WINDOW_JS)["block"]]
    for chip in ("mi300x", "h100-sxm", "b200", "mi300x", "h200"):
        choose(page, root, "hardware", chip)
        frames(page)
        blocks.append(page.evaluate(WINDOW_JS)["block"])
    heights = page.evaluate("window.__heights")
    assert max(heights) - min(heights) < 0.5, heights
    # the block around it moves by at most a line of the facts
    assert max(blocks) - min(blocks) <= 0.05 * max(blocks), blocks


# ---------------------------------------------------------------- the measure page's roofline

ON_SCREEN_ONLY = "is on screen only"


@pytest.fixture(scope="module")
def measure_page(built_site, tab_pool):
    """The measure page (a roofline with a measurement's overlay), loaded once."""
    w = tab_pool.tab()
    w.page.goto((built_site / "measure.html").as_uri())
    w.page.locator(".roofline-block").first.scroll_into_view_if_needed()
    first_block_ready(w.page, errors=w.errors)
    yield w
    tab_pool.release(w)


def printed(page) -> dict:
    page.emulate_media(media="print")
    try:
        return {**page.evaluate(BLOCK_JS), "keyShown": page.evaluate(
            "() => getComputedStyle(document.querySelector('.roofline-block > .roofline-key'))"
            ".display !== 'none'")}
    finally:
        page.emulate_media(media="screen")


def test_the_measure_page_prints_no_stale_drawing(measure_page):
    """The live plot cannot draw the measurement's overlay again for another view: once the
    view is not the build's, paper leaves the build's drawing out and its record says the
    drawing is on screen only; back at the build's view, paper prints the drawing again."""
    page = measure_page.page
    paper = printed(page)
    assert paper["drawingShown"] and paper["keyShown"], paper
    assert ON_SCREEN_ONLY not in paper["record"], paper
    set_model(page, "hardware", "a100-sxm-80gb")
    want = roofline_caption("a100-sxm-80gb", "bf16")
    poll(page, BLOCK_JS, lambda s: s["caption"] == want and ON_SCREEN_ONLY in s["record"])
    paper = printed(page)
    assert not paper["drawingShown"], paper  # the build's H100 drawing is not this view's
    assert not paper["keyShown"], paper  # nor the key to its numbered ops
    assert paper["recordShown"] and paper["captionShown"], paper
    assert paper["record"].startswith("Settings: Hardware NVIDIA A100 SXM4 80GB"), paper
    set_model(page, "hardware", "h100-sxm")
    poll(page, BLOCK_JS, lambda s: "H100" in s["record"] and ON_SCREEN_ONLY not in s["record"])
    assert printed(page)["drawingShown"]
    measure_page.assert_clean()
