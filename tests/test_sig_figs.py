"""At most three significant figures in what the lesson prints (issue #46): a figure like
"0.0166 ns" or "3.352 TB/s" claims a precision that no estimate here has.

The rule, applied to the built lesson's text with every answer open (scripts, drawings and
hidden text apart, as scripts/lesson-counts reads it):
- a number with a decimal point has at most 3 significant digits (leading zeros do not count,
  trailing ones do: 0.085 has 2, 3.00 has 3);
- a whole number has at most 3 significant digits once its trailing zeros are dropped
  (1,980 has 3; 3,960 has 3), unless it is exact by construction:
  - a year (1900–2099, written without a comma),
  - a size or count given as an input, which in this catalog is always a multiple of 64
    (4,096 tokens, 16,384 rows, 11,008 columns, 2,048 threads);
- a version number (two or more dots, 12.4.1) is not a figure;
- a source's own figure quoted in a "Notes and sources" block (class rl-sources) is the
  source's words, kept as it printed them."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from site_helpers import LESSON

SKIP = {"script", "style", "template", "noscript", "svg", "math"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
VERSION = re.compile(r"\b\d+(?:\.\d+){2,}\b")


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.article = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        a = dict(attrs)
        self.article += tag == "article"
        skip = (tag in SKIP or a.get("aria-hidden") == "true" or "hidden" in a
                or "rl-sources" in (a.get("class") or "").split())
        self.stack.append((tag, skip))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
        self.article -= tag == "article"

    def handle_data(self, data):
        if self.article and not any(s for _, s in self.stack):
            self.parts.append(data)


def significant(number: str) -> int:
    digits = number.replace(",", "")
    if "." in digits:
        return len(digits.replace(".", "").lstrip("0"))
    return len(digits.lstrip("0").rstrip("0"))


def allowed(number: str) -> bool:
    if significant(number) <= 3:
        return True
    if "." in number:
        return False
    value = int(number.replace(",", ""))
    if "," not in number and 1900 <= value <= 2099:
        return True  # a year
    return value % 64 == 0  # a size or count given exactly


def too_precise(text: str) -> list[str]:
    text = VERSION.sub(" ", text)
    out = []
    for m in NUMBER.finditer(text):
        n = m.group().rstrip(",")
        if not allowed(n):
            out.append(f"{n}: …{text[max(0, m.start() - 50):m.end() + 20]}…")
    return out


def lesson_text(html: str) -> str:
    p = _Text()
    p.feed(html)
    return " ".join(" ".join(p.parts).split())


def test_the_lesson_prints_at_most_three_significant_figures(built_site):
    text = lesson_text((built_site / LESSON).read_text(encoding="utf-8"))
    bad = too_precise(text)
    assert not bad, "\n".join(bad)


def test_the_rule_catches_what_it_should():
    """The seeded defects are caught; exact inputs, years and versions are not."""
    assert too_precise("3.352 TB/s") and too_precise("0.01661 ns") and too_precise("161.3")
    assert too_precise("nvidia-smi shows 81,559 MiB") and too_precise("1,273 tokens/s")
    assert not too_precise("4,096 tokens, 16,384 rows, 11,008 columns, in 2026, CUDA 12.4.1")
    assert not too_precise("3.35 TB/s, 0.085%, 1,980 TFLOP/s, $3.00, 0.00011")
    page = ('<article><p>3.35 TB/s</p><details class="note rl-sources"><p>3.352 TB/s</p>'
            '</details><script>1.23456</script></article>')
    assert not too_precise(lesson_text(page))
    assert too_precise(lesson_text(page.replace("rl-sources", "other")))
