"""Quality gates in Chromium on every page of the built site, each page loaded once per view
(http light, http dark, file:// light) with every check run on that one load: no request leaves
the machine, no console or page error, every plot block ready, the palette the reader's system
asks for, and zero axe-core violations (over http; from file:// the DOM is the same). This
merges the "every page" tests test_site_browser.py and this file each had (six loads of every
page become three)."""

from __future__ import annotations

import pytest

from conftest import watch
from pagecheck import PageReport, page_report, settle
from sitecheck import pages
from site_helpers import LESSON

pytestmark = [pytest.mark.browser, pytest.mark.slow]
VIEWS = [("http", "light"), ("http", "dark"), ("file", "light")]


def _rels(site, scheme: str) -> list[str]:
    # 404.html uses root-absolute URLs (a server shows it at any depth), so it only works
    # served; from file:// it is never shown.
    return [p.relative_to(site).as_posix() for p in pages(site)
            if not (scheme == "file" and p.name == "404.html")]


@pytest.fixture(scope="module")
def view(built_site, site_url, browser):
    """view(scheme, palette) -> {page: PageReport}: every page of one view, each loaded once
    (on first use) and checked by every gate on that load."""
    loaded: dict[tuple[str, str], dict[str, PageReport]] = {}

    def _view(scheme: str, palette: str) -> dict[str, PageReport]:
        if (scheme, palette) not in loaded:
            out = {}
            for rel in _rels(built_site, scheme):
                ctx = browser.new_context(viewport={"width": 1280, "height": 900},
                                          color_scheme=palette)
                w = watch(ctx)
                w.page.goto(site_url(rel, scheme))
                settle(w.page)
                out[rel] = page_report(w, axe=scheme == "http")
                ctx.close()
            loaded[scheme, palette] = out
        return loaded[scheme, palette]
    return _view


class _EveryPage:
    """Every check for one view (scheme, palette). Each view is a class of its own so that
    pytest-xdist (--dist loadscope) can run the views on different workers; a worker loads only
    the views of the classes it runs."""
    scheme = palette = ""

    def reports(self, view) -> dict[str, PageReport]:
        return view(self.scheme, self.palette)

    def test_the_view_covers_every_page(self, view, built_site):
        reports = self.reports(view)
        assert {LESSON, "index.html", "hardware.html", "budget.html", "measure.html"} <= set(reports)
        assert len(reports) == len(pages(built_site)) - (self.scheme == "file")

    def test_no_request_leaves_the_machine(self, view):
        assert {rel: r.external for rel, r in self.reports(view).items() if r.external} == {}

    def test_no_console_or_page_error(self, view):
        assert {rel: r.errors for rel, r in self.reports(view).items() if r.errors} == {}

    def test_every_plot_block_is_ready(self, view):
        reports = self.reports(view)
        assert reports[LESSON].blocks, "the lesson has a plot"
        assert {rel: r.blocks for rel, r in reports.items()
                if any(b != "ready" for b in r.blocks)} == {}

    def test_palette_follows_the_readers_preference(self, view):
        expected = "slate" if self.palette == "dark" else "default"
        assert {rel: r.palette for rel, r in self.reports(view).items()
                if r.palette != expected} == {}


class _Axe:
    """axe-core over http only: from file:// the DOM is the same."""

    def test_axe_finds_no_violations(self, view):
        assert {rel: r.axe for rel, r in self.reports(view).items() if r.axe} == {}


class TestHttpLight(_EveryPage, _Axe):
    scheme, palette = "http", "light"


class TestHttpDark(_EveryPage, _Axe):
    scheme, palette = "http", "dark"


class TestFileLight(_EveryPage):
    scheme, palette = "file", "light"


def test_the_views_are_the_classes():
    """VIEWS lists what the classes check, and page_report runs axe exactly where _Axe is."""
    classes = [TestHttpLight, TestHttpDark, TestFileLight]
    assert [(c.scheme, c.palette) for c in classes] == VIEWS
    assert [issubclass(c, _Axe) for c in classes] == [s == "http" for s, _ in VIEWS]
