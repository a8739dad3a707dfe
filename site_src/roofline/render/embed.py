"""Turn any Bokeh layout into an HTML block that the roofline loader brings to life.

    html = block(layout, height_px=640, label="Time budget of one training step")

The block is one `<div class="roofline-block">`: the layout as an inline `json_item` (works
from file://, one request), an empty `.roofline-target` whose `min-height` reserves the plot's
height, the static first frame if given, and a `<noscript>` line. `roofline-loader.*.js` (on
every page through the MkDocs plugin, or added by `page()`) loads BokehJS when the block nears
the viewport and re-colours the plot for Material's dark scheme ("ink"/"ink-muted" tags).
Bokeh's model ids are renumbered from p1000 in order, so the same layout gives the same bytes
in any process.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from roofline.render import assets
from roofline.render.blockstyle import NOSCRIPT_STYLE as _NOSCRIPT_STYLE
from roofline.render.blockstyle import STATIC_STYLE as _STATIC_STYLE

if TYPE_CHECKING:
    from bokeh.model import Model

_ID = re.compile(r'"id":"(p\d+)"')
_REF = re.compile(r'"(p\d+)"')
ITEM = re.compile(r'<script type="application/json" class="roofline-item">(.*?)</script>', re.S)
"""A block's item, as block() writes it (the MkDocs plugin moves it into a file)."""


def item_json(layout: Model) -> str:
    """The layout as json_item text with stable ids, safe to put inside a <script> element."""
    from bokeh.embed import json_item
    text = json.dumps(json_item(layout), separators=(",", ":"), ensure_ascii=False)
    mapping: dict[str, str] = {}
    for found in _ID.finditer(text):
        mapping.setdefault(found.group(1), f"p{1000 + len(mapping)}")
    text = _REF.sub(lambda m: f'"{mapping.get(m.group(1), m.group(1))}"', text)
    return script_safe_json(text)


def as_json_text(value: Any) -> str:
    """A large callback argument as compact JSON text (render/js/jsonarg.mjs parses it once):
    Bokeh walks a nested value element by element for references and again to encode it; a
    string is one value."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def script_safe_json(text: str) -> str:
    """JSON text that can stand inside a <script> element: "</script" or "<!--" inside a
    string would end or confuse it (the escapes keep the JSON's value)."""
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


# The column widths (px) under which a block may reserve another height (narrow_px's keys):
# the static drawings' breakpoints (blockstyle.STATIC_CSS), where the live layout's controls wrap.
NARROW_COLUMNS = (688, 480, 380)


def block(layout: Model | Callable[[], Model], *, height_px: int, label: str,
          caption: str = "", static: str | Callable[[], str] = "",
          key: str | Callable[[], str] = "", narrow_px: dict[int, int] | None = None) -> str:
    """HTML for one interactive Bokeh layout, or a function that builds it (see the module
    docstring for what it contains). `static` and `key` may be functions too.

    `height_px` is the height to reserve before BokehJS has drawn the layout, and `narrow_px`
    ({column width: height}, every key of NARROW_COLUMNS) the height to reserve in a column
    narrower than each width, where the live layout's controls wrap (so the live plot replaces
    the static one without moving what follows, on a phone as on a desktop); `label` is the
    accessible name of the figure region; `caption` (plain text) is shown under it if given;
    `static` (inline <svg>, see widgets/roofline/static.py) is the first frame shown until the
    live plot is ready, on paper and without JavaScript; `key` (HTML) is shown under both.
    """
    if height_px <= 0:
        raise ValueError(f"height_px must be positive, got {height_px!r}")
    static = static() if callable(static) else static
    key = key() if callable(key) else key
    reserve = f"min-height:{int(height_px)}px"
    cls = "roofline-target"
    if narrow_px:
        if sorted(narrow_px) != sorted(NARROW_COLUMNS):
            raise ValueError(f"narrow_px needs a height for each of {NARROW_COLUMNS}, got {narrow_px!r}")
        cls += " rl-reserve"  # blockstyle.STATIC_CSS's container queries read the variables
        reserve += "".join(f";--rl-h-{w}:{int(narrow_px[w])}px" for w in NARROW_COLUMNS)
    parts = [
        f'<div class="roofline-block" role="figure" aria-label="{html.escape(label)}">',
        f'<div class="{cls}" style="{reserve}"></div>',
    ]
    if static:
        parts += [_STATIC_STYLE,
                  f'<div class="roofline-static">{static}</div>']
    made = layout() if callable(layout) else layout
    item = f'<script type="application/json" class="roofline-item">{item_json(made)}</script>'
    parts += [
        item,
        '<noscript><p>This interactive plot needs JavaScript.</p>'
        + (_NOSCRIPT_STYLE if static else "") + "</noscript>",
    ]
    if key:
        parts.append(key)
    if caption:
        parts.append(f'<p class="roofline-caption">{html.escape(caption)}</p>')
    parts.append("</div>")
    return "\n".join(parts)


def page(body: str, *, title: str, script_src: str | None = None) -> str:
    """A minimal standalone HTML page around one or more blocks.

    With `script_src` (e.g. "roofline/roofline-loader.abc.js") the page loads the loader, which
    loads BokehJS from the same folder; without it BokehJS and the loader are inlined, making
    one self-contained file that works opened straight from disk.
    """
    scripts = (f'<script src="{html.escape(script_src)}"></script>' if script_src
               else assets.inline_scripts())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>
:root {{ color-scheme: light dark; }}
body {{ font-family: system-ui, sans-serif; margin: 0 auto; padding: 12px; max-width: 1100px; }}
@media (prefers-color-scheme: dark) {{ body {{ background: #1e2029; color: #e2e4e9; }} }}
</style>
</head>
<body>
<main>
{body}
</main>
{scripts}
</body>
</html>
"""
