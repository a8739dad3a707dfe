"""A gate that cannot fail is a defect: each quality gate, fed a small fixture with the defect it
guards against seeded in, must report it (and stay quiet on a clean fixture). The gates are the
same functions the site-wide tests call (tests/sitecheck.py, tests/pagecheck.py,
conftest.TabPool); the fixtures are in tests/quality/seeded/, or a few files in tmp_path.

Gate -> seeded test here:
- broken internal link or anchor (sitecheck.broken_links) -> test_link_gate_reports_*
- resource from another host, static scan (sitecheck.external_resources, cdn_mentions)
  -> test_static_outside_load_gate_reports_*
- reproducible build (sitecheck.differing_files) -> test_reproducibility_gate_reports_*
- Nu HTML validator (sitecheck.validate_html, html_problems) -> test_html_gate_*
- outside request in the browser (conftest.TabPool's request guard), console / page error,
  plot block not ready, axe-core, hostile URL that would execute (pagecheck) -> the browser
  tests at the end; settle's wait for a quiet network, so the guard sees a request made after
  load (pagecheck.network_quiet) -> test_settle_waits_for_a_request_made_after_load.
- a tab as clean as a fresh browser context (conftest.TabPool: its first page of an origin
  finds that origin's storage empty, each outside request is blamed on the tab that made it,
  its own width and colour scheme)
  -> test_tab_pool_*.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ViewFailure, serve, view_results
from pagecheck import (COLOUR_RULES, PWNED_JS, axe_violations, first_block_ready,
                       network_quiet, page_report, pwned, settle)
from sitecheck import (allowed_html_messages, broken_links, cdn_mentions, differing_files,
                       external_resources, html_problems, validate_html)

SEEDED = Path(__file__).parent / "quality" / "seeded"


@pytest.fixture
def tiny_site(tmp_path) -> Path:
    site = tmp_path / "site"
    (site / "lessons").mkdir(parents=True)
    (site / "index.html").write_text(
        '<h1 id="top">Home</h1><a href="lessons/one.html#part">lesson</a>', encoding="utf-8")
    (site / "lessons" / "one.html").write_text(
        '<h2 id="part">Part</h2><a href="../index.html#top">home</a>'
        '<script src="../app.js"></script>', encoding="utf-8")
    (site / "app.js").write_text("console.log('local');\n", encoding="utf-8")
    return site


# ---------------------------------------------------------------- links

def test_link_gate_passes_the_clean_tiny_site(tiny_site):
    assert broken_links(tiny_site) == []


def test_link_gate_reports_a_missing_file_and_a_missing_anchor(tiny_site):
    page = tiny_site / "lessons" / "one.html"
    page.write_text(page.read_text() + '<a href="../gone.html">x</a><a href="#nowhere">y</a>'
                    '<img src="../img/missing.png" alt="">', encoding="utf-8")
    problems = broken_links(tiny_site)
    assert len(problems) == 3, problems
    assert any("gone.html" in p and "missing file" in p for p in problems)
    assert any("no id 'nowhere'" in p for p in problems)
    assert any("missing.png" in p for p in problems)


# ---------------------------------------------------------------- outside loads (static scan)

def test_static_outside_load_gate_passes_the_clean_tiny_site(tiny_site):
    # prose and code samples about a CDN, and a plain link to one, are not loads
    (tiny_site / "about.html").write_text(
        "<p>Material's offline plugin fetches a polyfill from unpkg.com.</p>"
        "<pre><code>polyfills: [https://unpkg.com/iframe-worker]</code></pre>"
        '<a href="https://cdn.jsdelivr.net/">jsDelivr</a>', encoding="utf-8")
    assert external_resources(tiny_site) == [] and cdn_mentions(tiny_site) == []


def test_static_outside_load_gate_reports_a_cdn_script_and_font(tiny_site):
    (tiny_site / "index.html").write_text(
        '<script src="https://cdn.jsdelivr.net/npm/x.js"></script>'
        '<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">'
        '<a href="https://example.com/">a plain link is not a load</a>', encoding="utf-8")
    (tiny_site / "app.js").write_text('import("https://unpkg.com/lib");\n', encoding="utf-8")
    found = external_resources(tiny_site)
    assert len(found) == 2 and "cdn.jsdelivr.net" in found[0] and "fonts.googleapis" in found[1]
    assert {m.split(": ")[1] for m in cdn_mentions(tiny_site)} == {
        "cdn.jsdelivr", "fonts.googleapis", "unpkg.com"}


# ---------------------------------------------------------------- reproducible builds

def test_reproducibility_gate_reports_one_changed_byte_and_an_extra_file(tiny_site, tmp_path):
    import shutil
    again = tmp_path / "again"
    shutil.copytree(tiny_site, again)
    assert differing_files(tiny_site, again) == []
    data = bytearray((again / "lessons" / "one.html").read_bytes())
    data[5] ^= 1
    (again / "lessons" / "one.html").write_bytes(bytes(data))
    (again / "sitemap.xml.gz").write_bytes(b"\x1f\x8b")
    assert differing_files(tiny_site, again) == ["bytes differ: lessons/one.html",
                                                 "only in again: sitemap.xml.gz"]


# ---------------------------------------------------------------- the Nu HTML validator

@pytest.mark.slow
def test_html_gate_reports_a_duplicate_id_and_passes_listed_findings():
    """One validator run over three fixtures: a seeded duplicate id must be reported, a valid
    page must not, and a page whose only finding is on the allow-list (exact message, straight
    quotes as the validator prints them) must not."""
    files = [SEEDED / "duplicate-id.html", SEEDED / "valid.html", SEEDED / "material-input.html"]
    findings = validate_html(files)
    allowed = allowed_html_messages()
    by_file = {Path(f.file).name: [] for f in findings}
    for f in findings:
        by_file[Path(f.file).name].append(f.message)
    assert by_file.get("duplicate-id.html") == ['Duplicate ID "part".'], findings
    assert "valid.html" not in by_file
    assert by_file.get("material-input.html") and set(by_file["material-input.html"]) <= allowed
    assert [Path(f.file).name for f in html_problems(findings)] == ["duplicate-id.html"]


def test_html_gate_fails_when_the_validator_cannot_run(tmp_path, monkeypatch):
    """The defect the old gate had: a validator that never ran looked like a clean site."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no java
    with pytest.raises(AssertionError, match="validator"):
        validate_html([SEEDED / "duplicate-id.html"])


# ---------------------------------------------------------------- browser gates

def _load(open_page, name: str, query: str = ""):
    w = open_page((SEEDED / name).as_uri() + query, width=800, height=600)
    settle(w.page, timeout_ms=5000)
    return w


@pytest.mark.browser
def test_browser_gates_pass_the_clean_fixture(open_page):
    w = _load(open_page, "valid.html")
    report = page_report(w, axe=True)
    assert (report.external, report.errors, report.axe, report.blocks) == ([], [], [], [])
    assert not pwned(w.page)


@pytest.mark.browser
def test_request_guard_reports_every_outside_request(open_page):
    w = _load(open_page, "outside-request.html")
    assert sorted(w.external) == ["http://example.org/beacon",
                                  "https://cdn.example.com/logo.png",
                                  "https://fonts.googleapis.com/css?family=Roboto"]
    with pytest.raises(AssertionError, match="left the machine"):
        w.assert_clean()


@pytest.mark.browser
def test_console_gate_reports_console_and_page_errors_and_a_failed_plot(open_page):
    w = _load(open_page, "console-error.html")
    report = page_report(w, axe=False)
    assert "seeded console error" in report.errors
    assert any("seeded page error" in e for e in report.errors)
    assert report.blocks == ["failed"]
    with pytest.raises(AssertionError, match="console errors"):
        w.assert_clean()


@pytest.mark.browser
def test_axe_gate_reports_an_unnamed_image_and_button(open_page):
    w = _load(open_page, "axe-violation.html")
    ids = {v["id"] for v in axe_violations(w.page)}
    assert {"image-alt", "button-name", "color-contrast"} <= ids, ids


def test_a_gate_that_failed_on_one_page_of_a_view_fails_its_tests():
    """conftest.site_views keeps running the other gates when one raises on a page; the failed
    gate's tests must still fail, naming the page (view_results re-raises)."""
    views = {"quality": {"a.html": ["fine"], "b.html": ViewFailure(TimeoutError("settle"))}}
    with pytest.raises(AssertionError, match=r"quality gate failed on b\.html"):
        view_results(lambda *view: views, "quality", "http", "light", 1280)
    assert view_results(lambda *view: {"quality": {"a.html": ["fine"]}}, "quality", "http",
                        "light", 1280) == {"a.html": ["fine"]}


@pytest.mark.browser
def test_colour_only_axe_gate_reports_faint_text_and_runs_every_colour_rule(open_page):
    """The dark view's axe run (pagecheck.COLOUR_RULES only): it reports the seeded faint text
    and nothing else, and its rules are exactly those axe runs by default that read colours."""
    w = _load(open_page, "axe-violation.html")
    assert {v["id"] for v in axe_violations(w.page, COLOUR_RULES)} == {"color-contrast"}
    enabled = w.page.evaluate("""() => axe._audit.rules.filter((r) => r.enabled !== false &&
        r.tags.includes('cat.color')).map((r) => r.id).sort()""")
    assert enabled == sorted(COLOUR_RULES)


@pytest.mark.browser
def test_hostile_url_gate_reports_a_payload_that_ran(open_page):
    from urllib.parse import quote
    payload = "<img id=pwned src=x onerror=window.__pwned=1>"
    w = _load(open_page, "hostile-url.html", "?hardware=" + quote(payload))
    w.page.wait_for_function(PWNED_JS, timeout=5000)
    assert pwned(w.page)


# ---------------------------------------------------------------- the tab pool

STORED_JS = "() => localStorage.getItem('seeded')"
SCHEME_JS = "() => document.body.dataset.mdColorScheme"


@pytest.mark.browser
def test_tab_pool_tabs_start_with_the_storage_of_a_fresh_context(tab_pool, built_site,
                                                                 tmp_path):
    """Tabs share one context, and so one localStorage per origin, open or closed. Material
    keeps the reader's palette there: a light tab opened while a dark tab of the site was open
    (or just after it closed) showed the dark palette, a CI failure on 2026-12-03. The seeded
    defect is a tab without the clean start (fresh_storage=False); a pool tab's first page of
    each origin, http and file://, finds nothing stored, and keeps what it stores itself."""
    (tmp_path / "p.html").write_text("<!doctype html><title>p</title><p>p</p>", encoding="utf-8")
    server = serve(tmp_path)
    urls = [server.url + "p.html", (tmp_path / "p.html").as_uri()]
    page_url = (built_site / "glossary.html").as_uri()
    tabs = []

    def tab(**kw):
        tabs.append(tab_pool.tab(**kw))
        return tabs[-1].page

    def stored(page) -> list:
        out = []
        for url in urls:
            page.goto(url)
            out.append(page.evaluate(STORED_JS))
        return out
    try:
        writer = tab()
        for url in urls:
            writer.goto(url)
            writer.evaluate("() => localStorage.setItem('seeded', '1')")
        # A tab keeps what it stored: its next document of that origin sees it. Asked over
        # http only: on file:// Chromium's storage is not always there yet when a new document
        # starts (see FRESH_STORAGE_JS in conftest), and the clean start then empties it.
        writer.goto(urls[0])
        assert writer.evaluate(STORED_JS) == "1"
        assert stored(tab(fresh_storage=False)) == ["1", "1"]  # the seeded defect
        assert stored(tab()) == [None, None]

        dark = tab(scheme="dark")  # stays open: Material stores its palette
        dark.goto(page_url)
        seen = [dark.evaluate(SCHEME_JS)]
        for kw in ({"fresh_storage": False}, {}):
            light = tab(**kw)
            light.goto(page_url)
            seen.append(light.evaluate(SCHEME_JS))
        assert seen == ["slate", "slate", "default"]
    finally:
        for w in tabs:
            tab_pool.release(w)
        server.httpd.shutdown()


@pytest.mark.browser
def test_settle_waits_for_a_request_made_after_load(open_page):
    """A page that asks another host for something 100 ms after its load event: settle's wait
    for a quiet network (pagecheck.network_quiet, a window of the page's own time that the
    page's earlier, shorter timer runs before) lets the guard record it, however slow the
    machine. The seeded defect, no quiet window, returns before the page has asked: the page's
    clock is held (Playwright's fake timers) so its timer cannot run first on a fast machine
    either, and is then run on to show the request was there to be missed."""
    url = (SEEDED / "late-request.html").as_uri()
    hasty = open_page("about:blank", width=800, height=600)
    hasty.page.clock.install()
    hasty.page.goto(url)
    network_quiet(hasty.page, quiet_ms=0)
    missed = list(hasty.external)
    with hasty.page.expect_request("http://example.net/late"):
        hasty.page.clock.run_for(100)
    w = open_page(url, width=800, height=600)
    settle(w.page, timeout_ms=20000)
    assert missed == [] and w.external == ["http://example.net/late"], (missed, w.external)


@pytest.mark.browser
def test_tab_pool_blames_the_tab_that_made_an_outside_request(open_page):
    quiet = open_page((SEEDED / "valid.html").as_uri(), width=800, height=600)
    noisy = open_page((SEEDED / "outside-request.html").as_uri(), width=800, height=600)
    settle(noisy.page, timeout_ms=5000)
    settle(quiet.page, timeout_ms=5000)
    assert len(noisy.external) == 3 and quiet.external == []


@pytest.mark.browser
def test_tab_pool_tabs_have_their_own_width_and_colour_scheme(open_page):
    url = (SEEDED / "valid.html").as_uri()
    sizes = []
    for w in (open_page(url, width=412, height=915, scheme="dark"),
              open_page(url, width=800, height=600)):
        sizes.append(w.page.evaluate("() => [innerWidth, innerHeight, "
                                     "matchMedia('(prefers-color-scheme: dark)').matches]"))
    assert sizes == [[412, 915, True], [800, 600, False]]


@pytest.mark.browser
def test_a_plot_that_never_gets_ready_fails_with_what_its_blocks_did(open_page, tmp_path):
    """The browser tests' wait for a ready plot (pagecheck.first_block_ready) fails with the
    blocks' states, not a bare timeout: a block no loader starts."""
    (tmp_path / "stuck.html").write_text(
        '<!doctype html><title>s</title><div class="roofline-block"></div>', encoding="utf-8")
    w = open_page((tmp_path / "stuck.html").as_uri(), width=800, height=600)
    with pytest.raises(AssertionError, match=r"after 300 ms: .*'blocks': \['not started'\]"):
        first_block_ready(w.page, timeout_ms=300, errors=w.errors)
