"""Quality gates in Chromium on every page of the built site, each page loaded once per view
(http light, http dark, file:// light; 1280 px) with every check run on that one load: no
request leaves the machine, no console or page error, every plot block ready, the palette the
reader's system asks for, and zero axe-core violations over http (every rule in light; in dark
the rules that read colours, pagecheck.COLOUR_RULES, the only ones the palette changes; from
file:// the DOM is the same). The loads are conftest.site_views': the layout gate
(test_layout_browser.py) judges the same loads of the http views, and each view's tests run on
one worker (xdist_group)."""

from __future__ import annotations

import pytest

from conftest import view_gate, view_group, view_results
from pagecheck import COLOUR_RULES, PageReport, page_report, settle
from sitecheck import pages
from site_helpers import LESSON

pytestmark = [pytest.mark.browser, pytest.mark.slow]
# (scheme, palette) -> the axe rules run: True every rule, a tuple only those, False none.
AXE = {("http", "light"): True, ("http", "dark"): COLOUR_RULES, ("file", "light"): False}
VIEWS = list(AXE)
WIDTH = 1280


def _rels(site, scheme: str) -> list[str]:
    # 404.html uses root-absolute URLs (a server shows it at any depth), so it only works
    # served; from file:// it is never shown.
    return [p.relative_to(site).as_posix() for p in pages(site)
            if not (scheme == "file" and p.name == "404.html")]


@view_gate("quality", order=0, views=[(s, p, WIDTH) for s, p in VIEWS], pages=_rels)
def _quality(w, rel: str, view: tuple) -> PageReport:
    """Every quality gate on one loaded page: settled first (every plot started and done; the
    whole page scrolled through where axe runs every rule, pagecheck.settle)."""
    settle(w.page, through=AXE[view[:2]] is True)
    return page_report(w, axe=AXE[view[:2]])


class _EveryPage:
    """Every check for one view (scheme, palette). Each view is a class of its own, in its
    view's xdist_group, so pytest-xdist can run the views on different workers; a worker loads
    only the views of the classes it runs."""
    scheme = palette = ""

    def reports(self, site_views) -> dict[str, PageReport]:
        return view_results(site_views, "quality", self.scheme, self.palette, WIDTH)

    def test_the_view_covers_every_page(self, site_views, built_site):
        reports = self.reports(site_views)
        assert {LESSON, "index.html", "hardware.html", "budget.html", "measure.html"} <= set(reports)
        assert len(reports) == len(pages(built_site)) - (self.scheme == "file")

    def test_no_request_leaves_the_machine(self, site_views):
        assert {rel: r.external for rel, r in self.reports(site_views).items() if r.external} == {}

    def test_no_console_or_page_error(self, site_views):
        assert {rel: r.errors for rel, r in self.reports(site_views).items() if r.errors} == {}

    def test_every_plot_block_is_ready(self, site_views):
        reports = self.reports(site_views)
        assert reports[LESSON].blocks, "the lesson has a plot"
        assert {rel: r.blocks for rel, r in reports.items()
                if any(b != "ready" for b in r.blocks)} == {}

    def test_palette_follows_the_readers_preference(self, site_views):
        expected = "slate" if self.palette == "dark" else "default"
        assert {rel: r.palette for rel, r in self.reports(site_views).items()
                if r.palette != expected} == {}


class _Axe:
    """axe-core over http only: from file:// the DOM is the same."""

    def test_axe_finds_no_violations(self, site_views):
        assert {rel: r.axe for rel, r in self.reports(site_views).items() if r.axe} == {}


@pytest.mark.xdist_group(view_group("http", "light", WIDTH))
class TestHttpLight(_EveryPage, _Axe):
    scheme, palette = "http", "light"


@pytest.mark.xdist_group(view_group("http", "dark", WIDTH))
class TestHttpDark(_EveryPage, _Axe):
    scheme, palette = "http", "dark"


@pytest.mark.xdist_group(view_group("file", "light", WIDTH))
class TestFileLight(_EveryPage):
    scheme, palette = "file", "light"


def test_the_views_are_the_classes():
    """VIEWS lists what the classes check; axe runs exactly where _Axe is: every rule in light,
    the colour rules in dark."""
    classes = [TestHttpLight, TestHttpDark, TestFileLight]
    assert [(c.scheme, c.palette) for c in classes] == VIEWS
    assert [issubclass(c, _Axe) for c in classes] == [bool(AXE[v]) for v in VIEWS]
    assert AXE[("http", "light")] is True and AXE[("http", "dark")] == COLOUR_RULES
