"""Layout gate, plot labels in every widget state: the roofline widget's scene (plot/scene.py,
the same layout roofline.mjs draws every frame from, pinned to it by scene_cases.json) is
walked over every hardware × precision × extra-ceiling set × vector toggle, at a desktop and
a phone frame; no two shown label boxes may overlap and none may leave the frame. Presets
only move the marker (overlay level), so they do not change the label layout. The static
SVG charts are checked on the rendered pages by tests/test_layout_browser.py (labels)."""

from __future__ import annotations

import pytest

from roofline.widgets.roofline import settings as rs
from roofline.model.catalog import default_catalog
from roofline.model.ops import default_zoo
from roofline.widgets.roofline import scene, layout as widget
from roofline.render.svgchart import Box, boxes_collide

CEILING_SETS = ((), ("l2",), ("sram",), ("sram", "l2", "host"))
FRAMES = ((640, 330), (330, 330))


def label_problems(states=None) -> tuple[list[str], int]:
    """(problems, scenes walked) over every widget state (or the given ones)."""
    cat, zoo = default_catalog(), default_zoo()
    if states is None:
        states = [(a.id, p, c) for a in cat for p in a.peaks for c in CEILING_SETS]
    problems, n = [], 0
    for hw, prec, ceilings in states:
        data = rs.payload(rs.RooflineSettings(hardware=hw, precision=prec, ceilings=ceilings),
                              cat, zoo)
        for vector in (False, True):
            st = {"hardware": hw, "precision": prec, "vector": vector}
            for frame in FRAMES:
                n += 1
                shown = [lab for lab in scene.scene(data, st, frame)["labels"] if lab["shown"]]
                boxes = [Box(*lab["box"]) for lab in shown]
                for i, j in boxes_collide(boxes, Box(0, 0, *frame)):
                    other = shown[j]["text"] if j >= 0 else "the frame's edge"
                    problems.append(f"{hw} {prec} ceilings={list(ceilings)} vector={vector} "
                                    f"{frame}: '{shown[i]['text']}' meets {other}")
    return problems, n


def test_no_widget_label_collides_or_leaves_the_frame_in_any_state():
    problems, n = label_problems()
    assert n >= 800
    assert problems == [], f"{len(problems)} of {n} scenes:\n" + "\n".join(problems[:20])


def test_seeded_collision_is_reported(monkeypatch):
    # A layout that ignores what it has placed puts labels on top of each other (the layout
    # lives in plot/labels.py; scene re-exports it).
    from roofline.render import labels
    monkeypatch.setattr(labels, "overlaps", lambda a, b, pad=1: False)
    problems, _ = label_problems([("h100-sxm", "bf16", ("sram", "l2", "host"))])
    assert any("meets" in p for p in problems)


def test_box_checker_reports_overlap_and_clipping():
    frame = Box(0, 0, 100, 50)
    assert boxes_collide([Box(0, 0, 40, 10), Box(30, 5, 60, 15)], frame) == [(0, 1)]
    assert boxes_collide([Box(90, 0, 120, 10)], frame) == [(0, -1)]
    assert boxes_collide([Box(0, 0, 40, 10), Box(41, 0, 60, 10)], frame) == []


def test_static_chart_labels_never_collide():
    """The build-time charts (render/svgchart.py) as the hardware and op-zoo pages draw them,
    wide and narrow: their placed labels, roof labels included, overlap nothing and stay in
    the frame. (Chromium re-checks the drawn text boxes on every page: test_layout_browser.)"""
    from lesson_site import pages
    from lesson_site.context import LESSON_HW, LESSON_PRECISION, load_context
    ctx = load_context()
    pts = ctx.points(LESSON_HW, LESSON_PRECISION)
    labels = [ctx.zoo.presets[p.name].label for p in pts]
    charts = [*pages.ridge_charts(ctx)[:2], *pages.zoo_charts(ctx, pts, labels)[:2]]
    for chart in charts:
        placed = chart.place_labels()
        boxes = [b for _, b, *_ in placed] + [b for _, b, _, _ in chart.line_labels()]
        assert len(boxes) >= 9
        assert boxes_collide(boxes, chart.frame) == [], chart.width
        # a label farther than 12 px from its point is tied to it by a leader (#14 item 2)
        for p, b, *_, leader in placed:
            px, py = chart.sx(p.x), chart.sy(p.y)
            d = ((px - min(max(px, b.x0), b.x1)) ** 2 + (py - min(max(py, b.y0), b.y1)) ** 2) ** .5
            assert leader or d <= 12, (chart.width, p.label, round(d, 1))


# --- the measurement overlay: its labels laid out with the scene's, in every widget state -----

def overlay_problems(layout=None) -> tuple[list[str], int]:
    """(problems, scenes walked): the bundled measurement over every hardware × precision ×
    vector toggle, desktop and phone frames; no overlay label may meet a scene label, a scene
    point, another overlay label or the frame's edge. `layout` replaces the overlay's layout
    (a seeded defect)."""
    from roofline.widgets.measurement import overlay as measured
    from roofline.widgets.roofline.settings import RooflineSettings
    cat, zoo = default_catalog(), default_zoo()
    doc = measured.load_measurement("measurement-build-machine.json")
    layout = layout or measured.layout_overlay
    problems, n = [], 0
    for a in cat:
        for prec in a.peaks:
            opts = RooflineSettings(hardware=a.id, precision=prec,
                                    measurement="measurement-build-machine.json")
            data = widget.drawing_payload(opts, cat, zoo)
            overlay = measured.overlay_data(doc, *data["x"])
            for vector in (False, True):
                st = {**data["state"], "vector": vector}
                for frame in FRAMES:
                    n += 1
                    S = scene.scene(data, st, frame)
                    taken = measured.scene_boxes(S, *frame)
                    placed = [lab for lab in layout(overlay, S["x"], S["y"], *frame, taken)
                              if lab["shown"]]
                    boxes = [Box(*lab["box"]) for lab in placed]
                    for i, j in boxes_collide(boxes, Box(0, 0, *frame)):
                        other = placed[j]["text"] if j >= 0 else "the frame's edge"
                        problems.append(f"{a.id} {prec} vector={vector} {frame}: "
                                        f"'{placed[i]['text']}' meets {other}")
                    for lab, b in zip(placed, boxes):
                        if any(b.overlaps(Box(*t), pad=0) for t in taken):
                            problems.append(f"{a.id} {prec} vector={vector} {frame}: "
                                            f"'{lab['text']}' lies on a scene label or point")
    return problems, n


def test_no_measurement_label_collides_in_any_state():
    problems, n = overlay_problems()
    assert n >= 40
    assert problems == [], f"{len(problems)} problems in {n} scenes:\n" + "\n".join(problems[:20])


def test_seeded_overlay_collision_is_reported():
    """The old overlay drew each label at one fixed offset whatever lay there (Softmax and GELU
    printed as 'SoftGELU'): a layout that ignores what is placed must be reported."""
    from roofline.widgets.measurement import overlay as measured
    from roofline.widgets.roofline import scene as sc

    def blind(overlay, xr, yr, w, h, taken=None):
        return sc.layout_labels(measured.overlay_labels(overlay), xr, yr, w, h)

    def fixed(overlay, xr, yr, w, h, taken=None):  # first candidate always, as before
        out = []
        for lab in measured.overlay_labels(overlay):
            sx, sy = sc.to_px(lab["x"], lab["y"], xr, yr, w, h)
            c = lab["at"][0]
            out.append({**lab, **c, "box": sc.label_box(lab["text"], lab["size"], sx, sy, c),
                        "shown": True})
        return out

    for seeded in (blind, fixed):
        problems, _ = overlay_problems(seeded)
        assert any("meets" in p or "lies on" in p for p in problems), seeded.__name__
