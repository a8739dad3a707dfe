"""The serving window in Chromium, from file:// with every BokehJS request refused (it needs
none): its controls redraw the figure and the facts with the same JS the build drew them
with, the view goes to the URL and comes back from it, and a hostile query changes nothing."""

from __future__ import annotations

import re

import pytest

from roofline.widgets.window.figures import figures
from roofline.widgets.window.settings import WindowSettings

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PAGE = "serving.html"


def test_controls_redraw_and_the_url_keeps_the_view(built_site, tab_pool):
    w = tab_pool.tab(scheme="light")
    page = w.page
    page.route(re.compile(r"bokeh[^/]*\.js"), lambda route: route.abort())
    page.goto((built_site / PAGE).as_uri())
    root = page.locator(".rl-window").first
    root.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-rl-window-state') === 'ready'",
                           arg=root.element_handle())
    assert root.locator("form").is_visible()
    # the first frame the build drew is the one the page opens on
    want = figures(WindowSettings())["figures"]
    assert '"wall":%d' % want["wall"] in root.get_attribute("data-rl-window")
    facts = root.locator(".rl-window-facts").inner_text()
    assert f"Memory wall: B = {want['wall']}" in facts
    # a chip with more HBM: the wall moves to the model's figure for it
    h200 = figures(WindowSettings(hardware="h200"))["figures"]
    root.locator("select[name=hardware]").select_option("h200")
    page.wait_for_function(f"el => el.getAttribute('data-rl-window').includes('\"wall\":{h200['wall']}')",
                           arg=root.element_handle())
    assert f"Memory wall: B = {h200['wall']}" in root.locator(".rl-window-facts").inner_text()
    # a tighter latency budget from a preset: the cheapest batch is the budget's limit
    fast = figures(WindowSettings(hardware="h200", latency_ms=20))["figures"]
    root.locator("button[data-preset=interactive]").click()
    page.wait_for_function(f"el => el.getAttribute('data-rl-window').includes('\"best\":{fast['best']['batch']}')",
                           arg=root.element_handle())
    # the URL is written once the reader pauses: wait for the write that holds both changes
    page.wait_for_function("() => location.search.includes('whw=h200') && "
                           "location.search.includes('wlat=20')")
    search = page.evaluate("location.search")
    # the same URL opens on the same view
    page.goto((built_site / PAGE).as_uri() + search)
    root = page.locator(".rl-window").first
    page.wait_for_function("el => el.getAttribute('data-rl-window-state') === 'ready'",
                           arg=root.element_handle())
    assert root.locator("select[name=hardware]").input_value() == "h200"
    assert root.locator("input[name=latency]").input_value() == "20"


def test_a_hostile_query_is_ignored(built_site, tab_pool):
    w = tab_pool.tab(scheme="light")
    page = w.page
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((built_site / PAGE).as_uri()
              + "?wctx=-5&whw=%3Cscript%3E&wprice=1e400&wlat=NaN&wmodel=__proto__")
    root = page.locator(".rl-window").first
    page.wait_for_function("el => el.getAttribute('data-rl-window-state') === 'ready'",
                           arg=root.element_handle())
    want = figures(WindowSettings())["figures"]
    assert '"wall":%d' % want["wall"] in root.get_attribute("data-rl-window")
    assert root.locator("select[name=hardware]").input_value() == "h100-sxm"
    assert errors == []


def test_the_launch_mode_and_kv_precision_controls_redraw_and_say_so(built_site, tab_pool):
    w = tab_pool.tab(scheme="light")
    page = w.page
    page.goto((built_site / PAGE).as_uri())
    root = page.locator(".rl-window").first
    page.wait_for_function("el => el.getAttribute('data-rl-window-state') === 'ready'",
                           arg=root.element_handle())
    caption = root.locator(".rl-window-caption")
    assert "kernels replayed as CUDA graphs, 0.5 µs per kernel" in caption.inner_text()
    # eager launches, fp8 weights and an fp8 KV cache: the wall and the facts follow the
    # figures the build computes for the same view, and the caption says the view
    want = figures(WindowSettings(launch="eager", precision="fp8", kv_precision="fp8"))
    root.locator("select[name=launch]").select_option("eager")
    root.locator("select[name=precision]").select_option("fp8")
    root.locator("select[name=kv_precision]").select_option("fp8")
    wall = want["figures"]["wall"]
    page.wait_for_function(f"el => el.getAttribute('data-rl-window').includes('\"wall\":{wall}')",
                           arg=root.element_handle())
    facts = root.locator(".rl-window-facts").inner_text()
    assert want["facts"][1] in facts and "kernels launched eagerly, 4 µs per kernel" in facts
    text = caption.inner_text()
    assert "kernels launched eagerly, 4 µs per kernel" in text and "KV cache in fp8" in text
    page.wait_for_function("() => location.search.includes('wlaunch=eager') && "
                           "location.search.includes('wkv=fp8')")


def test_the_tensor_parallel_control_splits_the_model(built_site, tab_pool):
    w = tab_pool.tab(scheme="light")
    page = w.page
    page.goto((built_site / PAGE).as_uri() + "?wmodel=llama-3-70b")
    root = page.locator(".rl-window").first
    page.wait_for_function("el => el.getAttribute('data-rl-window-state') === 'ready'",
                           arg=root.element_handle())
    # Llama 3 70B on one H100 does not fit, and the facts name the split that does
    assert "Split over 2 chips it fits" in root.locator(".rl-window-facts").inner_text()
    want = figures(WindowSettings(model="llama-3-70b", tp=4))
    root.locator("select[name=tp]").select_option("4")
    page.wait_for_function(
        f"el => el.getAttribute('data-rl-window').includes('\"wall\":{want['figures']['wall']}')",
        arg=root.element_handle())
    facts = root.locator(".rl-window-facts").inner_text()
    assert want["facts"][1] in facts and "per replica" in facts
    assert "split over 4 chips" in root.locator(".rl-window-caption").inner_text()
    page.wait_for_function("() => location.search.includes('wtp=4')")
