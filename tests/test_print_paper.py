"""Paper (#49): each long page printed to PDF keeps every figure's caption on the figure's
sheet and leaves no sheet more than about 40 % blank, except the last and the one before a
section the print stylesheet starts on a new sheet (the lesson's answers). The sheets are
measured by tests/papercheck.py (poppler); the print rules are in lesson.css."""

from __future__ import annotations

import pytest

from pagecheck import settle
from papercheck import blank_shares, paper_faults
from site_helpers import LESSON

PAGES = {"lesson": LESSON, "budget": "budget.html", "serving": "serving.html",
         "op-zoo": "op-zoo.html"}
EXEMPT = ("Answers",)  # lesson.css: .rl-answers { break-before: page }
MARGIN = {side: "12mm" for side in ("top", "bottom", "left", "right")}


def _print(w, path, css: str = ""):
    settle(w.page)
    if css:
        w.page.add_style_tag(content=css)
    w.page.pdf(path=str(path), format="A4", print_background=True, margin=MARGIN)
    return path


@pytest.mark.parametrize("name, palette", [(n, "light") for n in PAGES]
                         + [("serving", "dark")])
def test_printed_sheets_are_full_and_keep_captions(site_url, open_page, tmp_path, name,
                                                   palette):
    w = open_page(site_url(PAGES[name]), scheme=palette)
    pdf = _print(w, tmp_path / f"{name}-{palette}.pdf")
    assert len(blank_shares(pdf)) >= 3  # a real print, else the check proves nothing
    assert paper_faults(pdf, exempt=EXEMPT) == []
    w.assert_clean()


def test_seeded_forced_breaks_are_reported(site_url, open_page, tmp_path):
    """A forced break before every big block leaves sheets half empty; one before a caption
    cuts it off from its figure: the check reports both."""
    w = open_page(site_url(PAGES["budget"]))
    pdf = _print(w, tmp_path / "seeded.pdf", "@media print { .md-typeset h2 { break-before: "
                 "page; } .md-typeset .roofline-caption { break-before: page !important; } }")
    faults = paper_faults(pdf, exempt=EXEMPT)
    assert any("% blank" in f for f in faults), faults
    assert any("caption cut off" in f for f in faults), faults
