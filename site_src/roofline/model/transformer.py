"""Transformer configs expanded into per-layer op lists (Hugging Face naming): the lesson's
named configs (data/models.toml), the bundled catalog of popular models
(data/model_catalog.toml) and any Hugging Face config.json (roofline.model.hfconfig).
The architecture and its parameter count are roofline.model.architecture's."""

from __future__ import annotations

import functools
from pathlib import Path

from roofline.model import datafile as _toml
from roofline.model.architecture import DENSE, MOE, TransformerConfig
from roofline.model.datafile import Fields
from roofline.errors import RooflineError, unknown_id
from roofline.model.ops import (Conventions, Op, adamw, attention_fused, attention_unfused,
    embedding, gemm, residual_add, rmsnorm, activation)
from roofline.model import moe as _moe

PHASES = ("train", "prefill", "decode")
__all__ = ["PHASES", "TransformerConfig", "check_run", "default_models", "get_model",
           "layer_ops", "load_models", "model_ops", "known_models"]


def check_run(phase: str, batch: int, seq: int) -> None:
    """A phase we model and a positive whole batch and sequence length, else a RooflineError
    naming the field (layer_ops and roofline.model.budget.budget both check their run with it)."""
    if phase not in PHASES:
        raise unknown_id("phase", phase, list(PHASES))
    for key, value in (("batch", batch), ("seq", seq)):
        if not (isinstance(value, int) and value > 0):
            raise RooflineError(f"must be a positive integer, got {value!r}", field=key)


def layer_ops(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
              *, flash: bool = False, conv: Conventions = Conventions(),
              kind: str | None = None) -> list[Op]:
    """The forward ops of one decoder layer. train/prefill: batch × seq tokens attend over seq;
    decode: batch new tokens attend over a KV cache of seq tokens. `kind`: "dense" or "moe"
    (default: the kind most of the model's layers are)."""
    check_run(phase, batch, seq)
    kind = kind or cfg.main_layer_kind
    if kind not in (DENSE, MOE) or (kind == MOE and cfg.moe is None):
        raise RooflineError(f"{cfg.name} has no {kind!r} layers", field="kind",
                            valid=[k for k, _ in cfg.layer_groups()])
    tokens = batch * (1 if phase == "decode" else seq)
    d = cfg.d_model
    ops = [rmsnorm(tokens, d, b, "input_layernorm", conv),
           *_attention_ops(cfg, phase, batch, seq, b, flash, conv)]
    if cfg.sandwich_norms:
        ops.append(rmsnorm(tokens, d, b, "post_attention_layernorm", conv))
    ops.append(residual_add(tokens * d, b, "attn_residual"))
    ops.append(rmsnorm(tokens, d, b, "pre_feedforward_layernorm" if cfg.sandwich_norms
                       else "post_attention_layernorm", conv))
    ops += _moe_mlp(cfg, tokens, b, conv) if kind == MOE else _mlp(cfg, tokens, cfg.ffn, b, conv)
    if cfg.sandwich_norms:
        ops.append(rmsnorm(tokens, d, b, "post_feedforward_layernorm", conv))
    ops.append(residual_add(tokens * d, b, "mlp_residual"))
    return ops


def _attention_ops(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
                   flash: bool, conv: Conventions) -> list[Op]:
    """From the normalised input to o_proj: grouped-query attention, or MLA."""
    if cfg.mla is not None:
        return cfg.mla.ops(phase, batch, seq, cfg.d_model, cfg.heads, b, flash=flash, conv=conv)
    tokens = batch * (1 if phase == "decode" else seq)
    q_len = 1 if phase == "decode" else seq
    d, kv = cfg.d_model, cfg.kv_dim
    attn_args = (batch, cfg.heads, cfg.kv_heads, cfg.head_dim, q_len, seq, b)
    attention = ([attention_fused(*attn_args, name="attention", conv=conv)] if flash
                 else attention_unfused(*attn_args, prefix="attn", conv=conv))
    qk_norm = ([rmsnorm(tokens * cfg.heads, cfg.head_dim, b, "q_norm", conv),
                rmsnorm(tokens * cfg.kv_heads, cfg.head_dim, b, "k_norm", conv)]
               if cfg.qk_norm else [])
    return [gemm(tokens, cfg.q_dim, d, b, "q_proj"), gemm(tokens, kv, d, b, "k_proj"),
            gemm(tokens, kv, d, b, "v_proj"), *qk_norm, *attention,
            gemm(tokens, d, cfg.q_dim, b, "o_proj")]


def _act(cfg: TransformerConfig) -> str:
    return "gelu_mul" if cfg.mlp_act == "gelu" else "silu_mul"


def _mlp(cfg: TransformerConfig, tokens: int, f: int, b: float, conv: Conventions,
         prefix: str = "") -> list[Op]:
    """A gated MLP: gate and up projections, the activation times the gate, down."""
    d = cfg.d_model
    return [gemm(tokens, f, d, b, f"{prefix}gate_proj"), gemm(tokens, f, d, b, f"{prefix}up_proj"),
            activation(tokens * f, b, _act(cfg), f"{prefix}act_fn", conv),
            gemm(tokens, d, f, b, f"{prefix}down_proj")]


def _moe_mlp(cfg: TransformerConfig, tokens: int, b: float, conv: Conventions) -> list[Op]:
    """The router, the routed experts (roofline.model.moe), their combine, the shared experts."""
    moe, d, f = cfg.moe, cfg.d_model, cfg.moe.expert_ffn
    ops = [gemm(tokens, moe.experts, d, b, "router"),
           _moe.expert_gemm(moe, tokens, f, d, b, "experts_gate_proj"),
           _moe.expert_gemm(moe, tokens, f, d, b, "experts_up_proj"),
           activation(tokens * moe.top_k * f, b, _act(cfg), "experts_act_fn", conv),
           _moe.expert_gemm(moe, tokens, d, f, b, "experts_down_proj"),
           _moe.combine(moe, tokens, d, b)]
    if moe.shared_ffn:
        ops += _mlp(cfg, tokens, moe.shared_ffn, b, conv, prefix="shared_")
    return ops


def model_ops(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
              *, flash: bool = False, conv: Conventions = Conventions()) -> list[Op]:
    """One forward step: embedding, each kind of layer × its count, final norm, lm_head; and for
    training the AdamW step over all parameters (fp32 state)."""
    tokens = batch * (1 if phase == "decode" else seq)
    ops = [embedding(tokens, cfg.d_model, b, "embed_tokens")]
    for kind, count in cfg.layer_groups():
        ops += [op.scaled(count) for op in layer_ops(cfg, phase, batch, seq, b, flash=flash,
                                                     conv=conv, kind=kind)]
    ops += [rmsnorm(tokens, cfg.d_model, b, "norm", conv),
            gemm(tokens, cfg.vocab, cfg.d_model, b, "lm_head")]
    if phase == "train":
        ops.append(adamw(cfg.params, 4.0, "adamw", conv))
    return ops


def load_models(path: Path | str | None = None) -> dict[str, TransformerConfig]:
    path = Path(path) if path else _toml.DATA_DIR / "models.toml"
    data = _toml.load(path)
    where = str(path)
    out = {}
    for mid, raw in data.get("model", {}).items():
        f = Fields(raw, where=where, entry=mid)
        ints = {k: int(f.positive(k, minimum=1)) for k in
                ("d_model", "heads", "kv_heads", "ffn", "layers", "vocab")}
        cfg = TransformerConfig(mid, f.get("name", str), source=f.get("source", str), **ints)
        f.finish()
        if cfg.d_model % cfg.heads or cfg.heads % cfg.kv_heads:
            raise RooflineError("heads must divide d_model and kv_heads must divide heads",
                                where=where, entry=mid, field="heads")
        out[mid] = cfg
    if not out:
        raise RooflineError("no [model.*] tables", where=where, field="model")
    return out


def default_models() -> dict[str, TransformerConfig]:
    """The bundled models, cached per (path, mtime_ns, size): an edit is seen at once."""
    return dict(_cached_models(_toml.file_key(_toml.DATA_DIR / "models.toml")))


@functools.lru_cache(maxsize=4)
def _cached_models(key: tuple[str, int, int]) -> dict[str, TransformerConfig]:
    return load_models(key[0])


def known_models() -> dict[str, str]:
    """Every model a name reaches: the lesson's and the bundled catalog's, id -> name."""
    from roofline.model import hfconfig
    return {**{m: c.name for m, c in default_models().items()},
            **{m: c.name for m, c in hfconfig.bundled_models().items()}}


def get_model(model_id: str | Path) -> TransformerConfig:
    """A model by name (the lesson's, then the bundled catalog's) or by path to a Hugging Face
    config.json (relative to the working directory)."""
    from roofline.model import hfconfig
    if isinstance(model_id, Path):
        return hfconfig.load_config(model_id)
    models = default_models()
    key = str(model_id)
    if key in models:
        return models[key]
    bundled = hfconfig.bundled_models()
    if key in bundled:
        return bundled[key]
    if hfconfig.looks_like_path(key):
        return hfconfig.load_config(Path(key))
    raise unknown_id("model", key, [*models, *bundled, "or a path to a config.json"])
