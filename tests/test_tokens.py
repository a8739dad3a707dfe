"""tests/cases/tokens_cases.json against roofline/tokens.py (node checks the same file against
lesson_site/js/tokens.mjs), the tokens rule against `roofline ops --model`, and the widget's
tokens slider. The launch model is tests/test_launch.py's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

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

SCENE_CASES = Path(__file__).parent / "cases" / "scene_cases.json"


@pytest.mark.parametrize("phase,batch,seq", [("decode", 1, 4096), ("decode", 256, 4096),
                                             ("prefill", 1, 4096), ("train", 8, 4096),
                                             ("decode", 37, 512)])
@pytest.mark.parametrize("model", ["llama-2-7b", "llama-3-70b"])
def test_widget_tokens_ops_agree_with_roofline_ops(model, phase, batch, seq, capsys):
    """The widget's tokens slider at T = the run's tokens (batch at decode, batch × seq else)
    puts each projection GEMM and RMSNorm at the FLOPs and bytes `roofline ops --model …
    --batch … --seq …` prints, for every layer op its entry stands for."""
    from roofline.widgets.roofline import scene
    from roofline.widgets.roofline.settings import RooflineSettings
    data = RooflineSettings.from_options({"tokens": 1, "model": model}).payload()
    tokens = batch * (1 if phase == "decode" else seq)
    assert main(["ops", "--model", model, "--phase", phase, "--batch", str(batch), "--seq",
                 str(seq), "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    moved = scene.tokens_ops(data, "bf16", tokens)
    checked = 0
    for entry in data["tokens"]["ops"]:
        flops, bytes_ = moved[entry["id"]]["cost"]["bf16"]
        for name in entry["names"]:
            assert close(rows[name]["flops"], flops) and close(rows[name]["bytes"], bytes_), name
            checked += 1
    assert checked == 9  # q, k, v, o, gate, up, down and both norms


def test_widget_tokens_cases_match_roofline_ops(capsys):
    """Each tokens case in scene_cases.json (which node checks scene_tokens.mjs against) holds
    the costs `roofline ops` gives at that decode batch."""
    data = json.loads(SCENE_CASES.read_text(encoding="utf-8"))
    names = {o["id"]: o["names"] for o in data["tokens"]["ops"]}
    cases = [c for c in data["cases"] if c.get("tokens")]
    assert len(cases) >= 15
    for c in cases[:6]:
        st = c["state"]
        assert main(["ops", "--hardware", st["hardware"], "--precision", st["precision"],
                     "--model", "llama-2-7b", "--phase", "decode", "--batch",
                     str(st["tokens"]), "--seq", "4096", "--format", "json"]) == 0
        rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
        for op_id, (flops, bytes_) in c["costs"].items():
            for name in names[op_id]:
                assert close(rows[name]["flops"], flops) and close(rows[name]["bytes"], bytes_)
                # and the point the widget draws has that op's bound
                i = c["scene"]["projections"]["op"].index(op_id)
                want = data["payload"]["colors"][rows[name]["bound"]]
                assert c["scene"]["projections"]["color"][i] == want


def test_launch_floor_on_the_widget_is_flops_over_the_launch_time():
    """The selected op's launch floor: a flat line at FLOPs / launch (data/overhead.toml),
    drawn only under the roof; the readout says when it binds (overhead-bound)."""
    from roofline.widgets.roofline import scene
    from roofline.widgets.roofline.settings import RooflineSettings
    from roofline.model.launch import load_launch
    launch = load_launch().seconds
    data = RooflineSettings.from_options({"tokens": 64, "op": "input_layernorm"}).payload()
    st = data["state"]
    s = scene.scene(data, st, (640, 330))
    flops = scene.op_cost(data, st)[0]
    assert s["launch"]["y"] == [flops / launch / 1e12] * 2
    hw = data["hardware"]["h100-sxm"]
    note = scene.launch_note(data, st, hw["peaks"]["bf16"], hw["bw"])
    assert "overhead-bound" in note and "(estimate)" in note
    verdict = scene.overhead_verdict(data, st, hw["peaks"]["bf16"], hw["bw"])
    assert verdict[0] == "overhead" and verdict[1].startswith("Overhead-bound")
    assert any(lab["key"] == "launch" and lab["shown"] for lab in s["labels"])
    # a training GEMM's floor is far above the roof: no line, no clause
    big = {**st, "op": "gemm-train"}
    assert scene.scene(data, big, (640, 330))["launch"]["x"] == []
    assert scene.launch_note(data, big, hw["peaks"]["bf16"], hw["bw"]) == ""
    assert scene.overhead_verdict(data, big, hw["peaks"]["bf16"], hw["bw"]) is None


def test_widget_tokens_option_errors_name_the_option():
    from roofline.errors import WidgetOptionError
    from roofline.widgets.roofline.settings import RooflineSettings
    for opts, option in (({"tokens": 0}, "tokens"), ({"tokens": 1, "model": "gpt-9"}, "model"),
                         ({"op": "gate_proj"}, "op"), ({"model": "llama-3-8b"}, "model")):
        with pytest.raises(WidgetOptionError) as exc:
            RooflineSettings.from_options(opts, where="p.md:3")
        assert f"option '{option}'" in str(exc.value)


def tokens_label_problems(chips=None) -> tuple[list[str], int, int]:
    """(problems, scenes walked, scenes with a launch floor) over the tokens slider's states."""
    from roofline.widgets.roofline import scene
    from roofline.render.svgchart import Box, boxes_collide
    from roofline.widgets.roofline.settings import RooflineSettings
    data = RooflineSettings.from_options({"tokens": 1}).payload()
    marks = [m["tokens"] for m in data["tokens"]["marks"]]
    problems, n, floors = [], 0, 0
    for hw_id in chips or data["hardware"]:
        for prec in data["hardware"][hw_id]["precisions"]:
            for tokens in marks:
                for op in (None, "input_layernorm", "gate_proj"):
                    st = {"hardware": hw_id, "precision": prec, "vector": False, "op": op,
                          "tokens": tokens}
                    for frame in ((640, 330), (330, 330)):
                        n += 1
                        s = scene.scene(data, st, frame)
                        floors += bool(s["launch"]["x"])
                        shown = [lab for lab in s["labels"] if lab["shown"]]
                        for i, j in boxes_collide([Box(*lab["box"]) for lab in shown],
                                                  Box(0, 0, *frame)):
                            other = shown[j]["text"] if j >= 0 else "the frame's edge"
                            problems.append(f"{st} {frame}: '{shown[i]['text']}' meets {other}")
    return problems, n, floors


def test_tokens_scene_labels_never_collide_in_any_state():
    """The layout gate for the tokens slider's states: every chip and precision × each mark's
    tokens × no op, a projection or the RMSNorm selected (its launch floor labelled) × a
    desktop and a phone frame: no two shown labels overlap and none leaves the frame."""
    problems, n, floors = tokens_label_problems()
    assert n >= 1000 and floors >= 100, (n, floors)
    assert problems == [], f"{len(problems)} of {n}:\n" + "\n".join(problems[:10])


def test_seeded_tokens_label_collision_is_reported(monkeypatch):
    from roofline.render import labels  # the layout (scene.py re-exports it)
    monkeypatch.setattr(labels, "overlaps", lambda a, b, pad=1: False)
    problems, _, _ = tokens_label_problems(["h100-sxm"])
    assert any("launch floor" in p or "_proj" in p for p in problems), problems[:3]


def test_roofline_plot_takes_the_tokens_slider(tmp_path, capsys):
    out = tmp_path / "p.html"
    assert main(["plot", "--tokens", "256", "--model", "llama-3-8b", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "tokens-slider" in html and "Llama 3 8B" in html
    assert main(["plot", "--tokens", "0", "-o", str(out)]) == 2
    assert "argument --tokens" in capsys.readouterr().err
