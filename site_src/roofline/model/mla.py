"""Multi-head latent attention (DeepSeek-V2/V3, Hugging Face `deepseek_v3` naming).

Queries and keys/values go through low-rank bottlenecks: q = W_qb · norm(W_qa · x) (rank
q_lora_rank; 0: one full-rank W_q), and the cache holds only c = norm(W_kva · x), a
kv_lora_rank latent per token, plus one shared qk_rope_head_dim RoPE key (decoupled RoPE: the
position signal rides in its own dimensions, so the latent stays position-free and can be
cached). Per head, keys are W_uk · c (qk_nope_head_dim) beside the shared RoPE key, and values
W_uv · c (v_head_dim).

Conventions (stated once, used everywhere):
- Training and prefill use the expanded form: kv_b_proj expands the latent to every head's
  keys and values, then ordinary attention with H query and H key/value heads (qk width
  nope + rope, v width v_head_dim).
- Decode uses the absorbed form (DeepSeek-V2 §2.1.2): W_uk is applied to the query and W_uv to
  the output, so attention runs over the cached latent itself, every head reading the same
  kv_lora_rank + rope values per token: multi-query attention with K = V = the latent.
- The KV cache per token per layer is kv_lora_rank + qk_rope_head_dim elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline.errors import RooflineError
from roofline.model.ops import (GEMM, Conventions, Op, attention_fused, attention_unfused, gemm,
    rmsnorm)


@dataclass(frozen=True)
class MLA:
    q_lora_rank: int
    """0: queries projected at full rank (DeepSeek-V2-Lite)."""
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int

    def __post_init__(self) -> None:
        for key in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            value = getattr(self, key)
            if not (isinstance(value, int) and value > 0):
                raise RooflineError(f"must be a positive integer, got {value!r}", field=key)
        if not (isinstance(self.q_lora_rank, int) and self.q_lora_rank >= 0):
            raise RooflineError(f"must be an integer >= 0, got {self.q_lora_rank!r}",
                                field="q_lora_rank")

    @property
    def qk_head_dim(self) -> int:
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    @property
    def cache_elements(self) -> int:
        """Cached per token per layer: the latent and the shared RoPE key."""
        return self.kv_lora_rank + self.qk_rope_head_dim

    def params(self, d: int, heads: int) -> int:
        """q (a, its norm, b), kv_a with its norm, kv_b, o: one layer's attention weights."""
        r_q, r_kv = self.q_lora_rank, self.kv_lora_rank
        q = (d * r_q + r_q + r_q * heads * self.qk_head_dim if r_q
             else d * heads * self.qk_head_dim)
        kv = (d * (r_kv + self.qk_rope_head_dim) + r_kv
              + r_kv * heads * (self.qk_nope_head_dim + self.v_head_dim))
        return q + kv + heads * self.v_head_dim * d

    def ops(self, phase: str, batch: int, seq: int, d: int, heads: int, b: float, *,
            flash: bool = False, conv: Conventions = Conventions()) -> list[Op]:
        """The attention block of one layer, from the normalised input to o_proj."""
        tokens = batch * (1 if phase == "decode" else seq)
        q_len = 1 if phase == "decode" else seq
        r_q, r_kv, rope = self.q_lora_rank, self.kv_lora_rank, self.qk_rope_head_dim
        nope, dv = self.qk_nope_head_dim, self.v_head_dim
        ops = ([gemm(tokens, r_q, d, b, "q_a_proj"), rmsnorm(tokens, r_q, b, "q_a_layernorm", conv),
                gemm(tokens, heads * self.qk_head_dim, r_q, b, "q_b_proj")] if r_q
               else [gemm(tokens, heads * self.qk_head_dim, d, b, "q_proj")])
        ops += [gemm(tokens, r_kv + rope, d, b, "kv_a_proj_with_mqa"),
                rmsnorm(tokens, r_kv, b, "kv_a_layernorm", conv)]
        if phase == "decode":
            attn = dict(heads=heads, kv_heads=1, head_dim=r_kv + rope, v_head_dim=r_kv,
                        kv_shared=True)
            ops.append(head_matmul(tokens, heads, r_kv, nope, b, "q_absorb"))
        else:
            attn = dict(heads=heads, kv_heads=heads, head_dim=self.qk_head_dim, v_head_dim=dv)
            ops.append(gemm(tokens, heads * (nope + dv), r_kv, b, "kv_b_proj"))
        args = (batch, attn["heads"], attn["kv_heads"], attn["head_dim"], q_len, seq, b)
        extra = {"v_head_dim": attn["v_head_dim"], "kv_shared": attn.get("kv_shared", False)}
        ops += ([attention_fused(*args, name="attention", conv=conv, **extra)] if flash
                else attention_unfused(*args, prefix="attn", conv=conv, **extra))
        if phase == "decode":
            ops.append(head_matmul(tokens, heads, dv, r_kv, b, "out_absorb"))
        ops.append(gemm(tokens, d, heads * dv, b, "o_proj"))
        return ops


def head_matmul(tokens: float, heads: float, n: float, k: float, b: float, name: str) -> Op:
    """One small matmul per head, batched: [T × k] · [k × n] for each of `heads` heads (MLA's
    absorbed W_uk and W_uv at decode)."""
    if not all(isinstance(v, (int, float)) and v > 0 for v in (tokens, heads, n, k, b)):
        raise RooflineError("shape must be positive", entry=name, field="heads")
    return Op(name, "gemm", GEMM, 2 * heads * tokens * n * k,
              heads * (tokens * k + k * n + tokens * n) * b,
              {"heads": heads, "m": tokens, "n": n, "k": k}, b)
