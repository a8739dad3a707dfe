"""One settings object per widget kind (roofline/widgets/): the only defaults, one schema every
host parses through, validation naming the option, the reserved height, a JSON-able payload."""

from __future__ import annotations

import dataclasses
import json

import pytest

from roofline.errors import RooflineError, WidgetOptionError
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION
from roofline.widgets.measurement.settings import PICKER_HEIGHT_PX, MeasurementTableSettings
from roofline.widgets.roofline.settings import CONTROLS_HEIGHT_PX, RooflineSettings


def test_defaults_are_the_lessons_chip_and_precision():
    s = RooflineSettings.from_options({})
    assert (s.hardware, s.precision) == (DEFAULT_HARDWARE, DEFAULT_PRECISION)
    assert s == RooflineSettings()
    assert s.options() == {}


def test_options_round_trip_through_the_schema():
    given = {"hardware": "a100-sxm-80gb", "ops": ["rmsnorm", "gemm-train"], "op": "rmsnorm",
             "ai": 2, "ceilings": ["sram"], "height": 500, "url": False}
    s = RooflineSettings.from_options(given, where="p.md:3")
    assert s.ops == ("rmsnorm", "gemm-train") and s.url_state is False
    assert s.options() == given
    assert RooflineSettings.from_options(s.options()) == s
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.ai = 3  # type: ignore[misc]


def test_reserved_height_is_plot_plus_controls_plus_picker():
    assert RooflineSettings().height_px == 400 + CONTROLS_HEIGHT_PX
    s = RooflineSettings.from_options({"height": 300,
                                       "measurement": "measurement-build-machine.json"})
    assert s.height_px == 300 + CONTROLS_HEIGHT_PX + PICKER_HEIGHT_PX


def test_payload_is_plain_json_and_follows_the_settings():
    s = RooflineSettings.from_options({"hardware": "l4", "ops": ["rmsnorm"], "ai": 3})
    data = s.payload()
    assert json.loads(json.dumps(data)) == data
    assert data["state"]["hardware"] == "l4" and data["state"]["ai"] == 3.0
    assert list(data["ops"]) == ["rmsnorm"]


@pytest.mark.parametrize("options, option, words", [
    ({"hardware": "h1000"}, "hardware", "unknown hardware 'h1000'"),
    ({"hardware": "tpu-v5e", "precision": "fp8"}, "precision", "unknown precision 'fp8'"),
    ({"ops": ["rmsnorm", 3]}, "ops", "expected a list of text"),
    ({"ops": ["rmsnorm"], "op": "softmax"}, "op", "unknown op 'softmax'"),
    ({"ai": True}, "ai", "expected a number"),
    ({"height": 2000}, "height", "height must be an integer from 240 to 1200"),
    ({"measurement": "nope.json"}, "measurement", "no such file"),
    ({"colour": "red"}, "colour", "unknown option"),
])
def test_validation_names_where_and_the_option(options, option, words):
    with pytest.raises(WidgetOptionError) as err:
        RooflineSettings.from_options(options, where="docs/a.md:9")
    exc = err.value
    assert isinstance(exc, RooflineError) and exc.field == option == exc.option
    assert exc.where == "docs/a.md:9"
    assert str(exc).startswith(f"docs/a.md:9: option '{option}': ") and words in str(exc)


def test_measurement_table_settings():
    s = MeasurementTableSettings.from_options({"file": "measurement-build-machine.json",
                                               "show": "ops"})
    assert s.payload()["ops"] and s.height_px == 0
    with pytest.raises(WidgetOptionError, match="option 'show': unknown table 'all'"):
        MeasurementTableSettings.from_options({"file": "measurement-build-machine.json",
                                               "show": "all"})


def test_every_host_parses_through_the_one_door(monkeypatch, tmp_path, capsys):
    """The fence, render_widget, roofline.figure() and `roofline plot` all come in through
    roofline.hosts.door.settings, and so through RooflineSettings.from_options."""
    import roofline
    from roofline.cli import main
    from roofline.hosts import door, fences

    seen = []
    original = door.settings

    def spy(kind, options=None, **kw):
        seen.append((kind, dict(options or {})))
        return original(kind, options, **kw)

    monkeypatch.setattr(door, "settings", spy)
    monkeypatch.setenv("ROOFLINE_CACHE", "0")
    door.render_widget("roofline", {"ai": 2}, where="x")
    fences.FENCES["roofline"]("ai: 3\n", "roofline", "roofline", {}, None)
    roofline.figure(ai=4)
    assert main(["plot", "--ai", "5.5", "-o", str(tmp_path / "plot.html")]) == 0
    assert [(k, o.get("ai")) for k, o in seen] == [("roofline", a) for a in (2, 3, 4, 5.5)]
