"""Does a step fit in the chip's memory? Bytes per GPU of one training or inference step.

Formulas (stated on the budget page, and the only place they are written):

- Weights in the matmul precision: params × b (b = 2 in bf16).
- Training, mixed precision with AdamW (Rajbhandari et al. 2020, "ZeRO", §3): bf16 weights 2 B,
  bf16 gradients 2 B, fp32 master weights, momentum and variance 4 + 4 + 4 B: 16 B per
  parameter. ZeRO stage 1 shards the 12 B of optimizer state over the data-parallel GPUs,
  stage 2 also the gradients, stage 3 also the weights.
- Activations kept for the backward pass, per layer of a Llama block, in bytes, for s tokens per
  sequence, batch B, hidden size h, KV width kv (kv_heads × head_dim), FFN width f, a heads and
  b bytes per activation: each tensor a backward kernel of roofline.model.kernels reads, once.
    b·s·B·(6h + 2kv + 3f)   the two norms' inputs and outputs, Q, K, V, the attention output
                            (the output projection's input), and SiLU·mul's g, u and product
    + b·a·s²·B              the softmax's output, which QKᵀ's and S·V's backward need, unless
                            it is recomputed (selective recomputation, or FlashAttention, which
                            keeps only a 4-byte log-sum-exp per row and head: + 4·a·s·B)
  Full recomputation keeps each layer's input, b·s·B·h, plus one layer's activations alive
  while that layer is recomputed. This is Korthikanti et al. 2022's count (eq. 1-2, "Reducing
  Activation Recomputation in Large Transformer Models") redone for a Llama block: no dropout
  (Llama trains without, so none of their dropout masks and dropout outputs: 5·a·s/h becomes
  a·s/h), a SwiGLU MLP of width f instead of 4h, RMSNorm, grouped K and V. It assumes SiLU·mul
  runs as one kernel (eager PyTorch, which runs SiLU and the multiply apart, also keeps silu(g):
  + b·s·B·f), 16-bit activations, rotary embeddings recomputed from the positions, and leaves
  out the embedding, final norm, LM head and loss (one layer's worth at most).
- Inference keeps nothing for a backward pass: its activations are one layer's working set at
  its largest moment, the larger of attention (the residual stream, Q, K, V and the scores and
  their softmax, or FlashAttention's output) and the MLP (the residual stream, g, u and their
  product). The KV cache: 2 (K and V) × layers × kv_heads × head_dim × tokens cached × b
  (MLA: layers × (kv_lora_rank + qk_rope_head_dim) × tokens × b, the compressed cache).
- The chip's capacity is what the catalog says programs can use: the HBM's visible capacity
  (nvidia-smi's total) where the catalog gives one, else the HBM as built (binary: an H100 is
  built with 80 GiB and shows 81,559 MiB). Runtime overheads (CUDA context, allocator
  fragmentation, NCCL buffers) are not counted, so "fits" is necessary, not sufficient.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline.errors import RooflineError
from roofline.model.transformer import TransformerConfig

ADAM_STATE_BYTES_PER_PARAM = 12.0  # fp32 master weights, momentum, variance
GRAD_BYTES_PER_PARAM = 2.0         # bf16 gradients
RECOMPUTE = ("none", "selective", "full")
ZERO_STAGES = (0, 1, 2, 3)
LSE_BYTES = 4.0  # FlashAttention's log-sum-exp per row and head, fp32


@dataclass(frozen=True)
class Sharding:
    """How one step's memory is spread: ZeRO stage over the data-parallel GPUs, and whether
    activations are recomputed in the backward pass."""
    zero_stage: int = 0
    recompute: str = "none"

    def __post_init__(self) -> None:
        if self.zero_stage not in ZERO_STAGES:
            raise RooflineError(f"must be one of 0, 1, 2, 3, got {self.zero_stage!r}",
                                field="zero_stage")
        if self.recompute not in RECOMPUTE:
            raise RooflineError(f"must be one of {', '.join(RECOMPUTE)}, got "
                                f"{self.recompute!r}", field="recompute")


@dataclass(frozen=True)
class Memory:
    """Bytes per GPU, by what holds them, against the chip's HBM."""
    weights: float
    gradients: float
    optimizer: float
    activations: float
    kv_cache: float
    capacity: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.kv_cache

    @property
    def fits(self) -> bool:
        return self.total <= self.capacity

    @property
    def overflow(self) -> float:
        """Bytes beyond the chip's HBM (0 when it fits)."""
        return max(0.0, self.total - self.capacity)

    def as_dict(self) -> dict:
        return {"weights": self.weights, "gradients": self.gradients,
                "optimizer": self.optimizer, "activations": self.activations,
                "kv_cache": self.kv_cache, "total": self.total, "capacity": self.capacity,
                "fits": self.fits, "overflow": self.overflow}


def activation_bytes_per_layer(cfg: TransformerConfig, batch: int, seq: int, b: float, *,
                               scores_stored: bool, flash: bool = False) -> float:
    """Bytes one Llama layer keeps for its backward pass (the module docstring derives it):
    b·s·B·(6h + 2kv + 3f), plus the softmax's output b·a·s²·B when stored, plus
    FlashAttention's log-sum-exp 4·a·s·B."""
    tokens = seq * batch
    kept = b * tokens * (6 * cfg.d_model + 2 * cfg.kv_dim + 3 * cfg.ffn)
    scores = b * cfg.heads * seq * seq * batch if scores_stored else 0.0
    lse = LSE_BYTES * cfg.heads * tokens if flash else 0.0
    return kept + scores + lse


def inference_working_bytes(cfg: TransformerConfig, batch: int, q_len: int, kv_len: int,
                            b: float, *, flash: bool) -> float:
    """One layer's largest moment at inference (nothing kept for a backward pass): attention
    holds the residual stream, Q, K and V, and the scores and their softmax (or, fused, the
    output); the MLP holds the residual stream, g, u and their product."""
    tokens = q_len * batch
    d, kv, f = cfg.d_model, cfg.kv_dim, cfg.ffn
    attention = (tokens * (3 * d + 2 * kv) if flash else
                 tokens * (2 * d + 2 * kv) + 2 * cfg.heads * q_len * kv_len * batch)
    mlp = tokens * (d + 3 * f)
    return b * max(attention, mlp)


def usable_capacity_bytes(hbm) -> float:
    """What programs can allocate of a chip's HBM tier: its visible capacity where the catalog
    gives one, else its capacity as built."""
    visible = getattr(hbm, "visible_capacity_bytes", None)
    return visible if visible is not None else hbm.capacity_bytes


def kv_cache_bytes(cfg: TransformerConfig, batch: int, tokens: int, b: float) -> float:
    """K and V for every layer and KV head: 2 · L · kv_heads · head_dim · tokens · batch · b
    (MLA: L · (kv_lora_rank + qk_rope_head_dim) · tokens · batch · b, the compressed cache)."""
    return cfg.kv_cache_elements_per_token * tokens * batch * b


def step_memory(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
                capacity: float, *, flash: bool = False, dp_degree: int = 1,
                sharding: Sharding = Sharding()) -> Memory:
    """Bytes per GPU of one step (see the module docstring for every formula)."""
    params = cfg.params
    if phase == "train":
        dp = max(1, dp_degree)
        z = sharding.zero_stage
        weights = params * b / (dp if z >= 3 else 1)
        grads = params * GRAD_BYTES_PER_PARAM / (dp if z >= 2 else 1)
        optimizer = params * ADAM_STATE_BYTES_PER_PARAM / (dp if z >= 1 else 1)
        scores = not flash and sharding.recompute == "none"
        per_layer = activation_bytes_per_layer(cfg, batch, seq, b, scores_stored=scores,
                                               flash=flash)
        if sharding.recompute == "full":
            acts = (b * seq * batch * cfg.d_model * cfg.layers
                    + activation_bytes_per_layer(cfg, batch, seq, b, scores_stored=not flash,
                                                 flash=flash))
        else:
            acts = per_layer * cfg.layers
        return Memory(weights, grads, optimizer, acts, 0.0, capacity)
    if phase in ("prefill", "decode"):
        q_len = seq if phase == "prefill" else 1
        working = inference_working_bytes(cfg, batch, q_len, seq, b, flash=flash)
        return Memory(params * b, 0.0, 0.0, working, kv_cache_bytes(cfg, batch, seq, b),
                      capacity)
    raise RooflineError(f"unknown phase {phase!r}", field="phase",
                        valid=["train", "prefill", "decode"])


def what_fits(cfg: TransformerConfig, batch: int, seq: int, b: float, capacity: float, *,
              flash: bool, dp_degree: int) -> Sharding | None:
    """The least intrusive sharding that makes a training step fit: ZeRO stages first (no extra
    compute), then recomputation with each; None if nothing does."""
    for recompute in RECOMPUTE:
        for stage in ZERO_STAGES:
            s = Sharding(stage, recompute)
            if step_memory(cfg, "train", batch, seq, b, capacity, flash=flash,
                           dp_degree=dp_degree, sharding=s).fits:
                return s
    return None


def sharding_text(s: Sharding) -> str:
    """A sharding in words, as tables and sentences name it: "ZeRO-1, full recomputation"."""
    parts = [f"ZeRO-{s.zero_stage}" if s.zero_stage else "no ZeRO"]
    parts.append({"none": "no recomputation", "selective": "selective recomputation",
                  "full": "full recomputation"}[s.recompute])
    return ", ".join(parts)
