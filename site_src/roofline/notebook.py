"""Jupyter output and standalone files for `roofline.figure(...)`.

`roofline.figure()` returns the widget's Bokeh layout, still a plain Bokeh model for
`bokeh.io.show`, `file_html` and `json_item` (it serialises as the same Bokeh type), with three
additions:

- `_repr_mimebundle_` / `_repr_html_`: a notebook cell whose value is the figure shows it, fully
  offline: the output holds the widget's block, BokehJS (core + widgets) and the loader as
  inert `<script type="text/x-roofline">` text, and a few lines that evaluate them only when
  the page has no BokehJS of this version yet, so several figures in one notebook load it once.
  Nothing comes from a CDN, and a saved notebook (or its HTML export) still shows the plots.
- `.save(path)`: one self-contained HTML file (BokehJS inlined) that opens from disk.
- `.html()`: that file's text.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

MIME_HTML = "text/html"
_INERT = "text/x-roofline"

# Evaluates the inert copies of BokehJS and the loader that an output carries, once per page
# (the first output that runs brings them in; later ones find them), then renders new blocks.
_BOOT = """(function () {
  "use strict";
  var V = %(version)s;
  function have() { var B = window.Bokeh; return !!(B && B.version === V && B.embed && B.Widgets); }
  function run(name) {
    var s = document.querySelector('script[type="%(inert)s"][data-roofline="' + name + '"]');
    if (s) (0, eval)(s.textContent);
  }
  if (!have()) { %(bundles)s }
  if (!(window.roofline && window.roofline.render)) run("loader");
  document.querySelectorAll(".roofline-block:not([data-roofline-state])").forEach(
    function (b) { window.roofline.render(b); });
})();"""


class _Display:
    """The notebook and file methods; mixed into the layout's own Bokeh class (see wrap())."""

    _roofline_height_px: int
    _roofline_label: str

    def _roofline_block(self) -> str:
        from .plot.embed import block
        return block(self, height_px=self._roofline_height_px, label=self._roofline_label)

    def html(self, *, title: str | None = None) -> str:
        """One self-contained HTML page (BokehJS and the loader inlined)."""
        from .plot.embed import page
        return page(self._roofline_block(), title=title or self._roofline_label)

    def save(self, path: str | Path, *, title: str | None = None) -> Path:
        """Write html() to `path` (a file that works offline, from disk); returns the path."""
        path = Path(path)
        path.write_text(self.html(title=title), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        return notebook_html(self._roofline_block())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {MIME_HTML: self._repr_html_(),
                "text/plain": f"<{self._roofline_label}: a Bokeh {self.__qualified_model__}>"}


def notebook_html(block_html: str) -> str:
    """A notebook output for one block: the block, inert BokehJS + loader, and _BOOT."""
    import json

    import bokeh

    from .plot import assets
    inert = []
    names = []
    for asset in assets.bokeh_assets():
        name = asset.name.removesuffix(f"-{bokeh.__version__}.min.js")
        names.append(name)
        inert.append((name, asset.read_text()))
    inert.append(("loader", assets.loader_source()))
    scripts = "\n".join(f'<script type="{_INERT}" data-roofline="{name}">{_script_safe(text)}'
                         "</script>" for name, text in inert)
    boot = _BOOT % {"version": json.dumps(bokeh.__version__), "inert": _INERT,
                    "bundles": " ".join(f"run({json.dumps(n)});" for n in names)}
    return (f'<div class="roofline-notebook">\n{block_html}\n{scripts}\n'
            f"<script>\n{boot}\n</script>\n</div>")


def _script_safe(text: str) -> str:
    return text.replace("</script", "<\\/script")


@functools.cache
def _display_class(base: type) -> type:
    # The leading underscore keeps Bokeh from registering a new model type; the explicit
    # names make it serialise as `base` (BokehJS knows no other).
    return type(f"_Roofline{base.__name__}", (_Display, base), {
        "__view_model__": base.__view_model__, "__view_module__": base.__view_module__,
        "__qualified_model__": base.__qualified_model__, "__module__": __name__})


def wrap(layout: Any, *, height_px: int, label: str) -> Any:
    """Give a widget's Bokeh layout the notebook/file methods above (same object, same
    serialised type); `height_px` is the block's reserved height, `label` its accessible name."""
    layout.__class__ = _display_class(type(layout))
    layout._roofline_height_px = int(height_px)
    layout._roofline_label = label
    return layout


def roofline_figure(**kwargs: Any) -> Any:
    """roofline.figure(): the widget's layout, displayable and savable (see the module doc)."""
    from .fences import CONTROLS_HEIGHT_PX
    from .plot.widget import figure
    layout = figure(**kwargs)
    height = kwargs.get("height", 400) + CONTROLS_HEIGHT_PX
    if kwargs.get("measurement") is not None:
        from .plot.measured import PICKER_HEIGHT_PX
        height += PICKER_HEIGHT_PX
    label = (f"Interactive roofline: {kwargs.get('hardware', 'h100-sxm')}, "
             f"{kwargs.get('precision', 'bf16')}")
    return wrap(layout, height_px=height, label=label)
