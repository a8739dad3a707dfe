"""The interactive roofline: a Bokeh layout built from the model, scripted by plot/js/roofline.mjs.

Public contract (documented in docs/embed.md): models named `roofline-figure`, `ai-slider`
(value = log10 of the AI), `readout`, `verdict`, `hardware`, `precision`, `presets`,
`vector-roof`. Python draws the initial state; the one CustomJS callback recomputes everything
from the widgets' values on any change, so the browser and this module must agree — both are
checked against tests/cases/roofline_cases.json.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from bokeh.document import Document
from bokeh.layouts import column, row
from bokeh.models import (BoxAnnotation, Checkbox, ColumnDataSource, CustomJS,
                          CustomJSTickFormatter, Div,
                          InlineStyleSheet, Label, LabelSet, NumeralTickFormatter, Range1d,
                          Select, Slider, Span)
from bokeh.plotting import figure as bokeh_figure

from .. import fmt
from ..catalog import Accelerator, Catalog, default_catalog
from ..errors import RooflineError, unknown_id
from ..ops import OpZoo, default_zoo

JS = Path(__file__).parent / "js" / "roofline.mjs"
SLIDER_FORMAT = JS.with_name("slider_format.js")
AI_MIN, AI_MAX = 0.01, 10_000.0
CEILINGS = ("sram", "l2", "hbm", "host", "scaleup", "vector")
CEILING_COLORS = {"sram": "#8e6bd8", "l2": "#2a9d8f", "hbm": "#2f7fd8", "host": "#c98a12",
                  "scaleup": "#d0508f", "vector": "#7a8290"}
# Short names keep the slope labels clear of the next line down (the tier's full name is in the
# catalog tables).
CEILING_NAMES = {"sram": "SRAM", "l2": "L2", "host": "Host link", "scaleup": "GPU-GPU"}
ROOF_COLOR = "#2f7fd8"
MEMORY_COLOR, COMPUTE_COLOR = "#d1352b", "#2e9e48"
HEIGHT_MIN, HEIGHT_MAX = 240, 1200

_WIDGET_CSS = """
:host { --background-color: var(--md-default-bg-color, #fff);
        color: var(--md-default-fg-color, inherit); }
.bk-input { color: inherit; background-color: var(--md-default-bg-color, #fff);
            border-color: var(--md-default-fg-color--lighter, #bbb); }
"""
_VERDICT_CSS = """
:host { padding: 0.35em 0.7em; border-radius: 4px; font-weight: 600; color: #fff; }
:host(.rl-memory) { background: #b42318; }
:host(.rl-compute) { background: #1a7f37; }
"""


@dataclass(frozen=True)
class Options:
    """Validated widget options (the ```roofline fence's keys)."""
    hardware: str = "h100-sxm"
    precision: str = "bf16"
    ops: tuple[str, ...] | None = None  # None: the whole op zoo
    ai: float | None = None  # None: the selected op's AI, else 10
    op: str | None = None
    ceilings: tuple[str, ...] = ()
    height: int = 400
    url_state: bool = True


def validate(opts: Options, catalog: Catalog, zoo: OpZoo) -> Options:
    """Raise RooflineError naming the bad field; returns opts unchanged when all is well."""
    hw = catalog[opts.hardware]
    hw.peak(opts.precision)
    for op_id in opts.ops or ():
        zoo.preset(op_id)
    if opts.op is not None:
        shown = opts.ops if opts.ops is not None else tuple(zoo.presets)
        if opts.op not in shown:
            raise unknown_id("op", opts.op, list(shown), field="op")
    if opts.ai is not None and not (isinstance(opts.ai, (int, float))
                                    and AI_MIN <= opts.ai <= AI_MAX):
        raise RooflineError(f"ai must be a number from {AI_MIN:g} to {AI_MAX:g}, got {opts.ai!r}",
                            field="ai")
    for kind in opts.ceilings:
        if kind not in CEILINGS:
            raise unknown_id("ceiling", kind, list(CEILINGS), field="ceilings")
    if not (isinstance(opts.height, int) and HEIGHT_MIN <= opts.height <= HEIGHT_MAX):
        raise RooflineError(f"height must be an integer from {HEIGHT_MIN} to {HEIGHT_MAX} "
                            f"(pixels), got {opts.height!r}", field="height")
    return opts


# ---------------------------------------------------------------- the payload the JS reads

def _hw_payload(hw: Accelerator, catalog: Catalog) -> dict:
    vec = hw.vector_peak
    return {
        "name": hw.name,
        "bw": hw.hbm_bandwidth_bytes_per_s,
        "hbm": hw.hbm.name,
        "precisions": [p for p in catalog.precisions if p in hw.peaks],
        "peaks": {p: hw.peak_flops_per_s(p) for p in catalog.precisions if p in hw.peaks},
        "units": {p: hw.peaks[p].unit for p in catalog.precisions if p in hw.peaks},
        "vector": ({"precision": vec.precision, "peak": vec.flops_per_s,
                    "label": catalog.precision(vec.precision).label.split(" ")[0]}
                   if vec else None),
        "tiers": {t.kind: {"name": t.name, "bw": t.bandwidth_bytes_per_s}
                  for t in hw.tiers if t.bandwidth_bytes_per_s and t.kind != "hbm"},
    }


def payload(opts: Options, catalog: Catalog, zoo: OpZoo) -> dict:
    op_ids = list(opts.ops) if opts.ops is not None else list(zoo.presets)
    costs: dict[str, dict[str, list[float]]] = {op_id: {} for op_id in op_ids}
    for pid, prec in catalog.precisions.items():
        for op in zoo.ops(prec.bytes_per_element, op_ids):
            costs[op.name][pid] = [op.total_flops, op.total_bytes]
    return {
        "hardware": {hw.id: _hw_payload(hw, catalog) for hw in catalog},
        "precisions": {pid: {"label": p.label, "unit": p.unit}
                       for pid, p in catalog.precisions.items()},
        "ops": {op_id: {"label": zoo.preset(op_id).label, "cost": costs[op_id]}
                for op_id in op_ids},
        "ceilings": list(opts.ceilings),
        "colors": dict(CEILING_COLORS),
        "names": dict(CEILING_NAMES),
        "x": [AI_MIN, AI_MAX],
        "url": opts.url_state,
    }


# ---------------------------------------------------------------- the maths both sides share

def place(cost: list[float], peak: float, bw: float) -> dict:
    flops, bytes_ = cost
    ai = flops / bytes_
    att = min(peak, ai * bw)
    return {"ai": ai, "attainable": att, "fraction": att / peak,
            "time": max(flops / peak, bytes_ / bw), "bound": "memory" if ai < peak / bw
            else "compute"}


def readout_text(hw: dict, precision: str, ai: float, op: str | None, ops: dict) -> str:
    peak, bw = hw["peaks"][precision], hw["bw"]
    att = min(peak, ai * bw)
    text = (f"AI {fmt.num(ai)} FLOP/byte · best {fmt.tflops(att)} · "
            f"{fmt.percent(att / peak)} of the {fmt.tflops(peak)} peak")
    if op is not None:
        t = place(ops[op]["cost"][precision], peak, bw)["time"]
        text += f" · {op} takes ≥ {fmt.seconds(t)}"
    return text


def verdict_text(hw: dict, precision: str, ai: float) -> tuple[str, str]:
    r = hw["peaks"][precision] / hw["bw"]
    units = "tensor cores" if hw["units"][precision] == "tensor" else "ALUs"
    if ai < r:
        return "memory", f"Memory-bound — the {units} idle (ridge at {fmt.num(r)} FLOP/byte)"
    return "compute", f"Compute-bound — at the roof (ridge at {fmt.num(r)} FLOP/byte)"


def point_labels(ids: list[str], ais: list[float], x_max: float) -> dict:
    """Labels for the op points: ops within ×1.1 of each other share one label ("a, b"), labels
    of neighbouring groups (within ×2.5) step down a row, and near the right edge they are
    right-aligned so they stay inside the plot. A label sits at its group's x and at the y of its
    stack's first point ("anchor"), so the rows of a stack never cross."""
    order = sorted(range(len(ais)), key=lambda i: (ais[i], i))
    groups: list[list[int]] = []
    for i in order:
        if groups and ais[i] <= ais[groups[-1][0]] * 1.1:
            groups[-1].append(i)
        else:
            groups.append([i])
    out: dict[str, list] = {"x": [], "text": [], "dy": [], "dx": [], "align": [], "anchor": []}
    anchor, level = None, 0
    for g in groups:
        ai = ais[g[0]]
        level = level + 1 if anchor is not None and ai < ais[anchor] * 2.5 else 0
        if level == 0:
            anchor = g[0]
        right = ai > x_max / 30
        out["x"].append(ai)
        out["anchor"].append(anchor)
        out["text"].append(", ".join(ids[i] for i in g))
        out["dy"].append(-12 - 13 * level)
        out["dx"].append(-7 if right else 7)
        out["align"].append("right" if right else "left")
    return out


def roof_xy(peak: float, bw: float, x0: float, x1: float) -> tuple[list[float], list[float]]:
    """The roofline as a polyline in (FLOP/byte, TFLOP/s)."""
    r = peak / bw
    if r <= x0:
        return [x0, x1], [peak / 1e12, peak / 1e12]
    if r >= x1:
        return [x0, x1], [x0 * bw / 1e12, x1 * bw / 1e12]
    return [x0, r, x1], [x0 * bw / 1e12, peak / 1e12, peak / 1e12]


# ---------------------------------------------------------------- the layout

def figure(*, hardware: str = "h100-sxm", precision: str = "bf16",
           ops: list[str] | tuple[str, ...] | None = None, ai: float | None = None,
           op: str | None = None, ceilings: list[str] | tuple[str, ...] = (),
           height: int = 400, url_state: bool = True, measurement=None,
           catalog: Catalog | None = None, zoo: OpZoo | None = None):
    """The interactive roofline as a Bokeh layout (`bokeh.io.show(roofline.figure())` works).

    hardware/precision: catalog ids; ops: op-zoo ids drawn as points and offered as presets
    (default: all); ai: initial arithmetic intensity in FLOP/byte (0.01–10,000); op: initially
    selected preset; ceilings: extra roofs from the catalog tiers (sram, l2, hbm, host, scaleup,
    vector); height: plot height in px; url_state: read and write ?hardware=&precision=&ai=&op=.
    measurement: if given and roofline.plot.measured exists, its overlay is added.
    """
    catalog = catalog or default_catalog()
    zoo = zoo or default_zoo()
    opts = validate(Options(hardware, precision, tuple(ops) if ops is not None else None,
                            float(ai) if isinstance(ai, (int, float)) else ai, op,
                            tuple(ceilings), height, url_state), catalog, zoo)
    data = payload(opts, catalog, zoo)
    layout = _build(opts, data)
    if measurement is not None:
        _add_measurement(layout, measurement)
    return layout


def _add_measurement(layout, measurement) -> None:
    try:
        from . import measured
    except ImportError:
        return
    measured.add_overlay(layout.select_one({"name": "roofline-figure"}), measurement)


def _build(opts: Options, data: dict):
    hw = data["hardware"][opts.hardware]
    prec = opts.precision
    peak, bw = hw["peaks"][prec], hw["bw"]
    ridge = peak / bw
    x0, x1 = data["x"]
    ops = data["ops"]
    op_ids = list(ops)
    if opts.ai is not None:
        ai = opts.ai
    elif opts.op is not None:
        ai = place(ops[opts.op]["cost"][prec], peak, bw)["ai"]
    else:
        ai = 10.0
    ai = min(max(ai, x0), x1)

    fig = bokeh_figure(name="roofline-figure", x_axis_type="log", y_axis_type="log",
                       height=opts.height, sizing_mode="stretch_width", min_width=300,
                       toolbar_location=None, tools="",
                       x_axis_label="arithmetic intensity (FLOP/byte)",
                       y_axis_label="attainable (TFLOP/s)",
                       x_range=Range1d(x0, x1), y_range=Range1d(*_y_range(hw, prec, data)))
    fig.xaxis.formatter = NumeralTickFormatter(format="0,0.[00]")
    fig.yaxis.formatter = NumeralTickFormatter(format="0,0.[000]")
    fig.grid.grid_line_alpha = 0.8
    fig.xgrid.minor_grid_line_color = None

    memory_box = BoxAnnotation(name="memory-region", left=x0, right=ridge, fill_color=MEMORY_COLOR,
                               fill_alpha=0.08, line_alpha=0)
    fig.add_layout(memory_box)
    region_src = ColumnDataSource(name="region-labels", data=_region_labels(x0, x1, ridge, data,
                                                                            hw, prec))
    fig.add_layout(LabelSet(x="x", y="y", text="text", source=region_src, text_align="align",
                            x_offset="dx", text_baseline="middle", text_font_size="12px",
                            text_font_style="italic", tags=["ink-muted"]))

    # Extra ceilings first, so the main roof draws on top.
    ceil_src = ColumnDataSource(name="ceilings", data=_ceilings(hw, prec, data))
    fig.multi_line(xs="xs", ys="ys", line_color="color", line_width=2, line_dash="dashed",
                   source=ceil_src)
    # Slope labels sit just under their line: a rising line leaves the text's right end clear.
    fig.add_layout(LabelSet(x="lx", y="ly", text="text", source=ceil_src, text_color="color",
                            text_font_size="11px", y_offset=-5, x_offset=2, text_baseline="top"))

    vec = _vector(hw, bw, x0, x1)
    vec_src = ColumnDataSource(name="vector-roof-line", data={"x": vec["x"], "y": vec["y"]})
    vec_label_src = ColumnDataSource(name="vector-roof-label", data=vec["label"])
    vector_on = "vector" in opts.ceilings
    vec_line = fig.line("x", "y", source=vec_src, line_color=CEILING_COLORS["vector"],
                        line_width=2, line_dash="dotdash", visible=vector_on)
    vec_label = LabelSet(x="x", y="y", text="text", source=vec_label_src, text_align="right",
                         text_font_size="12px", y_offset=4, text_color=CEILING_COLORS["vector"],
                         visible=vector_on)
    fig.add_layout(vec_label)

    rx, ry = roof_xy(peak, bw, x0, x1)
    roof_src = ColumnDataSource(name="roof", data={"x": rx, "y": ry})
    fig.line("x", "y", source=roof_src, line_color=ROOF_COLOR, line_width=3)
    roof_label_src = ColumnDataSource(name="roof-labels", data=_roof_labels(hw, prec, x0, x1))
    fig.add_layout(LabelSet(x="x", y="y", text="text", source=roof_label_src,
                            text_align="align", text_baseline="baseline", text_font_size="12px",
                            y_offset="dy", x_offset=2, text_color=ROOF_COLOR))

    ridge_span = Span(name="ridge", location=ridge, dimension="height", line_dash="dashed",
                      line_width=1.5, line_color="#7a8290", tags=["ink-muted"])
    fig.add_layout(ridge_span)
    ridge_label = Label(name="ridge-label", x=ridge, y=_y_range(hw, prec, data)[0], x_offset=-5,
                        y_offset=6, text_align="right", text=f"ridge {fmt.num(ridge)} FLOP/byte",
                        text_font_size="12px", text_font_style="bold", tags=["ink"])
    fig.add_layout(ridge_label)

    pts, labels = _points(ops, op_ids, prec, peak, bw, x1)
    pts_src = ColumnDataSource(name="op-points", data=pts)
    pts_label_src = ColumnDataSource(name="op-labels", data=labels)
    fig.scatter("x", "y", source=pts_src, size=8, fill_color="#7a8290", line_color="#ffffff",
                line_width=1)
    fig.add_layout(LabelSet(x="x", y="y", text="text", source=pts_label_src, x_offset="dx",
                            y_offset="dy", text_align="align", text_font_size="11px",
                            text_baseline="middle", tags=["ink-muted"]))

    bound, verdict = verdict_text(hw, prec, ai)
    marker_src = ColumnDataSource(name="marker", data={
        "x": [ai], "y": [min(peak, ai * bw) / 1e12],
        "color": [MEMORY_COLOR if bound == "memory" else COMPUTE_COLOR]})
    ai_span = Span(name="ai-line", location=ai, dimension="height", line_dash="dotted",
                   line_width=1, line_color="#7a8290", tags=["ink-muted"])
    fig.add_layout(ai_span)
    fig.scatter("x", "y", source=marker_src, size=16, fill_color="color", line_color="#ffffff",
                line_width=2, marker="circle")

    # Stylesheets are models: one set per layout, as a model belongs to one document only.
    widget_css = InlineStyleSheet(css=_WIDGET_CSS)
    hardware = Select(name="hardware", title="Hardware", value=opts.hardware,
                      options=[(k, v["name"]) for k, v in data["hardware"].items()],
                      width=240, stylesheets=[widget_css])
    precision = Select(name="precision", title="Precision", value=prec,
                       options=[(p, data["precisions"][p]["label"]) for p in hw["precisions"]],
                       width=200, stylesheets=[widget_css])
    presets = Select(name="presets", title="Op preset", value=opts.op or "custom",
                     options=[("custom", "(slider value)")]
                     + [(i, f"{i} — {ops[i]['label']}") for i in op_ids],
                     width=240, stylesheets=[widget_css])
    vector = Checkbox(name="vector-roof", label=_vector_toggle_label(hw), active=vector_on,
                      disabled=hw["vector"] is None, stylesheets=[widget_css],
                      align="end")
    slider = Slider(name="ai-slider", title="Arithmetic intensity (FLOP/byte)",
                    start=math.log10(x0), end=math.log10(x1), step=0.01,
                    value=math.log10(ai), sizing_mode="stretch_width",
                    format=CustomJSTickFormatter(code=SLIDER_FORMAT.read_text(encoding="utf-8")),
                    stylesheets=[widget_css])
    readout = Div(name="readout", text=readout_text(hw, prec, ai, opts.op, ops),
                  render_as_text=True, sizing_mode="stretch_width",
                  html_attributes={"aria-live": "polite", "role": "status"})
    verdict_div = Div(name="verdict", text=verdict, render_as_text=True,
                      css_classes=[f"rl-{bound}"], stylesheets=[InlineStyleSheet(css=_VERDICT_CSS)],
                      html_attributes={"aria-live": "polite"})

    callback = CustomJS.from_file(
        JS, payload=data, fig=fig, slider=slider, hardware=hardware, precision=precision,
        presets=presets, vector=vector, readout=readout, verdict=verdict_div, roof=roof_src,
        roof_labels=roof_label_src, ceilings=ceil_src, vector_src=vec_src,
        vector_label_src=vec_label_src,
        vector_line=vec_line,
        vector_label=vec_label, points=pts_src, point_labels=pts_label_src, marker=marker_src,
        ai_line=ai_span,
        ridge=ridge_span, ridge_label=ridge_label, memory=memory_box, regions=region_src)
    slider.js_on_change("value", callback)
    for w in (hardware, precision, presets):
        w.js_on_change("value", callback)
    vector.js_on_change("active", callback)

    controls = row(hardware, precision, presets, vector, sizing_mode="stretch_width",
                   styles={"flex-wrap": "wrap", "gap": "0 12px"})
    layout = column(fig, controls, slider, verdict_div, readout, sizing_mode="stretch_width",
                    name="roofline-widget")
    # The same callback restores a shared view from the URL once the document is live.
    doc = Document()
    doc.add_root(layout)
    doc.js_on_event("document_ready", callback)
    return layout


def _vector_toggle_label(hw: dict) -> str:
    v = hw["vector"]
    return f"Show the {v['label']} vector roof" if v else "No vector roof listed for this chip"


def _y_range(hw: dict, prec: str, data: dict) -> tuple[float, float]:
    x0 = data["x"][0]
    bws = [hw["bw"]] + [t["bw"] for k, t in hw["tiers"].items() if k in data["ceilings"]]
    top = hw["peaks"][prec]
    if hw["vector"]:
        top = max(top, hw["vector"]["peak"])
    return x0 * min(bws) / 1e12 / 2, top * 4 / 1e12


def _region_labels(x0, x1, ridge, data, hw, prec) -> dict:
    """'memory-bound' inside the shaded region, just left of the ridge, above the roof. (No
    'compute-bound' label: at phone widths it collides with the roof's; the verdict says it.)"""
    y = _y_range(hw, prec, data)[1] / 1.6
    out: dict[str, list] = {"x": [], "text": [], "align": [], "dx": []}
    if ridge > x0 * 8:
        out["x"].append(ridge)
        out["text"].append("memory-bound")
        out["align"].append("right")
        out["dx"].append(-6)
    out["y"] = [y] * len(out["x"])
    return out


def _ceilings(hw: dict, prec: str, data: dict) -> dict:
    x0 = data["x"][0]
    peak = hw["peaks"][prec]
    out: dict[str, list] = {"xs": [], "ys": [], "color": [], "lx": [], "ly": [], "text": []}
    for kind in data["ceilings"]:
        if kind in ("vector", "hbm"):
            continue
        tier = hw["tiers"].get(kind)
        if tier is None:
            continue
        r = peak / tier["bw"]
        x_end = max(r, x0 * 1.0001)
        out["xs"].append([x0, x_end])
        out["ys"].append([x0 * tier["bw"] / 1e12, x_end * tier["bw"] / 1e12])
        out["color"].append(data["colors"][kind])
        out["lx"].append(x0 * 1.3)
        out["ly"].append(x0 * 1.3 * tier["bw"] / 1e12)
        out["text"].append(f"{CEILING_NAMES[kind]} {fmt.bandwidth(tier['bw'])}")
    return out


def _vector(hw: dict, bw: float, x0: float, x1: float) -> dict:
    v = hw["vector"]
    if v is None:
        return {"x": [], "y": [], "label": {"x": [], "y": [], "text": []}}
    x, y = roof_xy(v["peak"], bw, x0, x1)
    text = f"{v['label']} vector roof {fmt.tflops(v['peak'])}"
    return {"x": x, "y": y, "label": {"x": [x1], "y": [v["peak"] / 1e12], "text": [text]}}


def _roof_labels(hw: dict, prec: str, x0: float, x1: float) -> dict:
    peak, bw = hw["peaks"][prec], hw["bw"]
    label = prec.upper()
    return {"x": [x1, x0 * 1.3], "y": [peak / 1e12, x0 * 1.3 * bw / 1e12],
            "text": [f"{label} roof {fmt.tflops(peak)}", f"{hw['hbm']} {fmt.bandwidth(bw)}"],
            "align": ["right", "left"], "baseline": ["bottom", "top"], "dy": [5, -5]}


def _points(ops: dict, op_ids: list[str], prec: str, peak: float, bw: float,
            x_max: float) -> tuple[dict, dict]:
    placed = [place(ops[i]["cost"][prec], peak, bw) for i in op_ids]
    ais = [p["ai"] for p in placed]
    ys = [p["attainable"] / 1e12 for p in placed]
    labels = point_labels(op_ids, ais, x_max)
    labels["y"] = [ys[i] for i in labels.pop("anchor")]
    return {"x": ais, "y": ys, "op": op_ids}, labels
