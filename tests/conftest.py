"""Shared fixtures: a built site (once per session), a loopback HTTP server, and a Debian
Chromium driven by Playwright that refuses and records every request leaving the machine."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync",
                 "--disable-quic"]
SHOTS = ROOT / "test-output" / "screenshots"


def build_site(dest: Path, config: Path | None = None, env: dict | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into dest; returns the completed process (check returncode)."""
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)]
    if config:
        cmd += ["--config-file", str(config)]
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "1764633600",
                **(env or {})}
    return subprocess.run(cmd, cwd=cwd or ROOT, env=full_env, capture_output=True, text=True)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The project's own site, built once per test session."""
    dest = tmp_path_factory.mktemp("site") / "site"
    proc = build_site(dest)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dest


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


@pytest.fixture
def open_page(browser):
    """open_page(url, width=1280, scheme='light') -> Watched; every outside request is aborted
    and recorded, every console error and page error recorded."""
    contexts = []

    def _open(url: str, *, width: int = 1280, height: int = 900,
              scheme: str = "light") -> Watched:
        ctx = browser.new_context(viewport={"width": width, "height": height},
                                  color_scheme=scheme)
        contexts.append(ctx)
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
        page.goto(url)
        return w

    yield _open
    for ctx in contexts:
        ctx.close()


def screenshot(page, name: str) -> Path:
    """Save a PNG under test-output/screenshots for a human to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
