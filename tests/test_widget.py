"""roofline.figure(): the Python API behind the fence, for notebooks and other tools."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bokeh.embed import file_html
from bokeh.models import Slider

import roofline
from roofline.widgets.roofline import settings as rs
from roofline.errors import RooflineError
from roofline.widgets.roofline import layout as widget
from roofline.render.embed import block, item_json

NAMES = ("roofline-figure", "ai-slider", "readout", "verdict", "hardware", "precision",
         "presets", "vector-roof")


def test_figure_has_the_public_model_names():
    layout = roofline.figure(hardware="h100-sxm", precision="bf16", ai=2)
    for name in NAMES:
        assert layout.select_one({"name": name}) is not None, name
    slider = layout.select_one({"name": "ai-slider"})
    assert isinstance(slider, Slider) and slider.value == pytest.approx(0.30103, abs=1e-5)


def test_python_draws_nothing_the_js_draws_every_frame():
    """The layout is empty: every source has no rows and every text is blank until
    roofline.mjs draws the first frame from the payload."""
    from bokeh.models import ColumnDataSource, CustomJS, Div
    layout = roofline.figure(ceilings=["sram"], ai=2)
    for src in layout.select({"type": ColumnDataSource}):
        assert all(len(v) == 0 for v in src.data.values()), src.name
    assert all(d.text == "" for d in layout.select({"type": Div}))
    callback = next(iter(layout.select({"type": CustomJS})))
    assert callback.tags == ["roofline-first-frame"]
    # figure()'s layout joins no Document until a host adds it; each one gets the callback.
    from bokeh.document import Document
    doc = Document()
    doc.add_root(layout)
    assert doc.callbacks._js_event_callbacks["document_ready"] == [callback]


def test_initial_state_comes_from_the_model():
    layout = roofline.figure(hardware="a100-sxm-80gb", precision="bf16", op="gemm-train")
    hw = roofline.default_catalog()["a100-sxm-80gb"]
    op = roofline.default_zoo().ops(2.0, ["gemm-train"])[0]
    ai = roofline.place(op, hw, "bf16").intensity_flops_per_byte
    assert 10 ** layout.select_one({"name": "ai-slider"}).value == pytest.approx(ai, rel=1e-9)
    data = rs.payload(rs.RooflineSettings(hardware="a100-sxm-80gb", op="gemm-train"),
                          roofline.default_catalog(), roofline.default_zoo())
    assert data["state"]["ai"] == pytest.approx(ai, rel=1e-12)
    # the scene the browser draws (scene.mjs, run by the build's JS engine) agrees
    from roofline.render.jsengine import call
    from roofline.widgets.roofline import layout as widget
    scene_js = widget.JS.with_name("scene.mjs")
    first = call(scene_js, "scene", data, data["state"], [574, 336])
    assert first["ridge"] == pytest.approx(hw.ridge_flops_per_byte("bf16"), rel=1e-12)
    assert call(scene_js, "readoutText", data, data["state"], ai, data["ops"]).count(
        "GEMM (training) takes ≥") == 1


def test_precision_options_follow_the_chip():
    layout = roofline.figure(hardware="tpu-v5e")
    assert [v for v, _ in layout.select_one({"name": "precision"}).options] == ["bf16"]


@pytest.mark.parametrize("kwargs, field", [
    ({"hardware": "h1000"}, "hardware"), ({"precision": "fp9"}, "precision"),
    ({"ops": ["nope"]}, "ops"), ({"ai": 0}, "ai"), ({"ai": 1e6}, "ai"),
    ({"ceilings": ["attic"]}, "ceilings"), ({"height": 10}, "height"),
    ({"ops": ["rmsnorm"], "op": "softmax"}, "op"),
])
def test_bad_arguments_raise_roofline_error(kwargs, field):
    with pytest.raises(RooflineError) as err:
        roofline.figure(**kwargs)
    assert err.value.field == field


def test_bokeh_show_path_works(tmp_path):
    """What bokeh.io.show does for a standalone file: file_html of the layout."""
    html = file_html(roofline.figure(), title="roofline")
    assert "roofline-figure" in html


def test_embed_block_is_deterministic_and_escapes_script_ends():
    a = block(roofline.figure(ceilings=["sram", "host"]), height_px=650, label="x")
    b = block(roofline.figure(ceilings=["sram", "host"]), height_px=650, label="x")
    assert a == b
    assert re.search(r'"id":"p1000"', a)
    body = re.search(r'<script type="application/json" class="roofline-item">(.*?)</script>',
                     a, re.S).group(1)
    assert "</" not in body
    item = json.loads(body)
    assert item["root_id"] == item["doc"]["roots"][0]["id"]  # references survive renumbering


def test_measurement_is_an_option_checked_before_drawing():
    """A file name goes through the settings (a missing file names the option); a document is
    drawn as given."""
    from roofline.widgets.measurement.settings import load_measurement
    with pytest.raises(RooflineError) as err:
        roofline.figure(measurement="no-such-measurement.json")
    assert err.value.field == "measurement"
    doc = load_measurement("measurement-build-machine.json")
    for value in ("measurement-build-machine.json", doc):
        layout = roofline.figure(measurement=value)
        assert layout.select_one({"name": "measured-points"}) is not None


def test_item_json_ids_are_renumbered():
    text = item_json(roofline.figure())
    ids = re.findall(r'"id":"p(\d+)"', text)
    assert min(map(int, ids)) == 1000
    assert rs.AI_MIN == 0.01 and rs.AI_MAX == 10_000
