"""Shared fixtures. Other test files use these names: keep them.

Sites, each built once per test run and shared:
- built_site (session) -> Path: the project's own site (`mkdocs build --strict`, subprocess,
  SOURCE_DATE_EPOCH fixed). The same folder is read over http and from file://.
- site_server (session) -> Server(root, url, httpd): built_site on http://127.0.0.1:<port>/.
- site_url (session) -> site_url(rel, scheme="http") -> str: a page of built_site over "http"
  or "file".
Any test that requests built_site or another site-building fixture (SITE_FIXTURES), directly or
through another fixture, is marked `slow` at collection (pytest_collection_modifyitems below),
so `-m "not browser and not slow"` builds no site. A test that builds a site of its own calls
build_site() and is marked `@pytest.mark.slow` by hand; build_site() warns (in the -ra summary)
when the test running it is not.

Browser: Debian Chromium (/usr/bin/chromium) driven by Playwright. Any test that requests
`browser`, directly or through open_page / shared_page, is marked `browser` at collection.
- browser (session): the Chromium instance.
- open_page (function) -> open_page(url, *, width=1280, height=900, scheme="light") -> Watched:
  a fresh context per call, closed after the test. Every request that would leave the machine
  is aborted and recorded (Watched.external); console errors and uncaught page errors are
  recorded (Watched.errors); Watched.assert_clean() asserts both are empty.
- shared_page (session) -> shared_page(url, *, width=1280, height=900, scheme="light")
  -> Watched: the same, but loaded and settled (pagecheck.settle) once per run for every test
  that asks with the same arguments. For read-only checks; a test that clicks, types or changes
  state uses open_page.

Helpers: build_site(dest, config=None, env=None, cwd=None), serve(root) -> Server,
watch(context) -> callable making Watched pages, screenshot(page, name) (PNG under
test-output/screenshots), ROOT, CHROMIUM. Browser gates (settle, axe, hostile-URL probe) live
in tests/pagecheck.py, site gates (links, validator, reproducibility) in tests/sitecheck.py.
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import os
import subprocess
import sys
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest

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
    if running and _SLOW_TESTS and running not in _SLOW_TESTS:
        warnings.warn(f"{running} builds a site but is not marked slow: "
                      "add @pytest.mark.slow so the fast subset stays fast", stacklevel=2)
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)]
    if config:
        cmd += ["--config-file", str(config)]
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "1764633600",
                **(env or {})}
    return subprocess.run(cmd, cwd=cwd or ROOT, env=full_env, capture_output=True, text=True)


def built_once(tmp_path_factory, name: str, build) -> Path:
    """build(dest) once per test run, even when pytest-xdist runs several worker processes:
    the first worker to get here builds under a file lock, the others wait and share it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        dest = tmp_path_factory.mktemp(name) / name
        build(dest)
        return dest
    shared = tmp_path_factory.getbasetemp().parent  # the run's folder, above each worker's
    dest = shared / f"shared-{name}" / name
    with open(shared / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = dest.parent / "built"
        if not done.exists():
            build(dest)
            done.touch()
    return dest


def _build_project_site(dest: Path) -> None:
    proc = build_site(dest)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The project's own site, built once per test run."""
    return built_once(tmp_path_factory, "site", _build_project_site)


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
        names = getattr(item, "fixturenames", ())
        if any(f in names for f in SITE_FIXTURES) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        if "browser" in names and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("slow"):
            _SLOW_TESTS.add(item.nodeid)


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


def watch(ctx) -> Watched:
    """A new page in ctx, guarded: outside requests aborted and recorded, console errors and
    uncaught page errors recorded. This is the request guard and the console gate."""
    page = ctx.new_page()
    w = Watched(page)

    def route(r):
        if _is_local(r.request.url):
            r.continue_()
        else:
            w.external.append(r.request.url)
            r.abort()
    ctx.route("**/*", route)
    page.on("console", lambda m: w.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: w.errors.append(str(e)))
    return w


def _new_context(browser, width: int, height: int, scheme: str):
    return browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)


@pytest.fixture
def open_page(browser):
    """open_page(url, width=1280, scheme='light') -> Watched; every outside request is aborted
    and recorded, every console error and page error recorded."""
    contexts = []

    def _open(url: str, *, width: int = 1280, height: int = 900,
              scheme: str = "light") -> Watched:
        ctx = _new_context(browser, width, height, scheme)
        contexts.append(ctx)
        w = watch(ctx)
        w.page.goto(url)
        return w

    yield _open
    for ctx in contexts:
        ctx.close()


@pytest.fixture(scope="session")
def shared_page(browser):
    """shared_page(url, width=1280, height=900, scheme='light') -> Watched, loaded and settled
    once per run per arguments; read-only checks only."""
    from pagecheck import settle
    loaded: dict[tuple, Watched] = {}

    def _get(url: str, *, width: int = 1280, height: int = 900,
             scheme: str = "light") -> Watched:
        key = (url, width, height, scheme)
        if key not in loaded:
            w = watch(_new_context(browser, width, height, scheme))
            w.page.goto(url)
            settle(w.page)
            loaded[key] = w
        return loaded[key]

    yield _get
    for w in loaded.values():
        w.page.context.close()


def screenshot(page, name: str) -> Path:
    """Save a PNG under test-output/screenshots for a human to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
