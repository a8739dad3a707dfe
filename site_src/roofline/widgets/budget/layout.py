""""Where the 50 % goes" as an interactive Bokeh layout, and the ```roofline-budget-table
fence's renderer. The layout built here holds empty sources: budget.mjs and budget_view.mjs
pick one setting's precomputed figures (payload.py) and draw them from the first frame on.

Bokeh model names (for a host page or a test): `budget-model`, `budget-phase`, `budget-batch`,
`budget-fusions` (bit i = roofline.model.budget.FUSIONS[i]), `budget-efficiency`,
`budget-launch` (µs), `budget-dp`, `budget-overlap`, `budget-zero`, `budget-recompute`,
`budget-readout`, `budget-waterfall-text`; figures `budget-classes`, `budget-waterfall`,
`budget-roofline`; sources `budget-class-bars`, `budget-waterfall-bars`, `budget-points`.
"""

from __future__ import annotations

from pathlib import Path

from bokeh.document import Document
from bokeh.layouts import column, row
from bokeh.models import (CheckboxGroup, ColumnDataSource, CustomJS, Div, FactorRange, HBar,
                          InlineStyleSheet, LabelSet, Line, NumeralTickFormatter, Range1d,
                          Scatter, Segment, Select, Slider)
from bokeh.plotting import figure as bokeh_figure

from roofline.model.budget import CLASSES, FUSION_LABELS, FUSIONS, Assumptions
from roofline.widgets.budget.payload import (BATCHES, DP_OPTIONS, KNOBS, SEQ, TITLES,
    WATERFALL_END, WATERFALL_ROWS, WATERFALL_SHORT, X_RANGE)
from roofline.model.memory import RECOMPUTE, ZERO_STAGES
from roofline.widgets.budget.settings import BudgetSettings
from roofline.render import jsmodule
from roofline.render.blockstyle import CONTROL_CSS
from roofline.render.embed import as_json_text

JS = Path(__file__).parent / "budget.mjs"
LABELS_JS = JS.with_name("budget_names.mjs")
BOUND_COLOR = "#2f7fd8"
_WIDGET_CSS_TEXT = CONTROL_CSS + """
/* Touch targets of at least 24 x 24 px (WCAG 2.5.8): each fusion's whole row is its label. */
.bk-input-group label { display: flex; align-items: center; min-height: 28px; gap: 6px; }
.bk-input-group input[type=checkbox] { width: 18px; height: 18px; margin: 0; flex: none; }
"""


# The readout's lines (payload TEXTS): a sentence per line in the page's type, as the static
# first frame's (blockstyle .roofline-static-text).
READOUT_CSS = ":host{white-space:pre-line;font-size:13.5px;line-height:1.5}"
# The waterfall's summary (budget_view.mjs waterfallHtml): a table in the page's type and
# colours (Material's custom properties reach into the Div's shadow root), both palettes.
WF_CSS = """
:host { font-size: 13.5px; line-height: 1.5; color: var(--md-typeset-color, inherit); }
.rl-wf { border-collapse: collapse; margin: .4em 0 0; min-width: min(100%, 22em);
  font-variant-numeric: tabular-nums; }
.rl-wf caption { text-align: left; font-weight: 700; padding: 0 0 .3em; }
.rl-wf :is(th, td) { padding: .2em 1.2em .2em 0; text-align: left; font-weight: 400;
  border-top: 1px solid var(--md-typeset-table-color, rgba(0, 0, 0, .12)); }
.rl-wf td { text-align: right; white-space: nowrap; }
.rl-wf thead th { font-weight: 700; border-top: 0; color: var(--md-default-fg-color--light); }
.rl-wf thead th:not(:first-child) { text-align: right; }
.rl-wf tfoot th { font-weight: 700; border-top: 2px solid var(--md-default-fg-color--lighter,
  rgba(0, 0, 0, .32)); }
.rl-wf-none { margin: .4em 0 0; }
"""


# ---------------------------------------------------------------- the layout

def figure(settings: BudgetSettings | None = None, **options):
    """The interactive budget as a Bokeh layout (`bokeh.io.show(figure())` works): for
    `settings`, or for fence options as keyword arguments (`figure(phase="decode", batch=32)`),
    by default the running example."""
    opts = settings or BudgetSettings.from_options(options)
    return _build(opts, opts.payload())


def _build(opts: BudgetSettings, data: dict):
    # Style sheets are models too: a fresh one per layout, as a model joins only one document.
    css = InlineStyleSheet(css=_WIDGET_CSS_TEXT)
    defaults = Assumptions()

    model = Select(name="budget-model", title="Model", value=opts.model,
                   options=[(k, m["name"]) for k, m in data["models"].items()], width=170,
                   stylesheets=[css])
    phase = Select(name="budget-phase", title="Phase", value=opts.phase,
                   options=[("train", "training step"), ("prefill", "prefill"),
                            ("decode", "decode (one token)")], width=170,
                   stylesheets=[css])
    batch = Select(name="budget-batch", title=f"Batch (× {SEQ[opts.phase]:,} tokens)",
                   value=str(opts.batch), options=[str(b) for b in BATCHES[opts.phase]],
                   width=170, stylesheets=[css])
    fusion_box = CheckboxGroup(name="budget-fusions",
                               labels=[FUSION_LABELS[f] for f in FUSIONS],
                               active=[i for i, f in enumerate(FUSIONS) if f in opts.fusions],
                               stylesheets=[css])
    # Sliders and a select: keyboard-operable, and named for assistive technology (the
    # loader names slider handles after their titles); a spinner's buttons have no names.
    # Opens on the chip's measured GEMM efficiency (1: no measurement, the bound alone).
    efficiency = Slider(name="budget-efficiency", title="GEMM efficiency",
                        start=KNOBS["efficiency"][0], end=KNOBS["efficiency"][1],
                        step=KNOBS["efficiency"][2], value=data["efficiency"],
                        format="0%", width=170, stylesheets=[css])
    launch = Slider(name="budget-launch", title="Launch overhead (µs)",
                    start=KNOBS["launch_us"][0], end=KNOBS["launch_us"][1],
                    step=KNOBS["launch_us"][2], value=defaults.launch_overhead_s * 1e6,
                    format="0.0", width=170, stylesheets=[css])
    dp = Select(name="budget-dp", title="Data-parallel GPUs", value=str(defaults.dp_degree),
                options=[str(n) for n in DP_OPTIONS], width=140, stylesheets=[css])
    overlap = Slider(name="budget-overlap", title="All-reduce overlap",
                     start=KNOBS["overlap"][0], end=KNOBS["overlap"][1],
                     step=KNOBS["overlap"][2], value=defaults.overlap_fraction,
                     format="0%", width=170, stylesheets=[css])
    zero = Select(name="budget-zero", title="ZeRO stage", value=str(opts.zero_stage),
                  options=[(str(z), f"{z}" if z else "0 (none)") for z in ZERO_STAGES],
                  width=120, stylesheets=[css])
    recompute = Select(name="budget-recompute", title="Recompute activations",
                       value=opts.recompute, options=list(RECOMPUTE), width=150,
                       stylesheets=[css])

    # The texts and every source are filled by budget.mjs from the first frame on.
    readout = Div(name="budget-readout", text="", render_as_text=True,
                  sizing_mode="stretch_width",
                  html_attributes={"aria-live": "polite", "role": "status"},
                  stylesheets=[InlineStyleSheet(css=READOUT_CSS)])
    wf_text = Div(name="budget-waterfall-text", text="", sizing_mode="stretch_width",
                  stylesheets=[InlineStyleSheet(css=WF_CSS)])

    # -- per-class time bars: now (solid) over unfused (ghost)
    class_src = ColumnDataSource(name="budget-class-bars", data={
        k: [] for k in ("cls", "ms", "ghost", "color", "tx", "text")})
    classes = bokeh_figure(name="budget-classes", y_range=FactorRange(*reversed(CLASSES)),
                           height=opts.height - 40, sizing_mode="stretch_width", min_width=280,
                           toolbar_location=None, tools="", x_axis_label="time per step (ms)",
                           title=TITLES["classes"][1])
    classes.add_glyph(class_src, HBar(y="cls", right="ghost", height=0.7, fill_color="color",
                                      fill_alpha=0.22, line_color="color", line_alpha=0.5))
    classes.add_glyph(class_src, HBar(y="cls", right="ms", height=0.45, fill_color="color",
                                      line_color=None))
    classes.add_layout(LabelSet(x="tx", y="cls", text="text", source=class_src, x_offset=4,
                                text_font_size="11px", text_baseline="middle", tags=["ink"]))
    classes.x_range.start = 0
    # room right of the longest bar for its "656 ms" inside a phone's ~240 px frame
    classes.x_range.range_padding = 0.8
    classes.xaxis.formatter = NumeralTickFormatter(format="0,0.[0]")
    classes.ygrid.grid_line_color = None

    # -- the waterfall
    wf_src = ColumnDataSource(name="budget-waterfall-bars", data={
        k: [] for k in ("row", "left", "right", "color", "text", "tx", "align", "dx")})
    rows = [WATERFALL_SHORT[k] for k in WATERFALL_ROWS]
    wf = bokeh_figure(name="budget-waterfall", y_range=FactorRange(*reversed(rows)),
                      x_range=Range1d(0, WATERFALL_END), height=opts.height, sizing_mode="stretch_width",
                      min_width=280, toolbar_location=None, tools="",
                      x_axis_label="% of peak FLOP/s",
                      title=TITLES["waterfall"][1])
    wf.add_glyph(wf_src, HBar(y="row", left="left", right="right", height=0.6,
                              fill_color="color", line_color=None))
    wf.add_layout(LabelSet(x="tx", y="row", text="text", source=wf_src, x_offset="dx",
                           text_align="align", text_font_size="11px", text_baseline="middle",
                           tags=["ink"]))
    wf.ygrid.grid_line_color = None

    # -- the layer's ops on the roofline
    pts_src = ColumnDataSource(name="budget-points",
                               data={k: [] for k in ("x", "y", "text", "color")})
    peak, bw = data["peak"], data["bw"]
    x0, x1 = X_RANGE
    rf = bokeh_figure(name="budget-roofline", x_axis_type="log", y_axis_type="log",
                      x_range=Range1d(x0, x1), y_range=Range1d(x0 * bw / 1e12 / 2,
                                                               peak / 1e12 * 3),
                      height=opts.height + 60, sizing_mode="stretch_width", min_width=280,
                      # room for half the last x tick ("10,000") right of the frame
                      min_border_right=32,
                      toolbar_location=None, tools="", x_axis_label="arithmetic intensity "
                      # per fused kernel; the longer "of the kernel each op runs in" ran
                      # past both ends of a phone's 380 px canvas
                      "per kernel (FLOP/byte)",
                      y_axis_label="attainable (TFLOP/s)",
                      title="One layer's forward ops on the roofline")
    r = peak / bw
    rf.add_glyph(ColumnDataSource({"x": [x0, r, x1],
                                   "y": [x0 * bw / 1e12, peak / 1e12, peak / 1e12]}),
                 Line(x="x", y="y", line_color=BOUND_COLOR, line_width=3))
    rf.add_glyph(pts_src, Scatter(x="x", y="y", size=9, fill_color="color",
                                  line_color="#ffffff", line_width=1))
    # The names are laid out by budget_names.mjs (labels.mjs, from measured text widths)
    # whenever the points change or the frame is laid out: none overlaps or leaves the frame.
    name_src = ColumnDataSource(name="budget-point-labels", data={
        k: [] for k in ("x", "y", "text", "dx", "dy", "align", "baseline")})
    rf.add_layout(LabelSet(x="x", y="y", text="text", source=name_src, x_offset="dx",
                           y_offset="dy", text_align="align", text_baseline="baseline",
                           text_font_size="11px", tags=["ink-muted"]))
    # A name moved away from its point is tied to it by a leader line (labels.mjs).
    leader_src = ColumnDataSource(name="budget-point-leaders",
                                  data={k: [] for k in ("x0", "y0", "x1", "y1")})
    rf.add_glyph(leader_src, Segment(x0="x0", y0="y0", x1="x1", y1="y1", line_color="#7a8290",
                                     line_width=1, tags=["ink-muted"]))
    names = CustomJS(module=True, code=jsmodule.bundle(LABELS_JS),
                     args=dict(fig=rf, points=pts_src, labels=name_src, leaders=leader_src,
                               roof=dict(x=[x0, r, x1], y=[x0 * bw / 1e12, peak / 1e12,
                                                           peak / 1e12])))
    pts_src.js_on_change("data", names)
    rf.js_on_change("inner_width", names)
    rf.js_on_change("inner_height", names)
    rf.xaxis.formatter = NumeralTickFormatter(format="0,0.[0]")
    rf.yaxis.formatter = NumeralTickFormatter(format="0,0.[0]")

    # budget.mjs and what it imports (format.mjs, budget_view.mjs): one module for the blob.
    callback = CustomJS(module=True, code=jsmodule.bundle(JS), args=dict(
        payload=as_json_text(data), model=model, phase=phase, batch=batch, fusions=fusion_box,
        efficiency=efficiency, launch=launch, dp=dp, overlap=overlap, zero=zero,
        recompute=recompute, readout=readout,
        wf_text=wf_text, classes=class_src, waterfall=wf_src, points=pts_src,
        titles=[wf.title, classes.title],
        title_text=[TITLES["waterfall"], TITLES["classes"]],
        # what static.mjs redraws the block's static drawing (paper's) from as controls move
        drawing=dict(heights={"waterfall": wf.height, "classes": classes.height,
                              "roofline": rf.height}, titles=TITLES, x_range=list(X_RANGE))))
    for w in (model, phase, batch, efficiency, launch, dp, overlap, zero, recompute):
        w.js_on_change("value", callback)
    fusion_box.js_on_change("active", callback)

    flex = {"flex-wrap": "wrap", "gap": "0 12px"}
    selects = row(model, phase, batch, sizing_mode="stretch_width", styles=flex)
    knobs = row(efficiency, launch, dp, overlap, zero, recompute, sizing_mode="stretch_width",
                styles=flex)
    fusion_title = Div(text="Fuse:", styles={"font-weight": "600"})
    layout = column(selects, fusion_title, fusion_box, knobs, readout, wf, classes, rf, wf_text,
                    sizing_mode="stretch_width", name="budget-widget")
    doc = Document()
    doc.add_root(layout)
    doc.js_on_event("document_ready", callback)
    return layout
