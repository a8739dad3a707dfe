"""The browser quality gates as functions of a loaded page, so the same code checks every page
of the site and a small fixture page with a seeded defect (tests/test_quality_gates.py):

- the request guard and console gate: conftest.TabPool's tabs record outside requests and
  console / page errors on a Watched page; page_problems() reads them;
- axe-core: axe_violations(page);
- hostile URL state: pwned(page) says whether a payload from tests/cases/hostile_urls.json ran.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


class NetLog:
    """A tab's requests in flight and when its network last did anything (a request started
    or ended, a document loaded), from Playwright's events: track_network(page) makes one."""

    def __init__(self) -> None:
        self.inflight: dict[object, str] = {}
        self.last = time.monotonic()

    def _touch(self, *_) -> None:
        self.last = time.monotonic()

    def _start(self, request) -> None:
        self.inflight[request] = request.url
        self._touch()

    def _end(self, request) -> None:
        self.inflight.pop(request, None)
        self._touch()


_NETWORK: "weakref.WeakKeyDictionary[object, NetLog]" = weakref.WeakKeyDictionary()

# How long the network must have been still for settle() to call a page done. Playwright's
# "networkidle" asks for 500 ms with no connection, waited out on every settle of a page whose
# blocks were ready sooner; a request the page makes later than this after its last activity
# is not waited for (tests/test_quality_gates.py seeds one 100 ms after load and sees it
# caught).
QUIET_MS = 200


def track_network(page) -> NetLog:
    """Record page's requests for settle()'s quiet wait (conftest.TabPool does this for every
    tab it opens)."""
    net = NetLog()
    page.on("request", net._start)
    page.on("requestfinished", net._end)
    page.on("requestfailed", net._end)
    page.on("load", net._touch)
    _NETWORK[page] = net
    return net


def network_quiet(page, *, quiet_ms: int = QUIET_MS, timeout_ms: int = 20000) -> None:
    """Wait until page has no request in flight and none started or ended, and no document
    loaded, for quiet_ms; a page without track_network waits for Playwright's networkidle. On a
    timeout, fail naming the requests still in flight."""
    net = _NETWORK.get(page)
    if net is None:
        page.wait_for_load_state("networkidle", timeout=timeout_ms)
        return
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        now = time.monotonic()
        still = now - net.last
        if not net.inflight and still >= quiet_ms / 1000:
            return
        if now > deadline:
            raise AssertionError(f"the network never went quiet for {quiet_ms} ms in "
                                 f"{timeout_ms} ms; in flight: {sorted(net.inflight.values())}")
        # Playwright delivers the events while it waits; wake as the window would close.
        page.wait_for_timeout(max(10, min(50, quiet_ms - still * 1000)))


def settle(page, *, timeout_ms: int = 20000, through: bool = False) -> None:
    """Bring each plot block into view as a reader scrolling to it would, so the loader starts
    it (it starts a block when one nears the viewport), let every block finish (ready, or
    failed, which the console gate reports), go back to the top, then wait for the network to
    go quiet (network_quiet), so a request the page makes late is still seen by the guard.

    through=False jumps from block to block; through=True scrolls the whole page past the
    viewport, a screenful at a time, as a reader reading it all would. Material does some work
    only for what has been on screen (a wide table's scroll wrapper becomes focusable once
    seen), so a gate judging that work (axe's every rule) needs the whole scroll; a jump
    spares Chromium painting every screenful of a 32,000 px page, about 1.5 s of CPU a load
    of the lesson (BENCHMARKS.md, 2026-12-03 evening)."""
    page.wait_for_load_state("load")
    if through:
        page.evaluate("""async () => {
            for (let y = 0; y < document.body.scrollHeight; y += 600) {
                window.scrollTo(0, y); await new Promise(r => setTimeout(r, 40)); }
            window.scrollTo(0, 0); }""")
    else:
        page.evaluate("""async (timeoutMs) => {
            const frame = () => new Promise(r => requestAnimationFrame(() => r()));
            for (const b of document.querySelectorAll('.roofline-block')) {
                b.scrollIntoView({block: 'center'});
                const until = performance.now() + timeoutMs;  // started: on to the next
                while (!b.dataset.rooflineState && performance.now() < until) await frame();
            }
            window.scrollTo(0, 0); }""", timeout_ms)
    page.wait_for_function("""() => [...document.querySelectorAll('.roofline-block')]
        .every((b) => ['ready', 'failed'].includes(b.dataset.rooflineState))""",
                           timeout=timeout_ms)
    network_quiet(page, timeout_ms=timeout_ms)


def poll(page, js: str, done, *, timeout_s: float = 5.0):
    """Evaluate js in the page every 20 ms until done(its value) holds, and return that value;
    after timeout_s, fail with the last value seen (a control's callback runs after the key,
    click or assignment that set it returns, and a widget's texts may follow later still)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = page.evaluate(js)
        if done(value):
            return value
        assert time.monotonic() < deadline, f"the page never got there: {value}"
        page.wait_for_timeout(20)


def frames(page, n: int = 2) -> None:
    """Wait n animation frames in the page: what a change set going has been painted (Bokeh
    repaints, and roofline.mjs places its live layer, on the next frame)."""
    page.evaluate("""(n) => new Promise((r) => { const step = (k) => k ? requestAnimationFrame(
        () => step(k - 1)) : r(); step(n); })""", n)


# What a page's plot blocks are doing, for a failure message: a wait that times out should say
# whether BokehJS came, which blocks started, and how the page was reached.
BLOCKS_JS = """() => ({url: location.href, readyState: document.readyState,
  navigation: (performance.getEntriesByType('navigation')[0] || {}).type, scrollY,
  bokeh: window.Bokeh ? window.Bokeh.version : null,
  blocks: [...document.querySelectorAll('.roofline-block')]
    .map((b) => b.dataset.rooflineState || 'not started'),
  scripts: [...document.scripts].map((s) => s.src.split('/').pop()).filter(Boolean)})"""


def first_block_ready(page, *, timeout_ms: int = 20000, errors: list | None = None) -> None:
    """Wait until the page's first plot block is ready; on a timeout, fail with what the page's
    blocks were doing (BLOCKS_JS) and the console errors seen, not Playwright's bare timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.wait_for_selector(".roofline-block[data-roofline-state=ready]", timeout=timeout_ms)
    except PlaywrightTimeout:
        raise AssertionError(f"no plot block ready after {timeout_ms} ms: "
                             f"{page.evaluate(BLOCKS_JS)}; console errors: {errors}") from None


# The axe rules that read the page's colours, the only ones whose outcome depends on the
# palette: axe's rules tagged cat.color that it runs by default (color-contrast-enhanced, AAA,
# is off by default). The dark view runs only these; the light view runs every rule on the same
# DOM. tests/test_quality_gates.py checks this list against axe itself and seeds a defect.
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def axe_violations(page, rules: tuple[str, ...] | None = None) -> list[dict]:
    """axe-core's violations on the page as loaded (rule id, impact, first three nodes): every
    rule axe runs by default, or only `rules`."""
    assert AXE.exists(), "node_modules/axe-core is missing: run `npm ci` (scripts/test does)"
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""async (rules) => {
        const opts = {resultTypes: ['violations']};
        if (rules) opts.runOnly = {type: 'rule', values: rules};
        const r = await axe.run(document, opts);
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})); }""",
                         list(rules) if rules else None)


# Each hostile payload, if it ever ran, sets window.__pwned or adds an element with id "pwned".
PWNED_JS = "() => window.__pwned === 1 || !!document.getElementById('pwned')"


def pwned(page) -> bool:
    return page.evaluate(PWNED_JS)


@dataclass
class PageReport:
    """What one page load showed: outside requests, console errors, axe violations."""
    url: str
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    axe: list[dict] = field(default_factory=list)
    palette: str | None = None          # Material's data-md-color-scheme on <body>
    blocks: list[str] = field(default_factory=list)  # each plot block's data-roofline-state


def page_report(w, *, axe: bool | tuple[str, ...]) -> PageReport:
    """Run every page gate on a loaded, settled Watched page; axe: True runs every rule, a
    tuple of rule ids only those, False none."""
    violations = axe_violations(w.page, None if axe is True else axe) if axe else []
    return PageReport(
        w.page.url, list(w.external), list(w.errors), violations,
        w.page.get_attribute("body", "data-md-color-scheme"),
        w.page.evaluate("() => [...document.querySelectorAll('.roofline-block')]"
                        ".map((b) => b.dataset.rooflineState || 'unset')"))
