"""The browser quality gates as functions of a loaded page, so the same code checks every page
of the site and a small fixture page with a seeded defect (tests/test_quality_gates.py):

- the request guard and console gate: conftest.watch() records outside requests and console /
  page errors on a Watched page; page_problems() reads them;
- axe-core: axe_violations(page);
- hostile URL state: pwned(page) says whether a payload from tests/cases/hostile_urls.json ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def settle(page, *, timeout_ms: int = 20000) -> None:
    """Scroll through the page so lazily loaded plots start, let every plot block finish
    (ready, or failed, which the console gate reports), then wait for the network to idle."""
    page.wait_for_load_state("load")
    page.evaluate("""async () => {
        for (let y = 0; y < document.body.scrollHeight; y += 600) {
            window.scrollTo(0, y); await new Promise(r => setTimeout(r, 40)); }
        window.scrollTo(0, 0); }""")
    page.wait_for_function("""() => [...document.querySelectorAll('.roofline-block')]
        .every((b) => ['ready', 'failed'].includes(b.dataset.rooflineState))""",
                           timeout=timeout_ms)
    page.wait_for_load_state("networkidle")


def axe_violations(page) -> list[dict]:
    """axe-core's violations on the page as loaded (rule id, impact, first three nodes)."""
    assert AXE.exists(), "node_modules/axe-core is missing: run `npm ci` (scripts/test does)"
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})); }""")


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


def page_report(w, *, axe: bool) -> PageReport:
    """Run every page gate on a loaded, settled Watched page."""
    return PageReport(
        w.page.url, list(w.external), list(w.errors), axe_violations(w.page) if axe else [],
        w.page.get_attribute("body", "data-md-color-scheme"),
        w.page.evaluate("() => [...document.querySelectorAll('.roofline-block')]"
                        ".map((b) => b.dataset.rooflineState || 'unset')"))
