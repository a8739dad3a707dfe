"""The static figures' label gate, on the drawn SVG itself (not on the layout that placed it):
each label's text box is measured from the font metrics table the pages' font stack is built
on (render/js/fontmetrics.mjs, read here as data), and checked against the picture's edges,
the other labels, every drawn line (polylines and lines: roofs, slopes, the ridge, the AI line,
launch and measured roofs, leaders) except the grid and a label's own leader, which ends at it;
and as a reader reads it: a point's name no nearer another mark than its own, and no two
labels so close along a baseline that they read as one phrase.

    problems = svg_problems(svg_text)   # [] when the drawing passes
    crossings = count_crossings(svg_text)

The live plots' twin check runs in the browser (tests/layoutcheck.py, "live_labels")."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

NS = "{http://www.w3.org/2000/svg}"
METRICS = (Path(__file__).resolve().parents[1] / "site_src" / "roofline" / "render" / "js"
           / "fontmetrics.mjs")
ASCENT, DESCENT = 0.75, 0.2  # of the font size, above and below the baseline (the ink box)


@lru_cache(maxsize=1)
def _metrics() -> tuple[str, dict[str, list[int]]]:
    text = METRICS.read_text(encoding="utf-8")
    chars = json.loads(re.search(r"export const CHARS = (\".*\");", text).group(1))
    widths = {}
    for style in ("normal", "bold", "italic"):
        body = re.search(style + r": \[([^\]]*)\]", text).group(1)
        widths[style] = [int(v) for v in body.replace("\n", " ").split(",") if v.strip()]
    return chars, widths


def text_width(text: str, size: float, style: str) -> float:
    chars, widths = _metrics()
    table = widths.get(style, widths["normal"])
    widest = max(table)
    return sum(table[chars.index(ch)] if ch in chars else widest for ch in text) / 1000 * size


def _style(el) -> dict[str, str]:
    return dict(part.split(":", 1) for part in (el.get("style") or "").split(";") if ":" in part)


def labels(root) -> list[tuple[str, list[float]]]:
    """(text, ink box [left, top, right, bottom]) of every label drawn in the picture."""
    return [(t, b) for t, b, _ in _labels(root)]


def _labels(root) -> list[tuple[str, list[float], object]]:
    out = []
    for t in root.iter(f"{NS}text"):
        if not (t.text or "").strip():
            continue
        st = _style(t)
        size = float(st.get("font-size", t.get("font-size", "11")).rstrip("px"))
        style = ("bold" if st.get("font-weight") == "bold" else
                 "italic" if st.get("font-style") == "italic" else "normal")
        if t.get("transform"):  # the rotated y axis title: its own rule, not a label
            continue
        w = text_width(t.text, size, style)
        x, y = float(t.get("x")), float(t.get("y"))
        left = {"end": x - w, "middle": x - w / 2}.get(t.get("text-anchor", "start"), x)
        out.append((t.text, [left, y - ASCENT * size, left + w, y + DESCENT * size], t))
    return out


def segments(root) -> list[tuple[str, list[float]]]:
    """(what, [x0, y0, x1, y1]) of every drawn line segment but the grid's."""
    out = []
    for el in root.iter():
        cls = el.get("class") or ""
        if "rl-grid" in cls or "chart-grid" in cls:
            continue
        what = cls or el.tag.replace(NS, "")
        if el.tag == f"{NS}line":
            out.append((what, [float(el.get(k)) for k in ("x1", "y1", "x2", "y2")]))
        elif el.tag == f"{NS}polyline":
            pts = [[float(v) for v in p.split(",")] for p in el.get("points").split()]
            out += [(what, [*a, *b]) for a, b in zip(pts, pts[1:])]
    return out


def _enters(g: list[float], b: list[float]) -> bool:
    """Whether segment g passes through the open box b (sampled every 0.25 px)."""
    n = max(2, int(((g[2] - g[0]) ** 2 + (g[3] - g[1]) ** 2) ** 0.5 * 4))
    for i in range(n + 1):
        x, y = g[0] + (g[2] - g[0]) * i / n, g[1] + (g[3] - g[1]) * i / n
        if b[0] < x < b[2] and b[1] < y < b[3]:
            return True
    return False


def _ends_at(g: list[float], b: list[float], tol: float = 1.5) -> bool:
    """Whether one end of g lies on (or within tol of) box b: a label's own leader."""
    return any(b[0] - tol <= x <= b[2] + tol and b[1] - tol <= y <= b[3] + tol
               for x, y in ((g[0], g[1]), (g[2], g[3])))


def crossings(root) -> list[str]:
    out = []
    segs = segments(root)
    for text, b in labels(root):
        for what, g in segs:
            if "leader" in what and _ends_at(g, b):
                continue
            if _enters(g, b):
                out.append(f"a line ({what}) crosses '{text}'")
    return out


# A reader's two checks (tests/js/labelgate.mjs is their twin on the layout's output in every
# state): marks whose centres are closer than MERGE_PX look as one; labels on one baseline
# band closer than GAP_PX read as one phrase (ink boxes: the layout keeps 8 px between its
# boxes, which are a px wider); a name's own mark must be its nearest, within SLACK_PX (the
# ink box is a little smaller than the layout's box).
MERGE_PX, GAP_PX, SLACK_PX = 10.0, 6.0, 2.5


def _dist(p: tuple[float, float], b: list[float]) -> float:
    qx, qy = min(max(p[0], b[0]), b[2]), min(max(p[1], b[1]), b[3])
    return ((qx - p[0]) ** 2 + (qy - p[1]) ** 2) ** 0.5


def marks(root) -> list[tuple[float, float]]:
    """The centres of the drawn points (circles and diamonds), the reader's marker aside."""
    out = []
    for el in root.iter():
        if "rl-marker" in (el.get("class") or ""):
            continue
        if el.tag == f"{NS}circle":
            out.append((float(el.get("cx")), float(el.get("cy"))))
        elif el.tag == f"{NS}path":
            v = [float(n) for n in re.findall(r"-?[0-9.]+", el.get("d") or "")]
            if len(v) == 8:  # a diamond: its four corners
                out.append((sum(v[0::2]) / 4, sum(v[1::2]) / 4))
    return out


def reader_problems(root) -> list[str]:
    """A point's name nearer another mark than its own (its own: data-mark, which chart.mjs
    writes on a point's name: a group's label names each point of its group), and two labels
    that read as one."""
    out = []
    found = [(t, b, el) for t, b, el in _labels(root)
             if not re.search(r"rl-tick|rl-axis-label", el.get("class") or "")]
    pts = marks(root)
    for text, b, el in found:
        if not el.get("data-mark"):
            continue
        v = [float(n) for n in el.get("data-mark").split()]
        own = list(zip(v[0::2], v[1::2]))  # a group's label names each of its points
        d = min(_dist(o, b) for o in own)
        others = [_dist(m, b) for m in pts
                  if all(((m[0] - o[0]) ** 2 + (m[1] - o[1]) ** 2) ** 0.5 >= MERGE_PX for o in own)]
        if others and min(others) + SLACK_PX < d:
            out.append(f"'{text}' is nearer another mark ({min(others):.0f} px) than its own "
                       f"({d:.0f} px)")
    for i, (text, b, _) in enumerate(found):
        for other, c, _ in found[i + 1:]:
            v = min(b[3], c[3]) - max(b[1], c[1])
            if v < 0.5 * min(b[3] - b[1], c[3] - c[1]):
                continue
            gap = max(b[0], c[0]) - min(b[2], c[2])
            if 0 <= gap < GAP_PX:
                out.append(f"'{text}' and '{other}' read as one ({gap:.1f} px apart on a baseline)")
    return out


def svg_problems(svg: str) -> list[str]:
    """Every label out of its picture, on another label, or crossed by a line; a point's name
    nearer another mark than its own; two labels that read as one."""
    root = ET.fromstring(svg)
    width, height = float(root.get("width")), float(root.get("height"))
    found = labels(root)
    out = []
    for i, (text, b) in enumerate(found):
        if b[0] < -0.5 or b[2] > width + 0.5 or b[1] < -0.5 or b[3] > height + 0.5:
            out.append(f"'{text}' leaves the picture")
        for other, c in found[i + 1:]:
            if b[0] < c[2] and c[0] < b[2] and b[1] < c[3] and c[1] < b[3]:
                out.append(f"'{text}' meets '{other}'")
    return out + crossings(root) + reader_problems(root)


_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S | re.I)


def drawings(html: str) -> list[str]:
    """Each <svg>…</svg> of a block or page (nested frames stay inside their drawing). The text
    of <script> elements is left out: SVG a script writes as strings (the serving window's
    redraw) is code, not a drawing on the page."""
    html = _SCRIPT.sub("", html)
    out, depth, start = [], 0, 0
    for m in re.finditer(r"<svg\b|</svg>", html):
        if m.group(0) == "</svg>":
            depth -= 1
            if depth == 0:
                out.append(html[start:m.end()])
        else:
            if depth == 0:
                start = m.start()
            depth += 1
    return out


def count_problems_by_kind(problems: list[str]) -> dict[str, int]:
    """{"crosses": n, "meets": n, "leaves": n, "nearer": n, "read as one": n}: the gate's
    findings counted by kind."""
    out: dict[str, int] = {}
    for p in problems:
        kind = next(k for k in ("crosses", "meets", "leaves", "nearer", "read as one") if k in p)
        out[kind] = out.get(kind, 0) + 1
    return out
