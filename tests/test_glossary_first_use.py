"""Every term is defined where it is first used (issue #46): on the built lesson, the first
appearance of each glossary term (data/glossary.md, matched as the abbr extension matches it:
whole word, case as written) sits inside its <abbr>, the dotted underline whose title is the
definition. A first appearance in raw HTML (a table, a figure a marker drew) gets no <abbr>,
so a term that a table uses before the prose does fails here.

The rule, exactly: a term's variants (a plural, a capital: the entries with the same
definition, which share one <abbr>) count as one term, first use of any of them; and text a
reader does not read as prose is not a use: code and preformatted blocks (the client's ASCII
pyramid, commands), the options of a form control, scripts and drawings."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from lesson_site.glossary import load_glossary
from site_helpers import LESSON

SKIP = {"script", "style", "svg", "template", "noscript", "math", "pre", "code", "select",
        "option"}
VOID = {"br", "img", "input", "hr", "meta", "link", "wbr", "col", "source"}
# The issue's list: each must be in the glossary and glossed at its first use.
ISSUE_TERMS = {"roofline bound", "recomputation", "warps", "occupancy", "tile",
               "wave quantisation", "MoE", "experts", "top-k"}


class _FirstUse(HTMLParser):
    """Text of the <article> in order, each chunk with the <abbr> title around it, if any."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None]] = []
        self.article = 0
        self.chunks: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.article += tag == "article"
        self.stack.append((tag, dict(attrs).get("title") if tag == "abbr" else None))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
        self.article -= tag == "article"

    def handle_data(self, data):
        if not self.article or any(t in SKIP for t, _ in self.stack):
            return
        title = next((a for t, a in reversed(self.stack) if t == "abbr"), None)
        self.chunks.append((data, title))


def first_uses(html: str, terms) -> dict[str, tuple[bool, str]]:
    """definition's first term -> (glossed at the first appearance of any of its variants?,
    the text around it)."""
    p = _FirstUse()
    p.feed(html)
    groups: dict[str, list[str]] = {}
    for t in terms:
        groups.setdefault(t.definition, []).append(t.term)
    out = {}
    for definition, names in groups.items():
        pat = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in
                                             sorted(names, key=len, reverse=True)) + r")\b")
        for data, title in p.chunks:
            m = pat.search(data)
            if m:
                out[names[0]] = (title == definition and data.strip() == m.group(0),
                                 data[max(0, m.start() - 60):m.end() + 20])
                break
    return out


def test_the_issue_terms_are_in_the_glossary():
    assert ISSUE_TERMS <= {t.term for t in load_glossary()}


def test_each_terms_first_appearance_is_glossed(built_site):
    html = (built_site / LESSON).read_text(encoding="utf-8")
    uses = first_uses(html, load_glossary())
    bad = [f"{term}: …{around}…" for term, (ok, around) in uses.items() if not ok]
    assert not bad, "\n".join(bad)
    # the issue's terms are all used on the page (so the check above covered them)
    assert {"recomputation", "warp", "occupancy", "tile", "MoE", "experts",
            "top-k", "roofline bound"} <= set(uses)


def test_a_term_first_used_in_a_table_is_caught():
    """The seeded defect: a term whose first appearance is raw HTML, before any <abbr>."""
    from lesson_site.glossary import Term
    term = Term("warps", "A group of 32 threads")
    page = ('<article><table><tr><td>warps per SM</td></tr></table>'
            '<p><abbr title="A group of 32 threads">warps</abbr></p></article>')
    assert first_uses(page, [term])["warps"][0] is False
    glossed = ('<article><p><abbr title="A group of 32 threads">warps</abbr> again warps</p>'
               '</article>')
    assert first_uses(glossed, [term])["warps"][0] is True
