"""The roofline widget's first frame as a static SVG, drawn at build time (no bokeh, no browser).

It draws plot/scene.py's scene — the Python mirror of the scene roofline.mjs draws live — so
the picture a reader sees before BokehJS arrives, on paper and without JavaScript is the one
the live plot then draws: same ranges, roof, ridge, ceilings, points and label layout. Always
in light colours (print, and the moment before the page's theme is applied).

    from roofline.widgets.roofline.static import render, render_responsive
    html = render(payload, height_px=400)            # one drawing, 688 px wide
    html = render_responsive(payload, height_px=400)  # wide, medium and narrow drawings

A viewBox scales its text with the picture: the 688 px drawing on a 375 px phone column would
print 11 px text at 6 px. render_responsive() draws the scene again for narrower frames, each
laid out for its own width, and plot/blockstyle.py's container queries show the one whose
text renders at 11 px or more in the column it gets (print shows the wide one).
"""

from __future__ import annotations

import html
import math

from roofline import fmt
from roofline.widgets.roofline import scene as sc

WIDTH = 688  # Material's text column; the SVG scales to its box (width 100 %)
# top, right, bottom, left: Bokeh's frame insets for these axes; the right one leaves half
# the last x tick ("10,000") room, as the live figure's min_border_right does
MARGIN = (10, 36, 48, 64)
INK, MUTED, GRID, BG = "#1f2328", "#57606a", "#e3e6ea", "#ffffff"
FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif"


def _decades(lo: float, hi: float) -> list[float]:
    return [10.0 ** k for k in range(math.ceil(math.log10(lo) - 1e-9),
                                     math.floor(math.log10(hi) + 1e-9) + 1)]


def _tick(v: float) -> str:
    return fmt.num(v, 3)


def _color(role: str) -> str:
    return {"ink": INK, "muted": MUTED}.get(role, role)


# (viewBox width, height as a share of the live plot's, the class CSS shows it by): each is
# shown in columns from its own width up to the next one's, so its text is never scaled down
# (plot/blockstyle.py); the heights keep the drawing about as tall as the live plot there.
VARIANTS = ((WIDTH, 1.0, "roofline-svg-wide"), (480, 0.8, "roofline-svg-medium"),
            (320, 0.85, "roofline-svg-narrow"))


def render_responsive(payload: dict, *, height_px: int, title: str = "",
                      overlay: dict | None = None) -> str:
    """The first frame drawn once per VARIANTS width (wide first: it is the one shown where
    container queries are unknown, and in print)."""
    return "".join(render(payload, height_px=round(height_px * share), width_px=width,
                          title=title, css=css, overlay=overlay)
                   for width, share, css in VARIANTS)


def render(payload: dict, *, height_px: int, width_px: int = WIDTH, title: str = "",
           css: str = "", overlay: dict | None = None) -> str:
    """The widget's initial view (payload["state"]) as one inline <svg> element; `overlay`
    (measured.overlay_data) draws a measurement over it, its labels laid out with the scene's."""
    st = payload["state"]
    top, right, bottom, left = MARGIN
    w, h = width_px - left - right, height_px - top - bottom
    S = sc.scene(payload, st, (w, h))
    xr, yr = S["x"], S["y"]

    def px(x: float, y: float) -> tuple[float, float]:
        a, b = sc.to_px(x, y, xr, yr, w, h)
        return left + a, top + b

    def poly(xs: list[float], ys: list[float], color: str, width: float, dash: str = "") -> str:
        pts = " ".join("%.1f,%.1f" % px(x, y) for x, y in zip(xs, ys))
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        return (f'<polyline points="{pts}" fill="none" stroke="{color}" '
                f'stroke-width="{width}"{extra}/>')

    hw = payload["hardware"][st["hardware"]]
    name = title or (f"Roofline of the {hw['name']} at {st['precision'].upper()}: ridge at "
                     f"{fmt.num(S['ridge'])} FLOP/byte")
    cls = f"roofline-svg {css}".strip()
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" role="img" '
           f'viewBox="0 0 {width_px} {height_px}" width="{width_px}" height="{height_px}" '
           f'style="{FONT}" aria-label="{html.escape(name)}">',
           f'<rect width="{width_px}" height="{height_px}" fill="{BG}"/>']
    fx0, fy0 = px(xr[0], yr[1])
    fx1, fy1 = px(xr[1], yr[0])
    mx, _ = px(S["memory"][1], yr[1])
    out.append(f'<rect x="{fx0:.1f}" y="{fy0:.1f}" width="{mx - fx0:.1f}" height="{fy1 - fy0:.1f}"'
               f' fill="{payload["colors"]["memory"]}" fill-opacity="0.08"/>')
    ticks = []
    text_end = -math.inf  # where the last x tick's text ends: a narrow frame skips a tick
    for v in _decades(*xr):
        x, _ = px(v, yr[0])
        # The last tick's text ends at the frame's edge instead of running off the picture.
        half = len(_tick(v)) * 11 * sc.CHAR_W / 2
        anchor = "end" if x + half > width_px - 1 else "middle"
        ticks.append(f'<line x1="{x:.1f}" y1="{fy0:.1f}" x2="{x:.1f}" y2="{fy1:.1f}" '
                     f'stroke="{GRID}"/>')
        start = x - 2 * half if anchor == "end" else x - half
        if start < text_end + 4:
            continue
        text_end = x if anchor == "end" else x + half
        ticks.append(f'<text x="{x:.1f}" y="{fy1 + 16:.1f}" font-size="11" fill="{INK}" '
                     f'text-anchor="{anchor}">{_tick(v)}</text>')
    for v in _decades(*yr):
        _, y = px(xr[0], v)
        ticks.append(f'<line x1="{fx0:.1f}" y1="{y:.1f}" x2="{fx1:.1f}" y2="{y:.1f}" '
                     f'stroke="{GRID}"/>')
        ticks.append(f'<text x="{fx0 - 6:.1f}" y="{y + 4:.1f}" font-size="11" fill="{INK}" '
                     f'text-anchor="end">{_tick(v)}</text>')
    out += ticks
    out.append(f'<rect x="{fx0:.1f}" y="{fy0:.1f}" width="{fx1 - fx0:.1f}" '
               f'height="{fy1 - fy0:.1f}" fill="none" stroke="{MUTED}"/>')
    out.append(f'<text x="{(fx0 + fx1) / 2:.1f}" y="{height_px - 8}" font-size="13" '
               f'font-style="italic" fill="{INK}" text-anchor="middle">'
               f'arithmetic intensity (FLOP/byte)</text>')
    out.append(f'<text transform="translate(14 {(fy0 + fy1) / 2:.1f}) rotate(-90)" '
               f'font-size="13" font-style="italic" fill="{INK}" text-anchor="middle">'
               f'attainable (TFLOP/s)</text>')
    ceil = S["ceilings"]
    for xs, ys, color in zip(ceil["xs"], ceil["ys"], ceil["color"]):
        out.append(poly(xs, ys, color, 2, "6 4"))
    if S["vector"]["x"]:
        out.append(poly(S["vector"]["x"], S["vector"]["y"], payload["colors"]["vector"], 2,
                        "8 3 2 3"))
    out.append(poly(S["roof"]["x"], S["roof"]["y"], payload["colors"]["roof"], 3))
    rx, _ = px(S["ridge"], yr[0])
    out.append(f'<line class="roofline-svg-ridge" x1="{rx:.1f}" y1="{fy0:.1f}" x2="{rx:.1f}" '
               f'y2="{fy1:.1f}" stroke="{MUTED}" stroke-width="1.5" stroke-dasharray="6 4"/>')
    for x, y in zip(S["points"]["x"], S["points"]["y"]):
        cx, cy = px(x, y)
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="#7a8290" '
                   f'stroke="#fff"/>')
    out += _tokens_and_launch(S, px)
    m = sc.marker(payload, st, st["ai"])
    cx, cy = px(m["x"], m["y"])
    out.append(f'<line x1="{cx:.1f}" y1="{fy0:.1f}" x2="{cx:.1f}" y2="{fy1:.1f}" '
               f'stroke="{MUTED}" stroke-dasharray="2 2"/>')
    out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="8" fill="{m["color"]}" stroke="#fff" '
               f'stroke-width="2"/>')
    out += _leaders(S["leaders"], px, MUTED)
    for lab in S["labels"]:
        if not lab["shown"]:
            continue
        out.append(_label_text(lab, left, top, "roofline-svg-label", _color(lab["color"])))
    if overlay is not None:
        out += _overlay(overlay, S, (w, h), px, left, top)
    out.append("</svg>")
    return "".join(out)


# Advance widths (em) of ASCII 32-126 in DejaVu Sans, regular and bold: the widest common
# sans-serif (what system-ui is on Debian). A label that would run wider in it than its laid-out
# box (the layout's CHAR_W estimate) is drawn compressed to the box; the rest keep their font's
# natural width, so a narrower font is never stretched.
_WIDE = {style: dict(zip(map(chr, range(32, 127)), map(float, widths.split())))
         for style, widths in (("normal", (
    "0.32 0.4 0.46 0.84 0.64 0.95 0.78 0.27 0.39 0.39 0.5 0.84 0.32 0.36 0.32 0.34 0.64 "
    "0.64 0.64 0.64 0.64 0.64 0.64 0.64 0.64 0.64 0.34 0.34 0.84 0.84 0.84 0.53 1 0.68 0.69 "
    "0.7 0.77 0.63 0.58 0.77 0.75 0.29 0.29 0.66 0.56 0.86 0.75 0.79 0.6 0.79 0.69 0.63 "
    "0.61 0.73 0.68 0.99 0.69 0.61 0.69 0.39 0.34 0.39 0.84 0.5 0.5 0.61 0.63 0.55 0.63 "
    "0.62 0.35 0.63 0.63 0.28 0.28 0.58 0.28 0.97 0.63 0.61 0.63 0.63 0.41 0.52 0.39 0.63 "
    "0.59 0.82 0.59 0.59 0.52 0.64 0.34 0.64 0.84 ")), ("bold", (
    "0.35 0.46 0.52 0.84 0.7 1 0.87 0.31 0.46 0.46 0.52 0.84 0.38 0.42 0.38 0.37 0.7 0.7 "
    "0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.4 0.4 0.84 0.84 0.84 0.58 1 0.77 0.76 0.73 0.83 0.68 "
    "0.68 0.82 0.84 0.37 0.37 0.77 0.64 1 0.84 0.85 0.73 0.85 0.77 0.72 0.68 0.81 0.77 1.1 "
    "0.77 0.72 0.73 0.46 0.37 0.46 0.84 0.5 0.5 0.67 0.72 0.59 0.72 0.68 0.44 0.72 0.71 "
    "0.34 0.34 0.67 0.34 1.04 0.71 0.69 0.72 0.72 0.49 0.6 0.48 0.71 0.65 0.92 0.65 0.65 "
    "0.58 0.71 0.37 0.71 0.84 ")))}


def _widest(text: str, size: float, style: str) -> float:
    """The text's width (px) in DejaVu Sans; 0.84 em for a glyph outside ASCII (× ≈ −)."""
    table = _WIDE["bold" if style == "bold" else "normal"]
    return sum(table.get(ch, 0.84) for ch in text) * size


def _label_text(lab: dict, left: float, top: float, cls: str, color: str) -> str:
    """One placed label as SVG text on its box's baseline; compressed to the box's width only
    where the widest common font would overrun it (DejaVu Sans runs to 0.79 em a bold capital
    against the layout's 0.6), so it never runs into its neighbour."""
    b = lab["box"]
    anchor = {"right": "end", "center": "middle"}.get(lab["align"], "start")
    x = left + {"end": b[2], "middle": (b[0] + b[2]) / 2}.get(anchor, b[0])
    y = top + b[3] - lab["size"] * (sc.LINE_H - 1) / 2 - lab["size"] * 0.2
    weight = ' font-weight="bold"' if lab["style"] == "bold" else ""
    italic = ' font-style="italic"' if lab["style"] == "italic" else ""
    fit = (f' textLength="{b[2] - b[0]:.1f}" lengthAdjust="spacingAndGlyphs"'
           if _widest(lab["text"], lab["size"], lab["style"]) > b[2] - b[0] else "")
    return (f'<text class="{cls}" data-key="{html.escape(lab["key"])}" x="{x:.1f}" '
            f'y="{y:.1f}" font-size="{lab["size"]}"{fit} fill="{color}" '
            f'text-anchor="{anchor}"{weight}{italic}>{html.escape(lab["text"])}</text>')


def _overlay(overlay: dict, S: dict, frame: tuple[float, float], px, left: float,
             top: float) -> list[str]:
    """A measurement over the scene, as measure.mjs draws it live: dash-dot roofs, diamond
    points, and labels laid out around the scene's labels and points by the same layout."""
    from roofline.widgets.measurement.overlay import COLOR, layout_overlay, scene_boxes
    out = []
    for xs, ys in zip(overlay["roofs"]["xs"], overlay["roofs"]["ys"]):
        pts = " ".join("%.1f,%.1f" % px(x, y) for x, y in zip(xs, ys))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{COLOR}" stroke-width="2.5" '
                   f'stroke-dasharray="10 4 2 4"/>')
    for x, y in zip(overlay["points"]["x"], overlay["points"]["y"]):
        cx, cy = px(x, y)
        out.append(f'<path d="M{cx:.1f} {cy - 6.5:.1f}L{cx + 6.5:.1f} {cy:.1f}L{cx:.1f} '
                   f'{cy + 6.5:.1f}L{cx - 6.5:.1f} {cy:.1f}Z" fill="{COLOR}" stroke="#fff"/>')
    placed = layout_overlay(overlay, S["x"], S["y"], *frame, scene_boxes(S, *frame),
                            sc.scene_lines(S["ceilings"], S["vector"], S["launch"], S["roof"]))
    out += _leaders(sc.leader_lines(placed, S["x"], S["y"], *frame), px, COLOR)
    for lab in placed:
        if lab["shown"]:
            out.append(_label_text(lab, left, top, "roofline-svg-measured", COLOR))
    return out


def _leaders(lines: dict, px, color: str) -> list[str]:
    """Leader lines (scene.leader_lines: data coordinates) from points to their moved names."""
    out = []
    for x0, y0, x1, y1 in zip(lines["x0"], lines["y0"], lines["x1"], lines["y1"]):
        (a, b), (c, d) = px(x0, y0), px(x1, y1)
        out.append(f'<line class="roofline-svg-leader" x1="{a:.1f}" y1="{b:.1f}" x2="{c:.1f}" '
                   f'y2="{d:.1f}" stroke="{color}" stroke-width="1"/>')
    return out


def _tokens_and_launch(S: dict, px) -> list[str]:
    """The tokens slider's ops (diamonds coloured by bound) and the selected op's launch floor
    (a dotted flat line), as the live plot draws them from the same scene."""
    out = []
    if S["launch"]["x"]:
        (x0, y0), (x1, y1) = (px(x, y) for x, y in zip(S["launch"]["x"], S["launch"]["y"]))
        out.append(f'<line class="roofline-svg-launch" x1="{x0:.1f}" y1="{y0:.1f}" '
                   f'x2="{x1:.1f}" y2="{y1:.1f}" stroke="{INK}" stroke-width="1.5" '
                   f'stroke-dasharray="2 3"/>')
    proj = S["projections"]
    for x, y, color in zip(proj["x"], proj["y"], proj["color"]):
        cx, cy = px(x, y)
        out.append(f'<path class="roofline-svg-tokens" d="M{cx:.1f} {cy - 6:.1f}l6 6l-6 6l-6 -6z" '
                   f'fill="{color}" stroke="#fff"/>')
    return out
