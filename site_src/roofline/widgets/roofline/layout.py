"""The interactive roofline: a Bokeh layout built from the model, scripted by widgets/roofline/roofline.mjs.

Public contract (documented in docs/embed.md): models named `roofline-figure`, `ai-slider`
(value = log10 of the AI), `readout`, `verdict`, `hardware`, `precision`, `presets`,
`vector-roof`; with the tokens option `tokens-slider`, `tokens-mark-N`, `tokens-points`, and
always `launch-floor`. Python builds a fresh, empty layout (named controls, sources and
annotations) and the payload; the one CustomJS callback draws every frame from them, the
first included, through `scene()` in scene.mjs; the build runs the same scene.mjs for the
static first frame (static.py, through roofline.render.jsengine).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from bokeh.core.properties import value
from bokeh.document import Document
from bokeh.layouts import column, row
from bokeh.models import (BoxAnnotation, Button, Checkbox, ColumnDataSource, CustomJS,
                          CustomJSTickFormatter, Div, FixedTicker, InlineStyleSheet, LabelSet,
                          Line, MultiLine, Range1d, Scatter, Segment, Select, Slider, Span)
from bokeh.plotting import figure as bokeh_figure

from roofline.model.catalog import Catalog, default_catalog
from roofline.model.ops import OpZoo
from roofline.render import jsmodule
from roofline.render.jsengine import constant
from roofline.render.blockstyle import CONTROL_CSS, select_width
from roofline.widgets.roofline.payload import (CEILING_COLORS, MEMORY_COLOR, ROOF_COLOR,
                                               drawing_payload)
from roofline.widgets.roofline.settings import RooflineSettings

JS = Path(__file__).parent / "roofline.mjs"
RENDER_JS = Path(__file__).resolve().parents[2] / "render" / "js"
FORMAT_JS = RENDER_JS / "format.mjs"


def chart_font() -> str:
    """The font stack every chart's text is set in (labels.mjs FONT_STACK, the one copy: its
    metrics size the labels)."""
    return constant(RENDER_JS / "labels.mjs", "FONT_STACK")


def function_body(module: Path, tail: str) -> str:
    """A module of ours and its imports as the body of a plain function (a Bokeh
    CustomJSTickFormatter's code), ending with `tail`."""
    return re.sub(r"^export (default )?", "", jsmodule.bundle(module), flags=re.M) + "\n" + tail


def callback_code() -> str:
    """roofline.mjs and what it imports (format.mjs, scene.mjs) as the one ES module BokehJS
    runs (a blob cannot import)."""
    return jsmodule.bundle(JS)
SLIDER_FORMAT = JS.with_name("slider_format.js")
_WIDGET_CSS = CONTROL_CSS + """
/* The vector-roof Checkbox has no <label> to widen its target: the box itself is 24 px
   (WCAG 2.5.8), so it stays a target beside any neighbour. */
input[type=checkbox] { width: 24px; height: 24px; margin: 0 6px 0 0; flex: none; }
"""
_VERDICT_CSS = """
:host { padding: 0.35em 0.7em; border-radius: 4px; font-weight: 600; color: #fff; }
:host(.rl-memory) { background: #b42318; }
:host(.rl-compute) { background: #1a7f37; }
:host(.rl-overhead) { background: #8a5a00; }
"""


# ---------------------------------------------------------------- the layout

def build_layout(settings: RooflineSettings, *, catalog: Catalog | None = None,
                 zoo: OpZoo | None = None, measurement: dict | None = None):
    """A fresh Bokeh layout for validated settings (a measurement document, if given, is drawn
    instead of settings.measurement)."""
    if measurement is None:
        measurement = settings.measurement
    data = drawing_payload(settings, catalog or default_catalog(settings.catalog), zoo,
                           measurement)
    layout = _build(settings, data)
    if measurement is not None:
        _add_measurement(layout, measurement)
    return layout


def _add_measurement(layout, measurement) -> None:
    from roofline.widgets.measurement import overlay as measured
    # The layout is in its Document already: without freeze(), Bokeh walks the whole model
    # graph again after each model added (most of this widget's cold render).
    with layout.document.models.freeze():
        # From the document's index, not select(): each select() walks the whole graph.
        doc = layout.document
        fig = doc.get_model_by_name("roofline-figure")
        callback = next(cb for cb in doc.models if isinstance(cb, CustomJS)
                        and "payload" in cb.args)
        measured.add_overlay(fig, measurement)
        # The scene's labels keep off the measured roofs: the widget's callback reads them,
        # and lays its labels out again when a picked file changes them. (Added while the
        # index is frozen: found through the renderer that draws them.)
        roofs = next(r.data_source for r in fig.renderers if r.name == "measured-roof-lines")
        callback.args["measured_roofs"] = roofs
        roofs.js_on_change("data", callback)


def _build(opts: RooflineSettings, data: dict):
    """A fresh, empty layout: named controls, sources and annotations that roofline.mjs fills
    with the first frame (on document_ready, or when the loader asks) and every later one."""
    st = data["state"]
    hw = data["hardware"][st["hardware"]]
    x0, x1 = data["x"]
    top, right, bottom, left = data["margin"]  # the static drawing's frame too (static.mjs)
    font = chart_font()
    fig = bokeh_figure(name="roofline-figure", x_axis_type="log", y_axis_type="log",
                       height=opts.height, sizing_mode="stretch_width", min_width=300,
                       min_border_top=top, min_border_right=right, min_border_bottom=bottom,
                       min_border_left=left, toolbar_location=None, tools="",
                       x_axis_label="arithmetic intensity (FLOP/byte)",
                       y_axis_label="attainable (TFLOP/s)",
                       x_range=Range1d(x0, x1), y_range=Range1d(x0, x1))
    # Decades only, as the static drawing (roofline.mjs sets each range's decades), formatted
    # by format.mjs's num(); no minor ticks; the labels' font stack, whose metrics they use.
    ticks = CustomJSTickFormatter(code=function_body(FORMAT_JS, "return num(tick, 3);"))
    for axis in fig.axis:
        axis.ticker = FixedTicker(ticks=[])
        axis.formatter = ticks
        axis.minor_tick_line_color = None
        axis.major_label_text_font = axis.axis_label_text_font = font
    fig.grid.grid_line_alpha = 0.8
    fig.grid.minor_grid_line_color = None

    def source(name: str, *columns: str) -> ColumnDataSource:
        return ColumnDataSource(name=name, data={c: [] for c in columns})

    memory = BoxAnnotation(name="memory-region", fill_color=MEMORY_COLOR, fill_alpha=0.08,
                           line_alpha=0)
    fig.add_layout(memory)
    # Glyphs go in with add_glyph, not figure.line() & co., which also build a "nonselection"
    # and a "muted" copy of each glyph: these plots neither select nor mute, and BokehJS
    # derives either copy itself if ever asked ("auto"). A tenth fewer models to build and
    # serialize (133 → 119 for the lesson's plot); the budget and the overlay do the same.
    ceilings = source("ceilings", "xs", "ys", "color")
    fig.add_glyph(ceilings, MultiLine(xs="xs", ys="ys", line_color="color", line_width=2,
                                      line_dash="dashed"))
    vector_src = source("vector-roof-line", "x", "y")
    fig.add_glyph(vector_src, Line(x="x", y="y", line_color=CEILING_COLORS["vector"],
                                   line_width=2, line_dash="dotdash"))
    roof = source("roof", "x", "y")
    fig.add_glyph(roof, Line(x="x", y="y", line_color=ROOF_COLOR, line_width=3))
    ridge = Span(name="ridge", dimension="height", line_dash="dashed", line_width=1.5,
                 line_color="#7a8290", tags=["ink-muted"])
    fig.add_layout(ridge)
    points = source("op-points", "x", "y", "op")
    fig.add_glyph(points, Scatter(x="x", y="y", size=8, fill_color="#7a8290",
                                  line_color="#ffffff", line_width=1))
    # A name the label layout moved away from its point is tied to it by a leader line.
    leaders = source("label-leaders", "x0", "y0", "x1", "y1")
    fig.add_glyph(leaders, Segment(x0="x0", y0="y0", x1="x1", y1="y1", line_color="#7a8290",
                                   line_width=1, tags=["ink-muted"]))
    extra_args = _tokens_and_launch(fig, source)
    label_cols = ("x", "y", "text", "dx", "dy", "align", "baseline", "color", "size", "style")
    labels = {}
    for role, tags in (("color", []), ("ink", ["ink"]), ("muted", ["ink-muted"])):
        labels[role] = source(f"labels-{role}", *label_cols)
        for halo in (True, False):
            # The halo: the text again under it, filled and stroked in the page's background
            # (the loader themes models tagged "halo"): lines and grid stop short of a label.
            fig.add_layout(LabelSet(
                x="x", y="y", text="text", source=labels[role], x_offset="dx", y_offset="dy",
                text_align="align", text_baseline="baseline", text_font=value(font),
                text_font_size="size", text_font_style="style",
                **({"text_color": "#ffffff", "text_outline_color": "#ffffff",
                    "text_outline_width": 3, "tags": ["halo"]} if halo else
                   {"text_color": "color", "tags": tags})))
    # The reader's point and AI line: roofline.mjs draws them in an SVG layer over the canvas
    # (a slider tick then repaints no canvas). These models, in the document but on no
    # renderer, hold what is shown: the point's x, y and colour; the line's AI and its themed
    # colour (the loader colours "ink-muted" models).
    ai_line = Span(name="ai-line", dimension="height", line_dash="dotted", line_width=1,
                   line_color="#7a8290", tags=["ink-muted"], level="overlay")
    marker = source("marker", "x", "y", "color")

    # Stylesheets are models: one set per layout, as a model belongs to one document only.
    widget_css = InlineStyleSheet(css=_WIDGET_CSS)
    # Each select as wide as its longest option; the precision select's options change with
    # the chip, so it fits every precision's label.
    hw_options = [(k, v["name"]) for k, v in data["hardware"].items()]
    hardware = Select(name="hardware", title="Hardware", value=st["hardware"],
                      options=hw_options, width=select_width(
                          [v for _, v in hw_options], minimum=200),
                      stylesheets=[widget_css])
    precision = Select(name="precision", title="Precision", value=st["precision"],
                       options=[(p, data["precisions"][p]["label"]) for p in hw["precisions"]],
                       width=select_width([p["label"] for p in data["precisions"].values()],
                                          minimum=160),
                       stylesheets=[widget_css])
    preset_options = ([("custom", "None: the AI slider alone")]
                      + [(i, v["label"]) for i, v in data["ops"].items()]
                      + _tokens_presets(data))
    presets = Select(name="presets", title="Op preset", value=st["op"] or "custom",
                     options=preset_options, width=select_width(
                         [v for _, v in preset_options], minimum=200),
                     stylesheets=[widget_css])
    vector = Checkbox(name="vector-roof", label="Show the vector roof", active=st["vector"],
                      stylesheets=[widget_css], align="end")
    slider = Slider(name="ai-slider", title="Arithmetic intensity (FLOP/byte)",
                    start=math.log10(x0), end=math.log10(x1), step=0.01,
                    value=math.log10(st["ai"]), sizing_mode="stretch_width",
                    format=CustomJSTickFormatter(code=SLIDER_FORMAT.read_text(encoding="utf-8")),
                    stylesheets=[widget_css])
    # One polite live region (the readout), updated once the slider rests.
    readout = Div(name="readout", text="", render_as_text=True, sizing_mode="stretch_width",
                  html_attributes={"aria-live": "polite", "role": "status"})
    verdict = Div(name="verdict", text="", render_as_text=True,
                  stylesheets=[InlineStyleSheet(css=_VERDICT_CSS)])

    callback = CustomJS(code=callback_code(), module=True, args=dict(
        payload=data, fig=fig, slider=slider, hardware=hardware, precision=precision,
        presets=presets, vector=vector, readout=readout, verdict=verdict, roof=roof,
        ceilings=ceilings, vector_src=vector_src, points=points, marker=marker, leaders=leaders,
        labels_color=labels["color"], labels_ink=labels["ink"], labels_muted=labels["muted"],
        ai_line=ai_line, ridge=ridge, memory=memory, **extra_args),
        tags=["roofline-first-frame"])
    slider.js_on_change("value", callback)
    for w in (hardware, precision, presets):
        w.js_on_change("value", callback)
    vector.js_on_change("active", callback)
    # Labels are placed in pixels: a new frame size lays them out again.
    fig.js_on_change("inner_width", callback)
    fig.js_on_change("inner_height", callback)

    controls = row(hardware, precision, presets, vector, sizing_mode="stretch_width",
                   styles={"flex-wrap": "wrap", "gap": "0 12px"})
    tokens_controls = _tokens_controls(data, callback, widget_css, extra_args)
    layout = column(fig, controls, slider, *tokens_controls, verdict, readout,
                    sizing_mode="stretch_width", name="roofline-widget")
    # Hosts without our loader (a notebook, file_html) get the first frame from document_ready.
    doc = Document()
    doc.add_root(layout)
    doc.js_on_event("document_ready", callback)
    return layout


# ---------------------------------------------------------------- tokens per step, the launch

def _tokens_and_launch(fig, source) -> dict:
    """The selected op's launch line (a dotted flat line) and the tokens slider's ops
    (diamonds coloured by bound): sources roofline.mjs fills from the scene."""
    launch_src = source("launch-floor", "x", "y")
    fig.add_glyph(launch_src, Line(x="x", y="y", line_color="#7a8290", line_width=2,
                                   line_dash="dotted"))
    tokens_src = source("tokens-points", "x", "y", "op", "color")
    fig.add_glyph(tokens_src, Scatter(x="x", y="y", size=13, marker="diamond",
                                      fill_color="color", line_color="#ffffff", line_width=1))
    return {"launch_src": launch_src, "tokens_src": tokens_src}


def _tokens_presets(data: dict) -> list[tuple[str, str]]:
    t = data.get("tokens")
    # short enough for a phone's select (the readout says how many tokens per step)
    return [(o["id"], f"{o['label']} ({t['model']})")
            for o in (t["ops"] if t else [])]


def _tokens_controls(data: dict, callback: CustomJS, css: InlineStyleSheet,
                     args: dict) -> list:
    """The tokens-per-step slider (log2 of the tokens) and buttons for its marks: decode at
    batch 1–256, a prefill, a training step. None without the `tokens` option."""
    t = data.get("tokens")
    if not t:
        return []
    tokens = Slider(name="tokens-slider", title="Tokens per step", start=0,
                    end=math.log2(t["max"]), step=0.25,
                    value=math.log2(data["state"]["tokens"]), sizing_mode="stretch_width",
                    format=CustomJSTickFormatter(
                        code="return Math.max(1, Math.round(2 ** tick)).toLocaleString('en-US')"),
                    stylesheets=[css])
    tokens.js_on_change("value", callback)
    callback.args["tokens"] = tokens
    args["tokens"] = tokens
    marks = []
    for m in t["marks"]:
        b = Button(name=f"tokens-mark-{m['tokens']}", label=m["label"], width_policy="min",
                   stylesheets=[css])
        b.js_on_event("button_click", CustomJS(args={"s": tokens},
                                               code=f"s.value = {math.log2(m['tokens'])!r};"))
        marks.append(b)
    label = Div(text="Jump to:", render_as_text=True, align="center")
    return [tokens, row(label, *marks, sizing_mode="stretch_width",
                        styles={"flex-wrap": "wrap", "gap": "4px 8px"})]
