"""Mixture-of-experts layers: routed experts (top-k of E) and always-on shared experts.

Conventions (stated once, used everywhere):
- Routing is uniform and independent: each token picks k distinct experts out of E, every
  expert as likely as any other. A trained router is never this even, so the expected count of
  experts a step touches is an estimate (real routing touches fewer at small batches and leaves
  some experts busier than others).
- Tokens per expert = tokens × k ÷ E, on average, once every expert is touched. A step of T
  tokens touches E · (1 − (1 − k/E)^T) distinct experts in expectation; at T = 1 that is k.
- An expert GEMM's weights are read once per step for each expert touched; its rows are the
  T · k routed copies of the tokens (read in, written out). Gather/scatter of the routed rows
  is folded into those reads and writes.
- Shared experts are a dense gated MLP every token runs through (DeepSeek's n_shared_experts ×
  moe_intermediate_size, Qwen-MoE's shared_expert_intermediate_size).
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline.errors import RooflineError
from roofline.model.ops import GEMM, ELEMENTWISE, Op


@dataclass(frozen=True)
class MoE:
    """The MoE part of a config: `experts` routed experts of width `expert_ffn`, `top_k` per
    token, `shared_ffn` of always-on shared expert width (0: none), and how many of the decoder
    layers are MoE (`moe_layers`; the others are dense)."""
    experts: int
    top_k: int
    expert_ffn: int
    moe_layers: int
    shared_ffn: int = 0
    shared_gate: bool = False
    """Qwen-MoE's sigmoid gate on the shared expert (one d_model vector)."""
    router_bias: bool = False
    """DeepSeek-V3's per-expert score correction bias (E parameters)."""

    def __post_init__(self) -> None:
        for key in ("experts", "top_k", "expert_ffn", "moe_layers"):
            value = getattr(self, key)
            if not (isinstance(value, int) and value > 0):
                raise RooflineError(f"must be a positive integer, got {value!r}", field=key)
        if self.shared_ffn < 0:
            raise RooflineError(f"must be >= 0, got {self.shared_ffn!r}", field="shared_ffn")
        if self.top_k > self.experts:
            raise RooflineError(f"top_k ({self.top_k}) exceeds the {self.experts} experts",
                                field="top_k")

    def expected_experts(self, tokens: float) -> float:
        """Distinct experts a step of `tokens` tokens touches, in expectation under uniform
        routing: E · (1 − (1 − k/E)^T)."""
        return self.experts * (1.0 - (1.0 - self.top_k / self.experts) ** tokens)

    def tokens_per_expert(self, tokens: float) -> float:
        """Rows each expert GEMM gets on average once all are touched: T · k / E."""
        return tokens * self.top_k / self.experts

    def critical_tokens(self, dense_critical_tokens: float) -> float:
        """Tokens per step at which an expert GEMM reaches the ridge: a dense GEMM's critical
        tokens × E / k (each expert sees only k/E of the step's tokens)."""
        return dense_critical_tokens * self.experts / self.top_k

    # -- parameters of one MoE layer's MLP (the attention is the config's)

    def router_params(self, d: int) -> int:
        return self.experts * d + (self.experts if self.router_bias else 0)

    def shared_params(self, d: int) -> int:
        return 3 * d * self.shared_ffn + (d if self.shared_gate else 0)

    def params(self, d: int) -> int:
        """Every expert's gate, up and down projections, the shared experts and the router."""
        return (self.experts * 3 * d * self.expert_ffn + self.shared_params(d)
                + self.router_params(d))

    def active_params(self, d: int) -> int:
        """What one token runs through: k routed experts, the shared ones, the router."""
        return (self.top_k * 3 * d * self.expert_ffn + self.shared_params(d)
                + self.router_params(d))

    def weight_params_touched(self, d: int, tokens: float) -> float:
        """Parameters a step of `tokens` reads: the experts it touches (expected), plus the
        shared experts and the router."""
        return (self.expected_experts(tokens) * 3 * d * self.expert_ffn
                + self.shared_params(d) + self.router_params(d))


def expert_gemm(moe: MoE, tokens: float, n: float, k: float, b: float, name: str) -> Op:
    """One projection of the routed experts, all experts as one op: T·top_k rows of width k
    against the [k × n] weights of each expert the step touches. FLOPs 2·T·top_k·n·k; bytes: the
    touched experts' weights plus the routed rows in and out."""
    rows = tokens * moe.top_k
    touched = moe.expected_experts(tokens)
    return Op(name, "gemm", GEMM, 2 * rows * n * k, (touched * n * k + rows * (n + k)) * b,
              {"tokens": tokens, "experts": moe.experts, "top_k": moe.top_k, "n": n, "k": k}, b)


def combine(moe: MoE, tokens: float, d: float, b: float, name: str = "experts_combine") -> Op:
    """The weighted sum of each token's k expert outputs: reads T·k rows, writes T."""
    rows = tokens * moe.top_k
    return Op(name, "moe_combine", ELEMENTWISE, 2 * rows * d, (rows * d + tokens * d) * b,
              {"tokens": tokens, "top_k": moe.top_k, "d": d}, b)


def expert_cost_coefficients(op: Op) -> list[float]:
    """An expert GEMM's cost as the roofline widget's tokens slider reads it:
    [f0, f1, b0, b1, w, E, k] with FLOPs = f0 + f1·T and bytes = b0 + b1·T + w·(1 − (1 − k/E)^T),
    w being every expert's weight bytes (widgets/roofline/payload.tokens_cost)."""
    s, b = op.shape, op.bytes_per_element
    return [0.0, 2 * s["top_k"] * s["n"] * s["k"], 0.0, s["top_k"] * (s["n"] + s["k"]) * b,
            s["experts"] * s["n"] * s["k"] * b, float(s["experts"]), float(s["top_k"])]
