"""The on-disk cache of widget HTML: a warm build (or a `mkdocs serve` rebuild of an unchanged
widget) reads each block from disk and never imports Bokeh.

A block's key hashes all its HTML depends on: the kind and its settings, the content of every
data file it can read, our Python and JavaScript, Bokeh's and this package's versions.

The MkDocs plugin makes one `Cache` per build in `.cache/roofline/` beside mkdocs.yml and hands
it to its fences; anyone else (the CLI, Sphinx, a notebook, tests) caches only where
ROOFLINE_CACHE_DIR names a folder (it also overrides the plugin's); ROOFLINE_CACHE=0 turns it
off. Entries are written atomically, so builds can share a folder; a hit refreshes an entry's
date, and the plugin drops entries unused for MAX_AGE_DAYS.
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


def folder(default: Path | None = None) -> Path | None:
    """The cache folder to use: ROOFLINE_CACHE_DIR, else `default`; None when caching is off."""
    if os.environ.get("ROOFLINE_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    env = os.environ.get("ROOFLINE_CACHE_DIR")
    return Path(env) if env else default


class Cache:
    """One cache folder. Our code's hash is read once per Cache: the plugin makes one per build
    (a `serve` rebuild sees an edit), `Cache.here()` one per block."""

    def __init__(self, where: Path) -> None:
        self.folder = where
        self._code: str | None = None

    @classmethod
    def here(cls, default: Path | None = None) -> Cache | None:
        """A cache in folder(default), or None when there is none."""
        where = folder(default)
        return cls(where) if where is not None else None

    def code(self) -> str:
        if self._code is None:
            self._code = _code_hash()
        return self._code

    def cached(self, kind: str, settings: Any, render: Callable[[], str]) -> str:
        """The HTML of `render()` for (kind, settings), from the folder when it holds it."""
        path = entry_path(self.folder, key_of(kind, settings, code=self.code()))
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


def cached(kind: str, settings: Any, render: Callable[[], str],
           cache: Cache | None = None) -> str:
    """The HTML of `render()` for (kind, settings), through `cache` or else Cache.here()."""
    cache = cache or Cache.here()
    return cache.cached(kind, settings, render) if cache is not None else render()


def entry_path(where: Path, key: str) -> Path:
    """The file that holds the block of `key` in cache folder `where`."""
    return where / key[:2] / f"{key}.html"


def prune(where: Path, *, max_age_days: float = MAX_AGE_DAYS) -> int:
    """Delete entries unused for `max_age_days` (and stale temporary files); returns how many."""
    if not where.is_dir():
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


def key_of(kind: str, settings: Any, *, code: str | None = None) -> str:
    """The cache key (hex sha256) of one block; `code`: our code's hash, if already read."""
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
        "code": code or _code_hash(), "bokeh": _version("bokeh"),
        "package": _version("roofline-lesson"),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=512)
def _hash(path: str, mtime_ns: int, size: int) -> str:
    """A file's content hash, memoised per (path, mtime_ns, size)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"


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
