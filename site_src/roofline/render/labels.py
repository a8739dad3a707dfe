"""Label layout from estimated text boxes: the Python mirror of render/js/labels.mjs, used by the
roofline's scene (plot/scene.py), the measurement overlay (plot/measured.py) and the static SVG
(plot/svg.py). Boxes are [left, top, right, bottom] in px of a w × h frame (y down) over log
ranges; a label's width is estimated as CHAR_W × font size per glyph (the live plot measures
its canvas text instead). Pinned to the JS by tests/cases/scene_cases.json and
measure_cases.json. No bokeh.
"""

from __future__ import annotations

import math

CHAR_W = 0.6
LINE_H = 1.2
POINT_R = 4  # half the op markers' size (px)
CLEAR_OF_LINES = 4  # places a label tries clear of lines first (a point's name: 6, a row)


def to_px(x: float, y: float, xr: list[float], yr: list[float], w: float,
          h: float) -> tuple[float, float]:
    fx = (math.log10(x) - math.log10(xr[0])) / (math.log10(xr[1]) - math.log10(xr[0]))
    fy = (math.log10(y) - math.log10(yr[0])) / (math.log10(yr[1]) - math.log10(yr[0]))
    return fx * w, (1 - fy) * h


def label_box(text: str, size: float, sx: float, sy: float, c: dict) -> list[float]:
    """[left, top, right, bottom] in px (y down) of a label at (sx, sy) placed by c."""
    w, h = len(text) * size * CHAR_W, size * LINE_H
    ax, ay = sx + c["dx"], sy - c["dy"]
    left = {"right": ax - w, "center": ax - w / 2}.get(c["align"], ax)
    top = {"bottom": ay - h, "middle": ay - h / 2}.get(c["baseline"], ay)
    return [left, top, left + w, top + h]


def overlaps(a: list[float], b: list[float], pad: float = 1) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def layout_labels(labels: list[dict], xr: list[float], yr: list[float], w: float, h: float,
                  points: dict | None = None, taken: list[list[float]] | None = None
                  ) -> list[dict]:
    """Each label takes its first candidate inside the frame that overlaps no earlier label and
    no point (a POINT_R px box), crossing no line of points["lines"] (nor, for a point's name,
    of points["op_lines"]: the ridge) where it can; one that fits nowhere is left out.
    `taken`: boxes already placed (a measurement overlay is laid out around the scene's)."""
    placed: list[list[float]] = list(taken or [])
    for x, y in zip(points["x"], points["y"]) if points else ():
        px, py = to_px(x, y, xr, yr, w, h)
        placed.append([px - POINT_R, py - POINT_R, px + POINT_R, py + POINT_R])
    lines = _segments((points or {}).get("lines"), xr, yr, w, h)
    op_lines = _segments((points or {}).get("op_lines"), xr, yr, w, h)
    out = []
    for label in labels:
        lab = {k: v for k, v in label.items() if k != "at"}
        sx, sy = to_px(lab["x"], lab["y"], xr, yr, w, h)
        avoid = lines + op_lines if names_point(lab) else lines
        out.append(_place(lab, label["at"], sx, sy, w, h, placed, avoid))
    return out


def _place(lab: dict, at: list[dict], sx: float, sy: float, w: float, h: float,
           placed: list[list[float]], avoid: list[list[float]]) -> dict:
    """The first candidate clear of the frame's edges, `placed` and the `avoid` lines; lines
    are a preference among the first CLEAR_OF_LINES candidates (a name moved rows away to
    dodge a line lands on the next one's spot): else the first free place across one."""
    near = at[:CLEAR_OF_LINES + 2 if names_point(lab) else CLEAR_OF_LINES]
    for clear, cands in ((avoid, near), ([], at)):
        for c in cands:
            box = label_box(lab["text"], lab["size"], sx, sy, c)
            inside = box[0] >= 0 and box[1] >= 0 and box[2] <= w and box[3] <= h
            if (inside and not any(overlaps(b, box) for b in placed)
                    and not any(crosses(g, box) for g in clear)):
                placed.append(box)
                return {**lab, **c, "box": box, "shown": True}
    return {**lab, **at[0], "box": None, "shown": False}


def _segments(lines: list | None, xr: list[float], yr: list[float], w: float,
              h: float) -> list[list[float]]:
    """Polylines [[xs, ys], ...] in data coordinates as px segments [x0, y0, x1, y1]."""
    out = []
    for xs, ys in lines or ():
        for i in range(1, len(xs)):
            out.append([*to_px(xs[i - 1], ys[i - 1], xr, yr, w, h),
                        *to_px(xs[i], ys[i], xr, yr, w, h)])
    return out


def crosses(g: list[float], b: list[float]) -> bool:
    """Whether segment g [x0, y0, x1, y1] passes through box b (Liang-Barsky clipping)."""
    dx, dy = g[2] - g[0], g[3] - g[1]
    t0, t1 = 0.0, 1.0
    for p, q in zip((-dx, dx, -dy, dy), (g[0] - b[0], b[2] - g[0], g[1] - b[1], b[3] - g[1])):
        if p == 0:
            if q < 0:
                return False
        else:
            r = q / p
            if p < 0:
                if r > t1:
                    return False
                t0 = max(t0, r)
            else:
                if r < t0:
                    return False
                t1 = min(t1, r)
    return True


def from_px(sx: float, sy: float, xr: list[float], yr: list[float], w: float,
            h: float) -> tuple[float, float]:
    """The data point at px (sx, sy): to_px inverted."""
    lx, ly = [math.log10(v) for v in xr], [math.log10(v) for v in yr]
    return (10 ** (lx[0] + (sx / w) * (lx[1] - lx[0])),
            10 ** (ly[0] + (1 - sy / h) * (ly[1] - ly[0])))


LEADER_PX = 12  # a point's label farther than this from it gets a leader line (labels.mjs)


def names_point(label: dict) -> bool:
    return label["key"].startswith(("op-", "proj-", "measured-op-"))


def leader_lines(placed: list[dict], xr: list[float], yr: list[float], w: float,
                 h: float) -> dict:
    """{x0, y0, x1, y1} (data coordinates) of a leader line for each shown label that names a
    point and lies farther than LEADER_PX from it: from the point's edge to the nearest point
    of the label's box, so a reader sees which point a displaced name belongs to."""
    out: dict[str, list[float]] = {"x0": [], "y0": [], "x1": [], "y1": []}
    for lab in placed:
        if not lab["shown"] or not names_point(lab):
            continue
        px, py = to_px(lab["x"], lab["y"], xr, yr, w, h)
        b = lab["box"]
        qx, qy = min(max(px, b[0]), b[2]), min(max(py, b[1]), b[3])
        d = math.hypot(qx - px, qy - py)
        if d <= LEADER_PX:
            continue
        k = (POINT_R + 1) / d
        a = from_px(px + (qx - px) * k, py + (qy - py) * k, xr, yr, w, h)
        z = from_px(qx, qy, xr, yr, w, h)
        for key, v in zip(("x0", "y0", "x1", "y1"), (*a, *z)):
            out[key].append(v)
    return out
