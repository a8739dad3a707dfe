"""Small static log-log charts as inline SVG, drawn at build time from the model (no JS).

Used for the hardware page's ridge-vs-bandwidth chart and the op zoo's mini-roofline; generic
enough for any log-log figure: axes with decade ticks, polylines, points and labels. Labels are
placed from estimated text boxes: each tries positions around its point, nearest first, and
takes the first that overlaps no other label, point or line and stays inside the frame; when
none does, it moves further out on a leader line. Text sizes are in px of the viewBox, and the
CSS shows the chart at its viewBox width or less (a narrow variant is drawn for phones), so no
text renders under 11 px.

Colours come from CSS classes (rl-chart-*), so the charts follow the palette on screen and
print light on paper."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Callable

CHAR_W = 0.6        # average glyph width / font size for the site's sans-serif
LINE_H = 1.25


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, o: "Box", pad: float = 1.0) -> bool:
        return not (self.x1 + pad <= o.x0 or o.x1 + pad <= self.x0 or
                    self.y1 + pad <= o.y0 or o.y1 + pad <= self.y0)

    def inside(self, o: "Box") -> bool:
        return self.x0 >= o.x0 and self.y0 >= o.y0 and self.x1 <= o.x1 and self.y1 <= o.y1


LEADER_RADIUS = 7  # a label placed farther out than this ring gets a leader to its point


def text_box(text: str, x: float, y: float, size: float, anchor: str = "start") -> Box:
    """The estimated box of one line of SVG text whose baseline starts at (x, y)."""
    w = len(text) * size * CHAR_W
    x0 = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
    return Box(x0, y - size * 0.8, x0 + w, y + size * 0.25)


def boxes_collide(boxes: list[Box], frame: Box | None = None) -> list[tuple[int, int]]:
    """Pairs of overlapping boxes (and (i, -1) for one outside the frame): the same check the
    browser layout gate runs on rendered label boxes."""
    bad = [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
           if boxes[i].overlaps(boxes[j], pad=0)]
    if frame is not None:
        bad += [(i, -1) for i, b in enumerate(boxes) if not b.inside(frame)]
    return bad


@dataclass
class Point:
    x: float
    y: float
    label: str = ""
    css: str = ""
    title: str = ""


@dataclass
class Line:
    xy: list[tuple[float, float]]
    css: str = ""
    label: str = ""
    """Drawn near the line's end (right end, above the line)."""


@dataclass
class LogLogChart:
    width: int
    height: int
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_title: str
    y_title: str
    x_tick: Callable[[float], str] = lambda v: f"{v:g}"
    y_tick: Callable[[float], str] = lambda v: f"{v:g}"
    font: float = 12.0
    x_ticks: tuple[float, ...] = ()
    y_ticks: tuple[float, ...] = ()
    """Explicit tick values; by default one per decade."""
    margin: tuple[int, int, int, int] = (14, 16, 46, 62)  # top, right, bottom, left
    points: list[Point] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)

    # -- geometry ---------------------------------------------------------------------
    @property
    def frame(self) -> Box:
        t, r, b, left = self.margin
        return Box(left, t, self.width - r, self.height - b)

    def sx(self, v: float) -> float:
        f, (lo, hi) = self.frame, self.x_range
        return f.x0 + (f.x1 - f.x0) * math.log10(v / lo) / math.log10(hi / lo)

    def sy(self, v: float) -> float:
        f, (lo, hi) = self.frame, self.y_range
        return f.y1 - (f.y1 - f.y0) * math.log10(v / lo) / math.log10(hi / lo)

    def _segments(self) -> list[tuple[float, float, float, float]]:
        segs = []
        for ln in self.lines:
            pts = [(self.sx(x), self.sy(y)) for x, y in ln.xy]
            segs += [(a[0], a[1], b[0], b[1]) for a, b in zip(pts, pts[1:])]
        return segs

    # -- label placement ----------------------------------------------------------------
    def line_labels(self) -> list[tuple[Line, Box, float, float]]:
        """A line's label sits above its last point, end-anchored, inside the frame."""
        out = []
        for ln in self.lines:
            if ln.label:
                x = self.sx(ln.xy[-1][0]) - 4
                y = max(self.sy(ln.xy[-1][1]) - 5, self.frame.y0 + self.font)
                out.append((ln, text_box(ln.label, x, y, self.font, "end"), x, y))
        return out

    def place_labels(self) -> list[tuple[Point, Box, float, float, str, bool]]:
        """(point, box, x, y, anchor, leader) per labelled point, no two boxes overlapping."""
        frame = self.frame
        size = self.font
        obstacles = [Box(self.sx(p.x) - 4, self.sy(p.y) - 4, self.sx(p.x) + 4, self.sy(p.y) + 4)
                     for p in self.points]
        obstacles += [b for _, b, _, _ in self.line_labels()]
        segs = self._segments()
        placed: list[tuple[Point, Box, float, float, str, bool]] = []
        # Crowded points first: they have the fewest free spots.
        order = sorted((p for p in self.points if p.label), key=lambda p: -sum(
            1 for q in self.points if abs(self.sx(q.x) - self.sx(p.x)) < 90
            and abs(self.sy(q.y) - self.sy(p.y)) < 30))

        def hits_line(b: Box) -> bool:
            for x0, y0, x1, y1 in segs:
                for k in range(21):
                    t = k / 20
                    x, y = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
                    if b.x0 - 1 <= x <= b.x1 + 1 and b.y0 - 1 <= y <= b.y1 + 1:
                        return True
            return False

        for p in order:
            px, py = self.sx(p.x), self.sy(p.y)
            best = None
            for radius in (7, 16, 28, 42, 60):
                for dx, dy, anchor in ((1, 0, "start"), (-1, 0, "end"), (0, -1, "middle"),
                                       (0, 1, "middle"), (1, -1, "start"), (-1, -1, "end"),
                                       (1, 1, "start"), (-1, 1, "end")):
                    x = px + dx * radius
                    y = py + dy * radius + (size * 0.35 if dy == 0 else
                                            (size * 0.8 if dy > 0 else 0))
                    b = text_box(p.label, x, y, size, anchor)
                    if not b.inside(frame):
                        continue
                    if any(b.overlaps(o) for o in obstacles) or hits_line(b):
                        continue
                    if any(b.overlaps(q[1], pad=2) for q in placed):
                        continue
                    # beyond the first ring a reader can't tell whose a label is: a leader
                    best = (p, b, x, y, anchor, radius > LEADER_RADIUS)
                    break
                if best:
                    break
            if best is None:  # no free spot: overlap least, inside the frame
                b = text_box(p.label, min(px + 7, frame.x1 - len(p.label) * size * CHAR_W),
                             py + size * 0.35, size)
                best = (p, b, b.x0, py + size * 0.35, "start", False)
            placed.append(best)
            obstacles.append(best[1])
        return placed

    # -- drawing ------------------------------------------------------------------------
    def svg(self, *, title: str, desc: str, uid: str, css: str = "") -> str:
        f, size = self.frame, self.font
        out = [f'<svg class="rl-chart {css}" viewBox="0 0 {self.width} {self.height}" '
               f'width="{self.width}" height="{self.height}" role="img" '
               f'aria-labelledby="{uid}-t {uid}-d" xmlns="http://www.w3.org/2000/svg" '
               f'style="--rl-chart-w:{self.width}px">',
               f'<title id="{uid}-t">{html.escape(title)}</title>',
               f'<desc id="{uid}-d">{html.escape(desc)}</desc>']
        out.append(f'<rect class="rl-chart-frame" x="{f.x0}" y="{f.y0}" '
                   f'width="{f.x1 - f.x0}" height="{f.y1 - f.y0}"/>')
        for axis, (lo, hi) in (("x", self.x_range), ("y", self.y_range)):
            explicit = self.x_ticks if axis == "x" else self.y_ticks
            ticks = list(explicit) or [10 ** k for k in range(
                math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9) + 1)]
            for d in ticks:
                if axis == "x":
                    x = self.sx(d)
                    out.append(f'<line class="rl-chart-grid" x1="{x:.1f}" y1="{f.y0}" '
                               f'x2="{x:.1f}" y2="{f.y1}"/>')
                    half = len(self.x_tick(d)) * size * CHAR_W / 2
                    anchor = ("end" if x + half > self.width - 2 else
                              "start" if x - half < 2 else "middle")
                    out.append(f'<text class="rl-chart-tick" x="{x:.1f}" y="{f.y1 + size + 8}" '
                               f'text-anchor="{anchor}" font-size="{size}">'
                               f'{html.escape(self.x_tick(d))}</text>')
                else:
                    y = self.sy(d)
                    out.append(f'<line class="rl-chart-grid" x1="{f.x0}" y1="{y:.1f}" '
                               f'x2="{f.x1}" y2="{y:.1f}"/>')
                    out.append(f'<text class="rl-chart-tick" x="{f.x0 - 5}" '
                               f'y="{y + size * 0.35:.1f}" text-anchor="end" '
                               f'font-size="{size}">{html.escape(self.y_tick(d))}</text>')
        out.append(f'<text class="rl-chart-axis" x="{(f.x0 + f.x1) / 2:.1f}" '
                   f'y="{self.height - 6}" text-anchor="middle" font-size="{size}">'
                   f'{html.escape(self.x_title)}</text>')
        out.append(f'<text class="rl-chart-axis" transform="translate({size + 2} '
                   f'{(f.y0 + f.y1) / 2:.1f}) rotate(-90)" text-anchor="middle" '
                   f'font-size="{size}">{html.escape(self.y_title)}</text>')
        for ln in self.lines:
            pts = " ".join(f"{self.sx(x):.1f},{self.sy(y):.1f}" for x, y in ln.xy)
            out.append(f'<polyline class="rl-chart-line {ln.css}" points="{pts}"/>')
        for p in self.points:
            tip = f"<title>{html.escape(p.title)}</title>" if p.title else ""
            out.append(f'<circle class="rl-chart-point {p.css}" cx="{self.sx(p.x):.1f}" '
                       f'cy="{self.sy(p.y):.1f}" r="4">{tip}</circle>')
        for p, b, x, y, anchor, leader in self.place_labels():
            if leader:
                cx = min(max(self.sx(p.x), b.x0), b.x1)
                cy = min(max(self.sy(p.y), b.y0), b.y1)
                out.append(f'<line class="rl-chart-leader" x1="{self.sx(p.x):.1f}" '
                           f'y1="{self.sy(p.y):.1f}" x2="{cx:.1f}" y2="{cy:.1f}"/>')
            out.append(f'<text class="rl-chart-label" x="{x:.1f}" y="{y:.1f}" '
                       f'text-anchor="{anchor}" font-size="{size}">{html.escape(p.label)}</text>')
        for ln, _, x, y in self.line_labels():
            out.append(f'<text class="rl-chart-label rl-chart-line-label" x="{x:.1f}" '
                       f'y="{y:.1f}" text-anchor="end" '
                       f'font-size="{size}">{html.escape(ln.label)}</text>')
        out.append("</svg>")
        return "".join(out)


def figure(wide: str, narrow: str, caption: str, css: str = "") -> str:
    """A figure holding a wide and a narrow drawing of one chart; CSS shows one (the narrow
    below 600 px), print shows the wide one."""
    return (f'<figure class="rl-chartfig {css}"><div class="rl-chart-wide">{wide}</div>'
            f'<div class="rl-chart-narrow">{narrow}</div>'
            f"<figcaption>{caption}</figcaption></figure>")
