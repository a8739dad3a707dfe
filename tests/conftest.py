"""Shared fixtures. Other test files use these names: keep them.

Sites, each built once per test run and shared:
- built_site (session) -> Path: the project's own site (`mkdocs build --strict`, subprocess,
  SOURCE_DATE_EPOCH fixed). The same folder is read over http and from file://. The build starts
  in the background at a run's first test when any collected test needs it, and the files that
  need it run last, so it overlaps the other tests; pytest-xdist workers share the one build.
- site_server (session) -> Server(root, url, httpd): built_site on http://127.0.0.1:<port>/.
- site_url (session) -> site_url(rel, scheme="http") -> str: a page of built_site over "http"
  or "file".
Any test that requests built_site or another site-building fixture (SITE_FIXTURES), directly or
through another fixture, is marked `slow` at collection (pytest_collection_modifyitems below),
so `-m "not browser and not slow"` builds no site. A test that builds a site of its own calls
build_site() and is marked `@pytest.mark.slow` by hand; build_site() warns (in the -ra summary)
when the test running it is not.

Browser: Debian Chromium (/usr/bin/chromium) driven by Playwright. Any test that requests
`browser`, directly or through tab_pool / open_page, is marked `browser` at
collection.
- browser (session): the Chromium instance.
- tab_pool (session) -> TabPool: one browser context per worker; tab_pool.tab(width=1280,
  height=900, scheme="light") -> Watched opens a guarded tab of that size and colour scheme whose
  first page of each origin starts with that origin's localStorage empty, as in a fresh context,
  whatever another tab stored; tab_pool.release(w) closes it. Every request that would leave the
  machine is aborted and recorded (Watched.external, on the tab that made it); console errors and
  uncaught page errors are recorded (Watched.errors); Watched.assert_clean() asserts both are
  empty. This is the request guard and the console gate. (A new tab, not a new context, per
  load: about 1.4 s less CPU a page; BENCHMARKS.md.)
- open_page (function) -> open_page(url, *, width=1280, height=900, scheme="light") -> Watched:
  a new tab per call, released after the test.

Every-page views: site_views (session) -> site_views(scheme, palette, width) -> {gate: {page:
  result}}: every page of built_site loaded once per view in one tab, and every gate
  registered for that view (view_gate(), at a test module's import) run on that one load, in
  the gates' order. Tests reading one view carry pytest.mark.xdist_group(view_group(...)), so
  pytest-xdist (`--dist loadgroup`, scripts/test) runs them on one worker, which loads the view
  once; every other test is grouped by its loadscope scope (its module, or its class).

Helpers: build_site(dest, config=None, env=None, cwd=None), serve(root) -> Server,
screenshot(page, name) (PNG under test-output/screenshots), ROOT, CHROMIUM. Browser gates
(settle, axe, hostile-URL probe) live in tests/pagecheck.py, site gates (links, validator,
reproducibility) in tests/sitecheck.py.
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import os
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from pagecheck import track_network

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync",
                 "--disable-quic"]
SHOTS = ROOT / "test-output" / "screenshots"


# Fixtures that build a site (ours, or another project's fixture site through MkDocs or Sphinx):
# every test using one is marked slow at collection.
SITE_FIXTURES = ("built_site", "plugin_site", "sphinx_site", "alabaster_site")
_SLOW_TESTS: set[str] = set()


def build_site(dest: Path, config: Path | None = None, env: dict | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into dest; returns the completed process (check returncode)."""
    running = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    if running and _SLOW_TESTS and not {running, running.rsplit("@", 1)[0]} & _SLOW_TESTS:
        # (--dist loadgroup adds "@<group>" to the id after collection)
        warnings.warn(f"{running} builds a site but is not marked slow: "
                      "add @pytest.mark.slow so the fast subset stays fast", stacklevel=2)
    cmd, full_env = _mkdocs_build(dest, config, env)
    return subprocess.run(cmd, cwd=cwd or ROOT, env=full_env, capture_output=True, text=True)


def _mkdocs_build(dest: Path, config: Path | None = None,
                  env: dict | None = None) -> tuple[list[str], dict]:
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)]
    if config:
        cmd += ["--config-file", str(config)]
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "1764633600",
                **(env or {})}
    return cmd, full_env


# The project's site is built by a background process, started at the first test of a run that
# will need it (_site_build_in_background) and awaited by the first test that does (built_site):
# the build (the run's longest single step) overlaps the tests that need no site, on the other
# core. Under pytest-xdist the workers share one build: the first to take the lock starts it, and
# every worker waits for the same exit-status file.
_RUN_AND_RECORD = ('folder=$1; shift; "$@" >"$folder/log.txt" 2>&1; '
                   'echo $? >"$folder/rc.tmp"; mv "$folder/rc.tmp" "$folder/rc"')
_BACKGROUND: list[subprocess.Popen] = []


def _run_folder(tmp_path_factory) -> Path:
    """This run's temp folder: shared by all xdist workers (the parent of each one's own)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _start_site_build(tmp_path_factory) -> Path:
    """Start `mkdocs build` of the project into <run folder>/shared-site/site unless this run
    already has; returns the folder whose `rc` file appears when the build ends."""
    run = _run_folder(tmp_path_factory)
    folder = run / "shared-site"
    with open(run / "shared-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.exists():
            folder.mkdir()
            # A cold build (an empty widget cache), as on a fresh clone: the run checks what a
            # cold build makes.
            cmd, env = _mkdocs_build(folder / "site",
                                     env={"ROOFLINE_CACHE_DIR": str(folder / "cache")})
            _BACKGROUND.append(subprocess.Popen(
                ["sh", "-c", _RUN_AND_RECORD, "sh", str(folder), *cmd], cwd=ROOT, env=env,
                stdin=subprocess.DEVNULL))
    return folder


@pytest.fixture(scope="session", autouse=True)
def _site_build_in_background(request, tmp_path_factory):
    if any("built_site" in getattr(item, "fixturenames", ()) for item in request.session.items):
        _start_site_build(tmp_path_factory)
    yield
    for proc in _BACKGROUND:  # a run stopped early (-x, Ctrl-C) leaves no build behind
        if proc.poll() is None:
            proc.terminate()
            proc.wait()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The project's own site, built once per test run (in the background from the run's
    start, when the run has a test that needs it)."""
    folder = _start_site_build(tmp_path_factory)
    rc = folder / "rc"
    deadline = time.monotonic() + 1200
    while not rc.exists():
        assert time.monotonic() < deadline, "the site build did not finish in 20 minutes"
        time.sleep(0.1)
    log = (folder / "log.txt").read_text(encoding="utf-8", errors="replace")
    assert rc.read_text().strip() == "0", log[-4000:]
    return folder / "site"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output readable
        pass


@dataclass
class Server:
    root: Path
    url: str
    httpd: http.server.ThreadingHTTPServer


def serve(root: Path) -> Server:
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return Server(root, f"http://127.0.0.1:{httpd.server_address[1]}/", httpd)


@pytest.fixture(scope="session")
def site_server(built_site) -> Server:
    server = serve(built_site)
    yield server
    server.httpd.shutdown()


@pytest.fixture(scope="session")
def site_url(built_site, site_server):
    def _url(rel: str, scheme: str = "http") -> str:
        assert scheme in ("http", "file"), scheme
        return site_server.url + rel if scheme == "http" else (built_site / rel).as_uri()
    return _url


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark by what a test needs, so the fast subset stays fast whoever adds a test."""
    for item in items:
        # --dist loadgroup (scripts/test): a test's group is its view's (site_views), else its
        # loadscope scope (module or class), so a module's fixtures are set up on one worker.
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.rsplit("::", 1)[0]))
        names = getattr(item, "fixturenames", ())
        if any(f in names for f in SITE_FIXTURES) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        if "browser" in names and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("slow"):
            _SLOW_TESTS.add(item.nodeid)
    # Files whose tests need the project's site run last (each file whole and in order): the
    # tests before them run while the site builds. Among them the longest groups go first (kept
    # by scripts/test's --no-loadscope-reorder), so no worker is left alone with a long group.
    needs_site = {item.path for item in items if "built_site" in getattr(item, "fixturenames", ())}
    first = {g: i for i, g in enumerate(LONG_GROUPS)}
    items.sort(key=lambda item: (item.path in needs_site, first.get(_group(item), len(first))))


# The longest groups that need the site, longest first (wall s on one of two workers, full
# run 2026-12-03 19:36): live-walk-412 38, live-walk-1280 35, test_widget_browser 33,
# test_budget_browser 33, view-http-light-1280 30, test_predict_browser 25,
# test_measure_browser 25, test_site_browser 24, view-http-dark-1280 21, view-file-light-1280
# 12, test_quality_build 10, test_layout_browser 8, test_site_rebuild 8, hostile URLs 8,
# view-http-light-412 7. Longest first is what keeps the two workers' ends close (they ended
# 14 s apart with the walks last).
LONG_GROUPS = ("live-walk-412", "live-walk-1280", "tests/test_widget_browser.py",
               "tests/test_budget_browser.py", "view-http-light-1280",
               "tests/test_predict_browser.py", "tests/test_measure_browser.py",
               "tests/test_site_browser.py", "view-http-dark-1280", "view-file-light-1280",
               "tests/test_quality_build.py", "tests/test_layout_browser.py",
               "tests/test_site_rebuild.py", "tests/test_quality_hostile_urls.py",
               "view-http-light-412")


def _group(item) -> str:
    mark = item.get_closest_marker("xdist_group")
    return str(mark.args[0]) if mark and mark.args else ""


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run the README's test command, which installs it")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@dataclass
class Watched:
    """A page plus what it tried to do: requests refused as external, console errors."""
    page: object
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.external == [], f"requests left the machine: {self.external}"
        assert self.errors == [], f"console errors: {self.errors}"


def _is_local(url: str) -> bool:
    return url.startswith(("file:", "data:", "blob:", "about:", "http://127.0.0.1",
                           "http://localhost", "chrome-extension:", "devtools:"))


def _new_context(browser, width: int, height: int, scheme: str):
    return browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)


# Runs before any script of every document a pool tab loads. sessionStorage is the tab's own,
# per origin, so it marks the origins this tab has seen: on the first document of each, the
# origin's localStorage (shared by every tab of the context) is emptied. Material keeps the
# reader's palette there: without this a light tab opened while a dark one is open, or just
# after one closed, showed the dark palette (a CI failure, 2026-12-03). It errs only towards
# emptying: on file://, Chromium does not always have a tab's storage ready when the tab's next
# document starts (measured 2026-12-04, in place file:// -> file://: the sessionStorage marker
# gone 6 and 8 times in 100, a localStorage marker 16 in 100; over http 0 in 150), so such a
# document may start empty too. No test expects its own storage back on a file:// page.
FRESH_STORAGE_JS = """(() => { try {
  if (!sessionStorage.getItem('tab-pool-seen')) {
    localStorage.clear(); sessionStorage.setItem('tab-pool-seen', '1');
  }
} catch (e) { /* an opaque origin (about:blank, data:) has no storage */ } })();"""


class TabPool:
    """One browser context per worker whose tabs the tests open (open_page, the every-page
    views, a module's own tab). A page load in a fresh context costs about 1.4 s more CPU than
    in a new tab of a context that is already up (BENCHMARKS.md, 2026-12-03 evening), and most
    browser tests load a page of their own. A tab is as clean as a fresh context where it
    matters: its width and colour scheme are its own (viewport, emulated media); its first page
    of each origin finds that origin's localStorage empty (FRESH_STORAGE_JS), however many tabs
    are open; the one request guard records an outside request on the tab that made it (on
    every open tab when a worker made it). The guard routes every request, which keeps the HTTP
    cache off, as in a fresh context. `fresh_storage=False` leaves the storage as other tabs
    left it: the seeded defect of the test that guards this."""

    def __init__(self, browser):
        self.ctx = _new_context(browser, 1280, 900, "light")
        self.open: dict[int, Watched] = {}
        self.ctx.route("**/*", self._route)

    def _route(self, r) -> None:
        url = r.request.url
        if _is_local(url):
            r.continue_()
            return
        try:
            owner = r.request.frame.page
        except Exception:  # noqa: BLE001 - a worker's request: no frame to tell whose it is
            owner = None
        for w in self.open.values():
            if owner is None or w.page is owner:
                w.external.append(url)
        r.abort()

    def tab(self, *, width: int = 1280, height: int = 900, scheme: str = "light",
            fresh_storage: bool = True) -> Watched:
        """A new guarded tab of this width, height and colour scheme (not yet navigated)."""
        page = self.ctx.new_page()
        if fresh_storage:
            page.add_init_script(FRESH_STORAGE_JS)
        if (width, height) != (1280, 900):
            page.set_viewport_size({"width": width, "height": height})
        if scheme != "light":
            page.emulate_media(color_scheme=scheme)
        w = Watched(page)
        page.on("console", lambda m: w.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: w.errors.append(str(e)))
        track_network(page)  # pagecheck.settle's quiet wait
        self.open[id(page)] = w
        return w

    def release(self, w: Watched) -> None:
        """Close the tab and stop recording its requests."""
        self.open.pop(id(w.page), None)
        if not w.page.is_closed():
            w.page.close()


@pytest.fixture(scope="session")
def tab_pool(browser) -> TabPool:
    pool = TabPool(browser)
    yield pool
    pool.ctx.close()


@pytest.fixture
def open_page(tab_pool):
    """open_page(url, width=1280, scheme='light') -> Watched; every outside request is aborted
    and recorded, every console error and page error recorded."""
    tabs = []

    def _open(url: str, *, width: int = 1280, height: int = 900,
              scheme: str = "light") -> Watched:
        w = tab_pool.tab(width=width, height=height, scheme=scheme)
        tabs.append(w)
        w.page.goto(url)
        return w

    yield _open
    for w in tabs:
        tab_pool.release(w)


@dataclass(frozen=True)
class ViewGate:
    """A gate run on every page of some views: pages(site, scheme) lists the pages it judges;
    visit(watched, page, view) runs on each loaded (not yet settled) page, returns a result."""
    name: str
    order: int
    views: frozenset
    pages: Callable
    visit: Callable


VIEW_GATES: dict[str, ViewGate] = {}


def view_gate(name: str, *, order: int, views, pages):
    """Decorator: register visit(watched, rel, view) as gate `name` for `views` ((scheme,
    palette, width) tuples); gates run on each page in `order`."""
    def register(visit):
        VIEW_GATES[name] = ViewGate(name, order, frozenset(views), pages, visit)
        return visit
    return register


def view_group(scheme: str, palette: str, width: int) -> str:
    """The xdist_group of the tests that read one view (one worker loads it once)."""
    return f"view-{scheme}-{palette}-{width}"


@dataclass
class ViewFailure:
    """A gate that raised on a page: its tests re-raise it (the other gates still ran)."""
    error: BaseException


@pytest.fixture(scope="session")
def site_views(built_site, site_url, tab_pool):
    """site_views(scheme, palette, width) -> {gate name: {page: result}}; see the docstring."""
    loaded: dict[tuple, dict[str, dict]] = {}

    def _view(scheme: str, palette: str, width: int) -> dict[str, dict]:
        key = (scheme, palette, width)
        if key not in loaded:
            gates = sorted((g for g in VIEW_GATES.values() if key in g.views),
                           key=lambda g: g.order)
            assert gates, f"no gate registered for view {key}"
            wanted = {g.name: set(g.pages(built_site, scheme)) for g in gates}
            out: dict[str, dict] = {g.name: {} for g in gates}
            w = tab_pool.tab(width=width, scheme=palette)
            try:
                for rel in sorted(set().union(*wanted.values())):
                    w.external.clear()  # what this page's load does, not the last page's
                    w.errors.clear()
                    try:
                        w.page.goto(site_url(rel, scheme))
                    except Exception as e:  # noqa: BLE001 - every gate reports it
                        out.update({g.name: {**out[g.name], rel: ViewFailure(e)} for g in gates})
                        continue
                    for g in gates:
                        if rel in wanted[g.name]:
                            try:
                                out[g.name][rel] = g.visit(w, rel, key)
                            except Exception as e:  # noqa: BLE001 - re-raised by its tests
                                out[g.name][rel] = ViewFailure(e)
            finally:
                tab_pool.release(w)
            loaded[key] = out
        return loaded[key]
    return _view


def view_results(site_views, gate: str, scheme: str, palette: str, width: int) -> dict:
    """{page: result} of one gate in one view; re-raises a gate's failure on any page."""
    results = site_views(scheme, palette, width)[gate]
    for rel, r in results.items():
        if isinstance(r, ViewFailure):
            raise AssertionError(f"{gate} gate failed on {rel} ({scheme}, {palette}, "
                                 f"{width} px): {r.error!r}") from r.error
    return results


def screenshot(page, name: str) -> Path:
    """Save a PNG under test-output/screenshots for a human to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


# --- the real public GPU traces (tests/fixtures/gpu-traces/README.md) -------------------------
GPU_TRACES_MANIFEST = Path(__file__).parent / "fixtures" / "gpu-traces" / "manifest.toml"


def gpu_trace_folders() -> list[Path]:
    """Where the real GPU traces are looked for: $ROOFLINE_GPU_TRACES, then shared/traces/gpu
    beside the clone (CI's copy of the steering repository's shared/)."""
    env = os.environ.get("ROOFLINE_GPU_TRACES")
    return ([Path(env)] if env else []) + [ROOT.parent / "shared" / "traces" / "gpu"]


@pytest.fixture(scope="session")
def gpu_traces() -> Path:
    """The folder of the manifest's traces, each checked against its SHA-256; the test skips,
    saying where it looked, where they are not."""
    import hashlib
    import tomllib
    entries = tomllib.loads(GPU_TRACES_MANIFEST.read_text())["trace"]
    for folder in gpu_trace_folders():
        if (folder / entries[0]["file"]).is_file():
            for t in entries:
                digest = hashlib.sha256((folder / t["file"]).read_bytes()).hexdigest()
                assert digest == t["sha256"], f"{folder / t['file']} is not the manifest's file"
            return folder
    pytest.skip("the real GPU traces are not here (looked in: "
                f"{', '.join(map(str, gpu_trace_folders()))}; "
                "tests/fixtures/gpu-traces/README.md)")
