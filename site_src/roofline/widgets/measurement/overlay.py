"""A measurement (from `roofline measure`) drawn on the interactive roofline: the measured
bandwidth diagonals and matmul roofs, and each measured op as a point at (the model's
intensity, FLOPs ÷ measured time). Plus a file picker that reads another measurement in the
browser (nothing is uploaded), checks it against the same schema and redraws the overlay.

widgets/measurement/measure.mjs is the one copy of the overlay (its data, its labels' layout and
its summary line): the live plot runs it in the browser, the static first frame and the
summary table at build time (roofline.render.jsengine).
"""

from __future__ import annotations

from pathlib import Path

from bokeh.layouts import column
from bokeh.core.properties import value
from bokeh.models import (ColumnDataSource, CustomJS, Div, FileInput, InlineStyleSheet, LabelSet,
                          MultiLine, Scatter, Segment)

from roofline.errors import RooflineError
from roofline.measure.schema import schema
from roofline.widgets.measurement.settings import load_measurement
from roofline.render import jsmodule
from roofline.render.embed import as_json_text
from roofline.render.blockstyle import CONTROL_CSS
from roofline.render.jsengine import call

JS = Path(__file__).parent / "measure.mjs"
COLOR = "#d9480f"
# Text in the page's own colours (readable in both palettes); orange only marks the overlay.
# CSS text only: a stylesheet is a Bokeh model and belongs to one document, so each layout
# makes its own (a module-level one breaks the second render in a process: `mkdocs serve`).
PICKER_CSS = CONTROL_CSS  # the file picker in the widgets' one control style
STATUS_CSS = f"""
:host {{ color: var(--md-default-fg-color, inherit); border-left: 4px solid {COLOR};
         padding-left: 0.6em; }}
"""


# ---------------------------------------------------------------- Bokeh

def add_overlay(fig, measurement: dict | str | Path | None, *, picker: bool = True,
                docs_dir: Path | None = None):
    """Draw `measurement` (a document, or a file name as resolve() finds it; None draws nothing
    until a file is picked) on the roofline figure `fig`; with `picker`, add a file input and
    a status line under the widget that `fig` belongs to. Returns the status Div."""
    try:
        doc = load_measurement(measurement, docs_dir) if measurement is not None else None
    except RooflineError as exc:
        # One line naming the file and its field, reported against the caller's option.
        raise RooflineError(str(exc), field="measurement") from None
    # Empty sources: measure.mjs draws the overlay's first frame from `initial` (and redraws
    # it from a picked file); the build-time SVG runs the same file (widgets/roofline/static.mjs).
    roofs = ColumnDataSource(name="measured-roofs", data={"xs": [], "ys": []})
    # Its labels (roofs' and ops') are laid out by measure.mjs with the scene's own label
    # layout (labels.mjs), around the scene's labels and points, whenever either redraws.
    labels = ColumnDataSource(name="measured-labels", data={
        k: [] for k in ("x", "y", "text", "dx", "dy", "align", "baseline", "size", "style")})
    points = ColumnDataSource(name="measured-points", data={"x": [], "y": [], "text": []})
    # Leader lines from a measured op's point to its name, where the layout moved it away.
    leaders = ColumnDataSource(name="measured-leaders",
                               data={"x0": [], "y0": [], "x1": [], "y1": []})
    # Sorted by name: select() walks a set, and the page must be byte-identical per build.
    # One walk of the figure's model graph (each select() walks all of it again).
    scene = list(fig.references())

    def named(name: str, kind: type | None = None) -> list:
        return [m for m in scene if m.name == name and (kind is None or isinstance(m, kind))]
    scene_labels = sorted({m.source for m in scene if isinstance(m, LabelSet)},
                          key=lambda s: s.name or "")  # (a halo shares its label's source)
    scene_points = named("op-points", ColumnDataSource)
    # The scene's drawn lines (roof, ceilings, vector roof, launch line): labels keep off them.
    scene_lines = [s for n in ("roof", "ceilings", "vector-roof-line", "launch-floor")
                   for s in named(n, ColumnDataSource)]
    # ... and its vertical lines: the ridge and the reader's AI line (Spans).
    scene_spans = [s for n in ("ridge", "ai-line") for s in named(n)]
    fig.add_glyph(roofs, MultiLine(xs="xs", ys="ys", line_color=COLOR, line_width=2.5,
                                   line_dash="dashdot"), name="measured-roof-lines")
    fig.add_glyph(leaders, Segment(x0="x0", y0="y0", x1="x1", y1="y1", line_color=COLOR,
                                   line_width=1), name="measured-leader-lines")
    fig.add_glyph(points, Scatter(x="x", y="y", marker="diamond", size=13, fill_color=COLOR,
                                  line_color="#ffffff", line_width=1), name="measured-op-points")
    font = value(fig.xaxis[0].major_label_text_font)  # the scene's: the layout's metrics
    for halo in (True, False):  # a halo under each label, as the scene's (widgets/roofline)
        fig.add_layout(LabelSet(
            x="x", y="y", text="text", source=labels, x_offset="dx", y_offset="dy",
            text_align="align", text_baseline="baseline", text_font=font,
            text_font_size="size", text_font_style="style",
            **({"text_color": "#ffffff", "text_outline_color": "#ffffff",
                "text_outline_width": 3, "tags": ["halo"]} if halo else {"text_color": COLOR})))
    # The widget's own callback resets the y range on every change; this keeps the overlay in.
    code = jsmodule.bundle(JS)  # measure.mjs and what it imports: one module (a blob cannot import)
    guard = CustomJS(module=True, code=code, args=dict(
        mode="guard", fig=fig, roofs=roofs, points=points, labels=labels, leaders=leaders,
        scene_labels=scene_labels, scene_points=scene_points, scene_lines=scene_lines,
        scene_spans=scene_spans))
    fig.y_range.js_on_change("start", guard)
    fig.y_range.js_on_change("end", guard)
    relayout = CustomJS(module=True, code=code, args=dict(
        mode="layout", fig=fig, labels=labels, leaders=leaders, scene_labels=scene_labels,
        scene_points=scene_points, scene_lines=scene_lines,
        scene_spans=scene_spans))
    for source in scene_labels:
        source.js_on_change("data", relayout)
    status = Div(name="measurement-status", text="", render_as_text=True,
                 sizing_mode="stretch_width",
                 html_attributes={"aria-live": "polite", "role": "status"},
                 stylesheets=[InlineStyleSheet(css=STATUS_CSS)])
    first = CustomJS(module=True, code=code, tags=["roofline-first-frame"], args=dict(
        mode="init", initial=as_json_text(doc) if doc is not None else None, fig=fig, roofs=roofs, labels=labels, leaders=leaders,
        points=points, status=status, scene_labels=scene_labels, scene_points=scene_points,
        scene_lines=scene_lines, scene_spans=scene_spans))
    if fig.document is not None:
        fig.document.js_on_event("document_ready", first)
    if not picker:
        return status
    chooser = FileInput(name="measurement-file", accept=".json,application/json",
                        title="Your measurement JSON (stays in your browser)",
                        sizing_mode="stretch_width", stylesheets=[InlineStyleSheet(css=PICKER_CSS)])
    pick = CustomJS(module=True, code=code, args=dict(
        mode="pick", schema=as_json_text(schema()), fig=fig, roofs=roofs, labels=labels, leaders=leaders,
        points=points, status=status, chooser=chooser, scene_labels=scene_labels,
        scene_points=scene_points, scene_lines=scene_lines,
        scene_spans=scene_spans))
    chooser.js_on_change("value", pick)
    widget = fig.document.get_model_by_name("roofline-widget") if fig.document else None
    if widget is not None:
        widget.children.append(column(chooser, status, sizing_mode="stretch_width"))
    return status
