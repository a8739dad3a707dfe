"""tests/cases/tokens_cases.json against roofline/tokens.py, the tokens rule against
`roofline ops --model`, and the widget's tokens slider. The launch model is
tests/test_launch.py's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from roofline import fmt
from roofline.model import tokens as tk
from roofline.model.catalog import default_catalog
from roofline.cli import main

CASES_PATH = Path(__file__).parent / "cases" / "tokens_cases.json"
DATA = json.loads(CASES_PATH.read_text(encoding="utf-8"))


def close(a, b) -> bool:
    if b is None:
        return a is None or math.isinf(a)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def test_case_file_is_current():
    assert json.loads(tk.dumps(tk.build_cases())) == DATA, (
        f"regenerate: python -m roofline.model.tokens > {CASES_PATH}")


def test_cases_match_the_model():
    for c in DATA["tokens"]:
        assert close(tk.critical_tokens(c["peak"], c["bw"], c["bytes_per_weight"]), c["critical"])
        args = (c["peak"], c["bw"], c["d"], c["f"], c["bytes_per_weight"],
                c["bytes_per_activation"])
        assert close(tk.critical_tokens_with_activations(*args), c["critical_with_activations"])
        assert tk.min_compute_bound_tokens(*args) == c["min_tokens"]


def test_h100_bf16_critical_batch_is_the_scaling_books():
    h100 = default_catalog()["h100-sxm"]
    t = tk.critical_tokens(h100.peak_flops_per_s("bf16"), h100.hbm_bandwidth_bytes_per_s, 2.0)
    assert 290 < t < 300  # the scaling book's ≈ 295 (989.4 TFLOP/s over 3.35 TB/s)
    with_act = tk.critical_tokens_with_activations(h100.peak_flops_per_s("bf16"),
                                                   h100.hbm_bandwidth_bytes_per_s,
                                                   4096, 11008, 2.0, 2.0)
    assert t < with_act < 1.2 * t  # "a little more once activation bytes count"


def test_fp8_leaves_it_and_weight_only_8bit_halves_it():
    h100 = default_catalog()["h100-sxm"]
    bw = h100.hbm_bandwidth_bytes_per_s
    bf16 = tk.critical_tokens(h100.peak_flops_per_s("bf16"), bw, 2.0)
    fp8 = tk.critical_tokens(h100.peak_flops_per_s("fp8"), bw, 1.0)
    w8 = tk.critical_tokens(h100.peak_flops_per_s("bf16"), bw, 1.0)
    assert math.isclose(fp8, bf16, rel_tol=1e-3) and math.isclose(w8, bf16 / 2, rel_tol=1e-12)


def test_activations_alone_can_cap_a_thin_matmul():
    # d = f = 64 at bf16: AI never exceeds 2·d·f / ((d + f)·2) = 32 < the H100 ridge.
    assert math.isinf(tk.critical_tokens_with_activations(989.4e12, 3.35e12, 64, 64, 2, 2))
    assert tk.min_compute_bound_tokens(989.4e12, 3.35e12, 64, 64, 2, 2) is None


@pytest.mark.parametrize("hw", ["h100-sxm", "a100-sxm-80gb"])
def test_tokens_rule_agrees_with_roofline_ops(hw, capsys):
    """The smallest compute-bound batch: `roofline ops --model llama-2-7b --phase decode` puts
    up_proj on the slope one token below it and under the roof at it."""
    acc = default_catalog()[hw]
    n = tk.min_compute_bound_tokens(acc.peak_flops_per_s("bf16"), acc.hbm_bandwidth_bytes_per_s,
                                    4096, 11008, 2.0, 2.0)
    bounds = {}
    for batch in (n - 1, n):
        assert main(["ops", "--hardware", hw, "--precision", "bf16", "--model", "llama-2-7b",
                     "--phase", "decode", "--batch", str(batch), "--seq", "4096",
                     "--format", "json"]) == 0
        rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
        bounds[batch] = rows["up_proj"]["bound"]
        cost = tk.matmul_cost(batch, 4096, 11008, 2.0, 2.0)
        assert close(rows["up_proj"]["flops"], cost[0]) and close(rows["up_proj"]["bytes"], cost[1])
    assert bounds == {n - 1: "memory", n: "compute"}


# ------------------------------------------------------------ the roofline widget's tokens slider

SCENE_JS = (Path(__file__).resolve().parents[1] / "site_src" / "roofline" / "widgets" /
            "roofline" / "scene.mjs")
TOKENS_JS = SCENE_JS.with_name("scene_tokens.mjs")


@pytest.mark.parametrize("phase,batch,seq", [("decode", 1, 4096), ("decode", 256, 4096),
                                             ("prefill", 1, 4096), ("train", 8, 4096),
                                             ("decode", 37, 512)])
@pytest.mark.parametrize("model", ["llama-2-7b", "llama-3-70b"])
def test_widget_tokens_ops_agree_with_roofline_ops(model, phase, batch, seq, capsys):
    """The widget's tokens slider at T = the run's tokens (batch at decode, batch × seq else),
    as the browser computes it (scene_tokens.mjs, run here by the build's JS engine), puts each
    projection GEMM and RMSNorm at the FLOPs and bytes `roofline ops --model … --batch …
    --seq …` prints (the Python model), for every layer op its entry stands for."""
    from roofline.render.jsengine import call
    from roofline.widgets.roofline.settings import RooflineSettings
    data = RooflineSettings.from_options({"tokens": 1, "model": model}).payload()
    tokens = batch * (1 if phase == "decode" else seq)
    assert main(["ops", "--model", model, "--phase", phase, "--batch", str(batch), "--seq",
                 str(seq), "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    moved = call(TOKENS_JS, "tokensOpsAt", data, "bf16", tokens)
    checked = 0
    for entry in data["tokens"]["ops"]:
        flops, bytes_ = moved[entry["id"]]["cost"]["bf16"]
        for name in entry["names"]:
            assert close(rows[name]["flops"], flops) and close(rows[name]["bytes"], bytes_), name
            checked += 1
    assert checked == 9  # q, k, v, o, gate, up, down and both norms


def test_the_widget_charges_the_launch_as_the_step_model_does():
    """The selected op's launch: a gap added to its roofline time (roofline.model.launch, the
    one launch model; the payload carries it). Where it binds, the widget draws the FLOP/s the
    op reaches with it as a flat line, puts the marker there, prints it as the one "best" and
    calls the op overhead-bound (scene.mjs, run by the build's JS engine); the figures equal
    roofline.model.launch's."""
    from roofline.model import launch as lm
    from roofline.render.jsengine import call
    from roofline.widgets.roofline.settings import RooflineSettings
    data = RooflineSettings.from_options({"tokens": 64, "op": "input_layernorm"}).payload()
    st = {**data["state"], "ai": 2}
    peak, bw = 989.4e12, 3.35e12
    flops, bytes_ = call(TOKENS_JS, "opCost", data, st)
    best = lm.attainable_flops_per_s(flops, bytes_, peak, bw, lm.load_launch().seconds)
    assert lm.regime(flops, bytes_, peak, bw, lm.load_launch().seconds) == "overhead"
    s = call(SCENE_JS, "scene", data, st, [574, 336])
    assert s["launch"]["y"] == [pytest.approx(best / 1e12, rel=1e-12)] * 2
    assert any(lab["key"] == "launch" and lab["shown"] for lab in s["labels"])
    m = call(SCENE_JS, "marker", data, st, flops / bytes_)
    assert m["bound"] == "overhead" and close(m["y"] * 1e12, best)
    ops = call(TOKENS_JS, "opsWithTokens", data, "bf16", 64)
    readout = call(SCENE_JS, "readoutText", data, st, flops / bytes_, ops)
    assert readout.count("best") == 1 and fmt.tflops(best) in readout
    bound, verdict = call(SCENE_JS, "verdictText", data, st, flops / bytes_)
    assert bound == "overhead" and verdict.startswith("Overhead-bound")
    # a training GEMM's launch is nothing beside its roofline time: no line, the roof binds
    big = {**st, "op": "gemm-train"}
    assert call(SCENE_JS, "scene", data, big, [574, 336])["launch"]["x"] == []
    f2, b2 = call(TOKENS_JS, "opCost", data, big)
    assert call(SCENE_JS, "verdictText", data, big, f2 / b2)[0] == "compute"


def test_widget_tokens_option_errors_name_the_option():
    from roofline.errors import WidgetOptionError
    from roofline.widgets.roofline.settings import RooflineSettings
    for opts, option in (({"tokens": 0}, "tokens"), ({"tokens": 1, "model": "gpt-9"}, "model"),
                         ({"op": "gate_proj"}, "op"), ({"model": "llama-3-8b"}, "model")):
        with pytest.raises(WidgetOptionError) as exc:
            RooflineSettings.from_options(opts, where="p.md:3")
        assert f"option '{option}'" in str(exc.value)


def test_roofline_plot_takes_the_tokens_slider(tmp_path, capsys):
    out = tmp_path / "p.html"
    assert main(["plot", "--tokens", "256", "--model", "llama-3-8b", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "tokens-slider" in html and "Llama 3 8B" in html
    assert main(["plot", "--tokens", "0", "-o", str(out)]) == 2
    assert "argument --tokens" in capsys.readouterr().err
