"""Figure numbers: every figure on a page, in order, gets "Figure n:" at the head of its
caption, in the text itself, so screen readers, print and a copy-paste all have it. One pass
over the page's HTML after Markdown (the hook's on_page_content), so the numbers follow the
page's order whichever marker, fence or page wrote the figure."""

from __future__ import annotations

import re

# A figure's caption opens with one of these: a <figcaption> (the static charts) or the
# caption line of a live plot's block (render/embed.py, which is a role="figure" <div>).
_CAPTION = re.compile(r'<figcaption(?:\s[^>]*)?>|<p class="roofline-caption">')
# A script's text is code, not the page: a caption written by a script (the profile drop page
# draws its report in the browser) is a string there and is left alone.
_SCRIPT = re.compile(r"(<script\b[^>]*>.*?</script\s*>)", re.S | re.I)


def number_figures(html: str) -> str:
    """`html` with "Figure 1: ", "Figure 2: " … put at the head of each caption in order."""
    count = 0

    def head(m: re.Match) -> str:
        nonlocal count
        count += 1
        return f'{m.group(0)}<span class="rl-fignum">Figure {count}:</span> '
    parts = _SCRIPT.split(html)   # odd items: the scripts
    return "".join(p if i % 2 else _CAPTION.sub(head, p) for i, p in enumerate(parts))
