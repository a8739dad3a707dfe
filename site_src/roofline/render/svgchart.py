"""Small static log-log charts (the hardware page's ridge-vs-bandwidth chart, the op zoo's and
the lesson's first roofline) described in Python and drawn by the one static-chart engine,
render/js/chart.mjs (drawChart: labels laid out by labels.mjs, the live plots' layout), run at
build time in the embedded JS engine. No JS on the page: the result is inline SVG.

Colours are roles the page's palette sets (render/blockstyle.py PALETTE_CSS: "ink", "muted",
"roof", "memory", "compute", ...), so a chart follows the light and dark schemes and prints
light. A narrow variant is drawn for phones (its own layout, its text at 11 px); CSS shows one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from roofline.render.jsengine import call

CHART_JS = Path(__file__).parent / "js" / "chart.mjs"
# A point's or a line's CSS class of the old engine -> the palette role it is drawn in.
ROLES = {"rl-chart-roof": "roof", "rl-mem": "memory", "rl-comp": "compute"}


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
    """Laid out along the line, from its right end back."""


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

    def spec(self, *, title: str, desc: str, uid: str, css: str = "") -> dict:
        """The chart as chart.mjs's drawChart takes it (JSON)."""
        def axis(rng, label, ticks, fmt):
            out = {"range": list(rng), "label": label}
            values = list(ticks) or call(CHART_JS, "decades", *rng)  # chart.mjs's ticks
            out["ticks"] = [{"v": v, "text": fmt(v)} for v in values]
            return out

        return {
            "width": self.width, "height": self.height, "margin": list(self.margin),
            "font": self.font, "title": title, "desc": desc, "uid": uid,
            "cls": f"rl-chart {css}".strip(),
            "x": axis(self.x_range, self.x_title, self.x_ticks, self.x_tick),
            "y": axis(self.y_range, self.y_title, self.y_ticks, self.y_tick),
            "lines": [{"x": [x for x, _ in ln.xy], "y": [y for _, y in ln.xy],
                       "color": ROLES.get(ln.css, "roof"), "width": 3,
                       "cls": f"rl-chart-line {ln.css}".strip(), "label": ln.label}
                      for ln in self.lines],
            "points": [{"x": p.x, "y": p.y, "r": 4, "label": p.label, "title": p.title,
                        "color": ROLES.get(p.css, "point"),
                        "cls": f"rl-chart-point {p.css}".strip()} for p in self.points],
        }

    def svg(self, *, title: str, desc: str, uid: str, css: str = "") -> str:
        return call(CHART_JS, "drawChart", self.spec(title=title, desc=desc, uid=uid, css=css))


def figure(wide: str, narrow: str, caption: str, css: str = "") -> str:
    """A figure holding a wide and a narrow drawing of one chart; CSS shows one (the narrow
    below 600 px), print shows the wide one."""
    return (f'<figure class="rl-chartfig {css}"><div class="rl-chart-wide">{wide}</div>'
            f'<div class="rl-chart-narrow">{narrow}</div>'
            f"<figcaption>{caption}</figcaption></figure>")
