"""The label gate with either font the pages may render in (issue 28: CI went red on a fresh
machine whose Chromium drew `sans-serif` in Liberation Sans, where the developers' drew DejaVu
Sans, and a layout made with one font's measured widths collided in the other).

The label layout (render/js/labels.mjs) no longer measures the machine's fonts: it sizes every
label from fontmetrics.mjs, the wider of DejaVu Sans and Liberation Sans glyph by glyph. Here a
Chromium whose fontconfig maps every family to one font (FONTCONFIG_FILE, a rule that assigns
the family) walks the live plots of the measure page (the page that failed) and the lesson at
a phone's width (every state of the measure page, the lesson's first frame), and runs the live label gate (overlaps, frame, crossings) with the real
font's canvas metrics: it must pass with each. A first assertion shows the override took: the
same string measures differently in the two."""

from __future__ import annotations

import os

import pytest

import layoutcheck
from conftest import CHROMIUM, CHROMIUM_ARGS
from test_layout_browser import LESSON, _WALK, _settle

FONTS = ("DejaVu Sans", "Liberation Sans")
CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <match target="pattern">
    <edit name="family" mode="assign_replace" binding="strong"><string>{font}</string></edit>
  </match>
</fontconfig>
"""
SAMPLE = "ridge 312 FLOP/byte"
MEASURE = """(s) => { const c = document.createElement('canvas').getContext('2d');
  c.font = "12px 'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif";
  return c.measureText(s).width; }"""


@pytest.fixture(scope="module")
def widths() -> dict[str, float]:
    return {}


@pytest.mark.browser
@pytest.mark.parametrize("font", FONTS)
def test_the_live_label_gate_passes_in_each_font(font, widths, site_server, browser, tmp_path):
    conf = tmp_path / "fonts.conf"
    conf.write_text(CONF.format(font=font), encoding="utf-8")
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    problems, states = [], 0
    # A second Chromium from the session's Playwright (a nested sync_playwright() cannot run),
    # with its own fontconfig.
    other = browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=env)
    try:
        page = other.new_page(viewport={"width": 412, "height": 900})
        # every state of the measure page (the page that failed); the lesson's first frame
        page.goto(site_server.url + "measure.html")
        page.wait_for_load_state("load")
        widths[font] = page.evaluate(MEASURE, SAMPLE)
        _settle(page)
        n, found = page.evaluate(_WALK % layoutcheck.CHECKS["live_labels"],
                                 ["live_labels", True, "measure.html"])
        states += n
        problems += found
        page.goto(site_server.url + LESSON)
        page.wait_for_load_state("load")
        _settle(page)
        problems += [f"{LESSON} first frame: {p}" for p in layoutcheck.run(page, "live_labels")]
    finally:
        other.close()
    assert states >= 60
    assert problems == [], f"{len(problems)} of {states} states in {font}:\n" + "\n".join(
        problems[:20])
    if len(widths) == len(FONTS):  # the override took: the two fonts measure apart
        a, b = (widths[f] for f in FONTS)
        assert abs(a - b) / max(a, b) > 0.05, widths
