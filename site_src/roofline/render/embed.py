"""Turn any Bokeh layout into an HTML block that the roofline loader brings to life.

    from roofline.render.embed import block
    html = block(layout, height_px=640, label="Time budget of one training step")

The block is one `<div class="roofline-block">` holding
- the layout as an inline `json_item` in `<script type="application/json">` (no fetch, so it works
  from file://; inline, so the page is one request),
- an empty `.roofline-target` the loader embeds into, with `min-height` reserving the plot's
  height so nothing below it shifts when BokehJS arrives,
- a `<noscript>` line for readers without JavaScript.

BokehJS (core + widgets) is loaded lazily by `roofline-loader.*.js` when the block comes near the
viewport; the loader must be on the page: the MkDocs plugin adds it to every page, `page()` below
adds it for standalone files. The loader also re-colours every Figure/axis/grid/title/legend for
Material's dark scheme, and any model whose `tags` include "ink" (or "ink-muted") gets the page's
foreground (or muted) colour as its `text_color`/`line_color`.

Output is deterministic: Bokeh's model ids are renumbered from p1000 in order of appearance, so
the same layout gives byte-identical HTML in any process.

Deferred items: `block()` takes the layout or a function that builds it. While `deferring(key)`
is in effect (a cold MkDocs build whose render-ahead worker is drawing the same block), the
function is not called: the item is a placeholder naming the block's cache key and its place
(`data-rl-deferred="KEY:0"`), and the build's process, which never imports Bokeh then, fills
it from the items the worker drew (under `items_only()`, which builds the items alone) when
the page is written (hosts/ahead.py). Everything else in the block (the static first frame, the
caption, the key) is drawn by the build's process alone.
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import json
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from roofline.render import assets
from roofline.render.blockstyle import NOSCRIPT_STYLE as _NOSCRIPT_STYLE
from roofline.render.blockstyle import STATIC_STYLE as _STATIC_STYLE

if TYPE_CHECKING:
    from bokeh.model import Model

_ID = re.compile(r'"id":"(p\d+)"')
_REF = re.compile(r'"(p\d+)"')
_DEFER: contextvars.ContextVar[list | None] = contextvars.ContextVar("roofline_defer",
                                                                     default=None)
ITEM = re.compile(r'<script type="application/json" class="roofline-item">(.*?)</script>', re.S)
"""A block's item, as block() writes it (the MkDocs plugin moves it into a file)."""
DEFERRED = re.compile(r'<script type="application/json" class="roofline-item" '
                      r'data-rl-deferred="([0-9a-f]+):(\d+)"></script>')


_ITEMS_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("roofline_items_only",
                                                                  default=False)


@contextlib.contextmanager
def items_only() -> Iterator[None]:
    """Within: block() returns its item alone, and builds nothing else (the render-ahead
    worker's half of a deferred block: the build's process drew the rest)."""
    token = _ITEMS_ONLY.set(True)
    try:
        yield
    finally:
        _ITEMS_ONLY.reset(token)


@contextlib.contextmanager
def deferring(key: str) -> Iterator[None]:
    """Within: block() writes placeholders for `key`'s items instead of building them."""
    token = _DEFER.set([key, 0])
    try:
        yield
    finally:
        _DEFER.reset(token)


def fill_deferred(page_html: str, items: Callable[[str], list[str]]) -> str:
    """`page_html` with each deferred item replaced by item i of `items(key)` (the full
    block's items, in order)."""
    return DEFERRED.sub(lambda m: '<script type="application/json" class="roofline-item">'
                        f"{items(m.group(1))[int(m.group(2))]}</script>", page_html)


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
    Bokeh walks a nested value element by element for references and again to encode it
    (half the budget block's drawing, for its 240 KB payload); a string is one value."""
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
    docstring for what it contains, and for deferred items). `static` and `key` may be
    functions too: under items_only() they are not called.

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
    if _ITEMS_ONLY.get():
        made = layout() if callable(layout) else layout
        return f'<script type="application/json" class="roofline-item">{item_json(made)}</script>'
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
    deferred = _DEFER.get()
    if deferred is not None:
        item = (f'<script type="application/json" class="roofline-item" '
                f'data-rl-deferred="{deferred[0]}:{deferred[1]}"></script>')
        deferred[1] += 1
    else:
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
