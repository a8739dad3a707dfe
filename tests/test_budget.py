"""The step time budget: one layer by hand, fusion only ever removes bytes and time, the MFU
bound and the waterfall that adds up to it, and the `roofline budget` command."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline import RooflineError, default_catalog
from roofline.model.budget import FUSIONS, Assumptions, budget, example_budget
from roofline.model.ceilings import matmul_ceiling
from roofline.model.example import EXAMPLE
from roofline.cli import main
from roofline.model.transformer import default_models, get_model

H100 = default_catalog()["h100-sxm"]
PEAK, BW = 989.4e12, 3.35e12  # H100 SXM dense bf16 and HBM3, as in the catalog


def _run(model="llama-2-7b", phase="train", batch=4, seq=4096, hw="h100-sxm", precision="bf16",
         fusions=(), assumptions=Assumptions(), sharding=None):
    from roofline.model.memory import Sharding
    cat = default_catalog()
    return budget(get_model(model), phase, batch, seq, cat[hw], precision,
                  cat.precision(precision).bytes_per_element, frozenset(fusions), assumptions,
                  sharding or Sharding())


def test_catalog_figures_used_by_hand():
    assert (H100.peak_flops_per_s("bf16"), H100.hbm_bandwidth_bytes_per_s) == (PEAK, BW)


def test_one_training_layer_by_hand():
    """Llama 2 7B, 1 × 2,048 tokens, bf16 (2 bytes), one decoder layer, forward + backward."""
    t, d, f, heads, hd, b = 2048, 4096, 11008, 32, 128, 2
    S = 1 * heads * t * t  # attention scores (no causal saving, as in ops.py)

    def tm(flops, bytes_):
        return max(flops / PEAK, bytes_ / BW)

    norm = tm(4 * t * d, (2 * t * d + d) * b)                 # read x and gamma, write y
    norm_b = tm(4 * t * d, (3 * t * d + 2 * d) * b)           # read x, dy, gamma; write dx, dgamma
    proj = tm(2 * t * d * d, (t * d + d * d + t * d) * b)      # q, k, v, o: [t,d]·[d,d]
    qk = tm(2 * S * hd, (t * d + t * d + S) * b)               # read Q and K, write scores
    soft = tm(5 * S, 2 * S * b)                                # read scores, write probs
    soft_b = tm(5 * S, 3 * S * b)                              # read probs and dprobs, write ds
    sv = tm(2 * S * hd, (S + t * d + t * d) * b)               # read probs and V, write O
    resid = tm(t * d, 3 * t * d * b)                           # read two, write one
    up = tm(2 * t * f * d, (t * d + d * f + t * f) * b)        # gate and up: [t,d]·[d,f]
    act = tm(5 * t * f, 3 * t * f * b)                         # SiLU(gate) · up
    act_b = tm(5 * t * f, 5 * t * f * b)                       # read g, u, dout; write dg, du
    down = tm(2 * t * d * f, (t * f + f * d + t * d) * b)      # [t,f]·[f,d]
    forward = 2 * norm + 4 * proj + qk + soft + sv + 2 * resid + 2 * up + act + down
    # Backward (roofline.model.kernels derives each): matmuls twice their FLOPs and bytes (both
    # scale together, so twice the time); the norms, softmax and SiLU·mul move the tensors their
    # gradients read and write; the residual adds their forward bytes once more.
    def tm2(single):
        return 2 * single
    backward = (2 * norm_b + 4 * tm2(proj) + tm2(qk) + soft_b + tm2(sv) + 2 * resid
                + 2 * tm2(up) + act_b + tm2(down))
    bg = _run(batch=1, seq=2048)
    assert bg.layer_time_s == pytest.approx(forward + backward, rel=1e-12)
    # The numbers themselves: q_proj takes 69.5 µs at the compute roof; the score matrix makes
    # softmax take 160 µs reading and writing 537 MB (its backward 240 µs); a whole layer, fwd +
    # bwd, 3.67 ms.
    assert proj == pytest.approx(2 * 2048 * 4096 ** 2 / 989.4e12)
    assert soft == pytest.approx(4 * S / 3.35e12) and soft_b == pytest.approx(1.5 * soft)
    assert forward + backward == pytest.approx(3.673e-3, rel=1e-3)


def test_fusion_savings_by_hand():
    t, d, S, b = 2048, 4096, 32 * 2048 * 2048, 2
    base = _run(batch=1, seq=2048)
    flash = _run(batch=1, seq=2048, fusions={"flash"})
    # Forward keeps the scores off HBM: written once and read twice = 4 S; backward of the three
    # kernels moved 7 S (2 × QKᵀ's, softmax's y, dy and dx = 3 S, 2 × S·V's), FlashAttention's
    # moves none.
    assert base.bytes - flash.bytes == pytest.approx(32 * (4 + 7) * S * b, rel=1e-12)
    norm = _run(batch=1, seq=2048, fusions={"norm"})
    # Per layer: input norm's output written once, read by q, k, v (4 t d); post-attention
    # norm's read by gate and up (3 t d); the final norm's by lm_head (2 t d); fwd and bwd.
    per_step = (32 * (4 + 3) + 2) * t * d * b * 2
    assert base.bytes - norm.bytes == pytest.approx(per_step, rel=1e-12)
    assert norm.bytes_saved() == {"norm": pytest.approx(per_step, rel=1e-12)}
    assert base.flops == norm.flops and flash.useful_flops == base.useful_flops
    # FlashAttention's backward recomputes QK^T: 2.5x the forward attention matmuls, not 2x
    # (Dao et al. 2022; the convention the budget page states). QK^T is 2·S·head_dim FLOPs.
    qk = 2 * S * 128
    assert flash.flops - base.flops == pytest.approx(32 * qk, rel=1e-12)


def test_mfu_bound_in_unit_interval_and_decode_far_below_training():
    train = example_budget()
    decode = _run(phase="decode", batch=8, seq=4096)
    assert 0 < decode.mfu_upper_bound < train.mfu_upper_bound <= 1
    assert decode.mfu_upper_bound < train.mfu_upper_bound / 10


def test_the_gemm_efficiency_is_the_chips_measured_ceiling():
    """No efficiency constant in code (#46): a GEMM runs at its chip's measured matmul ceiling
    ÷ its peak (data/ceilings.toml), and only GEMMs pay it. Seeded: the H200, which the
    source's H100 row calls "the same", has no bf16 measurement of its own, so it borrows none
    and stays at the roofline bound."""
    assert Assumptions().kernel_efficiency is None
    example = example_budget()
    ceiling = matmul_ceiling(EXAMPLE.hardware, EXAMPLE.precision)
    assert example.efficiency_basis == "measured"
    assert example.gemm_efficiency == ceiling.flops_per_s / example.peak_flops_per_s
    h200 = example_budget(hardware="h200")
    assert (h200.efficiency_basis, h200.gemm_efficiency) == ("unmeasured", 1.0)
    assert {t.key: t.time_s for t in h200.waterfall()}["efficiency"] == 0.0
    given = example_budget(kernel_efficiency=0.5)
    assert (given.efficiency_basis, given.gemm_efficiency) == ("override", 0.5)
    # Only the GEMMs (and their recomputed copies) are stretched: the memory-bound ops,
    # attention and the optimizer stay at their bound. The waterfall charges the recomputed
    # GEMMs' shortfall to recomputation, so that removing recomputation removes all it costs.
    c = example.components()
    waste = 1 / example.gemm_efficiency - 1
    times = {t.key: t.time_s for t in example.waterfall()}
    assert times["efficiency"] == pytest.approx(c["gemm_pass"] * waste, rel=1e-12)
    assert times["recompute"] == pytest.approx(
        c["recompute"] + c["recompute_gemm"] * waste
        + c["recompute_launches"] * example.assumptions.launch_overhead_s, rel=1e-12)
    assert example.overhead_times_s["efficiency"] == pytest.approx(
        (c["gemm_pass"] + c["recompute_gemm"]) * waste, rel=1e-12)
    assert c["gemm_pass"] < c["pass"]
    assert example_budget(kernel_efficiency=1.0).mfu_estimate > example.mfu_estimate
    unfused, fused = example_budget(fusions=()), example_budget(fusions=FUSIONS)
    assert unfused.mfu_upper_bound < example.mfu_upper_bound < fused.mfu_upper_bound <= 1


def test_waterfall_adds_up_to_the_mfu():
    bg = _run(fusions={"flash"})
    terms = bg.waterfall()
    assert [t.key for t in terms] == ["memory", "attention", "gemm", "recompute", "efficiency",
                                      "launch", "communication"]
    assert terms[0].level_before == 1.0
    assert 1 - sum(t.loss for t in terms) == pytest.approx(bg.mfu_estimate, rel=1e-12)
    assert all(t.loss >= 0 for t in terms)
    # Each cause loses its share of the step's time (issue #13): t / T.
    total = bg.ideal_time_s + sum(t.time_s for t in terms)
    for t in terms:
        assert t.loss == pytest.approx(t.time_s / total, rel=1e-12)
    # The roofline terms are the step's time (recomputation included) minus the ideal time.
    assert sum(t.time_s for t in terms[:4]) == pytest.approx(bg.step_time_s - bg.ideal_time_s)
    assert bg.mfu_upper_bound == pytest.approx(
        bg.ideal_time_s / (bg.ideal_time_s + sum(t.time_s for t in terms[:4])), rel=1e-12)


def test_overheads_follow_their_assumptions():
    none = Assumptions(kernel_efficiency=1.0, launch_overhead_s=0.0, dp_degree=1)
    bg = _run(assumptions=none)
    assert bg.mfu_estimate == pytest.approx(bg.mfu_upper_bound, rel=1e-12)
    hidden = _run(assumptions=Assumptions(overlap_fraction=1.0))
    exposed = _run(assumptions=Assumptions(overlap_fraction=0.0))
    assert hidden.overhead_times_s["communication"] == 0
    # Ring all-reduce over NVLink 4 (450 GB/s a direction): 2 · 7/8 · 6.74 G params · 2 bytes.
    assert exposed.overhead_times_s["communication"] == pytest.approx(
        2 * 7 / 8 * get_model("llama-2-7b").params * 2 / 450e9, rel=1e-12)
    assert _run(phase="prefill").allreduce_time_s == 0


_CASES = [(m, p, h, pr) for m in default_models() for p in ("train", "prefill", "decode")
          for h, pr in (("h100-sxm", "bf16"), ("h100-sxm", "fp8"), ("a100-sxm-80gb", "bf16"),
                        ("mi300x", "bf16"), ("l4", "fp8"))]


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(_CASES), batch=st.integers(1, 64), seq=st.integers(1, 8192),
       small=st.sets(st.sampled_from(FUSIONS)), extra=st.sets(st.sampled_from(FUSIONS)))
def test_fusing_never_increases_bytes_or_time(case, batch, seq, small, extra):
    model, phase, hw, precision = case
    a = _run(model, phase, batch, seq, hw, precision, small)
    b = _run(model, phase, batch, seq, hw, precision, small | extra)
    assert b.useful_flops == pytest.approx(a.useful_flops, rel=1e-12)
    assert b.bytes <= a.bytes * (1 + 1e-12)
    assert b.launches <= a.launches
    if phase == "train" and "flash" in extra - small:
        # FlashAttention's backward recomputes QK^T: more FLOPs for fewer bytes, so its time
        # can grow by at most the recomputed FLOPs at peak.
        recomputed = b.flops - a.flops
        assert recomputed > 0
        assert b.step_time_s <= a.step_time_s * (1 + 1e-12) + recomputed / b.peak_flops_per_s
        return
    assert b.flops == pytest.approx(a.flops, rel=1e-12)
    assert b.step_time_s <= a.step_time_s * (1 + 1e-12)
    assert 0 < b.mfu_upper_bound <= 1 + 1e-12 and b.mfu_upper_bound >= a.mfu_upper_bound * (1 - 1e-12)
    for k in b.kernels:
        assert k.bytes <= k.unfused_bytes and k.bytes > 0


def test_every_fusion_saves_bytes_on_its_own():
    base = _run()
    for f in FUSIONS:
        one = _run(fusions={f})
        assert one.bytes < base.bytes, f
        assert one.bytes_saved()[f] == pytest.approx(base.bytes - one.bytes, rel=1e-12)
    both = _run(fusions=FUSIONS)
    assert sum(both.bytes_saved().values()) == pytest.approx(base.bytes - both.bytes, rel=1e-12)


def test_fused_kernels_move_right_on_the_roofline():
    base = {(k.name, k.pass_): k for k in _run().kernels}
    fused = {(k.name, k.pass_): k for k in _run(fusions={"norm"}).kernels}
    merged = fused[("input_layernorm+q_proj+k_proj+v_proj", "forward")]
    assert merged.intensity_flops_per_byte > base[("q_proj", "forward")].intensity_flops_per_byte


def test_bad_input_names_the_field():
    with pytest.raises(RooflineError, match="fuse.*unknown fusion 'fast'"):
        _run(fusions={"fast"})
    with pytest.raises(RooflineError, match="phase"):
        _run(phase="serve")
    with pytest.raises(RooflineError, match="batch"):
        _run(batch=0)
    with pytest.raises(RooflineError, match="overlap_fraction"):
        Assumptions(overlap_fraction=1.5)
    with pytest.raises(RooflineError, match="kernel_efficiency"):
        Assumptions(kernel_efficiency=0)


# ---------------------------------------------------------------- the command

def test_cli_json_contract(capsys):
    assert main(["budget", "--model", "llama-2-7b", "--phase", "train", "--batch", "4",
                 "--seq", "4096", "--hardware", "h100-sxm", "--precision", "bf16",
                 "--fuse", "norm,flash", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 0 < out["mfu_upper_bound"] <= 1
    for key in ("time_s", "bytes", "flops"):
        assert set(out[key]) == {"gemm", "attention", "norm", "elementwise", "softmax",
                                 "embedding", "optimizer"}
    # by class: one pass (no recomputation); the step adds the recomputed forward
    assert sum(out["time_s"].values()) == pytest.approx(out["pass_time_s"])
    assert out["step_time_s"] == pytest.approx(out["pass_time_s"] + out["recompute_time_s"])
    assert out["fusions"] == ["flash", "norm"] and set(out["bytes_saved"]) == {"flash", "norm"}
    assert 1 - sum(t["loss"] for t in out["waterfall"]) == pytest.approx(out["mfu_estimate"])


def test_cli_table_shows_bound_and_waterfall(capsys):
    assert main(["budget", "--fuse", "all"]) == 0
    text = capsys.readouterr().out
    assert "MFU upper bound" in text and "exposed gradient all-reduce" in text
    assert "bytes kept off HBM per step" in text


@pytest.mark.parametrize("args, field", [
    (["--fuse", "norm,warp"], "fuse"), (["--model", "gpt-5"], "model"),
    (["--phase", "serve"], "phase"), (["--batch", "0"], "batch"), (["--batch", "two"], "batch"),
    (["--seq", "-1"], "seq"), (["--dp", "0"], "dp"), (["--overlap", "1.5"], "overlap"),
])
def test_cli_bad_input_is_one_line_exit_2(capsys, args, field):
    assert main(["budget", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("roofline budget: error:")
    assert f"argument --{field}: " in err  # the CLI names the option (#18)


# ---------------------------------------------------------------- issue #13

from hypothesis import given, settings, strategies as st  # noqa: E402

from roofline.model.waterfall import waterfall_terms
from roofline.model.memory import Sharding, step_memory

_KEYS = ("memory", "attention", "gemm", "recompute", "efficiency", "launch", "communication")


@settings(max_examples=200, deadline=None)
@given(ideal=st.floats(1e-6, 10.0),
       times=st.lists(st.floats(0.0, 10.0), min_size=len(_KEYS), max_size=len(_KEYS)),
       order=st.permutations(list(range(len(_KEYS)))))
def test_waterfall_attribution_is_order_independent(ideal, times, order):
    """Any permutation of the causes gives each the same loss, t / (ideal + sum t), and the
    losses sum to 1 - MFU. (The old telescoping waterfall charged whatever came first: batch-1
    decode showed GEMV weight streaming, 86 % of the step, as -2 pt.)"""
    base = {t.key: t.loss for t in waterfall_terms(ideal, list(zip(_KEYS, times)))}
    shuffled = [(_KEYS[i], times[i]) for i in order]
    terms = waterfall_terms(ideal, shuffled)
    for t in terms:
        assert t.loss == pytest.approx(base[t.key], rel=1e-9, abs=1e-15)
    mfu = ideal / (ideal + sum(times))
    assert 1 - sum(t.loss for t in terms) == pytest.approx(mfu, rel=1e-9, abs=1e-12)
    assert terms[-1].level_after == pytest.approx(mfu, rel=1e-9, abs=1e-12)


def test_decode_gemv_streaming_is_charged_its_share():
    """Batch-1 decode: the GEMMs (weight streaming) are most of the step, so they carry the
    largest loss, not -2 pt as when the memory-bound ops came first."""
    bg = _run(phase="decode", batch=1)
    loss = {t.key: t.loss for t in bg.waterfall()}
    assert loss["gemm"] == max(loss.values()) and loss["gemm"] > 0.4
    assert loss["memory"] < 0.01


def test_memory_model_matches_the_issue_figures():
    """Rajbhandari et al. 2020 (ZeRO): mixed-precision AdamW holds 16 B per parameter, ≈ 108 GB
    for Llama 2 7B. Activations (roofline.model.memory, Korthikanti et al. 2022 redone for a
    Llama block, no dropout): 2·s·B·(6h + 2kv + 3f) bytes per layer plus 2·a·s²·B for the
    softmax's output: at 4 × 4,096, 32 × 2.16 GB + 32 × 4.29 GB ≈ 206 GB (Korthikanti's
    34 + 5·a·s/h, dropout included, gave ≈ 417 GB); with FlashAttention ≈ 69 GB. Decode at
    batch 256 holds ≈ 550 GB of KV cache; Llama 3 70B's bf16 weights are ≈ 141 GB. None fits the
    85.5 GB an H100 SXM lets programs use (81,559 MiB, the catalog's visible capacity)."""
    m = _run().memory
    assert m.weights + m.gradients + m.optimizer == pytest.approx(108e9, rel=0.01)
    assert m.activations == pytest.approx(206.4e9, rel=0.01)
    assert m.capacity == 81_559 * 2 ** 20 and not m.fits and m.overflow == m.total - m.capacity
    assert _run(phase="decode", batch=256).memory.kv_cache == pytest.approx(550e9, rel=0.01)
    big = _run(phase="decode", batch=1, model="llama-3-70b").memory
    assert big.weights == pytest.approx(141e9, rel=0.01) and not big.fits
    # FlashAttention drops the scores; full recomputation keeps only each layer's input.
    assert _run(fusions={"flash"}).memory.activations == pytest.approx(69.1e9, rel=0.01)
    full = _run(sharding=Sharding(0, "full")).memory.activations
    assert full < 20e9


def test_sharding_that_fits_is_offered_and_costs_time():
    bg = _run()
    fix = bg.fitting_sharding()
    assert fix is not None and not bg.fits
    fixed = _run(sharding=fix)
    assert fixed.fits and fixed.mfu_estimate < bg.mfu_estimate  # recomputation is not free
    assert fixed.recompute_time_s > 0 and fixed.step_time_s > bg.step_time_s


def test_zero_stages_shard_what_they_say():
    """ZeRO-1 shards the 12 B/param optimizer state, -2 also gradients, -3 also weights."""
    cfg, dp = get_model("llama-2-7b"), 8
    ms = [step_memory(cfg, "train", 4, 4096, 2.0, 80 * 2 ** 30, dp_degree=dp,
                      sharding=Sharding(z)) for z in range(4)]
    p = cfg.params
    assert ms[0].optimizer == 12 * p and ms[1].optimizer == 12 * p / dp
    assert ms[1].gradients == 2 * p and ms[2].gradients == 2 * p / dp
    assert ms[2].weights == 2 * p and ms[3].weights == 2 * p / dp


def test_cli_says_it_does_not_fit_and_exits_0(capsys):
    """With no options the command prints the running example, which fits; unsharded it does
    not, and says what would fit (with FlashAttention: ZeRO-3 alone, 82.5 of 85.5 GB)."""
    assert main(["budget", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["fits"] is True and captured.err == ""
    assert main(["budget", "--zero", "0", "--recompute", "none", "--format", "json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["fits"] is False and out["memory"]["overflow"] > 0
    assert out["fits_with"] == {"zero_stage": 3, "recompute": "none"}
    warning = [" ".join(captured.err.split())]  # one warning, wrapped to the terminal
    assert captured.err.count("warning:") == 1
    assert warning[0].startswith("warning: does not fit: this step needs")
    assert "--zero 3 --recompute none" in warning[0]
    assert main(["budget", "--zero", "0", "--recompute", "none"]) == 0
    assert capsys.readouterr().out.startswith("DOES NOT FIT: ")


def test_all_fusion_subsets_are_distinct():
    """The page precomputes the 16 combinations; each must be a different step."""
    seen = set()
    for n in range(len(FUSIONS) + 1):
        for combo in combinations(FUSIONS, n):
            seen.add(round(_run(fusions=combo).bytes))
    assert len(seen) == 16


def test_launch_overhead_default_is_data_overhead_toml_and_follows_an_edit(tmp_path, monkeypatch):
    """No typed figure: the budget's launch overhead is the launch gap of data/overhead.toml,
    and an edit is seen in the same process (mkdocs serve). Seeded: a copy with 6 µs, then 5 µs
    (same size, so only mtime_ns tells the edits apart)."""
    import os

    from roofline.model import launch
    cat = default_catalog()
    assert Assumptions().launch_overhead_s == launch.load_launch().seconds
    text = launch.OVERHEAD_PATH.read_text(encoding="utf-8")
    assert "seconds = 4e-6" in text
    edited = tmp_path / "overhead.toml"
    monkeypatch.setattr(launch, "OVERHEAD_PATH", edited)
    for seconds, mtime_ns in (("6e-6", 1_000_000_000), ("5e-6", 2_000_000_000)):
        edited.write_text(text.replace("seconds = 4e-6", f"seconds = {seconds}"), encoding="utf-8")
        os.utime(edited, ns=(mtime_ns, mtime_ns))
        assert Assumptions().launch_overhead_s == float(seconds)
        bg = budget(get_model("llama-2-7b"), "train", 4, 4096, H100, "bf16",
                    cat.precision("bf16").bytes_per_element)
        assert bg.assumptions.launch_overhead_s == float(seconds)
        assert bg.overhead_times_s["launch"] == bg.launches * float(seconds)


def test_cli_budget_reads_the_launch_floor_and_reports_a_bad_one_in_one_line(tmp_path,
                                                                            monkeypatch, capsys):
    """Seeded: overhead.toml with 4 s per launch. `roofline budget` (whose parser reads no
    data file) exits 2 with one line naming the file and field; with a good 6 µs copy its JSON
    carries 6 µs, and --launch-overhead still overrides it."""
    from roofline.model import launch
    text = launch.OVERHEAD_PATH.read_text(encoding="utf-8")
    edited = tmp_path / "overhead.toml"
    monkeypatch.setattr(launch, "OVERHEAD_PATH", edited)
    edited.write_text(text.replace("seconds = 4e-6", "seconds = 4"), encoding="utf-8")
    assert main(["budget", "--format", "json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(edited) in err[0] and "'seconds'" in err[0], err
    edited.write_text(text.replace("seconds = 4e-6", "seconds = 6e-6"), encoding="utf-8")
    assert main(["budget", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["assumptions"]["launch_overhead_s"] == 6e-6
    assert main(["budget", "--launch-overhead", "1e-6", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["assumptions"]["launch_overhead_s"] == 1e-6


def test_removing_a_leak_is_the_step_without_it():
    """roofline.model.leaks: the points of MFU recovered by removing recomputation are the
    MFU of the same step run without it (the waterfall charges recomputation all it costs:
    its kernels, its GEMMs' shortfall, its launches); each leak's share of step time is
    larger than what removing it gives back, and the shares and the MFU add up to 1."""
    from roofline.model.leaks import leak_account
    bg = example_budget()
    acc = leak_account(bg)
    rec = next(x for x in acc.leaks if x.key == "recompute")
    assert rec.mfu_without == pytest.approx(example_budget(recompute="none").mfu_estimate,
                                            rel=1e-12)
    assert acc.mfu == pytest.approx(bg.mfu_estimate, rel=1e-12)
    assert sum(x.share for x in acc.leaks) + acc.mfu == pytest.approx(1, rel=1e-12)
    assert all(x.recovered < x.share or x.share == 0 for x in acc.leaks)
    assert [x.time_s for x in acc.leaks] == sorted((x.time_s for x in acc.leaks), reverse=True)


def test_the_overlap_is_a_data_files_assumption(tmp_path):
    """#46: the share of the all-reduce hidden behind the backward pass is data/overlap.toml's,
    with its basis ("assumption"), not a constant in code; the CLI and the budget page say it
    is an assumption. Seeded: a file whose figure is out of range, or whose basis is unknown,
    is named."""
    from roofline.cli.budget import overlap_words
    from roofline.model.overlap import load_overlap, overlap_path
    o = load_overlap()
    assert Assumptions().overlap_fraction == o.fraction and o.basis == "assumption"
    assert o.url.startswith("https://") and o.date
    assert "an assumption, data/overlap.toml" in overlap_words(example_budget())
    import dataclasses
    given = dataclasses.replace(example_budget(), assumptions=Assumptions(overlap_fraction=0.5))
    assert "as given" in overlap_words(given)
    text = overlap_path().read_text(encoding="utf-8")
    for old, new, field in (("value = 0.8", "value = 1.5", "value"),
                            ('basis = "assumption"', 'basis = "guess"', "basis")):
        bad = tmp_path / f"{field}.toml"
        bad.write_text(text.replace(old, new), encoding="utf-8")
        with pytest.raises(RooflineError, match=field):
            load_overlap(bad)
