"""Named transformer configs expanded into per-layer op lists (Hugging Face Llama naming)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from roofline.model import datafile as _toml
from roofline.model.datafile import Fields
from roofline.errors import RooflineError, unknown_id
from roofline.model.ops import (Conventions, Op, adamw, attention_fused, attention_unfused,
    embedding, gemm, residual_add, rmsnorm, activation)

PHASES = ("train", "prefill", "decode")


@dataclass(frozen=True)
class TransformerConfig:
    id: str
    name: str
    d_model: int
    heads: int
    kv_heads: int
    ffn: int
    layers: int
    vocab: int
    source: str

    @property
    def head_dim(self) -> int:
        return self.d_model // self.heads

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def params_per_layer(self) -> float:
        d = self.d_model
        return d * d * 2 + 2 * d * self.kv_dim + 3 * d * self.ffn + 2 * d

    @property
    def params(self) -> float:
        return self.layers * self.params_per_layer + 2 * self.vocab * self.d_model + self.d_model


def check_run(phase: str, batch: int, seq: int) -> None:
    """A phase we model and a positive whole batch and sequence length, else a RooflineError
    naming the field (layer_ops and roofline.model.budget.budget both check their run with it)."""
    if phase not in PHASES:
        raise unknown_id("phase", phase, list(PHASES))
    for key, value in (("batch", batch), ("seq", seq)):
        if not (isinstance(value, int) and value > 0):
            raise RooflineError(f"must be a positive integer, got {value!r}", field=key)


def layer_ops(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
              *, flash: bool = False, conv: Conventions = Conventions()) -> list[Op]:
    """The forward ops of one decoder layer. train/prefill: batch × seq tokens attend over seq;
    decode: batch new tokens attend over a KV cache of seq tokens."""
    check_run(phase, batch, seq)
    tokens = batch * (1 if phase == "decode" else seq)
    q_len = 1 if phase == "decode" else seq
    d, kv, f = cfg.d_model, cfg.kv_dim, cfg.ffn
    attn_args = (batch, cfg.heads, cfg.kv_heads, cfg.head_dim, q_len, seq, b)
    attention = ([attention_fused(*attn_args, name="attention", conv=conv)] if flash
                 else attention_unfused(*attn_args, prefix="attn", conv=conv))
    return [
        rmsnorm(tokens, d, b, "input_layernorm", conv),
        gemm(tokens, d, d, b, "q_proj"),
        gemm(tokens, kv, d, b, "k_proj"),
        gemm(tokens, kv, d, b, "v_proj"),
        *attention,
        gemm(tokens, d, d, b, "o_proj"),
        residual_add(tokens * d, b, "attn_residual"),
        rmsnorm(tokens, d, b, "post_attention_layernorm", conv),
        gemm(tokens, f, d, b, "gate_proj"),
        gemm(tokens, f, d, b, "up_proj"),
        activation(tokens * f, b, "silu_mul", "act_fn", conv),
        gemm(tokens, d, f, b, "down_proj"),
        residual_add(tokens * d, b, "mlp_residual"),
    ]


def model_ops(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
              *, flash: bool = False, conv: Conventions = Conventions()) -> list[Op]:
    """One forward step: embedding, `layers` × the layer ops, final norm, lm_head; and for
    training the AdamW step over all parameters (fp32 state)."""
    tokens = batch * (1 if phase == "decode" else seq)
    ops = [embedding(tokens, cfg.d_model, b, "embed_tokens")]
    ops += [op.scaled(cfg.layers) for op in layer_ops(cfg, phase, batch, seq, b, flash=flash,
                                                      conv=conv)]
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


def get_model(model_id: str) -> TransformerConfig:
    models = default_models()
    if model_id not in models:
        raise unknown_id("model", model_id, list(models))
    return models[model_id]
