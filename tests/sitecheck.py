"""Helpers the quality gates share: list a built site's pages, parse links and ids."""

from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.relative_to(site).parts)


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []  # (tag, attr, value)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.ids.add(value)
            if name in ("href", "src") or (name == "srcset" and value):
                self.refs.append((tag, name, value))


def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def is_external(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https") or url.startswith("//")


def broken_links(site: Path) -> list[str]:
    """Every relative href/src must resolve to a file in the site, every #fragment to an id."""
    ids_cache: dict[Path, set[str]] = {}
    problems = []
    for page in pages(site):
        parsed = parse(page)
        ids_cache.setdefault(page, parsed.ids)
        for tag, attr, url in parsed.refs:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//") or url.startswith(("mailto:", "javascript:")):
                continue
            if parts.path.startswith("/"):
                # Only MkDocs' 404.html uses root-absolute URLs: a server shows it at any
                # depth, so it must. Resolve those against the site root.
                target = (site / unquote(parts.path).lstrip("/")).resolve()
            else:
                target = (page if not parts.path
                          else (page.parent / unquote(parts.path)).resolve())
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{page.relative_to(site)}: <{tag} {attr}={url!r}> -> missing file")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = ids_cache.setdefault(target, parse(target).ids)
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{page.relative_to(site)}: {url!r} -> no id "
                                    f"'{parts.fragment}' in {target.relative_to(site)}")
    return problems


def external_resources(site: Path) -> list[str]:
    """Scripts, stylesheets, images, iframes or fonts loaded from another host."""
    found = []
    for page in pages(site):
        for tag, attr, url in parse(page).refs:
            loads = attr == "src" or (tag == "link" and attr == "href")
            if loads and is_external(url):
                found.append(f"{page.relative_to(site)}: <{tag} {attr}={url}>")
    return found


# ---------------------------------------------------------------- docs/embed.md's examples

EMBED_MD = Path(__file__).parent.parent / "docs" / "embed.md"


def doc_block(title: str) -> str:
    """The body of the code block titled `title` in docs/embed.md."""
    text = EMBED_MD.read_text(encoding="utf-8")
    found = re.search(r'^(`{3,})\w* title="' + re.escape(title) + r'"\n(.*?)\n\1$', text,
                      flags=re.S | re.M)
    assert found, f"no code block titled {title!r} in docs/embed.md"
    return found.group(2) + "\n"
