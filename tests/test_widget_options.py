"""The docs' option lists come from the settings schema (lesson_site/widget_options.py): the
pages as built list every option of every host's one schema, with its default (issue #29: the
embed page's table had no `measurement`; use-in-your-docs named eight of eleven options)."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT
from lesson_site.build import render_markdown
from roofline.widgets.roofline.settings import RooflineSettings

NAMES = [o.name for o in RooflineSettings.OPTIONS]


def page(name: str) -> str:
    path = ROOT / "docs" / name
    return render_markdown(path.read_text(encoding="utf-8"), f"docs/{name}")


HEAD = "| key | value | default |\n|---|---|---|\n"


def test_the_embed_pages_table_has_a_row_per_option_with_its_default():
    table = page("embed.md").split(HEAD, 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| (.+?) \| (.+?) \|$", table, flags=re.M)
    assert [r[0] for r in rows] == NAMES
    defaults = {name: default for name, _, default in rows}
    assert defaults["hardware"] == "`h100-sxm`" and defaults["url"] == "`true`"
    assert defaults["tokens"] == "none: no slider"


def test_use_in_your_docs_names_every_option():
    text = page("use-in-your-docs.md")
    found = re.search(r"Every host takes the same options \(([^;]+);", text)
    assert found and re.findall(r"`([a-z_]+)`", found.group(1)) == NAMES


@pytest.mark.parametrize("name", ["embed.md", "use-in-your-docs.md"])
def test_no_page_types_the_list_itself(name):
    """The list is the marker's, not typed: a typed copy is what went stale."""
    raw = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert "<!-- rl:options" in raw
    assert HEAD not in raw
