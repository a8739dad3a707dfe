"""The Lighthouse ceiling (`python -m benchmarks.bench --lighthouse-bare N`): how fast can a bare
Material page of the lesson's length be? A site with the same theme and palette and none of
ours (no plugins, hooks, overrides or stylesheets) whose only page is the lesson as the model
writes it, less everything of ours that is not text: fences, markers, scripts, forms, figures
and wrappers go; headings, prose, admonitions and the tables (as plain tables) stay. Lighthouse
mobile runs on it and on our site, interleaved, served the same way."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from benchmarks.browser import LIGHTHOUSE, lighthouse_once
from benchmarks.sitebuild import LESSON, ROOT, build_site, median, serve_site

FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$\n?", re.S | re.M)
MARKER = re.compile(r"<!--\s*rl:.*?-->", re.S)
TABLE = re.compile(r"<table\b.*?</table>", re.S | re.I)
TABLE_TAG = re.compile(r"<(/?)(table|caption|thead|tbody|tfoot|tr|th|td)\b[^>]*>", re.I)
INNER_TAG = re.compile(r"</?(?!(?:/?)(?:table|caption|thead|tbody|tfoot|tr|th|td)\b)[a-z][^>]*>",
                       re.I)
HTML_START = re.compile(r"^<([a-zA-Z][a-zA-Z0-9]*)\b")
NOT_TEXT = re.compile(r"<(script|style|svg|form|figure|template)\b.*?</\1\s*>", re.S | re.I)
BLOCK_END = re.compile(r"</(p|li|div|summary|details|h[1-6]|dt|dd|ol|ul|blockquote)\s*>|<br\s*/?>",
                       re.I)
MD_IN_HTML = re.compile(r"\smarkdown=[\"']?(1|block)")
ANY_TAG = re.compile(r"<[^>]+>")


def plain_table(html: str) -> str:
    """A table with no attributes and no markup inside its cells but text (what Material's
    own table wrapper and styles take: `table:not([class])`)."""
    html = TABLE_TAG.sub(lambda m: f"<{m.group(1)}{m.group(2).lower()}>", html)
    return INNER_TAG.sub("", html)


def html_text(block: str) -> list[str]:
    """A raw HTML block as the reader's text: its tables as plain tables, its other text as
    paragraphs; scripts, forms, drawings and figures dropped."""
    tables: list[str] = []

    def keep(m: re.Match) -> str:
        tables.append(plain_table(m.group(0)).replace("\n", " "))
        return f"\n\n\0{len(tables) - 1}\0\n\n"

    text = ANY_TAG.sub("", BLOCK_END.sub("\n\n", TABLE.sub(keep, NOT_TEXT.sub("", block))))
    out = []
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        m = re.fullmatch(r"\0(\d+)\0", para)
        if m:
            out += ["", tables[int(m.group(1))], ""]
        elif para:
            out += ["", re.sub(r"^([#>*+-] |\d+\. )", r"\\\1", para), ""]
    return out


def _html_block(lines: list[str], start: int) -> int:
    """Index just past the HTML block opening at `lines[start]`: until its first tag's opens
    and closes balance (tags of one name do not interleave in what our markers write)."""
    tag = HTML_START.match(lines[start]).group(1).lower()
    opens = re.compile(rf"<{tag}\b", re.I)
    closes = re.compile(rf"</{tag}\s*>", re.I)
    depth = 0
    for k in range(start, len(lines)):
        depth += len(opens.findall(lines[k])) - len(closes.findall(lines[k]))
        if depth <= 0:
            return k + 1
    return len(lines)


def _strip_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    k = 0
    while k < len(lines):
        if HTML_START.match(lines[k]):
            end = _html_block(lines, k)
            if MD_IN_HTML.search(lines[k]) and end - k > 2 and ">" in lines[k]:
                # a Markdown wrapper (md_in_html): its inside is Markdown, keep it as such
                out += ["", *_strip_lines(lines[k + 1:end - 1]), ""]
            else:
                out += html_text("\n".join(lines[k:end]))
            k = end
            continue
        out.append(lines[k])
        k += 1
    return out


def strip_lesson(markdown: str) -> str:
    """The lesson's Markdown without anything of ours but its text and tables: front matter,
    fenced blocks and `rl:` markers removed; each raw HTML block replaced by its text and
    its tables as plain tables (`html_text`). Markdown headings, paragraphs, lists, admonitions and tables are kept."""
    if markdown.startswith("---\n"):
        end = markdown.find("\n---\n", 4)
        if end >= 0:
            markdown = markdown[end + 5:]
    text = "\n".join(_strip_lines(MARKER.sub("", FENCE.sub("", markdown)).split("\n")))
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


BARE_YML = """\
site_name: "Bare Material: the lesson's text"
docs_dir: docs
use_directory_urls: false
nav:
  - "Lesson": {page}
theme:
  name: material
  language: en
  font: false
{features}{palette}plugins: []
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - tables
  - toc:
      permalink: true
  - pymdownx.details
  - pymdownx.superfences
"""


def _theme_block(key: str) -> str:
    """Our mkdocs.yml's `theme.<key>:` block, verbatim (features, palette)."""
    m = re.search(rf"^  {key}:\n(?:    .*\n|\s*\n)*", (ROOT / "mkdocs.yml").read_text(), re.M)
    return m.group(0) if m else ""


def bare_lesson_site(work: Path) -> Path:
    """Write the bare project (the lesson expanded by the model, then stripped) and return its
    mkdocs.yml."""
    from lesson_site.build import render_markdown

    page = LESSON.replace(".html", ".md")
    source = (ROOT / "docs" / page).read_text(encoding="utf-8")
    body = source.split("\n---\n", 1)[1] if source.startswith("---\n") else source
    expanded = render_markdown(body, f"docs/{page}", source)
    dest = work / "docs" / page
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(strip_lesson(expanded), encoding="utf-8")
    config = work / "mkdocs.yml"
    config.write_text(BARE_YML.format(page=page, features=_theme_block("features"),
                                      palette=_theme_block("palette")))
    return config


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def lighthouse_bare(runs: int) -> dict:
    """Lighthouse mobile on the bare lesson and on ours, interleaved run by run; medians and
    the load average before and after."""
    if not LIGHTHOUSE.exists():
        raise SystemExit(f"no Lighthouse at {LIGHTHOUSE}: run `npm ci` first")
    keys = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
            "speed-index")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sites = {"bare Material": tmp / "bare-site", "ours": tmp / "site"}
        build_site(bare_lesson_site(tmp / "bare"), sites["bare Material"], tmp / "bare")
        build_site(ROOT / "mkdocs.yml", sites["ours"], ROOT)
        served = {name: serve_site(site) for name, site in sites.items()}
        load_before = load_average()
        got: dict[str, list[dict]] = {name: [] for name in sites}
        try:
            for _ in range(runs):
                for name, (_, base) in served.items():
                    r = lighthouse_once(base + LESSON)
                    if r:
                        got[name].append(r)
        finally:
            for httpd, _ in served.values():
                httpd.shutdown()
        load_after = load_average()
    out: dict = {"load": f"{load_before} → {load_after}", "runs": runs, "sites": {}}
    for name, rs in got.items():
        out["sites"][name] = {
            "reports": len(rs),
            "performance": median([r["scores"]["performance"] for r in rs]) if rs else None,
            "performance_runs": [r["scores"]["performance"] for r in rs],
            **{k: median([r["metrics"][k] for r in rs]) if rs else None for k in keys}}
    return out


def print_bare(result: dict) -> None:
    print(f"Lighthouse mobile, {result['runs']} interleaved runs per site; load average "
          f"(1, 5, 15 min) {result['load']}")
    print(f"{'site':<15}{'perf':>6}{'FCP':>8}{'LCP':>8}{'TBT':>8}{'SI':>8}  runs")
    for name, s in result["sites"].items():
        if s["performance"] is None:
            print(f"{name:<15} no report")
            continue
        print(f"{name:<15}{s['performance']:>6.0f}{s['first-contentful-paint']:>8.0f}"
              f"{s['largest-contentful-paint']:>8.0f}{s['total-blocking-time']:>8.0f}"
              f"{s['speed-index']:>8.0f}  {s['performance_runs']}")
    print(f"(ms; os.cpu_count() = {os.cpu_count()})")
