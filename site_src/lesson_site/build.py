"""What the hooks call: marker expansion per page, generated files, the offline zip. Kept apart
from hooks/ so the build's logic is importable and testable without MkDocs running."""

from __future__ import annotations

import logging
import os
import re
import zipfile
from pathlib import Path
from typing import Callable

from roofline.model import datafile as _toml
from lesson_site import (budget_text, departures, lesson_parts, models_text, numbers, pages,
                         qa, teach, widget_options, window_text)
from lesson_site.context import load_context
from lesson_site.markers import expand

SHIM_SRC = Path(_toml.DATA_DIR).parent / "vendor" / "iframe-worker-shim.js"
SHIM_URI = "assets/vendor/iframe-worker-shim.js"
ZIP_URI = "downloads/roofline-lesson-site.zip"
ZIP_ROOT = "roofline-lesson-site"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
ZIP_LEVEL = 6  # against level 9: a zip 0.7 % larger, deflated in under half the time
ZIP_NOTE = " (this copy is that zip, unpacked)"
_ZIP_LINK = re.compile(r'<a\b[^>]*\bhref="(?:[^"]*/)?' + re.escape(Path(ZIP_URI).name)
                       + r'"[^>]*>(.*?)</a>', re.S)


# The markers' HTML tables, set aside while Python-Markdown converts their page: they are
# finished HTML, and its raw-HTML passes (md_in_html's and MkDocs' own) parsed their every
# cell twice, a fifth of a build. A comment stands in for each; restore_tables() puts them back.
_TABLE = re.compile(r"<table\b.*?</table>", re.S)
_TOKEN = re.compile(r"<!--rl-table:(\d+)-->")
_aside: dict[str, list[str]] = {}
"""Each page's tables set aside, by its `where`, from render_markdown to restore_tables."""


def render_markdown(markdown: str, where: str, source: str | None = None) -> str:
    """Expand every `<!-- rl:... -->` marker of one page from the model. With the page's
    source, errors give line numbers of the file (MkDocs has stripped its front matter).
    The markers' HTML tables are set aside (restore_tables puts them back after Markdown)."""
    first_line = 1
    if source and markdown.strip():
        head = source.find(markdown.strip()[:200])
        if head > 0:
            first_line = source.count("\n", 0, head) + 1 - (len(markdown) - len(markdown.lstrip("\n")))
    kept = _aside[where] = []

    def aside(body: str) -> str:
        def token(m: re.Match) -> str:
            kept.append(m.group(0))
            return f"<!--rl-table:{len(kept) - 1}-->"
        return _TABLE.sub(token, body)
    return expand(markdown, load_context(), where, first_line, aside=aside)


def restore_tables(html: str, where: str) -> str:
    """The page's HTML with the tables render_markdown set aside back in place."""
    kept = _aside.pop(where, [])
    return _TOKEN.sub(lambda m: kept[int(m.group(1))], html) if kept else html


def generated_files() -> dict[str, str | bytes]:
    """Files the site gets that are not in docs/: the vendored polyfill, downloadable tables,
    and a placeholder for the zip (so links to it validate; post_build fills it)."""
    files: dict[str, str | bytes] = {SHIM_URI: SHIM_SRC.read_bytes(), ZIP_URI: b""}
    files.update(pages.generated_tables(load_context()))
    return files


def write_zip(site_dir: str | os.PathLike) -> Path:
    """The whole built site as one zip, byte-for-byte reproducible: sorted entries, fixed
    timestamps and permissions, everything under one folder. The zip leaves itself out."""
    site = Path(site_dir)
    target = site / ZIP_URI
    tmp = target.with_suffix(".zip.tmp")
    paths = sorted(p for p in site.rglob("*") if p.is_file() and p not in (target, tmp))
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as zf:
        for path in paths:
            info = zipfile.ZipInfo(f"{ZIP_ROOT}/{path.relative_to(site).as_posix()}", ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3            # Unix, so external_attr holds a mode
            info.external_attr = 0o644 << 16
            zf.writestr(info, zipped_copy(path.name, path.read_bytes()))
    tmp.replace(target)
    return target


def zipped_copy(name: str, data: bytes) -> bytes:
    """The zip's own copy of a file. The zip cannot hold itself, so in its pages a link to it
    would be dead: it becomes the link's text and a note."""
    if not name.endswith(".html") or Path(ZIP_URI).name.encode() not in data:
        return data
    html = _ZIP_LINK.sub(lambda m: f'<span class="rl-zip-note">{m.group(1)}</span>{ZIP_NOTE}',
                         data.decode("utf-8"))
    return html.encode("utf-8")


def check_inputs() -> None:
    """Load and validate every data file the pages read, before MkDocs empties the site folder,
    so bad data fails the build with the old site untouched."""
    ctx = load_context()
    from roofline.model.hfconfig import bundled_models
    from roofline.model.transformer import default_models
    default_models()
    bundled_models()
    for name, table, keys in (("prompts", "prompt", ("question", "section", "answer")),
                              ("checkpoint", "question", ("question", "answer")),
                              ("failure_modes", "mode", ("title", "problem", "check"))):
        qa.load_entries(name, table, keys, optional=("extra",))
    pages.generated_tables(ctx)


# Staged builds: MkDocs empties site_dir before it renders a page, so a page that fails would
# leave a half-written site. We build into a sibling folder and swap it in only on success.
STAGE_PREFIX = ".site."


def stage_dir(site_dir: str | os.PathLike) -> Path:
    target = Path(site_dir).resolve()
    return target.parent / f"{STAGE_PREFIX}{target.name}.{os.getpid()}"


def publish(stage: Path, target: Path) -> None:
    """Replace target by the finished stage (two renames; the old copy is removed last)."""
    import shutil
    old = target.parent / f"{STAGE_PREFIX}{target.name}.old.{os.getpid()}"
    if target.exists():
        target.rename(old)
    stage.rename(target)
    if old.exists():
        shutil.rmtree(old)


class _RealFolder(logging.Filter):
    """Rewrites the staging folder's path to the output folder's in log messages."""

    def __init__(self, stage: Path, target: Path) -> None:
        super().__init__()
        self.stage, self.target = str(stage), str(target)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.stage in message:
            record.msg, record.args = message.replace(self.stage, self.target), ()
        return True


def log_real_folder(stage: Path, target: Path) -> Callable[[], None]:
    """While a staged build runs, MkDocs' log names `target` (e.g. site/) wherever it would
    name the hidden staging folder ("Building documentation to directory: ..."). Returns
    the function that undoes it."""
    flt = _RealFolder(stage, target)
    # A logger's filters see only its own records, a handler's see every record it handles:
    # cover MkDocs' build logger and the handlers `mkdocs build` and pytest attach.
    places = [logging.getLogger("mkdocs.commands.build"),
              *logging.getLogger("mkdocs").handlers, *logging.getLogger().handlers]
    for place in places:
        place.addFilter(flt)

    def undo() -> None:
        for place in places:
            place.removeFilter(flt)
    return undo


def discard(stage: Path) -> None:
    import shutil
    if stage.exists() and stage.name.startswith(STAGE_PREFIX):
        shutil.rmtree(stage)


def patch_page_html(html: str) -> str:
    """Give Material's search dialog an accessible name (its template has none)."""
    return html.replace('<div class="md-search" data-md-component="search" role="dialog">',
                        '<div class="md-search" data-md-component="search" role="dialog" '
                        'aria-label="Search">', 1)
