"""The site's own stylesheets as one file. `extra_css` lists several small files (a11y,
departures, lesson, tables, teach), and each is a render-blocking request on every page; the
build joins the local ones, in their order, into one file named by its content's hash
(`assets/stylesheets/site.<hash>.css`, beside the sources, so relative `url()`s still resolve)
and lists that file in their place. The sources stay separate for their authors."""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath

from roofline.render.blockstyle import PALETTE_CSS

FOLDER = "assets/stylesheets"


def _local(entry: str, docs_dir: Path) -> Path | None:
    if "://" in entry or entry.startswith(("/", "data:")):
        return None
    path = docs_dir / entry
    return path if path.is_file() and path.suffix == ".css" else None


def join(extra_css: list[str], docs_dir: str | Path) -> tuple[list[str], str | None, str]:
    """(the new extra_css list, the joined file's URI or None, its text). Remote entries and a
    single local file are left as they are; `@import` must come first in a stylesheet, so a
    file using it is not joined."""
    docs = Path(docs_dir)
    entries = [str(e) for e in extra_css]
    local = [(e, _local(e, docs)) for e in entries]
    joinable = [(e, p) for e, p in local
                if p is not None and "@import" not in p.read_text(encoding="utf-8")]
    if len(joinable) < 2:
        return entries, None, ""
    text = "\n".join(f"/* {PurePosixPath(e).name} */\n{p.read_text(encoding='utf-8').strip()}\n"
                     for e, p in joinable)
    # The charts' palette (one copy, roofline's): the static charts outside a plot block
    # (render/svgchart.py) paint with it too.
    text += f"/* the charts' palette: roofline.render.blockstyle.PALETTE_CSS */\n{PALETTE_CSS}\n"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    uri = f"{FOLDER}/site.{digest}.css"
    names = {e for e, _ in joinable}
    out: list[str] = []
    for e in entries:
        if e in names:
            if uri not in out:
                out.append(uri)
        else:
            out.append(e)
    return out, uri, text
