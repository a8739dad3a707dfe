"""A decoder-only transformer's architecture and its parameter count (no ops here: the ops of a
layer are roofline.model.transformer's; reading a Hugging Face config.json is hfconfig's).

Counting conventions (stated once, used everywhere):
- Every weight matrix, bias and norm vector counts; rotary tables and buffers do not.
- Embeddings: vocab × d_model for the input, and again for the output head unless tied.
- `params` is the main model; multi-token-prediction (MTP) layers are counted apart
  (`mtp_params`): they share the embedding and output head, and serve training and speculative
  decoding, not the ordinary next-token step.
- `params_active`: what one token's forward pass runs through: every parameter except the
  routed experts it was not sent to (the embedding counted whole, as model cards do).
- FLOPs per token: 2 × the active parameters a matmul uses (the input embedding is a lookup,
  no FLOPs), attention's own FLOPs apart (they grow with the context).
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline.model.mla import MLA
from roofline.model.moe import MoE

DENSE, MOE = "dense", "moe"


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
    attn_head_dim: int = 0
    """Width of a query/key/value head; 0: d_model / heads (Gemma 2 and Qwen3 set it apart)."""
    tied_embeddings: bool = False
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = False
    """An RMSNorm over each query and key head (Qwen3)."""
    mlp_act: str = "silu"
    sandwich_norms: bool = False
    """Norms after attention and the MLP as well as before (Gemma 2): four per layer."""
    moe: MoE | None = None
    mla: MLA | None = None
    mtp_layers: int = 0
    model_type: str = "llama"
    notes: tuple[str, ...] = ()
    """What the model does not model or assumed, said wherever the model is used."""

    # -- shapes

    @property
    def head_dim(self) -> int:
        return self.attn_head_dim or self.d_model // self.heads

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def moe_layers(self) -> int:
        return self.moe.moe_layers if self.moe else 0

    @property
    def dense_layers(self) -> int:
        return self.layers - self.moe_layers

    def layer_groups(self) -> list[tuple[str, int]]:
        """(kind, how many) of the decoder layers, dense first: every layer of a kind costs the
        same (DeepSeek-V3: 3 dense, then 58 MoE)."""
        return [(k, n) for k, n in ((DENSE, self.dense_layers), (MOE, self.moe_layers)) if n]

    @property
    def main_layer_kind(self) -> str:
        """The kind most layers are (the one `ops --model` shows)."""
        return MOE if self.moe_layers >= self.dense_layers else DENSE

    # -- parameters

    @property
    def attention_params(self) -> int:
        """One layer's attention weights (and biases, and per-head q/k norms)."""
        d = self.d_model
        if self.mla is not None:
            return self.mla.params(d, self.heads)
        out = 2 * d * self.q_dim + 2 * d * self.kv_dim
        out += (self.q_dim + 2 * self.kv_dim) if self.qkv_bias else 0
        out += d if self.o_bias else 0
        return out + (2 * self.head_dim if self.qk_norm else 0)

    @property
    def norm_params(self) -> int:
        return (4 if self.sandwich_norms else 2) * self.d_model

    def dense_mlp_params(self, ffn: int | None = None) -> int:
        f = self.ffn if ffn is None else ffn
        return 3 * self.d_model * f + ((2 * f + self.d_model) if self.mlp_bias else 0)

    def layer_params(self, kind: str, *, active: bool = False) -> int:
        if kind == MOE and self.moe is not None:
            mlp = (self.moe.active_params(self.d_model) if active
                   else self.moe.params(self.d_model))
        else:
            mlp = self.dense_mlp_params()
        return self.attention_params + self.norm_params + mlp

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.d_model * (1 if self.tied_embeddings else 2)

    def _total(self, *, active: bool) -> int:
        return (sum(n * self.layer_params(k, active=active) for k, n in self.layer_groups())
                + self.embedding_params + self.d_model)

    @property
    def params(self) -> int:
        """The main model's parameters (MTP layers apart)."""
        return self._total(active=False)

    @property
    def params_active(self) -> int:
        return self._total(active=True)

    @property
    def mtp_params(self) -> int:
        """DeepSeek-V3's MTP module, each: a decoder layer like the last one, the projection of
        [embedding; hidden] (2d × d) and three norms; embedding and head shared."""
        if not self.mtp_layers:
            return 0
        last = MOE if self.moe_layers else DENSE
        d = self.d_model
        return self.mtp_layers * (self.layer_params(last) + 2 * d * d + 3 * d)

    @property
    def flops_per_token(self) -> float:
        """Forward FLOPs per token from the active parameters: 2 × those a matmul uses (all
        but the input embedding, a lookup; a tied one is used once, as the output head)."""
        lookup = 0 if self.tied_embeddings else self.vocab * self.d_model
        return 2.0 * (self.params_active - lookup)

    # -- the KV cache

    @property
    def kv_elements_per_token_layer(self) -> int:
        """Cached per token per layer: K and V of each KV head, or MLA's latent + RoPE key."""
        if self.mla is not None:
            return self.mla.cache_elements
        return 2 * self.kv_heads * self.head_dim

    @property
    def kv_cache_elements_per_token(self) -> int:
        return self.layers * self.kv_elements_per_token_layer

    def weight_params_read(self, tokens: float) -> float:
        """Parameters a forward step of `tokens` tokens reads from HBM: all but the routed
        experts no token was sent to (expected, uniform routing; roofline.model.moe) and the
        input embedding rows not looked up."""
        rows = 0 if self.tied_embeddings else self.vocab - min(tokens, self.vocab)
        total = self.params - rows * self.d_model
        if self.moe is None:
            return float(total)
        d, moe = self.d_model, self.moe
        idle = moe.params(d) - moe.weight_params_touched(d, tokens)
        return float(total - self.moe_layers * idle)

    def summary(self) -> dict:
        """The figures `roofline models` and the JSON outputs report."""
        return {"model": self.id, "name": self.name, "model_type": self.model_type,
                "params_total": self.params, "params_active": self.params_active,
                "mtp_params": self.mtp_params, "mtp_layers": self.mtp_layers,
                "flops_per_token": self.flops_per_token,
                "kv_cache_elements_per_token": self.kv_cache_elements_per_token,
                "layers": self.layers, "dense_layers": self.dense_layers,
                "moe_layers": self.moe_layers,
                "experts": self.moe.experts if self.moe else None,
                "experts_per_token": self.moe.top_k if self.moe else None,
                "attention": "mla" if self.mla else ("mha" if self.kv_heads == self.heads
                                                     else "gqa"),
                "source": self.source, "notes": list(self.notes)}
