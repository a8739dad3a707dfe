"""The render-ahead worker process (roofline.hosts.ahead starts it for a cold MkDocs build):
`python -m roofline.hosts.ahead_worker CLAIMS [DOCS_DIR] [--preload]` reads its jobs, one JSON
line each, on stdin, and draws each one no other process has claimed: a whole block into the
disk cache, or, for a block with a Bokeh item, the items alone into CLAIMS (the build's process
draws the rest), reporting each on stdout."""

from __future__ import annotations

import io
import json
import logging
import os
import sys
from pathlib import Path
from typing import IO

from roofline.hosts import buildcache, door


def ignore_warnings(option: str, message: str) -> None:
    """Warnings are the page's to report (its fence is converted in the build's process)."""


def claim_file(claims: Path, key: str) -> bool:
    """Create `key`'s claim; False if someone else has."""
    try:
        os.close(os.open(claims / key, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def items_path(claims: Path, key: str) -> Path:
    """Where a worker leaves the Bokeh items of a deferred block (the build's temporary
    folder: the cache gets the whole block, from the build's process)."""
    return claims / f"{key}.items.html"


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _write_items(path: Path, html: str) -> None:
    """Atomically: the build's process reads it once "ok" is reported."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, path)


def work(claims: Path, jobs: IO[str], out: IO[str]) -> None:
    """Draw each job not yet claimed into the disk cache (a deferred block's items into
    `claims`), reporting "ok KEY", "warned KEY",
    "failed KEY" or "taken KEY" (claimed by the build's process) on `out`, one line each."""
    counter = _Count()
    logging.getLogger().addHandler(counter)
    for line in jobs:
        job = json.loads(line)
        key = job["key"]
        if not claim_file(claims, key):
            status = "taken"
        else:
            before = counter.count
            try:
                settings = door.settings(job["kind"], job["options"], warn=ignore_warnings)
                if buildcache.key_of(job["kind"], settings) != key:
                    raise RuntimeError("the settings no longer give this key")
                kind = door.kind_of(job["kind"])
                if kind.bokeh:   # the build's process draws the rest (RenderAhead.defer)
                    from roofline.render.embed import items_only
                    with items_only():
                        html = kind.renderer()(settings)
                else:
                    html = kind.renderer()(settings)
            except Exception as exc:
                print(f"{key[:12]}: {type(exc).__name__}: {exc}", file=sys.stderr)
                status = "failed"
            else:
                status = "warned" if counter.count != before else "ok"
                if status == "ok" and kind.bokeh:
                    _write_items(items_path(claims, key), html)
                elif status == "ok":
                    buildcache.store(key, html)
        out.write(f"{status} {key}\n")
        out.flush()


PRELOAD = ("roofline.widgets.roofline.layout", "roofline.widgets.budget.layout",
           "bokeh.embed")
"""What a worker of a first build imports before its jobs arrive (the kinds with a Bokeh item)."""


def main(argv: list[str]) -> int:
    """`python -m roofline.hosts.ahead CLAIMS [DOCS_DIR] [--preload]`: the jobs, one JSON line
    each, on stdin."""
    import importlib
    preload = "--preload" in argv
    argv = [a for a in argv if a != "--preload"]
    claims, docs_dir = Path(argv[0]), argv[1] if len(argv) > 1 else ""
    if docs_dir:
        from roofline.widgets import model_option
        model_option.DOCS_DIR.set(Path(docs_dir))
    if preload:
        for module in PRELOAD:
            importlib.import_module(module)
    work(claims, io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
