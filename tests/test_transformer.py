"""Transformer configs expand into Hugging Face-named per-layer ops."""

from __future__ import annotations

import pytest

from roofline import RooflineError, default_catalog, place
from roofline.model.transformer import default_models, get_model, layer_ops, model_ops

PROJ = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def test_configs_are_the_hugging_face_values():
    m = default_models()
    assert set(m) == {"llama-2-7b", "llama-3-8b", "llama-3-70b"}
    assert (m["llama-2-7b"].d_model, m["llama-2-7b"].ffn, m["llama-2-7b"].kv_heads) == (4096, 11008, 32)
    assert (m["llama-3-70b"].layers, m["llama-3-70b"].kv_heads) == (80, 8)
    # parameter counts land where the names say (within 5 %)
    assert m["llama-2-7b"].params == pytest.approx(6.74e9, rel=0.05)
    assert m["llama-3-8b"].params == pytest.approx(8.03e9, rel=0.05)
    assert m["llama-3-70b"].params == pytest.approx(70.6e9, rel=0.05)


@pytest.mark.parametrize("model", ["llama-2-7b", "llama-3-8b", "llama-3-70b"])
def test_linear_layers_memory_bound_in_decode_compute_bound_in_prefill(model):
    cfg, hw = get_model(model), default_catalog()["h100-sxm"]
    decode = {o.name: place(o, hw, "bf16") for o in layer_ops(cfg, "decode", 1, 1024, 2.0)}
    prefill = {o.name: place(o, hw, "bf16") for o in layer_ops(cfg, "prefill", 1, 1024, 2.0)}
    for name in PROJ:
        assert decode[name].bound == "memory", name
        assert prefill[name].bound == "compute", name


def test_model_ops_scale_layers_and_add_optimizer_for_training():
    cfg = get_model("llama-2-7b")
    train = model_ops(cfg, "train", 1, 1024, 2.0)
    assert [o.name for o in train][-1] == "adamw"
    assert next(o for o in train if o.name == "q_proj").count == cfg.layers
    assert "adamw" not in [o.name for o in model_ops(cfg, "decode", 1, 1024, 2.0)]


@pytest.mark.parametrize("kwargs, field", [({"phase": "serve"}, "phase"), ({"batch": 0}, "batch"),
                                           ({"seq": -4}, "seq")])
def test_bad_runs_are_refused(kwargs, field):
    args = {"phase": "train", "batch": 1, "seq": 8, **kwargs}
    with pytest.raises(RooflineError, match=field):
        layer_ops(get_model("llama-2-7b"), args["phase"], args["batch"], args["seq"], 2.0)


def test_unknown_model_lists_the_valid_ids():
    with pytest.raises(RooflineError, match="llama-2-7b"):
        get_model("gpt-5")
