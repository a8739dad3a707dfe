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
    _roofline_static: str

    def _roofline_block(self) -> str:
        from roofline.render.embed import block
        return block(self, height_px=self._roofline_height_px, label=self._roofline_label,
                     static=self._roofline_static)

    def html(self, *, title: str | None = None) -> str:
        """One self-contained HTML page (BokehJS and the loader inlined)."""
        from roofline.render.embed import page
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

    from roofline.render import assets
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


def wrap(layout: Any, *, height_px: int, label: str, static: str = "") -> Any:
    """Give a widget's Bokeh layout the notebook/file methods above (same object, same
    serialised type); `height_px` is the block's reserved height, `label` its accessible name,
    `static` its first frame as inline SVG (see roofline.render.embed.block)."""
    layout.__class__ = _display_class(type(layout))
    layout._roofline_height_px = int(height_px)
    layout._roofline_label = label
    layout._roofline_static = static
    return layout


def figure_options(*, catalog: Any = None, measurement: Any = None, url_state: bool = True,
                   **options: Any) -> tuple[dict, dict, dict | None]:
    """roofline.figure()'s keyword arguments as the door takes them: (the fence's options, None
    meaning the default; the settings fields that are not options; a measurement document
    given as a dict, drawn as is)."""
    opts = {k: v for k, v in options.items() if v is not None}
    if url_state is not True:
        opts["url"] = url_state
    if isinstance(measurement, (str, Path)):
        opts["measurement"], measurement = str(measurement), None
    fields = {"catalog": str(catalog.path)} if catalog is not None else {}
    return opts, fields, measurement


def roofline_figure(*, catalog: Any = None, zoo: Any = None, measurement: Any = None,
                    url_state: bool = True, **options: Any) -> Any:
    """roofline.figure(): the widget's layout, displayable and savable (see the module doc).
    The options are the ```roofline fence's, parsed by the one door (roofline.hosts.door), so
    the notebook block reserves the fence's height and draws the fence's static first frame."""
    from roofline.hosts import door
    from roofline.widgets.roofline.layout import build_layout
    from roofline.widgets.roofline.static import render

    opts, fields, measurement = figure_options(catalog=catalog, measurement=measurement,
                                               url_state=url_state, **options)
    settings = door.settings("roofline", opts, **fields)
    layout = build_layout(settings, catalog=catalog, zoo=zoo, measurement=measurement)
    height = settings.height_px
    if measurement is not None:  # a document given as a dict: its overlay adds the picker
        from roofline.widgets.measurement.settings import PICKER_HEIGHT_PX
        height += PICKER_HEIGHT_PX
    static = render(settings.payload(catalog, zoo), height_px=settings.height)
    return wrap(layout, height_px=height, label=settings.label, static=static)
