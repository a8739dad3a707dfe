"""The budget widget's Python side: the case file the JS is tested against is the Python model's
answer, the embedded data is the model's, and bad fence options name their field."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from roofline import RooflineError, default_catalog
from roofline.model.budget import FUSIONS, Assumptions, budget
from roofline.widgets.budget import layout as pb
from roofline.model.transformer import get_model

CASES = Path(__file__).parent / "cases" / "budget_cases.json"


def _close(a, b, what=""):
    assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300), f"{what}: {a} != {b}"


def _walk(a, b, where="case"):
    if isinstance(b, dict):
        assert set(a) == set(b), where
        for k in b:
            _walk(a[k], b[k], f"{where}.{k}")
    elif isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, f"{where}[{i}]")
    elif isinstance(b, float) or isinstance(a, float):
        _close(a, b, where)
    else:
        assert a == b, where


def test_case_file_is_the_python_answer():
    """Regenerate with roofline.widgets.budget.payload.write_cases if the model changed on purpose."""
    _walk(json.loads(CASES.read_text(encoding="utf-8")), pb.cases())


def test_each_case_is_the_model_budget_with_those_assumptions():
    """What the widget shows is roofline.model.budget's waterfall and roofline.model.memory's bytes for
    the same model, assumptions, ZeRO stage and recomputation (issue #13)."""
    from roofline.model.memory import Sharding
    cat = default_catalog()
    hw = cat["h100-sxm"]
    for c in json.loads(CASES.read_text(encoding="utf-8"))["views"]:
        st = c["state"]
        train = st["phase"] == "train"
        bg = budget(get_model(st["model"]), st["phase"], st["batch"], pb.SEQ[st["phase"]], hw,
                    "bf16", 2.0, frozenset(c["fusions"]),
                    Assumptions(st["efficiency"], st["launch_s"], st["dp"] if train else 1,
                                st["overlap"]),
                    Sharding(st["zero"], st["recompute"]) if train else Sharding())
        what = f"{st['model']}/{st['phase']}/{st['batch']}/{c['fusions']}"
        _close(bg.mfu_upper_bound, c["expected"]["bound"], what)
        _close(bg.mfu_estimate, c["expected"]["mfu"], what)
        for t, e in zip(bg.waterfall(), c["expected"]["terms"], strict=True):
            assert t.key == e["key"]
            _close(t.level_after, e["after"], f"{what} {t.key}")
        for k, v in bg.memory.as_dict().items():
            assert c["expected"]["memory"][k] == pytest.approx(v, rel=1e-12), (what, k)
        assert c["expected"]["fits"] == bg.fits
        # the drops shown add up to the MFU shown
        _close(1 - sum(e["before"] - e["after"] for e in c["expected"]["terms"]),
               c["expected"]["mfu"], what)


def test_embedded_points_are_the_fused_kernels():
    data = pb.payload("h100-sxm", "bf16")
    row = data["combos"]["llama-2-7b|train|4"]
    assert len(row) == 16 and len(data["ops"]) == len(row[0]["x"]) == 15
    norm = data["ops"].index("input_layernorm")
    # fusing the norm into the QKV GEMM moves its point from AI ≈ 1 to the GEMM's
    assert row[0]["x"][norm] < 2 and row[pb.mask_of({"norm"})]["x"][norm] > 1000
    softmax = data["ops"].index("attn_softmax")
    assert row[pb.mask_of({"flash"})]["x"][softmax] > 10 * row[0]["x"][softmax]
    for mask, e in enumerate(row):
        assert e["bytes"] <= row[0]["bytes"]
        assert sum(e["saved"]) == pytest.approx(row[0]["bytes"] - e["bytes"],
                                                abs=1e-5 * row[0]["bytes"])
        assert pb.fusions_of(mask) == {f for f, s in zip(FUSIONS, e["saved"]) if s > 0}


def test_figure_names_its_parts_and_is_deterministic():
    from roofline.render.embed import item_json
    lay = pb.figure()
    for name in ("budget-model", "budget-phase", "budget-batch", "budget-fusions",
                 "budget-efficiency", "budget-launch", "budget-dp", "budget-overlap",
                 "budget-zero", "budget-recompute", "budget-readout", "budget-waterfall-text", "budget-classes", "budget-waterfall",
                 "budget-roofline", "budget-class-bars", "budget-waterfall-bars",
                 "budget-points"):
        assert lay.select_one({"name": name}) is not None, name
    assert item_json(pb.figure()) == item_json(pb.figure())
    # The page's default step (Llama 2 7B, batch 4 × 4,096, nothing sharded) needs ≈ 524 GB
    # per GPU: the first thing the widget says is that it does not fit (issue #13).
    readout = lay.select_one({"name": "budget-readout"}).text
    assert readout.startswith("Does not fit: Llama 2 7B, train, batch 4 × 4096")
    assert "ZeRO-1 with full recomputation would fit" in readout
    fits = pb.figure(zero=1, recompute="full").select_one({"name": "budget-readout"}).text
    assert "MFU upper bound 64.4%" in fits and "after overheads 33.2%" in fits


@pytest.mark.parametrize("kwargs, option", [
    ({"model": "gpt"}, "model"), ({"phase": "serve"}, "phase"), ({"batch": 3}, "batch"),
    ({"fusions": ["warp"]}, "fuse"), ({"hardware": "h900"}, "hardware"),
    ({"precision": "fp3"}, "precision"), ({"height": 20}, "height"),
    ({"zero": 4}, "zero"), ({"recompute": "some"}, "recompute"),
])
def test_bad_options_name_the_field(kwargs, option):
    """The settings object (roofline.widgets.budget.settings.BudgetSettings) names the option."""
    with pytest.raises(RooflineError, match=f"option '{option}'"):
        pb.figure(**kwargs)


# ---------------------------------------------------------------- the fences

def _md(text: str) -> str:
    import markdown
    from roofline.hosts.fences import custom_fences
    return markdown.markdown(text, extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": custom_fences()}})


def test_budget_fence_renders_a_block():
    html = _md("```roofline-budget\nmodel: llama-3-8b\nphase: decode\nbatch: 32\n"
               "fuse: [flash]\n```\n")
    assert 'class="roofline-block"' in html and "budget-fusions" in html
    assert 'min-height:1500px' in html  # 3 × 300 + the controls' 600 (ZeRO, recompute)


def test_budget_table_fence_is_the_model():
    html = _md("```roofline-budget-table\ntable: configs\n```\n")
    from roofline.widgets.budget.payload import STATED_RUN
    bg = budget(get_model("llama-2-7b"), "train", 4, 4096, default_catalog()["h100-sxm"],
                "bf16", 2.0, sharding=STATED_RUN)  # training rows are the stated, fitting run
    from roofline import fmt
    assert "<table" in html and fmt.percent(bg.mfu_upper_bound, 3) in html
    assert "does not fit" not in html and "43.6 GB" in html
    assert fmt.percent(bg.mfu_estimate, 3) in html
    assert "NVLink 4 diagonal" in _md("```roofline-budget-table\ntable: ceilings\n```\n")


@pytest.mark.parametrize("body, key", [
    ("fuse: [warp]", "fuse"), ("model: gpt", "model"), ("batch: 3", "batch"),
    ("colour: red", "colour"), ("fuse: flash", "fuse"),
])
def test_budget_fence_errors_name_the_key(body, key):
    from pymdownx.superfences import SuperFencesException
    with pytest.raises(SuperFencesException, match=f"roofline-budget fence: option '{key}'"):
        _md(f"```roofline-budget\n{body}\n```\n")


def test_budget_table_fence_rejects_unknown_table():
    from pymdownx.superfences import SuperFencesException
    with pytest.raises(SuperFencesException, match="option 'table': unknown table 'all'"):
        _md("```roofline-budget-table\ntable: all\n```\n")
