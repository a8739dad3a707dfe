"""The markers' HTML tables are set aside while Python-Markdown converts their page
(lesson_site.build.render_markdown / restore_tables): the page comes out the same, with no
stand-in left behind, and a table the page itself writes is never touched."""

from __future__ import annotations

import re

from lesson_site import build

PAGE = """\
# A page

<!-- rl:which_chip phase=decode -->

```html
<table><tr><td>an example in a code block</td></tr></table>
```

<table class="authors"><tr><td>the page's own</td></tr></table>
"""


def test_a_markers_tables_are_set_aside_and_put_back_whole():
    where = "docs/test-aside.md"
    md = build.render_markdown(PAGE, where)
    tokens = re.findall(r"<!--rl-table:\d+-->", md)
    assert len(tokens) == 1  # which_chip's one table
    # The page's own tables (in a code block, and its raw HTML) are left where they are.
    assert "<table><tr><td>an example in a code block" in md
    assert '<table class="authors">' in md
    kept = build._aside[where]
    html = build.restore_tables(f"<div>{md}</div>", where)
    assert "<!--rl-table:" not in html and kept[0] in html and kept[0].startswith("<table")
    assert where not in build._aside  # nothing kept past its page


def test_a_page_with_no_marker_tables_is_returned_as_is():
    assert build.restore_tables("<p>x</p>", "docs/nothing-set-aside.md") == "<p>x</p>"


def stand_ins(site) -> list[str]:
    """Pages of `site` where a table's stand-in was left instead of the table."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if "<!--rl-table:" in p.read_text(encoding="utf-8"))


def test_a_stand_in_left_behind_is_found(tmp_path):
    """Seeded: a page converted without restore_tables."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "page.html").write_text(build.render_markdown(PAGE, "docs/seeded.md"))
    (tmp_path / "fine.html").write_text("<table></table>")
    assert stand_ins(tmp_path) == ["a/page.html"]


def test_no_stand_in_is_left_on_any_built_page(built_site):
    assert stand_ins(built_site) == []
    # and the tables are there: the hardware page's summary and spec tables
    assert (built_site / "hardware.html").read_text(encoding="utf-8").count("<table") >= 30
