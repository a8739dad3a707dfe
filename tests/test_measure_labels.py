"""A measured roofline's static first frame (widgets/roofline/static.mjs drawing the overlay
with measure.mjs, the live overlay's own code): the overlay's roofs, points and names drawn,
and every label of the drawing passing the label gate (tests/svgcheck.py). The overlay's
layout is checked in every chip state by node (tests/js/measure_labels.test.mjs)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from roofline.widgets.measurement.settings import load_measurement
from roofline.widgets.roofline import static
from roofline.widgets.roofline.payload import drawing_payload
from roofline.widgets.roofline.settings import RooflineSettings
from svgcheck import drawings, labels, svg_problems


def test_static_svg_draws_the_measurement_with_its_labels_clear():
    opts = RooflineSettings(measurement="measurement-build-machine.json")
    data = drawing_payload(opts)
    doc = load_measurement(opts.measurement)
    drawn = drawings(static.render(data, height_px=400, measurement=doc))
    assert len(drawn) == 4  # static.mjs VARIANTS
    for svg in drawn:
        assert svg_problems(svg) == [], ET.fromstring(svg).get("class")
        root = ET.fromstring(svg)
        assert root.findall(".//{http://www.w3.org/2000/svg}polyline[@class='rl-measured']")
    # (measured ops whose markers overlap share a label: "RMSNorm, Softmax")
    names = {n for t, _ in labels(ET.fromstring(drawn[0])) for n in t.split(", ")}
    assert {"RMSNorm", "Softmax", "GELU", "GEMM"} <= names, names
    assert any(n.replace("measured ", "").startswith("FP32 ") for n in names), names
