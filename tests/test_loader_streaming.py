"""A block the loader meets while the page is still arriving (render/js/loader.js).

The loader starts from <head> and watches blocks as the parser makes them; on a slow network
(or a loaded machine) a block can be in the DOM before its plot item is. It used to render such
a block at once: `itemOf` read the missing item's text, threw, and left the block "loading"
for good (seen once on a fresh clone's CI: "Cannot read properties of null (reading
'textContent')"). Here the page's bytes stop inside its first block, with the block in view,
until the loader has run and the browser has painted three frames with the block half made
(what the loader would act on by then, it has): the block must end ready with no error.
Seeded: the loader without its wait for a complete block ends the block failed. The rest of
the page is sent on those events, not after a pause, so a slow machine cannot let the loader
start late and miss the half-made block."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from pagecheck import first_block_ready, frames

PAGE = "embed.html"  # its first plot is near the top: in view (with the loader's margin) at once
# The rest of the page waits for the test's word (a hang guard only past this).
HOLD_S = 60
WAIT = 'if (document.readyState === "loading" && !complete(b)) return;'


class _Stalling(http.server.SimpleHTTPRequestHandler):
    """Serves the site; PAGE arrives in two parts, split inside its first block (after the
    block's plot target, before its item), the second once `release` is set. `loader_edit`
    rewrites the loader."""
    loader_edit = staticmethod(lambda text: text)
    release: threading.Event

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - http.server's name
        path = Path(self.directory) / self.path.lstrip("/").split("?")[0]
        if path.name == PAGE:
            body = path.read_bytes()
            cut = body.index(b'class="roofline-target')
            cut = body.index(b"</div>", cut) + len(b"</div>")
            self._head("text/html; charset=utf-8", len(body))
            self.wfile.write(body[:cut])
            self.wfile.flush()
            self.release.wait(HOLD_S)
            self.wfile.write(body[cut:])
            return
        if path.name.startswith("roofline-loader") and path.suffix == ".js":
            body = self.loader_edit(path.read_text(encoding="utf-8")).encode()
            self._head("text/javascript", len(body))
            self.wfile.write(body)
            return
        super().do_GET()

    def _head(self, kind: str, length: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(length))
        self.end_headers()


def _serve(root: Path, loader_edit=None):
    handler = type("Handler", (_Stalling,), {"release": threading.Event()})
    if loader_edit is not None:
        handler.loader_edit = staticmethod(loader_edit)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(handler, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, handler.release


def _first_block_state(open_page, root: Path, loader_edit=None):
    httpd, release = _serve(root, loader_edit)
    try:
        w = open_page("about:blank")
        w.page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/{PAGE}", wait_until="commit")
        w.page.wait_for_function("() => window.roofline && window.roofline.render"
                                 " && document.querySelector('.roofline-block')"
                                 " && document.readyState === 'loading'", timeout=30000)
        frames(w.page, 3)
        release.set()
        w.page.wait_for_load_state("load")
        w.page.wait_for_function(
            "() => { const b = document.querySelector('.roofline-block');"
            " const s = b && b.getAttribute('data-roofline-state');"
            " return s === 'ready' || s === 'failed'; }", timeout=30000)
        return w, w.page.evaluate(
            "() => document.querySelector('.roofline-block').getAttribute('data-roofline-state')")
    finally:
        release.set()
        httpd.shutdown()


def test_a_block_still_arriving_is_rendered_once_it_has_arrived(built_site, open_page):
    loader = next((built_site / "assets").rglob("roofline-loader*.js")).read_text()
    assert WAIT in loader  # the wait this test guards is in the shipped loader
    w, state = _first_block_state(open_page, built_site)
    assert state == "ready", w.errors
    first_block_ready(w.page, timeout_ms=5000, errors=w.errors)
    assert not [e for e in w.errors if "textContent" in e or "plot item" in e], w.errors


def test_seeded_without_the_wait_the_block_fails(built_site, open_page):
    w, state = _first_block_state(open_page, built_site,
                                  loader_edit=lambda text: text.replace(WAIT, ""))
    assert state == "failed"
    assert any("no plot item" in e for e in w.errors), w.errors
