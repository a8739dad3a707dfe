"""`roofline profile` (issue #38) on the committed traces, which torch 2.13.0 recorded on the CPU
(scripts/record-traces): figures re-derived here from the trace's own events, read with the
json module (not with roofline.profile's reader), and every kind of bad input."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from roofline import cli
from roofline.measure.schema import load as load_measurement
from roofline.model import datafile as _toml
from roofline.profile.analyse import analyse, cpu_roof
from roofline.profile.trace import TraceError, stream

TRACES = Path(__file__).parent / "fixtures" / "traces"
TRAIN, DECODE = TRACES / "torch-cpu-train.json.gz", TRACES / "torch-cpu-decode.json.gz"


@pytest.fixture(scope="module")
def roof():
    return cpu_roof(load_measurement(_toml.DATA_DIR / "measurement-build-machine.json"))


def raw(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def step_events(doc: dict, n: int) -> tuple[dict, list[dict]]:
    step = next(e for e in doc["traceEvents"] if e.get("name") == f"ProfilerStep#{n}")
    lo, hi = step["ts"], step["ts"] + step["dur"]
    inside = [e for e in doc["traceEvents"] if e.get("cat") == "cpu_op"
              and e.get("tid") == step["tid"] and lo <= e["ts"] and e["ts"] + e["dur"] <= hi]
    return step, inside


def test_the_fixtures_are_real_cpu_traces():
    for path in (TRAIN, DECODE):
        doc = raw(path)
        assert doc["roofline_recorded"]["device"] == "cpu"
        assert doc["roofline_recorded"]["torch"].startswith("2.13.0")
        assert doc["record_shapes"] == 1
        assert not any(e.get("cat") == "kernel" for e in doc["traceEvents"])


def test_decode_matmul_flops_and_rate_by_hand(roof):
    # Each aten::linear of the decode step: x [8, 1, k] against W [n, k] is
    # 2 · (8 · 1) · n · k FLOPs (roofline.model.ops.gemm); its time is its own span.
    doc = raw(DECODE)
    step, ops = step_events(doc, 3)
    linear = [e for e in ops if e["name"] == "aten::linear"]
    assert len(linear) == 7   # q, k, v, o, gate, up, down
    flops = sum(2 * math.prod(e["args"]["Input Dims"][0][:-1]) * e["args"]["Input Dims"][1][0]
                * e["args"]["Input Dims"][0][-1] for e in linear)
    assert flops == 2 * 8 * (4 * 256 * 256 + 3 * 256 * 688)
    seconds = sum(e["dur"] for e in linear) * 1e-6
    r = analyse(DECODE, roof, 3)
    m = r["families"]["matmul"]
    assert m["count"] == 7 and m["flops"] == flops
    assert m["time_s"] == pytest.approx(seconds, rel=1e-12)
    assert m["achieved_flops_per_s"] == pytest.approx(flops / seconds, rel=1e-12)
    # its arithmetic intensity: FLOPs ÷ (weights + activations in and out, 4 B each)
    weights = 4 * 256 * 256 + 3 * 256 * 688
    acts = 8 * (4 * (256 + 256) + 2 * (256 + 688) + (688 + 256))
    assert m["intensity_flops_per_byte"] == pytest.approx(flops / (4 * (weights + acts)))
    assert m["verdict"] == "memory-bound"   # 3.8 FLOP/byte, below the CPU's ridge of 5.3


def test_train_step_mfu_and_waterfall_by_hand(roof):
    doc = raw(TRAIN)
    step, ops = step_events(doc, 3)
    r = analyse(TRAIN, roof)                      # the last step by default
    assert r["step"] == "ProfilerStep#3"
    wall = step["dur"] * 1e-6
    assert r["wall_s"] == wall
    # the waterfall's parts are computed separately and sum to the step's span within 1 %
    assert sum(w["time_s"] for w in r["waterfall"]) == pytest.approx(wall, rel=1e-2)
    # the measured MFU: the step's useful matrix FLOPs ÷ (its span × the measured fp32 roof).
    # By hand: 3 × each forward linear's 2·m·n·k (forward, and the two backward matmuls) and
    # the attention's 2 · B·H·L·L · (d + d) three times (its forward, and its backward's two
    # useful products), each halved: the trace recorded is_causal=True (the flag's place in
    # each op's inputs, torch's schema), and FlashAttention computes only the blocks on or
    # below the diagonal. The backward is priced, no longer booked as dispatch.
    sdpa = [e for e in doc["traceEvents"] if e.get("cat") == "cpu_op"
            and step["ts"] <= e["ts"] <= step["ts"] + step["dur"]
            and e["name"].startswith("aten::_scaled_dot_product_flash_attention_for_cpu")]
    assert [e["args"]["Concrete Inputs"][7 if e["name"].endswith("backward") else 4]
            for e in sdpa] == ["True", "True"]
    assert r["families"]["attention"]["count"] == 2
    m = 4 * 128
    linear = 2 * m * (4 * 256 * 256 + 3 * 256 * 688)
    attention = 2 * 4 * 4 * 128 * 128 * (64 + 64)
    useful = 3 * linear + 3 * attention / 2
    assert r["useful_flops"] == pytest.approx(useful, rel=1e-9)
    assert r["mfu"] == pytest.approx(useful / (wall * roof.peak_flops_per_s), rel=1e-9)
    # the optimizer's foreach ops are counted, as memory-bound
    assert r["families"]["optimizer"]["verdict"] == "memory-bound"


def test_every_op_is_priced_listed_or_dispatch(roof):
    # nothing is dropped: the families, the unmodelled ops and the wrappers' own time cover
    # every top-level op's span; the rest of the step is the gaps between them
    r = analyse(TRAIN, roof)
    names = {u["name"] for u in r["unmodelled"]}
    assert all(not n.startswith("aten::mm") for n in names)
    parts = {w["part"]: w["time_s"] for w in r["waterfall"]}
    assert parts["unmodelled"] == pytest.approx(sum(u["time_s"] for u in r["unmodelled"]))
    assert len(r["leaks"]) == 3 and r["leaks"][0]["time_s"] >= r["leaks"][1]["time_s"]


def test_the_reader_streams_one_event_at_a_time(monkeypatch):
    # the same events as json.load, read through a buffer of a few hundred characters
    import roofline.profile.trace as t
    monkeypatch.setattr(t, "CHUNK", 257)
    events = [v for k, v in stream(DECODE) if k == "event"]
    assert events == raw(DECODE)["traceEvents"]


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_text("not json at all"), "not a Chrome trace"),
    (lambda p: p.write_text('{"traceEvents": []}'), "no events"),
    (lambda p: p.write_text('{"schemaVersion": 1}'), "no traceEvents array"),
    (lambda p: p.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",'
                            ' "ts": 1, "dur": 2, "args": {}}]}'), "record_shapes=True"),
    (lambda p: p.write_bytes(DECODE.read_bytes()[:4000]), "truncated"),
    (lambda p: p.write_text(json.dumps(raw(DECODE))[:-500]), "truncated"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, make, message):
    bad = tmp_path / "bad.json"
    make(bad)
    assert cli.main(["profile", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err and "bad.json" in err


def test_unknown_step_and_a_gpu_chip_on_a_cpu_trace(capsys):
    assert cli.main(["profile", str(DECODE), "--step", "9"]) == 2
    assert "no ProfilerStep#9; the trace has steps 1, 2, 3" in capsys.readouterr().err
    assert cli.main(["profile", str(DECODE), "--hardware", "h100-sxm"]) == 2
    err = capsys.readouterr().err
    assert "CPU-only trace" in err and "measured CPU roofline" in err
    # a GPU trace's windows (the whole trace, a range of steps) are refused on a CPU trace
    for step in ("all", "1-3"):
        assert cli.main(["profile", str(DECODE), "--step", step]) == 2
        assert f"--step {step} is for a GPU trace's kernels" in capsys.readouterr().err


def test_cli_formats(capsys):
    assert cli.main(["profile", str(DECODE)]) == 0
    text = capsys.readouterr().out
    assert "Measured MFU" in text and "Where the step's time went" in text
    assert cli.main(["profile", str(TRAIN), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["device"] == "cpu" and set(doc["families"]) >= {"matmul", "optimizer"}
    assert cli.main(["profile", str(TRAIN), "--format", "csv", "--step", "2"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("family,count,time_s") and any(r.startswith("matmul,") for r in rows)


def test_a_trace_error_names_the_file(tmp_path):
    p = tmp_path / "t.json"
    p.write_text("[1, 2]")
    with pytest.raises(TraceError, match="t.json"):
        list(stream(p))


def test_the_fence_names_page_line_and_option(tmp_path):
    from roofline.errors import WidgetOptionError
    from roofline.hosts import door
    with pytest.raises(WidgetOptionError, match=r"docs/p\.md:4: option 'trace': no such file"):
        door.settings("roofline-profile", {"trace": "nope.json.gz"}, where="docs/p.md:4")
    with pytest.raises(WidgetOptionError, match=r"option 'step': no ProfilerStep#7"):
        door.settings("roofline-profile", {"trace": str(DECODE), "step": 7}, where="docs/p.md:4")
    with pytest.raises(WidgetOptionError, match="option 'trace': missing"):
        door.settings("roofline-profile", {}, where="docs/p.md:4")
    html = door.render_widget("roofline-profile", {"trace": str(TRAIN)})
    assert 'class="roofline-caption"' in html and "measured MFU" in html
    assert "Op families of torch-cpu-train.json.gz" in html


def test_the_drop_block_carries_the_roof_the_terms_and_one_script(tmp_path):
    from roofline.errors import WidgetOptionError
    from roofline.hosts import door
    from roofline.profile.terms import terms
    html = door.render_widget("roofline-profile", {"drop": True})
    assert html.count('<script type="module">') == 1 and 'class="rl-drop-data"' in html
    assert 'name="trace"' in html and "nothing is uploaded" in html
    data = json.loads(html.split('class="rl-drop-data">', 1)[1].split("</script>", 1)[0])
    assert data["terms"] == json.loads(json.dumps(terms()))
    assert data["roof"]["bandwidth_bytes_per_s"] == cpu_roof(load_measurement(
        _toml.DATA_DIR / "measurement-build-machine.json")).bandwidth_bytes_per_s
    with pytest.raises(WidgetOptionError, match="option 'drop'"):
        door.settings("roofline-profile", {"drop": "yes"}, where="docs/p.md:4")
    bad = tmp_path / "m.json"
    bad.write_text("{}")
    with pytest.raises(WidgetOptionError, match="option 'measurement'"):
        door.settings("roofline-profile", {"drop": True, "measurement": str(bad)},
                      where="docs/p.md:4")


def test_the_model_functions_reach_the_js_as_their_exact_terms():
    from roofline.model import ops as model
    from roofline.profile import terms as T
    t = T.terms()
    assert t["gemm"]["flops"] == [[2.0, ["m", "n", "k"]]]
    assert sorted(map(tuple, (tuple(v) for _, v in t["gemm"]["bytes"]))) == [
        ("m", "k", "b"), ("m", "n", "b"), ("n", "k", "b")]
    op = model.attention_fused(2, 8, 2, 64, 16, 512, 2, v_head_dim=32)
    at = {"batch": 2, "heads": 8, "kv_heads": 2, "head_dim": 64, "q_len": 16, "kv_len": 512,
          "b": 2, "v_head_dim": 32}
    assert T.evaluate(t["attention_fused"], at)["flops"] == op.flops
    assert T.evaluate(t["attention_fused"], at)["bytes"] == op.bytes
    # seeded: a cost that is not multilinear (a square) is refused, not mispriced
    square = lambda n, b: model.Op("sq", "sq", "x", n * n, 2 * n * b)  # noqa: E731
    terms = {"name": "sq", **T.solve(("n", "b"), ((1, 2), (1, 2)), square)}
    with pytest.raises(T.NotMultilinear, match="sq: flops"):
        T.check("sq", terms, ((1, 2), (1, 2)), square)


@pytest.mark.slow
def test_sphinx_builds_the_window_and_a_profile_report_with_W(tmp_path):
    # the documented extension name, MyST fences of both new kinds, furo, warnings as errors
    import subprocess
    import sys
    (tmp_path / "conf.py").write_text('extensions = ["roofline.sphinx", "myst_parser"]\n'
                                      'html_theme = "furo"\n')
    (tmp_path / "index.md").write_text(
        "# Serving and profiling\n\n```{roofline-window}\nmodel: qwen3-30b-a3b\n```\n\n"
        f"```{{roofline-profile}}\ntrace: {DECODE}\n```\n")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html",
                           str(tmp_path), str(tmp_path / "_build")], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "_build" / "index.html").read_text()
    assert 'class="rl-window-figure"' in page and 'class="rl-profile-figure"' in page


def test_the_second_pass_decodes_only_the_chunks_of_the_step(monkeypatch, roof):
    import roofline.profile.analyse as A
    want = analyse(TRAIN, roof)
    calls = []
    real = A.call_json
    monkeypatch.setattr(A, "CHUNK_EVENTS", 100)
    monkeypatch.setattr(A, "call_json", lambda js, name, text: calls.append(name) or
                        real(js, name, text))
    got = analyse(TRAIN, roof)
    chunks, step_calls = calls.count("surveyEvents"), calls.count("stepEvents")
    assert chunks > 20 and 0 < step_calls < chunks / 2, (chunks, step_calls)
    assert got == want   # the same report from a third of the trace's chunks or fewer


def test_torchs_own_flop_counts_against_the_model_by_hand(roof, tmp_path):
    # scripts/record-traces writes torch's FunctionEvent.flops into each op's args: the step's
    # aten::mm counts are 2·m·n·k each, and they sum to the model's matmul FLOPs exactly
    doc = raw(TRAIN)
    assert "FunctionEvent.flops" in doc["roofline_recorded"]["flops"]
    _, ops = step_events(doc, 3)
    torch_mm = sum(e["args"].get("flops", 0) for e in ops if e["name"] == "aten::mm")
    r = analyse(TRAIN, roof)
    check = {c["family"]: c for c in r["flops_check"]}
    assert check["matmul"]["torch"] == torch_mm == r["families"]["matmul"]["flops"]
    assert check["matmul"]["differs"] is False and check["matmul"]["ops"] == 21
    # where they differ, the op is named: torch counts a foreach op's work as its aten::mul
    # children's, one FLOP each (their first input is a 0-dim tensor)
    opt = check["optimizer"]
    mul_kids = [e for e in ops if e["name"] == "aten::mul" and e["args"].get("flops")
                and e["args"]["Input Dims"][0] == []]
    assert opt["torch"] == sum(e["args"]["flops"] for e in mul_kids) == 18
    assert opt["differs"] and [o["name"] for o in opt["where"]] == ["aten::_foreach_mul_"]
    from roofline.hosts import door
    html = door.render_widget("roofline-profile", {"trace": str(TRAIN)})
    assert "against torch's own counts" in html and "<strong>differs</strong>" in html
    # a trace without counts (as torch 2.13 exports it) has no check at all
    for e in doc["traceEvents"]:
        (e.get("args") or {}).pop("flops", None)
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(doc))
    assert analyse(bare, roof)["flops_check"] == []
    assert "torch's own counts" not in door.render_widget("roofline-profile",
                                                          {"trace": str(bare)})
