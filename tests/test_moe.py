"""MoE and MLA layers: the routing arithmetic, the ops a layer emits, the kernel list a step
launches, and the tokens slider's cost of a routed experts' GEMM."""

from __future__ import annotations

import pytest

from roofline import default_catalog, place
from roofline.model.architecture import DENSE, MOE
from roofline.model.budget import FUSIONS, budget
from roofline.model.kernels import step_kernels
from roofline.model.memory import kv_cache_bytes
from roofline.model.moe import MoE, expert_cost_coefficients
from roofline.model.tokens import critical_tokens
from roofline.model.transformer import get_model, layer_ops, model_ops
from roofline.widgets.roofline.payload import tokens_cost  # scene_tokens.mjs, run by the engine

H100 = default_catalog()["h100-sxm"]


def test_expected_experts_uniform_routing():
    moe = MoE(256, 8, 2048, 58)
    assert moe.expected_experts(1) == pytest.approx(8)        # one token: its k experts
    assert moe.expected_experts(2) == pytest.approx(256 * (1 - (1 - 8 / 256) ** 2))
    assert moe.expected_experts(10_000) == pytest.approx(256)  # a training step: all of them
    assert moe.tokens_per_expert(4096) == 4096 * 8 / 256


def test_moe_refuses_top_k_above_experts():
    with pytest.raises(ValueError, match="top_k"):
        MoE(8, 9, 1024, 1)


def test_batch_1_decode_reads_only_the_active_experts():
    cfg = get_model("deepseek-v3")
    ops = {o.name: o for o in layer_ops(cfg, "decode", 1, 4096, 2.0, kind=MOE)}
    one_expert = 2048 * 7168 * 2
    assert ops["experts_gate_proj"].bytes == pytest.approx(8 * one_expert + 8 * (2048 + 7168) * 2)
    # At batch 256 the step touches most of the 256 experts, not 8 per token.
    wide = {o.name: o for o in layer_ops(cfg, "decode", 256, 4096, 2.0, kind=MOE)}
    touched = (wide["experts_gate_proj"].bytes - 256 * 8 * (2048 + 7168) * 2) / one_expert
    assert touched == pytest.approx(cfg.moe.expected_experts(256)) and 250 < touched < 256


def test_expert_gemms_stay_memory_bound_e_over_k_times_longer():
    """The tokens-per-step rule for experts: a dense GEMM reaches the ridge at critical tokens
    T*; an expert sees T·k/E of them, so its GEMMs need T*·E/k tokens per step."""
    cfg = get_model("mixtral-8x7b")
    dense_t = critical_tokens(H100.peak_flops_per_s("bf16"), H100.hbm_bandwidth_bytes_per_s, 2)
    t_moe = cfg.moe.critical_tokens(dense_t)
    assert t_moe == pytest.approx(dense_t * 8 / 2)
    for tokens, bound in ((dense_t * 1.5, "memory"), (t_moe * 1.5, "compute")):
        ops = {o.name: o for o in layer_ops(cfg, "prefill", 1, int(tokens), 2.0)}
        assert place(ops["experts_up_proj"], H100, "bf16").bound == bound
        assert place(ops["o_proj"], H100, "bf16").bound == "compute"


def test_first_k_dense_layers_and_the_step_s_kernels_add_up():
    cfg = get_model("deepseek-v3")
    assert cfg.layer_groups() == [(DENSE, 3), (MOE, 58)]
    ops = model_ops(cfg, "decode", 4, 1024, 2.0)
    kernels, placed = step_kernels(cfg, "decode", 4, 1024, 2.0)
    assert sum(k.flops * k.count for k in kernels) == pytest.approx(
        sum(o.total_flops for o in ops))
    assert sum(k.bytes * k.count for k in kernels) == pytest.approx(
        sum(o.total_bytes for o in ops))
    # one middle layer stands for the layer: an MoE one, the most numerous kind
    assert "experts_up_proj" in {name for name, _, _ in placed}
    assert sum(1 for o in ops if o.name == "gate_proj") == 1  # the dense layers' MLP
    assert next(o for o in ops if o.name == "gate_proj").count == 3


def test_fusions_apply_only_where_a_layer_has_llama_s_order():
    """Gemma 2's norm after attention comes before the residual, so the 'norm' rule (a norm
    into the gate/up GEMMs that follow it) must not reach across the residual; an MoE layer
    has no gate_proj to fuse into; FlashAttention still fuses every layer's attention."""
    for model in ("gemma-2-9b", "mixtral-8x7b", "deepseek-v3"):
        cfg = get_model(model)
        kernels, _ = step_kernels(cfg, "train", 1, 512, 2.0, FUSIONS)
        names = [k.name for k in kernels if k.pass_ == "forward"]
        # three layers spelled out per kind of layer (first, middle × n - 2, last)
        assert sum(n == "attn_qk+attn_softmax+attn_sv" for n in names) == (
            3 * len(cfg.layer_groups())), model
        for k in kernels:
            if cfg.sandwich_norms:  # Gemma: that norm is the attention's output norm
                assert not {"post_attention_layernorm", "gate_proj"} <= set(k.parts), k.name
                assert not {"attn_residual", "gate_proj"} <= set(k.parts), k.name
            if {"experts_gate_proj", "router", "experts_up_proj"} & set(k.parts):
                assert len(k.parts) == 1, k.name
    # Llama's order still fuses: the norm into q/k/v, SiLU·mul into gate/up.
    llama = {k.name for k in step_kernels(get_model("llama-3.1-8b"), "decode", 1, 64, 2.0,
                                          FUSIONS)[0]}
    assert "input_layernorm+q_proj+k_proj+v_proj" in " ".join(llama)
    assert any("gate_proj+up_proj+act_fn" in n for n in llama)


def test_mla_decode_attends_in_the_latent_and_caches_it():
    cfg = get_model("deepseek-v3")
    assert cfg.attention_params == 187_107_328  # q_a, q_b, kv_a, kv_b, o and two norms
    ops = {o.name: o for o in layer_ops(cfg, "decode", 1, 4096, 2.0, flash=True)}
    att = ops["attention"]
    # K and V are one tensor: 4096 cached latents of 512 + 64, read once; Q and O per head.
    assert att.bytes == (128 * (576 + 512) + 4096 * 576) * 2
    assert "kv_b_proj" not in ops and {"q_absorb", "out_absorb"} <= set(ops)
    train = {o.name: o for o in layer_ops(cfg, "train", 1, 512, 2.0)}
    assert "kv_b_proj" in train and train["attn_qk"].shape["kv_heads"] == 128
    assert kv_cache_bytes(cfg, 1, 4096, 2.0) == 61 * 576 * 4096 * 2


def test_a_moe_step_budgets_and_reports_active_parameters(capsys):
    from roofline.cli import main
    cfg = get_model("qwen3-30b-a3b")
    bg = budget(cfg, "decode", 8, 4096, H100, "bf16", 2.0, frozenset(FUSIONS))
    assert 0 < bg.mfu_upper_bound < 0.05
    assert main(["budget", "--model", "qwen3-30b-a3b", "--phase", "decode", "--batch", "8",
                 "--format", "json"]) == 0
    import json
    d = json.loads(capsys.readouterr().out)
    assert d["params_total"] == cfg.params and d["params_active"] == cfg.params_active
    assert d["flops_per_token"] == pytest.approx(2 * (cfg.params_active - 151936 * 2048))


@pytest.mark.parametrize("tokens", [1, 2, 7, 64, 4096])
def test_tokens_slider_cost_of_routed_experts_matches_the_layer(tokens):
    cfg = get_model("mixtral-8x7b")
    one = {o.name: o for o in layer_ops(cfg, "decode", 1, 1, 2.0)}
    at = {o.name: o for o in layer_ops(cfg, "decode", tokens, 1, 2.0)}
    coeffs = expert_cost_coefficients(one["experts_down_proj"])
    flops, bytes_ = tokens_cost(coeffs, tokens)
    assert flops == pytest.approx(at["experts_down_proj"].flops)
    assert bytes_ == pytest.approx(at["experts_down_proj"].bytes)
    assert tokens_cost([1.0, 2.0, 3.0, 4.0], tokens) == [1 + 2 * tokens, 3 + 4 * tokens]


def test_the_shared_case_file_is_the_model_s():
    """tests/cases/moe_tokens_cases.json: the routed experts' cost at T tokens, checked here
    against layer_ops and by tests/js/moe_tokens.test.mjs against scene_tokens.mjs."""
    import json
    from pathlib import Path
    data = json.loads((Path(__file__).parent / "cases" / "moe_tokens_cases.json").read_text())
    assert len(data["cases"]) == 36
    for c in data["cases"]:
        cfg = get_model(c["model"])
        op = {o.name: o for o in layer_ops(cfg, "decode", c["tokens"], 1, 2.0, kind=MOE)}[c["op"]]
        one = {o.name: o for o in layer_ops(cfg, "decode", 1, 1, 2.0, kind=MOE)}[c["op"]]
        assert c["cost"] == [op.flops, op.bytes] and c["coeffs"] == expert_cost_coefficients(one)
        assert tokens_cost(c["coeffs"], c["tokens"]) == pytest.approx(c["cost"], rel=1e-12)
