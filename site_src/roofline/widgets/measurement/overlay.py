"""A measurement (from `roofline measure`) drawn on the interactive roofline: the measured
bandwidth diagonals and matmul roofs, and each measured op as a point at (the model's
intensity, FLOPs ÷ measured time). Plus a file picker that reads another measurement in the
browser (nothing is uploaded), checks it against the same schema and redraws the overlay.

widgets/measurement/measure.mjs is the browser half: its named exports mirror overlay_data, y_bounds and
summary_text here, and both sides are checked against tests/cases/measure_cases.json.
"""

from __future__ import annotations

import html
from pathlib import Path

from bokeh.layouts import column
from bokeh.models import (ColumnDataSource, CustomJS, Div, FileInput, InlineStyleSheet,
                          LabelSet, NumeralTickFormatter)

from roofline import fmt
from roofline.errors import RooflineError
from roofline.measure.schema import schema
from roofline.widgets.measurement.settings import (PICKER_HEIGHT_PX, TABLES,
    MeasurementTableSettings, load_measurement)
from roofline.render import jsmodule
from roofline.widgets.roofline.scene import POINT_R, layout_labels, to_px

JS = Path(__file__).parent / "measure.mjs"
COLOR = "#d9480f"
CACHE_LEVELS = ("L1", "L2", "L3", "L2-GPU")
# Text in the page's own colours (readable in both palettes); orange only marks the overlay.
# CSS text only: a stylesheet is a Bokeh model and belongs to one document, so each layout
# makes its own (a module-level one breaks the second render in a process: `mkdocs serve`).
PICKER_CSS = """
:host { color: var(--md-default-fg-color, inherit); }
.bk-input { color: var(--md-default-fg-color, inherit);
            background-color: var(--md-default-bg-color, #fff);
            border-color: var(--md-default-fg-color--lighter, #bbb); }
"""
STATUS_CSS = f"""
:host {{ color: var(--md-default-fg-color, inherit); border-left: 4px solid {COLOR};
         padding-left: 0.6em; }}
"""


# ---------------------------------------------------------------- the data both sides compute

def overlay_data(doc: dict, x0: float, x1: float) -> dict:
    """Polylines for the measured roofs (TFLOP/s against FLOP/byte), their labels, and the
    measured op points."""
    c = doc["ceilings"]
    by_level = {b["level"]: b["bandwidth_bytes_per_s"] for b in c["bandwidth"]}
    mem_level = c["memory_level"]
    levels = [mem_level]
    caches = [lv for lv in by_level if lv in CACHE_LEVELS]
    if caches:  # the fastest cache: one diagonal says "the cache is this much faster"
        levels.append(max(caches, key=lambda lv: (by_level[lv], lv)))
    top = max(p["flops_per_s"] for p in c["compute"])
    mem_bw = by_level[mem_level]
    roofs = {"xs": [], "ys": []}
    labels = {"x": [], "y": [], "text": [], "align": [], "dy": []}
    for level in levels:
        bw = by_level[level]
        x_end = min(max(top / bw, x0), x1)
        roofs["xs"].append([x0, x_end])
        roofs["ys"].append([x0 * bw / 1e12, x_end * bw / 1e12])
        # memory at the diagonal's foot, under it; the faster cache near its top end, over
        # it (right-aligned): the two never stack, and the cache's clears the op points
        mem = level == mem_level
        lx = x0 * 1.3 if mem else x_end / 1.3
        labels["x"].append(lx)
        labels["y"].append(lx * bw / 1e12)
        labels["text"].append(f"measured {level} {fmt.bandwidth(bw)}")
        labels["align"].append("left" if mem else "right")
        labels["dy"].append(-15 if mem else 4)
    above_at = None  # the last roof labelled above its line: one close under it goes below
    for roof in sorted(c["compute"], key=lambda r: -r["flops_per_s"]):
        peak = roof["flops_per_s"]
        x_start = min(max(peak / mem_bw, x0), x1)
        roofs["xs"].append([x_start, x1])
        roofs["ys"].append([peak / 1e12, peak / 1e12])
        labels["x"].append(x1)
        labels["y"].append(peak / 1e12)
        labels["text"].append(f"measured {roof['precision'].upper()} "
                              f"{fmt.si(peak, 'FLOP/s')}")
        labels["align"].append("right")
        below = above_at is not None and above_at / peak < 3
        labels["dy"].append(-15 if below else 4)  # over its roof, or under when crowded
        above_at = None if below else peak
    points: dict[str, list] = {"x": [], "y": [], "text": []}
    seen: set[str] = set()
    for op in doc["ops"]:  # one label per op family, beside its first point
        points["x"].append(op["flops"] / op["bytes"])
        points["y"].append(op["flops"] / op["time_s"]["median"] / 1e12)
        points["text"].append("" if op["label"] in seen else op["label"])
        seen.add(op["label"])
    return {"roofs": roofs, "labels": labels, "points": points}


# ---------------------------------------------------------------- its labels, laid out with the scene's

def _at(dx: float, dy: float, align: str, baseline: str) -> dict:
    return {"dx": dx, "dy": dy, "align": align, "baseline": baseline}


# A frame narrower than this (a phone's live plot, 280 px; the 320 px static drawing's 220)
# names the measured roofs in 11 px without the "measured " every one of them starts with:
# the orange dash-dot lines say it, and at full length two of four roofs found no room.
NARROW_FRAME_PX = 300


def overlay_labels(overlay: dict, narrow: bool = False) -> list[dict]:
    """The overlay's labels as the scene's label layout takes them (plot/scene.layout_labels):
    each roof's and diagonal's on its preferred side of its line first, then the other side,
    then a row further out; each measured op family's beside its point, then in rows over and
    under it. Roof labels first: they name the lines the points are read against. `narrow`:
    the roofs' short names (NARROW_FRAME_PX)."""
    lab = overlay["labels"]
    out = []
    for i, (x, y, text, align, dy) in enumerate(zip(lab["x"], lab["y"], lab["text"],
                                                  lab["align"], lab["dy"])):
        over, under = _at(-2, 4, align, "bottom"), _at(-2, -4, align, "top")
        first, second = (over, under) if dy > 0 else (under, over)
        far = [_at(-2, d, align, "bottom" if d > 0 else "top") for d in (18, -18, 32, -32)]
        out.append({"key": f"measured-roof-{i}", "x": x, "y": y, "size": 11 if narrow else 12,
                    "style": "bold", "text": text.removeprefix("measured ") if narrow else text,
                    "at": [first, second, *far]})
    pts = overlay["points"]
    for i, (x, y, text) in enumerate(zip(pts["x"], pts["y"], pts["text"])):
        if not text:
            continue
        at = [_at(9, 0, "left", "middle"), _at(-9, 0, "right", "middle")]
        for row in range(5):
            dy = 8 + 13 * row
            at += [_at(6, dy, "left", "bottom"), _at(-6, dy, "right", "bottom"),
                   _at(6, -dy, "left", "top"), _at(-6, -dy, "right", "top")]
        out.append({"key": f"measured-op-{i}", "x": x, "y": y, "size": 11, "style": "normal",
                    "text": text, "at": at})
    return out


def layout_overlay(overlay: dict, xr: list[float], yr: list[float], w: float, h: float,
                   taken: list[list[float]] | None = None,
                   lines: list | None = None) -> list[dict]:
    """The overlay's labels placed in a w × h px frame around `taken` (the scene's label and
    point boxes) and the overlay's own points: the roofline's one label layout (scene.py, and
    labels.mjs live), so no overlay label lands on another label or a point; and, where they
    can, off `lines` (the scene's, scene.scene_lines) and the overlay's own roofs."""
    own = overlay.get("roofs") or {"xs": [], "ys": []}
    roofs = [[xs, ys] for xs, ys in zip(own["xs"], own["ys"])]
    return layout_labels(overlay_labels(overlay, w < NARROW_FRAME_PX), xr, yr, w, h,
                         {"x": overlay["points"]["x"], "y": overlay["points"]["y"],
                          "lines": list(lines or []) + roofs}, taken)


def label_columns(placed: list[dict]) -> dict:
    """The shown labels as the overlay LabelSet's columns."""
    cols: dict[str, list] = {k: [] for k in ("x", "y", "text", "dx", "dy", "align", "baseline",
                                              "size", "style")}
    for lab in placed:
        if lab["shown"]:
            for k in cols:
                cols[k].append(f"{lab['size']}px" if k == "size" else lab[k])
    return cols


def scene_boxes(scene: dict, w: float, h: float) -> list[list[float]]:
    """What the overlay's labels must keep off: the scene's shown label boxes and its op points."""
    boxes = [lab["box"] for lab in scene["labels"] if lab["shown"]]
    for x, y in zip(scene["points"]["x"], scene["points"]["y"]):
        px, py = to_px(x, y, scene["x"], scene["y"], w, h)
        boxes.append([px - POINT_R, py - POINT_R, px + POINT_R, py + POINT_R])
    return boxes


def y_bounds(overlay: dict) -> list[float]:
    """The y range (TFLOP/s) the overlay needs: a factor 2 of margin under and over."""
    ys = [y for line in overlay["roofs"]["ys"] for y in line] + overlay["points"]["y"]
    return [min(ys) / 2, max(ys) * 2]


def summary_text(doc: dict) -> str:
    c = doc["ceilings"]
    mem = next(b for b in c["bandwidth"] if b["level"] == c["memory_level"])
    roofs = " · ".join(f"{p['precision'].upper()} {fmt.si(p['flops_per_s'], 'FLOP/s')}"
                       for p in c["compute"])
    return (f"Measured: {doc['label']} — {doc['machine']['description']}, "
            f"{doc['created_utc'][:10]} ({doc['mode']} run). {c['memory_level']} "
            f"{fmt.bandwidth(mem['bandwidth_bytes_per_s'])} · {roofs} · "
            f"{len(doc['ops'])} ops timed.")


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
    # it from a picked file); overlay_data() here is its mirror for the build-time SVG.
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
    scene_labels = sorted((ls.source for ls in fig.select({"type": LabelSet})),
                          key=lambda s: s.name or "")
    scene_points = list(fig.select({"type": ColumnDataSource, "name": "op-points"}))
    # The scene's drawn lines (roof, ceilings, vector roof, launch floor): labels keep off them.
    scene_lines = [s for n in ("roof", "ceilings", "vector-roof-line", "launch-floor")
                   for s in fig.select({"type": ColumnDataSource, "name": n})]
    fig.multi_line(xs="xs", ys="ys", source=roofs, line_color=COLOR, line_width=2.5,
                   line_dash="dashdot", name="measured-roof-lines")
    fig.segment("x0", "y0", "x1", "y1", source=leaders, line_color=COLOR, line_width=1,
                name="measured-leader-lines")
    fig.scatter("x", "y", source=points, marker="diamond", size=13, fill_color=COLOR,
                line_color="#ffffff", line_width=1, name="measured-op-points")
    fig.add_layout(LabelSet(x="x", y="y", text="text", source=labels, x_offset="dx",
                            y_offset="dy", text_align="align", text_baseline="baseline",
                            text_font_size="size", text_font_style="style", text_color=COLOR))
    # CPU roofs sit far below a GPU's; ticks must still read as numbers, not "0".
    fig.yaxis.formatter = NumeralTickFormatter(format="0,0.[000000]")
    # The widget's own callback resets the y range on every change; this keeps the overlay in.
    code = jsmodule.bundle(JS)  # measure.mjs and format.mjs: one module (a blob cannot import)
    guard = CustomJS(module=True, code=code, args=dict(
        mode="guard", fig=fig, roofs=roofs, points=points, labels=labels, leaders=leaders,
        scene_labels=scene_labels, scene_points=scene_points, scene_lines=scene_lines))
    fig.y_range.js_on_change("start", guard)
    fig.y_range.js_on_change("end", guard)
    relayout = CustomJS(module=True, code=code, args=dict(
        mode="layout", fig=fig, labels=labels, leaders=leaders, scene_labels=scene_labels,
        scene_points=scene_points, scene_lines=scene_lines))
    for source in scene_labels:
        source.js_on_change("data", relayout)
    status = Div(name="measurement-status", text="", render_as_text=True,
                 sizing_mode="stretch_width",
                 html_attributes={"aria-live": "polite", "role": "status"},
                 stylesheets=[InlineStyleSheet(css=STATUS_CSS)])
    first = CustomJS(module=True, code=code, tags=["roofline-first-frame"], args=dict(
        mode="init", initial=doc, fig=fig, roofs=roofs, labels=labels, leaders=leaders,
        points=points, status=status, scene_labels=scene_labels, scene_points=scene_points,
        scene_lines=scene_lines))
    if fig.document is not None:
        fig.document.js_on_event("document_ready", first)
    if not picker:
        return status
    chooser = FileInput(name="measurement-file", accept=".json,application/json",
                        title="Your measurement JSON (stays in your browser)",
                        sizing_mode="stretch_width", stylesheets=[InlineStyleSheet(css=PICKER_CSS)])
    pick = CustomJS(module=True, code=code, args=dict(
        mode="pick", schema=schema(), fig=fig, roofs=roofs, labels=labels, leaders=leaders,
        points=points, status=status, chooser=chooser, scene_labels=scene_labels,
        scene_points=scene_points, scene_lines=scene_lines))
    chooser.js_on_change("value", pick)
    widget = fig.document.get_model_by_name("roofline-widget") if fig.document else None
    if widget is not None:
        widget.children.append(column(chooser, status, sizing_mode="stretch_width"))
    return status


# ---------------------------------------------------------------- ```roofline-measurement

def measurement_block(settings: MeasurementTableSettings) -> str:
    """```roofline-measurement: a table of a measurement, built from its JSON at build time.

        file: measurement-build-machine.json   # package data, or a path under docs/
        show: ops            # summary | verdict | ceilings | stream | ops | spread | machine
    """
    from roofline.measure import tables

    doc = settings.document()
    if settings.show == "summary":
        return f'<p class="roofline-measurement-summary">{html.escape(summary_text(doc))}</p>'
    if settings.show == "verdict":
        text = html.escape(tables.verdict_text(doc))
        return f'<p class="roofline-measurement-verdict">{text}</p>'
    if settings.show == "machine":
        return tables.html_table(tables.machine_table(doc))
    table = {"ceilings": tables.ceilings_table, "stream": tables.stream_table,
             "ops": tables.ops_check_table, "spread": tables.spread_table}[settings.show](doc)
    return tables.html_table(table)
