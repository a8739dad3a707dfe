"""Reading the built site the way a reader does: the main column's text, tables and headings
(used by the tests/test_site*.py and tests/test_lesson*.py files)."""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

LESSON = "lessons/06-gpus-the-hardware-youre-renting.html"
CLIENT_TEXT = Path(__file__).parent / "fixtures" / "lesson" / "06-gpus-the-hardware-youre-renting.txt"
BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "td", "th", "tr", "div",
          "summary", "figcaption", "details", "table", "ul", "ol", "article", "section", "br"}
SKIP = {"script", "style", "svg", "math", "template"}


class _Main(HTMLParser):
    """Text of <article> (Material's content column), skipping permalinks and non-text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0          # inside <article>
        self.skip = 0           # inside script/style/svg/math or a headerlink
        self.parts: list[str] = []
        self.tables: list[list[list[str]]] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.headings: list[tuple[str, str]] = []
        self._heading: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.depth += 1
        if not self.depth:
            return
        if tag in SKIP or (tag == "a" and "headerlink" in (a.get("class") or "")):
            self.skip += 1
            return
        if tag in BLOCKS:
            self.parts.append("\n")
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self._row = []
            self.tables[-1].append(self._row)
        elif tag in ("td", "th"):
            self._cell = []
        elif re.fullmatch(r"h[1-6]", tag):
            self._heading = (tag, [])

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "article":
            self.depth -= 1
            return
        if self.skip and (tag in SKIP or tag == "a"):
            self.skip -= 1
            return
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif self._heading and tag == self._heading[0]:
            self.headings.append((tag, " ".join("".join(self._heading[1]).split())))
            self._heading = None
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.depth or self.skip:
            return
        self.parts.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._heading:
            self._heading[1].append(data)


def read_main(path: Path) -> _Main:
    parser = _Main()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def main_text(path: Path) -> str:
    return "".join(read_main(path).parts)


QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " ", "•": " "})
# A number with its approximation signs ("~300", "≈ 3.35", "<1") is masked: our markers put
# the model's figures where the client typed rounded ones, so digits may differ, words may not.
NUMBER = re.compile(r"(?:[~≈<>≥≤]\s*)*\d(?:[\d,.]*\d)?")


def normalise(text: str, *, mask: bool = True) -> str:
    text = unicodedata.normalize("NFKC", text).translate(QUOTES)
    if mask:
        text = NUMBER.sub("#", text)
        # The lesson's own rounding style, "≈ 295, call it ~300", stands for one figure.
        text = re.sub(r"#, call it #", "#", text)
    return " ".join(text.split()).lower()


def client_paragraphs() -> list[str]:
    text = CLIENT_TEXT.read_text(encoding="utf-8")
    return [p.strip("\n") for p in re.split(r"\n\s*\n", text) if p.strip()]


def tables(path: Path) -> list[list[list[str]]]:
    return read_main(path).tables
