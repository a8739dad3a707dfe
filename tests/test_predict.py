"""Predict, then reveal (lesson_site/predict.py): the cases of data/predict.toml drawn the same on
every build, each answer the model's (checked here by hand for one draw of each kind, from the
counting conventions of ops.toml and the launch floor of overhead.toml), the givens shown
before the guess, the case file node reads one record a line, and the data file's errors."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model.launch import load_launch
from lesson_site import teach  # noqa: F401  (registers the markers)
from lesson_site.context import load_context
from lesson_site.markers import expand
from lesson_site.predict import (KINDS, build_op, draws, dumps, judge, load_cases, predict_cases,
    predict_data)

CASES = Path(__file__).parent / "cases" / "predict_cases.jsonl"


@pytest.fixture(scope="module")
def ctx():
    return load_context()


@pytest.fixture(scope="module")
def data(ctx):
    return predict_data(ctx)


def test_case_file_is_current_and_one_record_a_line(ctx):
    text = CASES.read_text(encoding="utf-8")
    assert text == dumps(predict_cases(ctx)), (
        "regenerate tests/cases/predict_cases.jsonl (see lesson_site.predict.predict_cases)")
    assert all(json.loads(line) for line in text.splitlines())


def test_the_issue_cases_are_there_and_cover_every_regime(data):
    ids = [c["id"] for c in data["cases"]]
    assert ids == ["residual-add", "swiglu", "cross-entropy", "moe-expert", "decode-norm",
                   "w8-decode"]
    regimes = {d["answer"]["regime"] for c in data["cases"] for d in c["draws"]}
    assert regimes == {"memory", "compute", "overhead"}
    # The overhead-bound case is overhead-bound in every draw; the 8-bit case crosses the ridge.
    norm = next(c for c in data["cases"] if c["id"] == "decode-norm")
    assert {d["answer"]["regime"] for d in norm["draws"]} == {"overhead"}
    w8 = next(c for c in data["cases"] if c["id"] == "w8-decode")
    assert {d["answer"]["regime"] for d in w8["draws"]} == {"memory", "compute"}
    # None of them is an op-zoo row: the form no longer repeats the table above it.
    assert not set(ids) & set(load_context().zoo.presets)


def test_draws_are_the_same_every_build_distinct_and_from_the_lists():
    _, settings, cases = load_cases()
    for case in cases:
        first, again = draws(case, settings), draws(case, settings)
        assert first == again and len(first) == settings.draws
        assert len({json.dumps(d, sort_keys=True) + h for d, h in first}) == settings.draws
        for dims, hw in first:
            assert hw in settings.hardware
            assert all(dims[k] in case.shape[k] for k in KINDS[case.kind])


def test_too_few_combinations_to_draw_is_an_error():
    import dataclasses
    _, settings, cases = load_cases()
    tiny = dataclasses.replace(cases[0], shape={"tokens": (1,), "d": (4096,)})
    with pytest.raises(RooflineError, match="distinct draws"):
        draws(tiny, dataclasses.replace(settings, hardware=("h100-sxm",)))


def test_answers_by_hand_one_per_kind(ctx):
    """Each kind's cost from the conventions (ops.toml: 2 FLOPs per multiply-add, SiLU·mul 5 and
    softmax 5 FLOPs per element, RMSNorm 4; bytes = everything read + written), on the H100 SXM
    (989.4 TFLOP/s bf16, 3.35 TB/s), with the 4 µs launch gap added (roofline.model.launch)."""
    peak, bw, launch = 989.4e12, 3.35e12, load_launch().seconds
    assert launch == 4e-6

    def check(kind, dims, flops, bytes_):
        v = judge(ctx, build_op(ctx, kind, dims), "h100-sxm")
        assert (v.flops, v.bytes) == (pytest.approx(flops), pytest.approx(bytes_)), kind
        t = max(flops / peak, bytes_ / bw) + launch
        assert v.time == pytest.approx(t) and v.fraction == pytest.approx(flops / t / peak)
        return v
    assert check("residual_add", {"tokens": 1, "d": 4096}, 4096, 3 * 4096 * 2).regime == "overhead"
    n = 4096 * 14336
    assert check("swiglu", {"tokens": 4096, "ffn": 14336}, 5 * n, 3 * n * 2).regime == "memory"
    n = 4096 * 128256
    assert check("cross_entropy", {"tokens": 4096, "vocab": 128256}, 5 * n,
                 2 * n * 2).regime == "memory"
    m, k, nn = 1024, 4096, 14336
    assert check("gemm", {"m": m, "k": k, "n": nn}, 2 * m * nn * k,
                 (m * k + k * nn + m * nn) * 2).regime == "compute"
    assert check("rmsnorm", {"tokens": 16, "d": 4096}, 4 * 16 * 4096,
                 (2 * 16 * 4096 + 4096) * 2).regime == "overhead"
    t, d, f = 64, 4096, 11008
    v = check("w8_matmul", {"tokens": t, "d": d, "ffn": f}, 2 * t * d * f,
              d * f * 1 + t * (d + f) * 2)
    assert v.regime == "memory"  # 64 < the ≈ 148 tokens 8-bit weights need on an H100


def test_the_givens_come_first_and_hold_what_derives_the_answer(ctx, data):
    for c in data["cases"]:
        for d in c["draws"]:
            acc = ctx.hw(d["hw"])
            g = re.sub(r"<[^>]+>", "", d["givens"])
            for piece in (fmt.tflops(acc.peak_flops_per_s("bf16")),
                          fmt.bandwidth(acc.hbm_bandwidth_bytes_per_s), "4 µs", acc.name,
                          *(f"{v:,}" for v in d["dims"].values())):
                assert piece in g, (c["id"], piece)
            assert "<!--" not in g and "bound" not in g  # no marker left, no answer given
            r = d["reveal"]
            assert f"{d['answer']['regime']}-bound" in r
            assert fmt.seconds(d["answer"]["time_s"]) in r


def test_predict_block_is_progressive_and_self_contained(ctx, data):
    out = expand("<!-- rl:predict -->", ctx, "t")
    assert '<form class="rl-predict-form" hidden' in out  # nothing to use until the script runs
    assert 'aria-live="polite"' in out and "rl-predict-nojs" in out
    assert "<script type=\"module\">" in out and "enhanceAll(document);" in out
    assert not re.search(r"\bsrc=|https?://|import\s*\(", out.split('class="rl-predict-data">')[0]
                         + out.split("</script>", 1)[1])  # no request of any kind
    assert out.count("</script>") == 2  # the JSON and the module; neither closes early
    # The first draw's givens are in the page before any guess; the legend says so.
    assert data["cases"][0]["draws"][0]["givens"] in out and "1 · The givens" in out
    assert out.index("rl-predict-givens") < out.index("2 · Your guess")
    for r in ("memory", "compute", "overhead"):
        assert f'name="bound" value="{r}"' in out


@pytest.mark.parametrize("edit, field", [
    ('kind = "residual_add"', 'kind = "residual_sub"'),
    ("shape = { tokens = [1, 16, 256, 2048, 8192, 32768], d = [4096, 8192] }",
     "shape = { tokens = [1, 16, 256, 2048, 8192, 32768], d = [0] }"),
    ("tolerance = 0.25", "tolerance = 0.25\ncolour = 1"),
])
def test_data_file_errors_name_the_field(tmp_path, edit, field):
    from lesson_site.predict import PREDICT_PATH
    text = PREDICT_PATH.read_text(encoding="utf-8")
    assert text.count(edit) == 1
    bad = tmp_path / "predict.toml"
    bad.write_text(text.replace(edit, field), encoding="utf-8")
    with pytest.raises(RooflineError) as err:
        load_cases(bad)
    assert str(bad) in str(err.value)
    assert re.search(r"kind|shape\.d|colour", str(err.value))


def test_op_at_marker(ctx):
    out = expand("<!-- rl:op_at kind=rmsnorm shape=tokens=1,d=4096 field=regime --> "
                 "<!-- rl:op_at kind=rmsnorm shape=tokens=1,d=4096 -->", ctx, "t")
    # a batch-1 RMSNorm: its 4 µs launch gap plus its roofline time (roofline.model.launch)
    launch = load_launch().seconds
    t = launch + max(4 * 4096 / 989.4e12, (2 * 4096 + 4096) * 2 / 3.35e12)
    assert out == f"overhead-bound {fmt.seconds(t)}"
    with pytest.raises(RooflineError, match="shape"):
        expand("<!-- rl:op_at kind=rmsnorm shape=tokens=1 -->", ctx, "t")
    assert math.isfinite(float(expand("<!-- rl:op_at kind=gemm shape=m=8,k=4096,n=11008 "
                                      "field=ai -->", ctx, "t")))
