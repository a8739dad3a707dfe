"""The Lighthouse ceiling's bare page (benchmarks.bare.strip_lesson): the lesson's text and
tables with nothing of ours left, so the bare Material site measures Material, not us."""

from benchmarks.bare import strip_lesson

LESSON = """---
title: "A lesson"
---

<p class="rl-part">Part II</p>

# The lesson

Prose with <!-- rl:hbm_tbps --> TB/s and <sub>w</sub> inline.

<!-- rl:tiers_table -->

| Tier | Size |
|---|---|
| HBM | 80 GiB |

```roofline
hardware: h100-sxm
```

<div class="rl-table rl-fit-22" role="region" tabindex="0">
<table class="rl-ops">
<thead><tr><th scope="col" class="num">Op</th></tr></thead>
<tbody><tr><td><a href="x.html"><abbr title="t">GEMM</abbr></a></td></tr></tbody>
</table>
</div>

<div class="rl-tokens" data-rl-tokens>
<div class="inner">
<form class="rl-tokens-form" hidden><label>Tokens <input type="range"></label></form>
<script type="module">import "x.js";</script>
<figure class="rl-cliff"><svg><text>1,000</text></svg></figure>
<p>Drag the slider.</p>
</div>
</div>

<div class="rl-checkpoint" id="q1" markdown="1">

**Q1.** Which roof?

??? success "Reveal the answer"

    The bandwidth roof.

</div>

!!! note "Kept"
    An admonition is Material's own.

## Next
"""


def test_strip_lesson_keeps_text_headings_and_tables_only():
    out = strip_lesson(LESSON)
    # front matter, markers, fences, scripts, forms and drawings are ours: gone
    for ours in ("title:", "rl:", "```", "hardware:", "<script", "<form", "<svg", "<figure",
                 "1,000", "Tokens", "class=", "data-rl", "<div", "<abbr", "<a "):
        assert ours not in out, ours
    # headings, prose (inline HTML in it too), Markdown tables, admonitions: kept as written
    for kept in ("# The lesson", "Prose with  TB/s and <sub>w</sub> inline.", "| HBM | 80 GiB |",
                 '!!! note "Kept"', "    An admonition is Material's own.", "## Next",
                 "Part II", "Drag the slider."):
        assert kept in out, kept
    # a generated table stays, as a plain table on one line (Material styles table:not([class]))
    assert ("<table> <thead><tr><th>Op</th></tr></thead> "
            "<tbody><tr><td>GEMM</td></tr></tbody> </table>") in out
    # a Markdown wrapper (md_in_html) keeps its inside as Markdown: the reveal stays a details
    assert '**Q1.** Which roof?\n\n??? success "Reveal the answer"\n\n    The bandwidth roof.' in out


def test_strip_lesson_escapes_text_that_would_turn_into_markup():
    out = strip_lesson('<div class="x">\n<p>- not a list</p>\n<p># not a heading</p>\n</div>\n')
    assert "\\- not a list" in out and "\\# not a heading" in out
