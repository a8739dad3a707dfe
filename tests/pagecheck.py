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
    """A tab's requests in flight and a count of everything its network did (a request started
    or ended, a document loaded), from Playwright's events: track_network(page) makes one."""

    def __init__(self) -> None:
        self.inflight: dict[object, str] = {}
        self.events = 0

    def _touch(self, *_) -> None:
        self.events += 1

    def _start(self, request) -> None:
        self.inflight[request] = request.url
        self._touch()

    def _end(self, request) -> None:
        self.inflight.pop(request, None)
        self._touch()


_NETWORK: "weakref.WeakKeyDictionary[object, NetLog]" = weakref.WeakKeyDictionary()

# How long, in the page's own time, the network must have been still for settle() to call a
# page done. The window is a timer in the page, not a clock in this process: the HTML timer
# rules run a page's earlier timer of up to the same delay first, so a request the page makes
# from a timer of up to QUIET_MS set before the wait began (tests/test_quality_gates.py seeds
# one 100 ms after load) has been asked for before the window closes, however slow the
# machine. CONFIRM_MS more of page time then lets that request's event, which reaches this
# process by another path than the window's end, arrive before settle returns. (Playwright's
# "networkidle" waits 500 ms of wall time with no connection, which a busy machine can
# outlast before the page's own timers even run.)
QUIET_MS = 150
CONFIRM_MS = 50

_PAGE_WAIT_JS = "(ms) => new Promise((r) => setTimeout(r, ms))"


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
    """Wait until page has no request in flight and its network has done nothing (no request
    started or ended, no document loaded) for quiet_ms and then CONFIRM_MS of the page's own
    time; quiet_ms=0 waits for nothing in flight only. A page without track_network waits for
    Playwright's networkidle. timeout_ms only turns a page that never goes quiet into a failure
    naming the requests still in flight; what is waited for is the page's own events."""
    net = _NETWORK.get(page)
    if net is None:
        page.wait_for_load_state("networkidle", timeout=timeout_ms)
        return
    deadline = time.monotonic() + timeout_ms / 1000

    def check_deadline() -> None:
        if time.monotonic() > deadline:
            raise AssertionError(f"the network never went quiet for {quiet_ms} ms in "
                                 f"{timeout_ms} ms; in flight: {sorted(net.inflight.values())}")

    while True:
        while net.inflight:  # Playwright delivers the request events while the page waits
            check_deadline()
            page.wait_for_timeout(20)
        if not quiet_ms:
            return
        seen = net.events
        page.evaluate(_PAGE_WAIT_JS, quiet_ms)
        if net.events == seen and not net.inflight:
            page.evaluate(_PAGE_WAIT_JS, CONFIRM_MS)
            if net.events == seen and not net.inflight:
                return
        check_deadline()


# Resolves after three painted frames: BokehJS paints a change on the next animation frame
# (its paint is throttled to one a frame), and a layout that paint asks for on the one after, so
# what a change set going has come to is on screen. Counted in frames the page painted, not in
# milliseconds, so a slow machine waits as long as it needs. (Awaiting the views' `ready`
# promises instead can wait for ever: one of them never settles on these pages.)
BOKEH_IDLE_JS = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  for (let i = 0; i < 3; i++) await frame();
  return (window.Bokeh && window.Bokeh.index) ? window.Bokeh.index.roots.length : 0; }"""


def bokeh_idle(page) -> int:
    """Wait until BokehJS has painted what a change queued (BOKEH_IDLE_JS); returns the number of
    root views."""
    return page.evaluate(BOKEH_IDLE_JS)


def painted(page, *, timeout_ms: int = 20000) -> None:
    """After a scroll or a resize: every plot block the loader has started has finished (ready
    or failed), and BokehJS has painted what it had queued (bokeh_idle)."""
    page.wait_for_function("""() => [...document.querySelectorAll('.roofline-block')]
        .every((b) => !b.dataset.rooflineState || ['ready', 'failed']
        .includes(b.dataset.rooflineState))""", timeout=timeout_ms)
    bokeh_idle(page)


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
                window.scrollTo(0, y);
                await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); }
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
