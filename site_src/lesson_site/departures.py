"""Corrections to the client's text, made where the text stands: one marker,
`<!-- rl:departure id=ID -->`, renders every entry of data/departures.toml the same way: the
client's words it corrects, quoted, the model's fix in at most 40 words, and a link to the
derivation (issue #46). The client's own prose above it is never edited.

It renders as inline HTML (a span styled as a block by departures.css), so it works in a
paragraph, a list item or a prompt's answer alike, with JavaScript off and in print."""

from __future__ import annotations

import html
import re

from roofline.errors import RooflineError
from lesson_site.context import Context
from lesson_site.markers import expand, marker
from lesson_site.qa import load_entries

KEYS = ("quote", "text", "see")
MAX_WORDS = 40
"""The most words a note may show, quote and link included (issue #46)."""

_TAG = re.compile(r"<[^>]+>")


def departures(path=None):
    """(path, entries) of the departures file, validated (every field present, ids unique)."""
    return load_entries("departures", "departure", KEYS, path=path)


def href(see: str) -> str:
    """A note's link as the lesson page needs it: "#anchor" stays, and a page of the site
    (its Markdown name, anchor optional) becomes that built page's HTML, one folder up."""
    if see.startswith("#"):
        return see
    page, _, anchor = see.partition("#")
    if not page.endswith(".md"):
        raise RooflineError(f"a departure links to '#anchor' or 'page.md#anchor', not {see!r}",
                            field="see")
    return "../" + page[:-3] + ".html" + (f"#{anchor}" if anchor else "")


def word_count(note_html: str) -> int:
    """Words a reader sees in a rendered note (tags dropped)."""
    return len(html.unescape(_TAG.sub(" ", note_html)).split())


@marker("departure")
def departure(ctx: Context, *, id: str) -> str:
    """One correction: “the client's words” → the model's fix (derivation linked)."""
    path, entries = departures()
    found = next((e for e in entries if e.id == id), None)
    if found is None:
        raise RooflineError(f"unknown departure {id!r}", field="id",
                            valid=[e.id for e in entries])
    where = f"{path} [{id}]"
    text = expand(found.fields["text"], ctx, where + ".text").strip()
    if "\n" in text or "<!--" in text:
        raise RooflineError("a departure's text must be one paragraph with every marker "
                            "expanded", where=where, field="text")
    out = (f'<span class="rl-departure" role="note" data-departure="{html.escape(id)}">'
           f'<strong class="rl-departure-title">Correction:</strong> '
           f'“{html.escape(found.fields["quote"])}”: {text} '
           f'<a href="{html.escape(href(found.fields["see"]))}">(derivation)</a></span>')
    if word_count(out) > MAX_WORDS:
        raise RooflineError(f"a correction note is {word_count(out)} words, more than {MAX_WORDS}",
                            where=where, field="text")
    return out
