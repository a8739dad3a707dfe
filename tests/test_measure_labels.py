"""The measurement overlay's labels go through the roofline's one label layout
(plot/scene.layout_labels, labels.mjs live): the Python half against the case file node checks
measure.mjs against, and the static SVG of a measured roofline draws the overlay with its
labels clear of the scene's."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

from roofline.widgets.measurement import overlay as measured
from roofline.widgets.roofline import scene, static as svg, layout as widget
from roofline.widgets.roofline.settings import RooflineSettings

CASES = json.loads((Path(__file__).parent / "cases" / "measure_cases.json")
                   .read_text(encoding="utf-8"))
NS = {"s": "http://www.w3.org/2000/svg"}


def _near(a, b, where):
    if isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9), where
    elif isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _near(x, y, f"{where}[{i}]")
    elif isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for k in b:
            _near(a[k], b[k], f"{where}.{k}")
    else:
        assert a == b, where


def test_overlay_layout_matches_the_case_file():
    o = CASES["overlay"]
    overlay = measured.overlay_data(CASES["base"], o["x0"], o["x1"])
    assert len(o["layouts"]) >= 2
    for c in o["layouts"]:
        got = measured.layout_overlay(overlay, [o["x0"], o["x1"]], c["y"], *c["frame"], c["taken"])
        _near(got, c["expected"], f"frame {c['frame']}")


def test_static_svg_draws_the_measurement_with_its_labels_clear():
    opts = RooflineSettings(measurement="measurement-build-machine.json")
    data = widget.drawing_payload(opts)
    overlay = measured.overlay_data(measured.load_measurement(opts.measurement), *data["x"])
    for width, share, css in svg.VARIANTS:
        height = round(400 * share)
        root = ET.fromstring(svg.render(data, height_px=height, width_px=width, css=css,
                                        overlay=overlay))
        texts = root.findall(".//s:text[@class='roofline-svg-measured']", NS)
        assert len(texts) >= 4, width
        if width == svg.WIDTH:  # the wide drawing names every op family and both roofs
            names = {t.text for t in texts}
            assert {"RMSNorm", "Softmax", "GELU", "GEMM"} <= names, names
            assert any(n.startswith("measured FP32") for n in names)
        labels = root.findall(".//s:text[@class='roofline-svg-label']", NS) + texts

        def box(t):
            size, x, y = float(t.get("font-size")), float(t.get("x")), float(t.get("y"))
            # drawn to its laid-out (estimated) width, or compressed to it (textLength)
            w = float(t.get("textLength") or len(t.text) * size * scene.CHAR_W)
            left = {"end": x - w, "middle": x - w / 2}.get(t.get("text-anchor"), x)
            return [left, y - size * 0.8, left + w, y + size * 0.25]
        boxes = [(t.text, box(t)) for t in labels]
        for i, (a, b) in enumerate(boxes):
            assert b[0] >= 0 and b[2] <= width, (width, a)
            for c, other in boxes[i + 1:]:
                assert not scene.overlaps(b, other, 0), (width, a, c)
