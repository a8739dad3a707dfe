"""Jupyter output and standalone files for `roofline.figure(...)`.

`roofline.figure()` returns the widget's Bokeh layout (still a plain Bokeh model for
`bokeh.io.show`, `file_html`, `json_item`) with:
- `_repr_mimebundle_`: the fence's block for the same options (through roofline.hosts.door),
  plus what the page lacks to draw it, offline: BokehJS and the loader in the first output of
  the kernel session that needs them (again where that output was replaced or deleted; in
  every output on Colab, whose outputs are separate frames), each callback module once, as
  inert text that notebook_boot.js evaluates. A saved notebook still shows every plot;
- `.save(path)` / `.html()`: one self-contained HTML file (BokehJS inlined) that opens from disk.
A block whose pieces were cleared keeps its static first frame and says how to redraw it.
"""

from __future__ import annotations

import functools
import hashlib
import html as html_module
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

from roofline.errors import RooflineWarning

MIME_HTML = "text/html"
_INERT = "text/x-roofline"
BOOT_JS = Path(__file__).with_name("notebook_boot.js")
CODE_SHARED_MIN = 2000
"""A callback module at least this long (characters) travels once per notebook, not per plot."""
_ITEM = re.compile(r'(<script type="application/json" class="roofline-item")>(.*?)</script>',
                   re.S)
WAITING_NOTE = ("Static view: this plot becomes interactive when the notebook's first roofline "
                "output (it carries BokehJS) is shown. If that output was cleared, run its "
                "cell again, or restart the kernel and run all.")


class _Display:
    """The notebook and file methods; mixed into the layout's own Bokeh class (see wrap())."""

    _roofline_settings: Any
    _roofline_objects: dict | None
    _roofline_ready: list

    def _roofline_block(self) -> str:
        """The fence's block for these options: through the door when figure() was given only
        options (and a catalog, which its settings name by path); else drawn from the objects
        it was given (an op zoo, a measurement document)."""
        if self._roofline_objects is None:
            from roofline.hosts import door
            return door.render(self._roofline_settings)
        from roofline.widgets.roofline.block import render
        return render(self._roofline_settings, **self._roofline_objects)

    def html(self, *, title: str | None = None) -> str:
        """One self-contained HTML page (BokehJS and the loader inlined)."""
        from roofline.render.embed import page
        return page(self._roofline_block(), title=title or self._roofline_settings.label)

    def save(self, path: str | Path, *, title: str | None = None) -> Path:
        """Write html() to `path` (a file that works offline, from disk); returns the path."""
        path = Path(path)
        path.write_text(self.html(title=title), encoding="utf-8")
        return path

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {MIME_HTML: notebook_output(self._roofline_block()),
                "text/plain": f"<{self._roofline_settings.label}: a Bokeh "
                              f"{self.__qualified_model__}>"}

    def _attach_document(self, doc: Any) -> None:
        super()._attach_document(doc)  # type: ignore[misc]
        ready = doc.callbacks._js_event_callbacks.get("document_ready", [])
        for callback in self._roofline_ready:
            if callback not in ready:
                doc.js_on_event("document_ready", callback)


# ---------------------------------------------------------------- what the page already has

class Session:
    """The pieces this kernel session has sent to the notebook's page: piece -> (cell id, request
    id) of the output that carried it."""

    def __init__(self) -> None:
        self.sent: dict[str, tuple[str | None, str | None]] = {}

    def carry(self, piece: str) -> bool:
        """Whether the output being made now must carry `piece` (and note that it does)."""
        cell, request, deleted, isolated = _request()
        before = self.sent.get(piece)
        if isolated or before is None or (
                cell is not None and before[0] == cell and before[1] != request) or (
                before[0] is not None and before[0] in deleted):
            self.sent[piece] = (cell, request)
            return True
        return False


SESSION = Session()


def _request() -> tuple[str | None, str | None, tuple, bool]:
    """(the cell id the front end gave the running request, the request's id, the cells it says
    were deleted, whether each output is shown in a frame of its own)."""
    isolated = "google.colab" in sys.modules
    ipython = sys.modules.get("IPython")  # not imported here: without it nothing is displayed
    shell = ipython.get_ipython() if ipython is not None else None
    kernel = getattr(shell, "kernel", None)
    if kernel is None or not hasattr(kernel, "get_parent"):
        return None, None, (), isolated
    parent = kernel.get_parent() or {}
    meta = parent.get("metadata") or {}
    return (meta.get("cellId"), (parent.get("header") or {}).get("msg_id"),
            tuple(meta.get("deletedCells") or ()), isolated)


def notebook_output(block_html: str, session: Session | None = None) -> str:
    """A notebook output for one block: the block (its large callback modules as placeholders,
    waiting), the pieces `session` has not sent yet, a note for a page without them, and the
    boot script."""
    from roofline.render import assets
    session = session or SESSION
    found = _ITEM.search(block_html)
    item, shared = share_code(found.group(2))
    block = (block_html[:found.start()]
             + f'{found.group(1)} data-roofline-code="{" ".join(shared)}">{item}</script>'
             + block_html[found.end():])
    block = block.replace('<div class="roofline-block"',
                          '<div class="roofline-block" data-roofline-state="waiting"', 1)
    pieces: list[tuple[str, str]] = []
    # The full bundles: a notebook's window.Bokeh also serves bokeh.io.show() plots, whose
    # models the trimmed bundle (the site's) lacks.
    bundles = assets.bokeh_assets(full=True)
    if session.carry("bokeh"):
        pieces += [(a.name, a.read_text()) for a in bundles]
        pieces.append(("loader", assets.loader_source(full=True)))
    pieces += [(f"code-{h}", token) for h, token in shared.items() if session.carry(f"code-{h}")]
    scripts = "".join(f'<script type="{_INERT}" data-roofline="{name}">{_script_safe(text)}'
                      "</script>\n" for name, text in pieces)
    boot = (BOOT_JS.read_text(encoding="utf-8")
            .replace("__BOKEH_VERSION__", assets.bokeh_version())
            .replace("__BOKEH_PIECES__", json.dumps([a.name for a in bundles])))
    return (f'<div class="roofline-notebook">\n{block}\n'
            f'<p class="roofline-waiting" hidden>{html_module.escape(WAITING_NOTE)}</p>\n'
            f"{scripts}<script>\n{boot}</script>\n</div>")


def share_code(item: str) -> tuple[str, dict[str, str]]:
    """A block's json_item text with each callback module of CODE_SHARED_MIN characters or more
    replaced by "roofline-code:HASH"; returns it and {HASH: the module's JSON string exactly as
    it stood}, so putting each string back (notebook_boot.js) gives the item unchanged."""
    from roofline.render.embed import script_safe_json
    shared: dict[str, str] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            attrs = node.get("attributes")
            code = attrs.get("code") if node.get("name") == "CustomJS" and isinstance(
                attrs, dict) else None
            if isinstance(code, str) and len(code) >= CODE_SHARED_MIN:
                digest = hashlib.sha256(code.encode()).hexdigest()[:16]
                shared[digest] = script_safe_json(json.dumps(code, ensure_ascii=False))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(json.loads(item))
    for digest, token in shared.items():
        if token not in item:  # item_json wrote it some other way: a bug of ours
            raise RuntimeError(f"callback module {digest} is not in the item as item_json "
                               "writes strings")
        item = item.replace(token, f'"roofline-code:{digest}"')
    return item, shared


def _script_safe(text: str) -> str:
    return text.replace("</script", "<\\/script")


# ---------------------------------------------------------------- the figure

@functools.cache
def _display_class(base: type) -> type:
    # The leading underscore keeps Bokeh from registering a new model type; the explicit
    # names make it serialise as `base` (BokehJS knows no other).
    return type(f"_Roofline{base.__name__}", (_Display, base), {
        "__view_model__": base.__view_model__, "__view_module__": base.__view_module__,
        "__qualified_model__": base.__qualified_model__, "__module__": __name__})


def wrap(layout: Any, settings: Any, objects: dict | None = None) -> Any:
    """Give a widget's Bokeh layout the notebook/file methods above (same object, same
    serialised type): `settings` are its validated settings, `objects` what figure() was given
    besides options (see _Display._roofline_block). The layout leaves the Document its builder
    put it in, keeping that Document's document_ready callbacks for the next one it joins."""
    doc = layout.document
    ready = list(doc.callbacks._js_event_callbacks.get("document_ready", [])) if doc else []
    if doc is not None:
        doc.remove_root(layout)  # else bokeh.io.show() fails: "already in a doc"
    layout.__class__ = _display_class(type(layout))
    layout._roofline_settings = settings
    layout._roofline_objects = objects
    layout._roofline_ready = ready
    return layout


def figure_options(*, catalog: Any = None, measurement: Any = None, url_state: bool | None = None,
                   **options: Any) -> tuple[dict, dict, dict | None]:
    """roofline.figure()'s keyword arguments as the door takes them: (the fence's options, None
    meaning the default; the settings fields that are not options; a measurement document
    given as a dict, drawn as is). `url_state` is the old spelling of the `url` option."""
    opts = {k: v for k, v in options.items() if v is not None}
    if url_state is not None:
        warnings.warn("roofline.figure(url_state=...) is now url=..., the fence's option name",
                      DeprecationWarning, stacklevel=4)
        opts.setdefault("url", url_state)
    if isinstance(measurement, (str, Path)):
        opts["measurement"], measurement = str(measurement), None
    fields = {"catalog": str(catalog.path)} if catalog is not None else {}
    return opts, fields, measurement


def _warn(option: str, message: str) -> None:
    # figure() -> roofline_figure() -> door.settings() -> here: point at the caller's line.
    warnings.warn(f"option '{option}': {message}", RooflineWarning, stacklevel=5)


def roofline_figure(*, catalog: Any = None, zoo: Any = None, measurement: Any = None,
                    url_state: bool | None = None, **options: Any) -> Any:
    """roofline.figure(): the widget's layout, displayable and savable (see the module doc).
    The options are the ```roofline fence's, parsed by the one door (roofline.hosts.door)."""
    from roofline.hosts import door
    from roofline.widgets.roofline.layout import build_layout

    opts, fields, measurement = figure_options(catalog=catalog, measurement=measurement,
                                               url_state=url_state, **options)
    settings = door.settings("roofline", opts, warn=_warn, **fields)
    layout = build_layout(settings, catalog=catalog, zoo=zoo, measurement=measurement)
    objects = (None if zoo is None and measurement is None
               else {"catalog": catalog, "zoo": zoo, "measurement": measurement})
    return wrap(layout, settings, objects)


class Block:
    """A static block (the serving window, a profile report, a table): its HTML, made by the
    door, shown as a notebook cell's value and saved as a page that opens from disk. The
    serving window's controls run where the notebook runs an output's scripts (a trusted
    notebook, an HTML export); elsewhere its first frame and facts still show."""

    def __init__(self, kind: str, options: dict) -> None:
        from roofline.hosts import door
        self.kind = kind
        self.settings = door.settings(kind, options, where=f"roofline.block({kind!r})",
                                      warn=_warn)
        self._html = door.render(self.settings, where=f"roofline.block({kind!r})")

    def html(self) -> str:
        """One page holding the block, no BokehJS (it needs none), opening from disk."""
        from roofline.render.blockstyle import hoist_styles
        title = html_module.escape(self.settings.label)
        return hoist_styles(
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n<style>:root{{color-scheme:light dark}}"
            "body{font-family:system-ui,sans-serif;margin:0 auto;padding:12px;max-width:1100px}"
            "</style>\n</head>\n<body>\n<main>\n" + self._html + "\n</main>\n</body>\n</html>\n")

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.html(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        return self._html


def roofline_block(kind: str, **options: Any) -> Block:
    """roofline.block(kind, **options): a block of any kind that needs no BokehJS."""
    from roofline.hosts import door
    if kind == "roofline":
        raise TypeError("roofline.block('roofline'): the interactive roofline is "
                        "roofline.figure(...)")
    door.kind_of(kind, where="roofline.block()")
    return Block(kind, {k: v for k, v in options.items() if v is not None})
