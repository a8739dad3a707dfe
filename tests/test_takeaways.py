"""#46: the serving and profile pages each open with a one-sentence takeaway: the first
paragraph under the page's title, read from the built page, is one sentence, and a figure it
quotes is the model's (the serving window's own figures, through markers)."""

from __future__ import annotations

import html
import re

import pytest

from roofline import fmt

PAGES = ("serving.html", "profile.html")


def first_paragraph(page: str) -> str:
    """The text of the first paragraph after the page's <h1>."""
    body = page[page.index("<h1"):]
    m = re.search(r"<p>(.*?)</p>", body, re.S)
    assert m, "no paragraph after the title"
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).split())


def sentences(text: str) -> int:
    """Sentences in text: a full stop, question or exclamation mark followed by a capital, and
    the last one (a figure's decimal point or "e.g." is not a break)."""
    return len(re.findall(r"[.!?] +(?=[A-Z])", text)) + 1


@pytest.mark.parametrize("name", PAGES)
def test_each_page_opens_with_a_one_sentence_takeaway(built_site, name):
    text = first_paragraph((built_site / name).read_text(encoding="utf-8"))
    assert text.endswith("."), text
    assert sentences(text) == 1, text
    assert 80 <= len(text) <= 400, text


def test_the_serving_takeaway_quotes_the_windows_figures(built_site):
    """Its batch, throughput and price are the window's at its defaults (the figure below)."""
    from lesson_site import window_text  # noqa: F401  (registers the markers)
    from lesson_site.context import load_context
    from lesson_site.markers import expand
    text = first_paragraph((built_site / "serving.html").read_text(encoding="utf-8"))
    ctx = load_context()
    for field in ("wall", "best_batch", "best_tokens_per_s", "best_price", "model", "context"):
        assert expand(f"<!-- rl:window field={field} -->", ctx, "t") in text, field


def test_the_sentence_counter_can_fail():
    """Seeded: two sentences are counted as two; a decimal point is not a break."""
    assert sentences("It fits. Then it does not.") == 2
    assert sentences(f"It decodes {fmt.num(1270.4, 3)} tokens/s at 0.656 $ per token.") == 1
