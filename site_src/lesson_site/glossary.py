"""The glossary: one file of Markdown abbreviation definitions (data/glossary.md), appended to
every page by pymdownx.snippets and read here for the glossary page.

The Markdown extension `lesson_site.glossary` runs after Python-Markdown's `abbr`: it keeps
the <abbr> on a term's first appearance in a page only (a definition where the term first
appears, not a tab stop on every later mention), and makes that one focusable, so a keyboard
user reaches the definition the way a mouse user hovers it."""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from pathlib import Path

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

from roofline.model import datafile as _toml

from lesson_site import DATA_DIR
from roofline.errors import RooflineError

GLOSSARY_PATH = DATA_DIR / "glossary.md"
_DEF = re.compile(r"^\*\[(?P<term>[^\]]+)\]:\s*(?P<text>.+)$")


@dataclass(frozen=True)
class Term:
    term: str
    definition: str


def load_glossary(path: Path | None = None) -> list[Term]:
    """The abbreviation definitions in file order; an empty or malformed line is an error."""
    path = path or GLOSSARY_PATH
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise RooflineError("file not found", where=str(path)) from None
    out, seen = [], set()
    for i, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("<!--"):
            continue
        m = _DEF.match(line)
        if not m:
            raise RooflineError("expected '*[TERM]: definition'", where=str(path),
                                entry=f"line {i}", field="glossary")
        if m["term"] in seen:
            raise RooflineError("defined twice", where=str(path), entry=f"line {i}",
                                field=m["term"])
        seen.add(m["term"])
        out.append(Term(m["term"], m["text"].strip()))
    if not out:
        raise RooflineError("no definitions", where=str(path), field="glossary")
    return out


class FirstAbbrOnly(Treeprocessor):
    """Unwrap every <abbr> after the first of its title; the first gets tabindex=0. An <abbr>
    inside a link is unwrapped and does not count as the first: a focusable element inside a
    link would be a tab stop inside a tab stop (axe: nested-interactive)."""

    def run(self, root: etree.Element) -> None:
        seen: set[str] = set()
        parents = {child: parent for parent in root.iter() for child in parent}

        def in_link(el: etree.Element) -> bool:
            while el in parents:
                el = parents[el]
                if el.tag == "a":
                    return True
            return False
        for el in list(root.iter("abbr")):
            title = el.get("title", "")
            if title not in seen and not in_link(el):
                seen.add(title)
                el.set("tabindex", "0")
                continue
            parent = parents[el]
            index = list(parent).index(el)
            text = (el.text or "") + (el.tail or "")
            if index == 0:
                parent.text = (parent.text or "") + text
            else:
                prev = parent[index - 1]
                prev.tail = (prev.tail or "") + text
            parent.remove(el)


class GlossaryExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        md.treeprocessors.register(FirstAbbrOnly(md), "rl_first_abbr", 6)


def makeExtension(**kwargs) -> GlossaryExtension:  # noqa: N802
    return GlossaryExtension(**kwargs)
