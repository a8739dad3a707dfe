"""The roofline widget's first frame as static SVG, drawn at build time by the live plot's own
code (static.mjs, static_measured.mjs, scene.mjs, labels.mjs, render/js/chart.mjs) in the
embedded JS engine: before BokehJS arrives, without JavaScript and on paper the reader sees
the live plot's first frame, with its ranges, ticks, colours and label places.

    from roofline.widgets.roofline.static import render
    html = render(payload, height_px=400)  # wide, medium and narrow drawings, and the key

Each drawing is laid out for its own width (a viewBox would shrink 11 px text to 6 px on a
phone); render/blockstyle.py's container queries show the one that fits the column.
"""

from __future__ import annotations

import html
from pathlib import Path

from roofline.render.jsengine import call

JS = Path(__file__).parent / "static.mjs"
MEASURED_JS = Path(__file__).parent / "static_measured.mjs"


def render(payload: dict, *, height_px: int, measurement: dict | None = None) -> str:
    """The static first frame of the widget's initial view (payload["state"]), with a
    measurement document drawn over it if given."""
    return call(MEASURED_JS, "staticFigure", payload, height_px, measurement)["svg"]


def key_html(payload: dict) -> str:
    """The plot's key, under it on screen and on paper: the numbered points (op n is n in every
    drawing and in the live plot: where a name does not fit beside its point, the scene writes
    its number) and, with extra ceilings, which line is which (where lines crowd, their own
    labels may not fit)."""
    ops = payload["ops"]
    out = []
    if ops:
        items = "".join(f"<li>{html.escape(op['label'])}</li>" for op in ops.values())
        out.append(f'<ol class="roofline-key" aria-label="The numbered points">{items}</ol>')
    lines = [("roof", "the roof and the HBM slope", "solid")]
    lines += [(k, payload["names"].get(k, k), "dashed") for k in payload["ceilings"]
              if k not in ("hbm", "vector")]
    if "vector" in payload["ceilings"]:
        lines.append(("vector", "the vector roof", "dotdash"))
    if len(lines) > 1:
        items = "".join(f'<li><span class="roofline-swatch roofline-swatch-{dash}" '
                        f'style="color:{payload["colors"][k]}"></span>{html.escape(name)}</li>'
                        for k, name, dash in lines)
        out.append(f'<ul class="roofline-lines" aria-label="The lines">{items}</ul>')
    return "".join(out)


def record_html(payload: dict) -> str:
    """The view's settings in one line (static.mjs rooflineRecord), shown on paper only, where
    the controls are not printed; the live plot rewrites it as the reader moves a control."""
    text = call(JS, "rooflineRecord", payload, payload["state"])
    return f'<p class="roofline-record">{html.escape(text)}</p>'
