"""The serving window (issue #37): its figures, computed by window.mjs in the build's JS engine
from roofline.model.serving's terms, held to two derivations done here without either:

1. by hand, from the model's shapes (the formulas are in the comments);
2. from the budget's own decode kernel list (roofline.model.budget), batch by batch.

Worked examples: Llama 2 7B (dense, MHA) and Qwen3-30B-A3B (MoE: 128 experts, top-8) on the
H100 SXM in bf16 with 4,096 tokens of context, $3.00 per GPU-hour, 50 ms per token, kernels
replayed as CUDA graphs (0.5 µs per kernel, the window's default) and launched eagerly (4 µs)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from roofline import cli
from roofline.errors import RooflineError, WidgetOptionError
from roofline.hosts import door
from roofline.model import serving
from roofline.model.budget import Assumptions, budget
from roofline.model.launch import load_launch
from roofline.model.catalog import default_catalog
from roofline.model.memory import usable_capacity_bytes
from roofline.model.transformer import get_model
from roofline.widgets.window.figures import figures
from roofline.widgets.window.settings import WindowSettings

CTX = 4096
HW = "h100-sxm"


@pytest.fixture(scope="module")
def llama():
    return figures(WindowSettings(model="llama-2-7b"))


@pytest.fixture(scope="module")
def qwen():
    return figures(WindowSettings(model="qwen3-30b-a3b"))


@pytest.fixture(scope="module")
def llama_eager():
    return figures(WindowSettings(model="llama-2-7b", launch="eager"))


@pytest.fixture(scope="module")
def qwen_eager():
    return figures(WindowSettings(model="qwen3-30b-a3b", launch="eager"))


def by_budget(model: str, batch: int, ctx: int = CTX, launch: str = "graphs") -> dict:
    """One decode step from the budget's kernels: each at max(FLOPs / peak, bytes / BW), split by
    which binds, plus one launch gap per launch (the launch mode's, data/overhead.toml); the
    regime is the largest part."""
    cat = default_catalog()
    hw = cat[HW]
    bu = budget(get_model(model), "decode", batch, ctx, hw, "bf16", 2.0, frozenset({"flash"}),
                Assumptions(dp_degree=1))
    peak, bw = hw.peak_flops_per_s("bf16"), hw.hbm_bandwidth_bytes_per_s
    compute = sum(k.count * k.flops / peak for k in bu.kernels if k.flops / peak >= k.bytes / bw)
    memory = sum(k.count * k.bytes / bw for k in bu.kernels if k.flops / peak < k.bytes / bw)
    launch = bu.launches * load_launch().mode_seconds(launch)
    step = compute + memory + launch
    regime = ("launch" if launch >= max(memory, compute) else
              "compute" if compute > memory else "memory")
    return {"step_s": step, "regime": regime, "tokens_per_s": batch / step,
            "mfu": bu.useful_flops / (step * peak), "budget": bu,
            # against the share of the visible HBM a server allocates (data/serving.toml's 0.9)
            "fits": bu.memory.total <= 0.9 * bu.memory.capacity}


# ---------------------------------------------------------------- Llama 2 7B by hand

def test_llama_wall_by_hand(llama):
    cfg = get_model("llama-2-7b")
    # weights: 6,738,415,616 parameters × 2 B = 13,476,831,232 B
    weights = cfg.params * 2
    assert weights == 13_476_831_232
    # KV cache per token: 2 (K and V) × 32 layers × 32 KV heads × 128 dims × 2 B = 524,288 B,
    # so 2 GiB per sequence of 4,096 tokens; FlashAttention's working set per sequence:
    # 2 B × max(3d + 2kv, d + 3f) = 2 × max(20,480, 37,120) = 74,240 B
    per_seq = 2 * 32 * 32 * 128 * 2 * CTX + 2 * max(3 * 4096 + 2 * 4096, 4096 + 3 * 11008)
    assert per_seq == 2_147_483_648 + 74_240
    # the HBM programs see: 85,520,809,984 B (the catalog's visible capacity, 79.6 GiB), of
    # which a server allocates 0.9 (vLLM's default gpu_memory_utilization, data/serving.toml):
    # 76,968,728,985.6 B
    visible = usable_capacity_bytes(default_catalog()[HW].hbm)
    assert visible == 85_520_809_984
    assert serving.load_memory_utilisation().value == 0.9
    cap = 0.9 * visible
    # (76,968,728,985.6 − 13,476,831,232) ÷ 2,147,557,888 = 29.56 → 29 sequences (the whole
    # visible HBM would hold 33: the share costs 4)
    assert math.floor((cap - weights) / per_seq) == 29 == llama["figures"]["wall"]
    assert math.floor((visible - weights) / per_seq) == 33 == figures(WindowSettings(
        model="llama-2-7b", memory_utilisation=1))["figures"]["wall"]
    W = llama["figures"]
    assert W["capacity"] == {"visible": visible, "share": 0.9, "usable": cap,
                             "workspace": 29 * 74_240}
    assert "necessary condition, not a sufficient one" in llama["facts"][0]
    assert by_budget("llama-2-7b", 29)["fits"] and not by_budget("llama-2-7b", 30)["fits"]


def test_a_chip_without_a_visible_figure_says_so_and_a_bad_share_is_refused(tmp_path):
    # the catalog gives no visible capacity for the H200: its capacity as built is used, and said
    h200 = figures(WindowSettings(hardware="h200"))
    hbm = default_catalog()["h200"].hbm
    assert hbm.visible_capacity_bytes is None
    assert h200["figures"]["capacity"]["visible"] == hbm.capacity_bytes
    assert "has as built (the catalog gives no figure for what programs see" in h200["facts"][0]
    with pytest.raises(WidgetOptionError, match="option 'memory_utilisation'"):
        door.settings("roofline-window", {"memory_utilisation": 1.5})
    # seeded: a share above 1 in the data file, refused in one line naming the field
    bad = tmp_path / "serving.toml"
    from roofline.model.datafile import DATA_DIR
    good = (DATA_DIR / "serving.toml").read_text(encoding="utf-8")
    bad.write_text(good.replace("value = 0.9", "value = 1.5"), encoding="utf-8")
    with pytest.raises(RooflineError, match=r"memory_utilisation.*value") as e:
        serving.load_memory_utilisation(bad)
    assert "\n" not in str(e.value)


def test_the_launch_gaps_are_the_data_file_s():
    # graphs: the walkthrough's 3.4 µs per kernel as a graph less the kernel's 2.9 µs = 0.5 µs;
    # eager: the round 4 µs inside its overlapped-to-synchronised range (data/overhead.toml)
    o = load_launch()
    assert o.mode_seconds("graphs") == 5e-7 == pytest.approx(3.4e-6 - 2.9e-6, rel=1e-9)
    assert o.mode_seconds("eager") == 4e-6
    assert WindowSettings().launch == "graphs"


def test_llama_step_by_hand_in_both_launch_modes(llama, llama_eager):
    # At decode every weight but the embedding table is read once per step (the embedding reads
    # B rows): 2 B × (6,738,415,616 − 32,000 × 4,096) = 13.21 GB, plus B × 2 GiB of KV cache,
    # over 3.35 TB/s; plus 419 launches × the mode's gap: 0.2095 ms as CUDA graphs (0.5 µs),
    # 1.676 ms eager (4 µs). Activations add well under 1 %.
    launches = by_budget("llama-2-7b", 1)["budget"].launches
    assert launches == 419
    weights_read = 2 * (6_738_415_616 - 32_000 * 4096)
    for figs, gap in ((llama, 0.5e-6), (llama_eager, 4e-6)):
        assert figs["figures"]["launch_s"] == gap
        for batch in (1, 29):
            hand = (weights_read + batch * 2 ** 31) / 3.35e12 + launches * gap
            got = next(p for p in figs["figures"]["series"] if p["batch"] == batch)["step_s"]
            assert got == pytest.approx(hand, rel=5e-3), (gap, batch)
    # batch 1: (13.21 GB + 2.15 GB) / 3.35 TB/s = 4.586 ms of roofline time, then
    #   graphs: + 0.210 ms = 4.80 ms per token, 1 / 4.80 ms = 208 tokens/s
    #   eager:  + 1.676 ms = 6.26 ms per token, 160 tokens/s
    one, one_eager = llama["figures"]["batch_one"], llama_eager["figures"]["batch_one"]
    assert one["step_s"] == pytest.approx(4.80e-3, abs=5e-6)
    assert round(one["tokens_per_s"]) == 208 and one["regime"] == "memory"
    assert one_eager["step_s"] == pytest.approx(6.26e-3, abs=5e-6)
    assert round(one_eager["tokens_per_s"]) == 160 and one_eager["regime"] == "memory"
    # the two differ by exactly the gaps: 419 × 3.5 µs
    assert one_eager["step_s"] - one["step_s"] == pytest.approx(419 * 3.5e-6, rel=1e-9)


def test_qwen_step_by_hand_in_both_launch_modes(qwen, qwen_eager):
    # Batch 1 reads the attention (q 2048×4096, k and v 2048×512, o 4096×2048), the router
    # (2048×128) and 8 of 128 experts (3 × 2048 × 768 each) in each of 48 layers, and the LM head
    # (151,936 × 2048, untied): 3,041,656,832 parameters × 2 B = 6.083 GB, plus its KV cache
    # 2 × 48 × 4 × 128 × 2 B × 4,096 = 0.403 GB, over 3.35 TB/s = 1.936 ms. 819 launches:
    #   graphs: + 0.410 ms = 2.35 ms per token; memory (1.94 ms) outweighs the gaps
    #   eager:  + 3.276 ms = 5.21 ms per token; the gaps (63 %) outweigh memory: launch-bound
    attn = 2048 * 4096 + 2 * 2048 * 512 + 4096 * 2048
    params = 48 * (attn + 2048 * 128 + 8 * 3 * 2048 * 768) + 151_936 * 2048
    assert params == 3_041_656_832
    roof = (2 * params + 2 * 48 * 4 * 128 * 2 * CTX) / 3.35e12
    assert by_budget("qwen3-30b-a3b", 1)["budget"].launches == 819
    one, one_eager = qwen["figures"]["batch_one"], qwen_eager["figures"]["batch_one"]
    assert one["step_s"] == pytest.approx(roof + 819 * 0.5e-6, rel=5e-3)
    assert one_eager["step_s"] == pytest.approx(roof + 819 * 4e-6, rel=5e-3)
    assert round(one["step_s"] * 1e3, 2) == 2.35 and one["regime"] == "memory"
    assert round(one_eager["step_s"] * 1e3, 2) == 5.22 and one_eager["regime"] == "launch"
    assert [b["regime"] for b in qwen["figures"]["bands"]] == ["memory"]


def test_llama_is_never_compute_bound_at_4096(llama):
    # As B grows, FLOPs and bytes per sequence dominate: FLOPs per token 2 × (P − V·d) =
    # 13.21 GFLOP plus attention 2 × 2 × 32 layers × 4,096 × 4,096 = 2.15 GFLOP; bytes per
    # sequence the 2 GiB of KV cache. 15.36e9 / 2.147e9 = 7.15 FLOP/byte, against a ridge of
    # 989.4 TFLOP/s ÷ 3.35 TB/s = 295: attention's KV reads stay memory-bound at any batch,
    # and they alone outweigh the GEMMs' compute time once those turn compute-bound.
    c = llama["figures"]["crossover"]
    assert c["batch"] is None
    hand = (2 * (6_738_415_616 - 32_000 * 4096) + 4 * 32 * 4096 * 4096) / 2 ** 31
    assert c["ai_limit"] == pytest.approx(hand, rel=1e-2)
    assert [b["regime"] for b in llama["figures"]["bands"]] == ["memory"]
    assert by_budget("llama-2-7b", 4096)["regime"] == "memory"


def test_llama_cheapest_under_50_ms(llama, llama_eager):
    for W, launch, want in ((llama["figures"], "graphs", 0.656),
                            (llama_eager["figures"], "eager", 0.698)):
        # the step at the wall (29) is 22.8 ms (graphs) or 24.3 ms (eager) < 50 ms, so the wall
        # binds first
        assert W["latency_limit"] == 29 and W["best"]["batch"] == 29
        step = by_budget("llama-2-7b", 29, launch=launch)["step_s"]
        assert W["best"]["step_s"] == pytest.approx(step, rel=1e-12)
        # $3.00 per hour ÷ 3,600 s ÷ (29 / 22.83 ms = 1,270 tokens/s) × 10^6 = $0.656 per 1M
        # tokens as CUDA graphs; eager: 29 / 24.30 ms = 1,193 tokens/s, $0.698
        price = 3.00 / 3600 / (29 / step) * 1e6
        assert W["best"]["price_per_million"] == pytest.approx(price, rel=1e-12)
        assert round(price, 3) == want


# ---------------------------------------------------------------- Qwen3-30B-A3B by hand

def test_qwen_moe_wall_and_experts_touched(qwen):
    cfg = get_model("qwen3-30b-a3b")
    moe = cfg.moe
    assert (moe.experts, moe.top_k) == (128, 8)
    # every expert stays resident: 30.5 G parameters × 2 B = 61.06 GB of weights; KV per token
    # 2 × 48 layers × 4 KV heads × 128 × 2 B = 98,304 B → 402,653,184 B per sequence, plus
    # its working set 2 × max(3·2048 + 2·512, 2048 + 3·768) = 40,960 B (the MLP's f is the
    # routed rows': top_k × 768 = 6,144, so the attention side is the larger)
    weights = cfg.params * 2
    per_seq = 2 * 48 * 4 * 128 * 2 * CTX + serving.memory_terms(cfg, 2.0)["working_per_sequence"]
    # 0.9 × 85,520,809,984 B: (76.97 GB − 61.06 GB) ÷ 0.4027 GB = 39.5 → 39 sequences
    cap = 0.9 * 85_520_809_984
    assert math.floor((cap - weights) / per_seq) == 39 == qwen["figures"]["wall"]
    # the experts a batch reads: at B = 1 exactly top_k of them, E·(1 − (1 − k/E)^B) after
    assert moe.expected_experts(1) == pytest.approx(8)
    assert moe.expected_experts(39) == pytest.approx(128 * (1 - (120 / 128) ** 39))
    assert moe.expected_experts(39) > 115


def test_qwen_launched_eagerly_is_launch_bound_at_batch_one_and_two(qwen_eager):
    # At B = 1 the step reads 3.0 G parameters' bytes (6.1 GB: 1.94 ms of memory time) while
    # its 819 launches cost 4 µs each (3.28 ms): launch gaps are the largest part of the step.
    # By B = 3 the experts touched (22.5 of 128 per layer) make memory the largest part.
    W = qwen_eager["figures"]
    assert W["bands"][0] == {"from": 1, "to": 2, "regime": "launch"}
    assert W["bands"][1]["from"] == 3 and W["bands"][1]["regime"] == "memory"
    assert [by_budget("qwen3-30b-a3b", b, launch="eager")["regime"] for b in (1, 2, 3)] == [
        "launch", "launch", "memory"]
    assert W["batch_one"]["launch_share"] == pytest.approx(0.628, abs=5e-4)


def test_qwen_cheapest_under_50_ms(qwen_eager):
    W = qwen_eager["figures"]
    assert W["latency_limit"] == 39 and W["best"]["batch"] == 39
    step = by_budget("qwen3-30b-a3b", 39, launch="eager")["step_s"]
    price = 3.00 / 3600 / (39 / step) * 1e6
    assert W["best"]["price_per_million"] == pytest.approx(price, rel=1e-12)
    assert round(price, 3) == 0.530


def test_mbu_beside_mfu_by_hand(llama, llama_eager, capsys):
    # MBU = the bytes the step must read ÷ (step × 3.35 TB/s). Llama 2 7B at batch 1 must read
    # its weights but the embedding table, 13,214,687,232 B (the norms' 2 × 4,096 × 65 B are
    # under 0.01 %), and its 2 GiB of KV cache: 15,362,170,880 B.
    #   graphs: 15.36 GB ÷ (4.795 ms × 3.35 TB/s) = 95.6 %
    #   eager:  15.36 GB ÷ (6.265 ms × 3.35 TB/s) = 73.2 % (the "about 73 %")
    must = 2 * (6_738_415_616 - 32_000 * 4096) + 2 ** 31
    for figs, want in ((llama, 0.956), (llama_eager, 0.732)):
        one = figs["figures"]["batch_one"]
        assert one["must_read_bytes"] == pytest.approx(must, rel=1e-4)
        assert one["mbu"] == pytest.approx(must / (one["step_s"] * 3.35e12), rel=1e-4)
        assert round(one["mbu"], 3) == want
        assert all(0 < p["mbu"] < 1 for p in figs["figures"]["series"] if p["fits"])
        assert "MBU" in figs["facts"][3] and "mbu" in figs["figures"]["best"]
    assert cli.main(["window", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"mfu", "mbu"} <= set(doc["series"][0]) and "mbu" in doc["batch_one"]
    assert cli.main(["window"]) == 0
    header = next(line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("batch"))
    assert header.split()[3:5] == ["MFU", "MBU"]


# ---------------------------------------------------------------- the KV cache's own precision

def test_fp8_weights_keep_a_bf16_kv_cache_unless_told():
    # Llama 2 7B in fp8: 6,738,415,616 B of weights. Per sequence, 4,096 tokens of KV cache:
    # 2 × 32 × 32 × 128 × 4,096 = 1 Gi elements, 2 GiB in bf16 (the default) or 1 GiB in fp8,
    # plus the working set at the weights' 1 B: max(3·4096 + 2·4096, 4096 + 3·11008) = 37,120 B.
    # (0.9 × 85,520,809,984 − 6,738,415,616) ÷ (2,147,483,648 + 37,120) = 32.7 → 32 sequences;
    # with an fp8 cache ÷ (1,073,741,824 + 37,120) = 65.4 → 65 (the whole visible HBM: 36, 73)
    cap, weights, working = 0.9 * 85_520_809_984, 6_738_415_616, 37_120
    bf16 = figures(WindowSettings(model="llama-2-7b", precision="fp8"))
    fp8 = figures(WindowSettings(model="llama-2-7b", precision="fp8", kv_precision="fp8"))
    assert WindowSettings().kv_precision == "bf16"
    assert (cap - weights) // (2 ** 31 + working) == 32 == bf16["figures"]["wall"]
    assert (cap - weights) // (2 ** 30 + working) == 65 == fp8["figures"]["wall"]
    # the step reads the cache at its own precision: at B = 1 the bf16 cache costs 1 GiB more
    # than the fp8 one, 1,073,741,824 B / 3.35 TB/s = 0.3205 ms
    a, b = bf16["figures"]["batch_one"]["step_s"], fp8["figures"]["batch_one"]["step_s"]
    assert a - b == pytest.approx(2 ** 30 / 3.35e12, rel=1e-6)
    # the choice is stated, only where it is made
    assert not any("kept in FP8" in f for f in bf16["facts"])
    assert any("kept in FP8, a choice" in f for f in fp8["facts"])
    assert any("KV cache for 4,096 tokens in BF16 (2 GiB)" in f for f in bf16["facts"])
    # bf16 weights with a bf16 cache are the budget's step, batch by batch (the default)
    default = figures(WindowSettings(model="llama-2-7b"))["figures"]
    assert default["batch_one"]["step_s"] == pytest.approx(by_budget("llama-2-7b", 1)["step_s"],
                                                           rel=1e-9)


def test_each_kernel_is_sent_as_a_named_object():
    """window.mjs reads a kernel's terms by name, not by slot (roofline.model.serving's
    KernelTerms: three FLOP terms, three useful ones, four byte terms)."""
    from roofline.model.transformer import get_model
    from roofline.widgets.window.payload import kernel_rows
    rows = kernel_rows(get_model("qwen3-30b-a3b"), 2.0)
    assert rows and all(set(k) == {"count", "launches", "flops", "useful_flops", "bytes"}
                        and (len(k["flops"]), len(k["useful_flops"]), len(k["bytes"])) == (3, 3, 4)
                        for k in rows)
    assert any(k["bytes"][3] > 0 for k in rows)  # the MoE's experts: w, the fourth byte term


def test_seeded_bytes_growing_with_the_context_that_are_not_the_cache_are_refused():
    from roofline.widgets.window import payload as pl
    def kernel(b2):
        return {"count": 1, "launches": 1, "flops": [0.0] * 3, "useful_flops": [0.0] * 3,
                "bytes": [0.0, 0.0, b2, 0.0]}
    good = {"bf16": {"bytes_per_element": 2.0, "kernels": [kernel(4.0)],
                     "memory": {"per_sequence_per_token": 8.0}},
            "fp8": {"bytes_per_element": 1.0, "kernels": [kernel(2.0)],
                    "memory": {"per_sequence_per_token": 4.0}}}
    pl._check_kv_scales("toy", good)
    good["fp8"]["kernels"][0]["bytes"][2] = 3.0   # a B·C term that does not halve with the bytes
    with pytest.raises(AssertionError, match="not the KV cache alone"):
        pl._check_kv_scales("toy", good)
    with pytest.raises(WidgetOptionError, match="option 'kv_precision'"):
        door.settings("roofline-window", {"kv_precision": "int4"})


# ---------------------------------------------------------------- the JS against the budget

@pytest.mark.parametrize("model", ["llama-2-7b", "qwen3-30b-a3b"])
@pytest.mark.parametrize("launch", ["graphs", "eager"])
def test_every_batch_matches_the_budget(model, launch, llama, qwen, llama_eager, qwen_eager):
    W = {("llama-2-7b", "graphs"): llama, ("qwen3-30b-a3b", "graphs"): qwen,
         ("llama-2-7b", "eager"): llama_eager,
         ("qwen3-30b-a3b", "eager"): qwen_eager}[model, launch]["figures"]
    for p in W["series"][::7]:
        want = by_budget(model, p["batch"], launch=launch)
        assert p["step_s"] == pytest.approx(want["step_s"], rel=1e-9), p["batch"]
        assert p["mfu"] == pytest.approx(want["mfu"], rel=1e-9)
        assert p["regime"] == want["regime"] and p["fits"] == want["fits"]


def test_a_short_context_crosses_over_and_the_crossover_is_exact():
    # At 128 tokens of context Llama 3 8B (GQA: 8 KV heads) turns compute-bound: the first
    # batch whose compute-bound kernels outweigh the rest, checked one batch either side.
    W = figures(WindowSettings(model="llama-3-8b", context=128))["figures"]
    c = W["crossover"]
    assert c["batch"] is not None
    assert by_budget("llama-3-8b", c["batch"], 128)["regime"] == "compute"
    assert by_budget("llama-3-8b", c["batch"] - 1, 128)["regime"] != "compute"
    assert c["beyond_wall"] == (c["batch"] > W["wall"])


def test_the_cheapest_batch_is_the_largest_that_meets_the_budget():
    # tokens/s only grows with the batch (the step's time per sequence only falls), so the
    # cheapest batch within the budget is its largest: checked by brute force at 20 ms
    W = figures(WindowSettings(model="llama-3-8b", latency_ms=20))["figures"]
    limit = W["latency_limit"]
    assert 1 <= limit < W["wall"]
    assert by_budget("llama-3-8b", limit)["step_s"] <= 0.020 < by_budget("llama-3-8b",
                                                                          limit + 1)["step_s"]
    tps = [p["tokens_per_s"] for p in W["series"]]
    assert tps == sorted(tps)


# ---------------------------------------------------------------- terms, prices, options

def test_the_terms_refuse_a_kernel_list_they_cannot_express(monkeypatch):
    # seeded: a kernel whose bytes grow with the square of the batch is not of the form
    import roofline.model.serving as s
    real = s.step_kernels

    def squared(cfg, phase, batch, seq, b, fusions=frozenset(), **kw):
        ks, placed = real(cfg, phase, batch, seq, b, fusions, **kw)
        import dataclasses
        return [dataclasses.replace(ks[0], bytes=ks[0].bytes + batch ** 2)] + ks[1:], placed
    monkeypatch.setattr(s, "step_kernels", squared)
    with pytest.raises(AssertionError, match="the terms give"):
        s.coefficients(get_model("llama-2-7b"), 2.0)


def test_seeded_a_singular_fit_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(serving, "FIT_AT", ((1, 1024), (1, 1024), (3, 1024), (1, 1024)))
    with pytest.raises(AssertionError, match="do not determine the terms"):
        serving.coefficients(get_model("llama-2-7b"), 2.0)


def test_prices_name_their_source_and_a_bad_file_names_the_field(tmp_path):
    prices = serving.load_prices(hardware_ids=set(default_catalog().accelerators))
    p = prices["h100-sxm"]
    assert p.usd_per_hour == 3.00 and p.range_usd_per_hour == (2.50, 3.50)
    assert p.date == "2026-05" and p.url.startswith("https://")
    bad = tmp_path / "prices.toml"
    bad.write_text('schema_version = 1\n[price.h100-sxm]\nusd_per_hour = 9.0\n'
                   'range_usd_per_hour = [2.5, 3.5]\nbasis = "derived"\ntier = "x"\n'
                   'date = "2026-05"\nsource = "S"\nnote = ""\n'
                   '[sources]\nS = { title = "t", url = "https://example.org" }\n')
    with pytest.raises(RooflineError, match=r"price\.h100-sxm.*range_usd_per_hour"):
        serving.load_prices(bad)


def test_options_errors_name_the_option_and_a_chip_without_a_price_warns():
    with pytest.raises(WidgetOptionError, match="option 'context'"):
        door.settings("roofline-window", {"context": 0}, where="docs/a.md:3")
    with pytest.raises(WidgetOptionError, match="option 'precision'"):
        door.settings("roofline-window", {"hardware": "a100-sxm-80gb", "precision": "fp8"})
    seen = []
    door.settings("roofline-window", {"hardware": "l4"}, warn=lambda o, m: seen.append((o, m)))
    assert seen and seen[0][0] == "price" and "l4" in seen[0][1]


def test_cli_text_json_and_csv(capsys):
    assert cli.main(["window"]) == 0
    text = capsys.readouterr().out
    flat = " ".join(text.split())
    assert "Memory wall: B = 29" in flat and "$0.656 per 1M" in flat
    assert "launches: CUDA graphs (0.5 µs per kernel)" in text.splitlines()[0]
    assert cli.main(["window", "--model", "qwen3-30b-a3b", "--launch", "eager",
                     "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["wall"] == 39 and doc["bands"][0]["regime"] == "launch"
    assert doc["state"]["launch"] == "eager" and doc["launch_s"] == 4e-6
    assert cli.main(["window", "--launch", "warp"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "launch" in err and "graphs" in err
    assert cli.main(["window", "--format", "csv", "--latency", "20"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split(",")[:3] == ["batch", "step_s", "tokens_per_s"] and len(rows) > 20
    assert cli.main(["window", "--context", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "context" in err


def test_the_figure_passes_the_label_gate_at_every_width(llama, qwen):
    sys.path.insert(0, "tests")
    from svgcheck import drawings, svg_problems
    from roofline.widgets.window.block import STATIC
    from roofline.render.jsengine import call
    for F in (llama, qwen):
        drawn = call(STATIC, "windowFigure", F["payload"], F["payload"]["state"])["svg"]
        panels = drawings(drawn)
        assert len(panels) == 6  # three panels at two widths
        for svg in panels:
            assert svg_problems(svg) == []


def test_without_controls_the_block_is_the_figure_and_its_facts():
    # the lesson's copy: no form, no payload, no script; the same first frame as the live one
    html = door.render_widget("roofline-window", {"controls": False})
    live = door.render_widget("roofline-window", {})
    assert "<form" not in html and "<script" not in html
    assert "<form" in live and 'type="module"' in live
    def figure(h: str) -> str:
        return h[h.index('<div class="rl-window-figure">'):h.index('<p class="rl-window-key">')]
    assert figure(html) == figure(live)


def test_roofline_block_shows_in_a_notebook_and_saves_a_page_without_bokehjs(tmp_path):
    import roofline
    b = roofline.block("roofline-window", model="qwen3-30b-a3b")
    assert 'class="rl-window"' in b._repr_html_()
    page = b.save(tmp_path / "w.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "bokeh" not in page.lower()
    assert page.index("data-rl-hoist") < page.index("</head>")   # its style in <head>
    with pytest.raises(TypeError, match="roofline.figure"):
        roofline.block("roofline")
    with pytest.raises(WidgetOptionError, match="option 'context'"):
        roofline.block("roofline-window", context=0)


def test_every_batch_the_summary_names_is_a_row_and_json_holds_every_batch_to_the_wall(capsys):
    # Qwen3-30B-A3B launched eagerly: launch-bound for B 1–2, memory-bound for 3–39 (the wall,
    # the latency limit and the cheapest batch): each is a row, with the powers of two
    assert cli.main(["window", "--model", "qwen3-30b-a3b", "--launch", "eager"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("\nbatch"):].splitlines()[3:]
    batches = [int(line.split()[0].replace(",", "")) for line in table]
    assert batches == [1, 2, 3, 4, 8, 16, 32, 39, 64]
    # Llama 3 8B at 2,048 tokens: the wall, 226, is the latency limit and the cheapest batch
    assert cli.main(["window", "--model", "llama-3-8b", "--context", "2048"]) == 0
    out = capsys.readouterr().out
    assert "Memory wall: B = 226" in out and "\n  226 " in out
    # JSON and CSV: every integer batch from 1 to the wall, then the figure's batches past it
    assert cli.main(["window", "--model", "llama-3-8b", "--context", "2048",
                     "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    got = [p["batch"] for p in doc["series"]]
    assert got[:226] == list(range(1, 227)) and all(b > 226 for b in got[226:])
    assert got == sorted(got) and doc["series"][225]["fits"] and not doc["series"][226]["fits"]
    assert cli.main(["window", "--model", "llama-3-8b", "--context", "2048",
                     "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert [int(r.split(",")[0]) for r in rows[1:]] == got
    # past 4,096 sequences JSON keeps the figure's batches (and the wall), as the help says
    assert cli.main(["window", "--model", "llama-2-7b", "--context", "1", "--hardware",
                     "b200", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    got = [p["batch"] for p in doc["series"]]
    assert doc["wall"] > 4096 and got[:4096] == list(range(1, 4097)) and doc["wall"] in got
    assert cli.main(["window", "--help"]) == 0
    assert "every integer batch from 1 to the wall or 4,096" in " ".join(
        capsys.readouterr().out.split())


def test_the_latency_message_speaks_of_the_first_batch_that_fits():
    # Mixtral 8x7B's 87 GiB of bf16 weights do not fit the H100's 71.7 GiB: no batch fits, so
    # the budget is not "missed by batch 1"; a model that fits but is slow says batch 1 is the
    # first that fits
    mixtral = figures(WindowSettings(model="mixtral-8x7b"))
    assert mixtral["figures"]["wall"] == 0
    assert "No batch fits this chip, so none meets 50 ms per token." in mixtral["facts"]
    assert any(f.startswith("Batch 1, were it to fit:") for f in mixtral["facts"])
    slow = figures(WindowSettings(model="llama-2-7b", latency_ms=1))
    assert any(f.startswith("No batch meets 1 ms per token: batch 1, the first that fits, takes")
               for f in slow["facts"])


# ---------------------------------------------------------------- tensor parallelism

def test_llama_3_70b_at_tp_4_on_the_h100_by_hand():
    # Llama 3 70B (the bundled Llama 3 70B: Llama 3.1 70B's shapes, d 8,192, 80 layers, 8 KV
    # heads, FFN 28,672, vocab 128,256) split over 4 H100s, bf16, 4,096 tokens, CUDA graphs.
    W = figures(WindowSettings(model="llama-3-70b", tp=4))["figures"]
    assert W["tp"] == 4
    # the wall per chip: weights 70,553,706,496 × 2 B ÷ 4 = 35,276,853,248 B; KV cache per
    # sequence 2 × 80 × 8 × 128 × 2 B × 4,096 ÷ 4 (8 KV heads over 4 chips) = 335,544,320 B,
    # plus its working set 2 × max(3·8192 + 2·1024, 8192 + 3·28672) = 188,416 B (kept whole);
    # (0.9 × 85,520,809,984 − 35,276,853,248) ÷ 335,732,736 = 124.2 → 124 sequences per replica
    weights, kv, working = 70_553_706_496 * 2 / 4, 2 * 80 * 8 * 128 * 2 * CTX / 4, 188_416
    assert math.floor((0.9 * 85_520_809_984 - weights) / (kv + working)) == 124 == W["wall"]
    # batch 1: each chip reads a quarter of the weights but the embedding table, 2 B ×
    # (70,553,706,496 − 128,256 × 8,192) ÷ 4, and a quarter of the cache, over 3.35 TB/s
    # (10.48 ms); every chip launches the 1,043 kernels and 160 all-reduces, 0.5 µs each
    # (0.60 ms); the all-reduces move 2 × 80 × 2 (4 − 1) / 4 × 8,192 × 2 B per sequence over
    # NVLink 4's 450 GB/s per direction: 8.74 µs per sequence
    launches = by_budget("llama-3-70b", 1)["budget"].launches
    assert launches == 1043
    read = 2 * (70_553_706_496 - 128_256 * 8192) / 4
    comm = 160 * 1.5 * 8192 * 2 / 450e9
    one = W["batch_one"]
    hand = (read + kv) / 3.35e12 + (launches + 160) * 0.5e-6 + comm
    assert one["step_s"] == pytest.approx(hand, rel=5e-3)
    assert round(one["step_s"] * 1e3, 1) == 11.1
    assert one["comm_share"] == pytest.approx(comm / one["step_s"], rel=1e-9)
    # at the wall, the cheapest batch within 50 ms: B = 124 per replica, 25.0 ms per token;
    # all-reduces 124 × 8.74 µs = 1.08 ms, 4.34 % of the step; 124 ÷ 25.0 ms = 4,961 tokens/s
    # per replica, 1,240 per chip; a replica rents 4 chips at $3.00: $12 per hour ÷ 3,600 ÷
    # 4,961 × 10^6 = $0.672 per 1M tokens
    best = W["best"]
    assert best["batch"] == 124 and round(best["step_s"] * 1e3, 1) == 25.0
    assert best["comm_share"] == pytest.approx(124 * comm / best["step_s"], rel=1e-9)
    assert round(best["comm_share"] * 100, 2) == 4.34
    assert best["tokens_per_s_replica"] == pytest.approx(124 / best["step_s"], rel=1e-12)
    assert best["tokens_per_s"] == pytest.approx(best["tokens_per_s_replica"] / 4, rel=1e-12)
    assert round(best["tokens_per_s"]) == 1240
    assert best["price_per_million"] == pytest.approx(
        4 * 3.00 / 3600 / best["tokens_per_s_replica"] * 1e6, rel=1e-12)
    assert round(best["price_per_million"], 3) == 0.672


def test_a_model_that_does_not_fit_names_the_smallest_tp_that_does(capsys):
    # Llama 3 70B's 131 GiB of bf16 weights: not on one H100's 71.7 GiB, on two (65.7 GiB each)
    one = figures(WindowSettings(model="llama-3-70b"))
    assert one["figures"]["wall"] == 0 and one["figures"]["smallest_tp"] == 2
    assert "Split over 2 chips it fits: choose tensor parallelism 2 (tp)." in one["facts"][0]
    two = figures(WindowSettings(model="llama-3-70b", tp=2))["figures"]
    assert two["wall"] >= 1
    # Qwen3-30B-A3B has 4 KV heads: over 8 chips each head is kept on 2, so the cache per chip
    # is a quarter, not an eighth
    q8 = figures(WindowSettings(model="qwen3-30b-a3b", tp=8))
    q4 = figures(WindowSettings(model="qwen3-30b-a3b", tp=4))
    assert q8["figures"]["memory"]["per_sequence_per_token"] == \
        q4["figures"]["memory"]["per_sequence_per_token"]
    assert any("each kept on 2 chips" in f for f in q8["facts"])
    # options: tp ∈ {1, 2, 4, 8}, and only on a chip with a scale-up link
    with pytest.raises(WidgetOptionError, match="option 'tp'"):
        door.settings("roofline-window", {"tp": 3})
    with pytest.raises(WidgetOptionError, match="option 'tp'.*no scale-up link"):
        door.settings("roofline-window", {"tp": 2, "hardware": "l4"})
    assert cli.main(["window", "--model", "llama-3-70b", "--tp", "4", "--format", "csv"]) == 0
    head = capsys.readouterr().out.splitlines()[0].split(",")
    assert head[:6] == ["batch", "step_s", "tokens_per_s", "tokens_per_s_replica", "comm_share",
                        "mfu"]
