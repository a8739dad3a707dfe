"""tests/cases/roofline_cases.json against the Python model. node --test checks the same file
against widgets/roofline/roofline.mjs, so Python and the browser agree to 1e-9 relative."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from roofline import fmt
from roofline.widgets.roofline import settings as rs
from roofline.model.catalog import default_catalog
from roofline.model.maths import attainable, place, ridge
from roofline.model.ops import default_zoo
from roofline.widgets.roofline import cases as gen
from roofline.widgets.roofline import layout as widget

CASES_PATH = Path(__file__).parent / "cases" / "roofline_cases.json"
DATA = json.loads(CASES_PATH.read_text(encoding="utf-8"))
CASES = DATA["cases"]


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def test_case_file_is_current_and_large_enough():
    assert sum(len(v) for v in CASES.values()) >= 50
    assert gen.build() == DATA, "regenerate: python -m roofline.widgets.roofline.cases > " + str(CASES_PATH)


def test_scene_case_file_is_current():
    """tests/js/scene.test.mjs checks roofline.mjs's scene() against this file, written by the
    Python mirror that draws the build-time SVG."""
    path = CASES_PATH.with_name("scene_cases.json")
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(
        gen.build_scenes())), f"regenerate: python -m roofline.widgets.roofline.cases scene > {path}"


@pytest.mark.parametrize("state", gen.SCENE_STATES, ids=lambda s: f"{s[0]}-{s[1]}")
def test_scene_labels_fit_the_frame_and_never_overlap(state):
    from roofline.widgets.roofline import scene
    h, p, vector, ceilings = state
    data = rs.payload(rs.RooflineSettings(hardware=h, precision=p, ceilings=ceilings),
                          default_catalog(), default_zoo())
    for frame in gen.FRAMES:
        labels = scene.scene(data, {"hardware": h, "precision": p, "vector": vector},
                             frame)["labels"]
        boxes = [lab["box"] for lab in labels if lab["shown"]]
        assert all(b[0] >= 0 and b[1] >= 0 and b[2] <= frame[0] and b[3] <= frame[1]
                   for b in boxes)
        assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
                    if scene.overlaps(a, b, 0)]
        shown = {lab["key"] for lab in labels if lab["shown"]}
        if frame[0] >= 640:  # at desktop widths the roof, slope and ridge are always named
            assert {"roof", "hbm", "ridge"} <= shown


@pytest.mark.parametrize("case", CASES["place"],
                         ids=lambda c: f"{c['hardware']}-{c['precision']}-{c['op']}")
def test_place_matches_model(case):
    catalog, zoo = default_catalog(), default_zoo()
    hw = catalog[case["hardware"]]
    b = catalog.precision(case["precision"]).bytes_per_element
    op = zoo.ops(b, [case["op"]])[0]
    point = place(op, hw, case["precision"])
    assert close(point.intensity_flops_per_byte, case["ai"])
    assert close(point.attainable_flops_per_s, case["attainable"])
    assert close(point.fraction_of_peak, case["fraction"])
    assert close(point.time_s, case["time"])
    assert close(point.ridge_flops_per_byte, case["ridge"])
    assert point.bound == case["bound"]


def test_attainable_matches_model():
    for c in CASES["attainable"]:
        assert close(float(attainable(c["ai"], c["peak"], c["bw"])), c["expected"])


def test_formatting_matches_fmt():
    for c in CASES["format"]:
        assert getattr(fmt, c["fn"])(c["x"], c["digits"]) == c["expected"], c


def test_readout_and_verdict_follow_the_model():
    catalog = default_catalog()
    for c in CASES["readout"]:
        hw = catalog[c["hardware"]]
        r = float(ridge(hw.peak_flops_per_s(c["precision"]), hw.hbm_bandwidth_bytes_per_s))
        assert c["bound"] == ("memory" if c["ai"] < r else "compute")
        assert fmt.num(r) in c["verdict"]
        assert c["readout"].startswith(f"AI {fmt.num(c['ai'])} FLOP/byte")


def test_parse_state_expectations_only_hold_known_ids():
    known = DATA["known"]
    for c in CASES["parse_state"]:
        for key, value in c["expected"].items():
            if key == "ai":
                assert rs.AI_MIN <= value <= rs.AI_MAX
            else:
                assert value in known[key] or (key == "op" and value == "custom")


def test_seed_claims_ridges():
    """The lesson's numbers: H100 SXM ridge ≈ 295 (bf16), ≈ 590 (fp8); A100 ≈ 153."""
    rows = {(c["hardware"], c["precision"]): c["ridge"] for c in CASES["place"]}
    assert round(rows[("h100-sxm", "bf16")]) == 295
    assert round(rows[("h100-sxm", "fp8")]) == 591
    assert round(rows[("a100-sxm-80gb", "bf16")]) == 153


def test_vector_roof_is_the_one_the_precision_runs_on():
    """Issue 13 (failure mode 10): bf16 elementwise math runs on the H100's packed bf16 vector
    units, ≈ 134 TFLOP/s (NVIDIA H100 datasheet, non-tensor bf16/fp16), not under fp32's 66.9."""
    from roofline.model.catalog import default_catalog
    from roofline.model.ops import default_zoo
    from roofline.widgets.roofline import scene, layout as widget
    data = rs.payload(rs.RooflineSettings(), default_catalog(), default_zoo())
    texts = {}
    for prec in ("bf16", "fp32"):
        st = {"hardware": "h100-sxm", "precision": prec, "vector": True}
        s = scene.scene(data, st, (640, 330))
        texts[prec] = [lb["text"] for lb in s["labels"] if lb.get("key") == "vector"]
        assert s["vector"]["y"], prec
    assert texts["bf16"] == ["BF16 vector roof 134 TFLOP/s"]
    assert texts["fp32"] == ["FP32 vector roof 66.9 TFLOP/s"]
