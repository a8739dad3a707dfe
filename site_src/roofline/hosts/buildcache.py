"""The on-disk build cache of widget HTML: a warm build (or a `mkdocs serve` rebuild of an
unchanged widget) reads each block from disk and never imports bokeh.

A block is keyed by everything its HTML depends on:
- the widget kind and its validated settings (canonical JSON);
- the content of the data files it can read: every file of the package data folder, the
  catalog ROOFLINE_CATALOG or the settings name, and any file the settings name (`data_files()`);
- our JavaScript (every .mjs and .js of the package) and our Python source (the code that
  draws);
- the installed bokeh's version and this package's version.
Contents are hashed, not dates, so a touched but unchanged file still hits, and an edit misses.

Where: ROOFLINE_CACHE_DIR if set; else the folder the MkDocs plugin configures (`.cache/roofline/`
beside mkdocs.yml); else no disk cache (the CLI, Sphinx and tests render every time unless they
set ROOFLINE_CACHE_DIR). ROOFLINE_CACHE=0 turns it off. Entries are written atomically, so
parallel builds can share a folder; delete the folder to empty it. A hit refreshes an entry's
date, and the plugin drops entries unused for MAX_AGE_DAYS (old code, old data) at each build.

A missing block is asked of `draw_elsewhere`'s claim first: during a cold MkDocs build the
render-ahead worker (roofline.hosts.ahead) has drawn most of them into this folder. Our code's
hash is read once per MkDocs build (configure() starts each), elsewhere at each block.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from roofline.model import datafile as _toml

FORMAT = 1  # bump when the entry layout or the key's recipe changes
DEFAULT_DIR = ".cache/roofline"
"""The plugin's cache folder, relative to the MkDocs project root (mkdocs.yml's folder)."""
PACKAGE = Path(__file__).resolve().parents[1]
MAX_AGE_DAYS = 30
_configured: Path | None = None


def configure(folder: Path | str | None) -> None:
    """Set the default cache folder (the MkDocs plugin, at each build: `.cache/roofline/` at
    the project root) and drop its entries unused for MAX_AGE_DAYS; None: no default."""
    global _configured, _build_code
    _configured = Path(folder) if folder is not None else None
    _build_code = None  # a new build: our code is read again once
    if _configured is not None:
        prune(_configured)


_elsewhere: Callable[[str], str | None] | None = None
_defer: Callable[[str, Callable[[], str]], str | None] | None = None


def draw_elsewhere(claim: Callable[[str], str | None] | None,
                   defer: Callable[[str, Callable[[], str]], str | None] | None = None) -> None:
    """Install (or remove, None) what cached() asks for a missing block before drawing it:
    `defer(key, render)` gives the block drawn here with its Bokeh items left as placeholders
    (embed.deferring) when the worker (roofline.hosts.ahead) is drawing them, filled when the
    page is written; else None, and `claim(key)` returns the block drawn elsewhere, or None."""
    global _elsewhere, _defer
    _elsewhere, _defer = claim, defer


def entry_path(where: Path, key: str) -> Path:
    """The file that holds the block of `key` in cache folder `where`."""
    return where / key[:2] / f"{key}.html"


def folder() -> Path | None:
    """The cache folder in use, or None when caching is off."""
    if os.environ.get("ROOFLINE_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    env = os.environ.get("ROOFLINE_CACHE_DIR")
    return Path(env) if env else _configured


def cached(kind: str, settings: Any, render: Callable[[], str]) -> str:
    """The HTML of `render()` for (kind, settings), from the cache when it holds it."""
    where = folder()
    if where is None:
        return render()
    key = key_of(kind, settings)
    path = entry_path(where, key)
    if _defer is not None:
        html = _defer(key, render)  # not cached yet: its items are placeholders
        if html is not None:
            return html
    if _elsewhere is not None:
        html = _elsewhere(key)  # drawn (or being drawn) by the build's worker
        if html is not None:
            return html
    try:
        html = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError:
        return render()
    else:
        try:
            os.utime(path)  # still in use: prune() keeps it
        except OSError:
            pass
        return html
    html = render()
    _write(path, html)
    return html


def store(key: str, html: str) -> None:
    """Write the block of `key` into the cache folder in use (roofline.hosts.ahead's worker)."""
    where = folder()
    if where is not None:
        _write(entry_path(where, key), html)


def prune(where: Path | None = None, *, max_age_days: float = MAX_AGE_DAYS) -> int:
    """Delete entries unused for `max_age_days` (and stale temporary files); returns how many."""
    where = where or folder()
    if where is None or not where.is_dir():
        return 0
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    for entry in where.glob("*/*"):
        try:
            if entry.suffix == ".html" and entry.stat().st_mtime < cutoff:
                entry.unlink()
                removed += 1
        except OSError:
            pass
    return removed


def _write(path: Path, html: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".html")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(html)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only or full disk: the build goes on uncached


def key_of(kind: str, settings: Any) -> str:
    """The cache key (hex sha256) of one block."""
    if dataclasses.is_dataclass(settings):
        options = dataclasses.asdict(settings)
        extra = list(getattr(settings, "data_files", lambda: [])())
    else:
        options, extra = dict(settings), []
    catalog = os.environ.get("ROOFLINE_CATALOG")
    files = sorted(p for p in Path(_toml.DATA_DIR).iterdir() if p.is_file())
    files += [Path(f) for f in ([catalog] if catalog else []) + extra]
    parts = {
        "format": FORMAT, "kind": kind,
        "options": json.dumps(options, sort_keys=True, default=str),
        "data": [(str(f), _hash(*_toml.file_key(f))) for f in files],
        "code": _build_code_hash(), "bokeh": _version("bokeh"), "package": _version("roofline-lesson"),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=512)
def _hash(path: str, mtime_ns: int, size: int) -> str:
    """A file's content hash, memoised per (path, mtime_ns, size)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"


_build_code: str | None = None


def _build_code_hash() -> str:
    """_code_hash(), read once per MkDocs build (configure() starts each; a build asks for it
    twice per fence): elsewhere (CLI, Sphinx, notebook) read at each block."""
    global _build_code
    if _configured is None:
        return _code_hash()
    if _build_code is None:
        _build_code = _code_hash()
    return _build_code


def _code_hash() -> str:
    """Our Python and JavaScript, as files on disk now (an edit during development misses)."""
    files = sorted(f for f in PACKAGE.rglob("*") if f.suffix in (".py", ".mjs", ".js")
                   and "__pycache__" not in f.parts)
    digest = hashlib.sha256()
    for f in files:
        digest.update(f"{f.relative_to(PACKAGE)}\0{_hash(*_toml.file_key(f))}\0".encode())
    return digest.hexdigest()


@lru_cache(maxsize=None)
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"
