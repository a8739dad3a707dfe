"""The label gate on the reference pages' static charts (render/svgchart.py, drawn by the one
chart engine, render/js/chart.mjs): the hardware page's ridge chart and the op zoo's
mini-roofline, wide and narrow, and the lesson's first roofline: every label inside its
picture, apart from the others and crossed by no line (tests/svgcheck.py). The roofline
widget's scenes are checked in every state by node (tests/js/scene.test.mjs) and drawn here
(tests/test_widget_svg.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from svgcheck import count_problems_by_kind, drawings, labels, svg_problems


def charts() -> dict[str, str]:
    from lesson_site import derive, pages
    from lesson_site.context import LESSON_HW, LESSON_PRECISION, load_context
    ctx = load_context()
    pts = ctx.points(LESSON_HW, LESSON_PRECISION)
    names = [ctx.zoo.presets[p.name].label for p in pts]
    out = {}
    wide, narrow, desc = pages.ridge_charts(ctx)
    out["ridge-wide"] = wide.svg(title="t", desc=desc, uid="a")
    out["ridge-narrow"] = narrow.svg(title="t", desc=desc, uid="b")
    wide, narrow, desc = pages.zoo_charts(ctx, pts, names)
    out["zoo-wide"] = wide.svg(title="t", desc=desc, uid="c")
    out["zoo-narrow"] = narrow.svg(title="t", desc=desc, uid="d")
    for i, svg in enumerate(drawings(derive.roofline_figure(ctx))):
        out[f"first-roofline-{i}"] = svg
    return out


CHARTS = charts()


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_every_static_chart_passes_the_label_gate(name):
    svg = CHARTS[name]
    assert svg_problems(svg) == [], name
    named = [t for t, _ in labels(ET.fromstring(svg))]
    assert len(named) >= 6, named


def test_every_chip_of_the_ridge_chart_is_named():
    """The ridge chart labels each accelerator (a name that does not fit keeps its dot's
    tooltip, but the wide chart fits them all); chips on the same dot share one label, their
    names joined by " / "."""
    from lesson_site.context import load_context
    from lesson_site.pages import chip_label
    ctx = load_context()
    texts = {n for t, _ in labels(ET.fromstring(CHARTS["ridge-wide"])) for n in t.split(" / ")}
    missing = [a.id for a in ctx.catalog if "bf16" in a.peaks and chip_label(a.name) not in texts]
    assert not missing, missing


def test_the_gate_reports_a_name_nearer_another_mark_and_labels_that_read_as_one():
    """Seeded: a point's name (data-mark: its own point) drawn beside another point, and a
    number 3 px after a roof's label on its baseline ("BF16 roof 989 8"); each is reported,
    and the same drawing with the name beside its own point and the number 20 px off is not."""
    def doc(name_x, num_x):
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200">'
                '<circle class="rl-op" cx="50" cy="100" r="4"/>'
                '<circle class="rl-op" cx="200" cy="100" r="4"/>'
                f'<text x="{name_x}" y="95" data-mark="50 100" style="font-size:11px">GEMM</text>'
                '<text x="200" y="30" style="font-size:12px">BF16 roof 989</text>'
                f'<text x="{num_x}" y="30" style="font-size:11px">8</text></svg>')
    from svgcheck import text_width
    end = 200 + text_width("BF16 roof 989", 12, "normal")
    bad = svg_problems(doc(206, end + 3))
    assert count_problems_by_kind(bad) == {"nearer": 1, "read as one": 1}, bad
    assert "'GEMM' is nearer another mark" in bad[0]
    assert svg_problems(doc(56, end + 20)) == []
