"""Departures from common figures, made visible where the page prints ours: one marker,
`<!-- rl:departure id=ID -->`, renders every entry of data/departures.toml the same way: a
note in the page's own voice saying what is often quoted and how our figure is computed.

It renders as inline HTML (a span styled as a block by departures.css), so it works in a
paragraph, a list item or a prompt's answer alike, with JavaScript off and in print."""

from __future__ import annotations

import html

from roofline.errors import RooflineError
from lesson_site.context import Context
from lesson_site.markers import expand, marker
from lesson_site.qa import load_entries

KEYS = ("title", "quote", "text")


def departures(path=None):
    """(path, entries) of the departures file, validated (every field present, ids unique)."""
    return load_entries("departures", "departure", KEYS, path=path)


@marker("departure")
def departure(ctx: Context, *, id: str) -> str:
    """One departure note: title, the often-quoted figure, how ours is computed."""
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
    return (f'<span class="rl-departure" role="note" data-departure="{html.escape(id)}">'
            f'<strong class="rl-departure-title">{html.escape(found.fields["title"])}.</strong> '
            f'Often quoted: “{html.escape(found.fields["quote"])}”. {text}</span>')
