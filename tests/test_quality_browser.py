"""Quality gates in Chromium on every page: no outside request and no console error over http
and file://, zero axe-core violations in the light and the dark palette."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from sitecheck import pages

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
pytestmark = pytest.mark.browser


def _page_urls(site: Path, base: str) -> list[str]:
    # 404.html uses root-absolute URLs (a server shows it at any depth), so it only works
    # served; from file:// it is never shown.
    return [base + str(p.relative_to(site)) for p in pages(site)
            if not (base.startswith("file:") and p.name == "404.html")]


def _settle(page) -> None:
    """Scroll through the page so lazily loaded plots load, then wait for the network."""
    page.wait_for_load_state("load")
    page.evaluate("""async () => {
        for (let y = 0; y < document.body.scrollHeight; y += 600) {
            window.scrollTo(0, y); await new Promise(r => setTimeout(r, 60)); }
        window.scrollTo(0, 0); }""")
    page.wait_for_load_state("networkidle")


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_every_page_is_self_contained_and_error_free(built_site, site_server, open_page, scheme):
    base = site_server.url if scheme == "http" else built_site.as_uri() + "/"
    urls = _page_urls(built_site, base)
    assert len(urls) >= 3
    for url in urls:
        w = open_page(url)
        _settle(w.page)
        assert w.external == [], f"{url}: {w.external}"
        assert w.errors == [], f"{url}: {w.errors}"
        w.page.context.close()


def _axe(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})); }""")


@pytest.mark.parametrize("palette", ["default", "slate"])
def test_axe_finds_no_violations(built_site, site_server, open_page, palette):
    assert AXE.exists(), "run `npm ci` (the README's test command does)"
    failures = {}
    for url in _page_urls(built_site, site_server.url):
        w = open_page(url, scheme="dark" if palette == "slate" else "light")
        w.page.evaluate("s => document.body.setAttribute('data-md-color-scheme', s)", palette)
        _settle(w.page)
        w.page.wait_for_timeout(150)  # let the plots restyle after the palette switch
        violations = _axe(w.page)
        if violations:
            failures[url] = violations
        w.page.context.close()
    assert failures == {}
