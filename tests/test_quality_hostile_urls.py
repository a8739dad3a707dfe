"""Hostile URL state: crafted query strings and hashes leave the lesson's widget working, run
nothing, and end in clamped or default values (issue 7's gate; ≥ 50 cases)."""

from __future__ import annotations

import math
from urllib.parse import quote

import pytest

from roofline.catalog import default_catalog

pytestmark = pytest.mark.browser
LESSON = "lessons/06-gpus-the-hardware-youre-renting.html"

# Each payload, if it ever ran, would set window.__pwned or add an element with id "pwned".
JS = "window.__pwned=1"
SCRIPTS = [
    f"<script>{JS}</script>",
    f'"><script>{JS}</script>',
    f"<img id=pwned src=x onerror={JS}>",
    f"<svg id=pwned onload={JS}>",
    f"javascript:{JS}",
    f"'-{JS}-'",
    f"</script><script>{JS}</script>",
    f"${{{JS}}}",
    f"<iframe id=pwned srcdoc='<script>parent.__pwned=1</script>'>",
    f'<a id=pwned href="javascript:{JS}">x</a>',
]
NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-999", "-5", "0", "-0",
           "1e308", "0x10", "1/0", "", " ", "2e", "١٢", "1,000", "10%", "1e4000", "null",
           "undefined", "[]", "{}", "9" * 400]
IDS = ["H100-SXM", "h100-sxm ", "../../etc/passwd", "__proto__", "constructor", "toString",
       "a" * 5000, "%00", "h100-sxm%00", "fp8\n", "bf16;drop"]

CASES: list[str] = []
for p in SCRIPTS:
    CASES += [f"?hardware={quote(p)}", f"#op={quote(p)}", f"?precision={quote(p)}&ai={quote(p)}"]
for n in NUMBERS:
    CASES.append(f"?ai={quote(n)}")
for i in IDS:
    CASES += [f"?hardware={quote(i)}&precision={quote(i)}", f"#op={quote(i)}"]
CASES += ["?" + "&".join(f"ai={k}" for k in range(300)), "?%E0%A4%A=1&ai=%", "#%", "?&&&==&=",
          "?__proto__[ai]=5", "?constructor[prototype][ai]=5", "#hardware=a100-sxm-80gb&ai=-3",
          "?ai=50#ai=NaN", "?ai=1e-9", "?ai=1e9"]


def test_there_are_at_least_fifty_cases():
    assert len(CASES) >= 50


CHECK = """() => {
  const d = window.roofline && window.roofline.documents[0];
  const m = (n) => d.get_model_by_name(n);
  return {pwned: window.__pwned === 1 || !!document.getElementById('pwned'),
          slider: m('ai-slider').value, hardware: m('hardware').value,
          precision: m('precision').value, readout: m('readout').text,
          verdict: m('verdict').text, title: document.title};
}"""


def test_hostile_url_state_is_clamped_or_ignored(site_server, browser):
    catalog = default_catalog()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    failures = []
    for case in CASES:
        page.goto("about:blank")
        page.goto(site_server.url + LESSON + case)
        page.locator(".roofline-block").first.scroll_into_view_if_needed()
        page.wait_for_selector(".roofline-block[data-roofline-state=ready]", timeout=20000)
        page.wait_for_timeout(50)
        s = page.evaluate(CHECK)
        ok = (not s["pwned"] and -2 - 1e-9 <= s["slider"] <= 4 + 1e-9
              and math.isfinite(s["slider"]) and s["hardware"] in catalog.accelerators
              and s["precision"] in catalog[s["hardware"]].peaks
              and "TFLOP/s" in s["readout"] and s["verdict"] and "<" not in s["readout"])
        if not ok:
            failures.append((case[:80], s))
    ctx.close()
    assert failures == []
    assert errors == [] and dialogs == []
