"""Does a step fit in the chip's memory? Bytes per GPU of one training or inference step.

Formulas (stated on the budget page, and the only place they are written):

- Weights in the matmul precision: params × b (b = 2 in bf16).
- Training, mixed precision with AdamW (Rajbhandari et al. 2020, "ZeRO", §3): bf16 weights 2 B,
  bf16 gradients 2 B, fp32 master weights, momentum and variance 4 + 4 + 4 B: 16 B per
  parameter. ZeRO stage 1 shards the 12 B of optimizer state over the data-parallel GPUs,
  stage 2 also the gradients, stage 3 also the weights.
- Activations kept for the backward pass (Korthikanti et al. 2022, "Reducing Activation
  Recomputation in Large Transformer Models", eq. 1-2 and §5), per layer, in bytes, for
  sequence s, micro-batch b, hidden h, heads a, 16-bit activations:
    no recomputation:        s·b·h·(34 + 5·a·s/h)
    selective recomputation: s·b·h·34   (the attention scores are recomputed; FlashAttention
                                         never stores them either, so it gives the same)
    full recomputation:      s·b·h·2    (each layer's input), plus one layer's activations
                                         (s·b·h·34, or with the scores when not fused) alive
                                         while that layer is recomputed.
  The 34 counts a GPT block (4h MLP, dropout masks); for a Llama block it is an approximation.
- Inference: the KV cache, 2 (K and V) × layers × kv_heads × head_dim × tokens cached × b
  (MLA: layers × (kv_lora_rank + qk_rope_head_dim) × tokens × b, the compressed cache),
  plus one layer's working set (the activation formula above for one layer: the prompt's s
  tokens at prefill, scores stored unless FlashAttention; one token at decode).
- The chip's capacity is its HBM as the catalog stores it (binary: an H100 holds 80 GiB).
  Runtime overheads (CUDA context, allocator fragmentation, NCCL buffers) are not counted, so
  "fits" is necessary, not sufficient.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline.errors import RooflineError
from roofline.model.transformer import TransformerConfig

ADAM_STATE_BYTES_PER_PARAM = 12.0  # fp32 master weights, momentum, variance
GRAD_BYTES_PER_PARAM = 2.0         # bf16 gradients
RECOMPUTE = ("none", "selective", "full")
ZERO_STAGES = (0, 1, 2, 3)
KORTHIKANTI_CONST = 34.0
KORTHIKANTI_SCORES = 5.0


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


def activation_bytes_per_layer(cfg: TransformerConfig, batch: int, seq: int, *,
                               scores_stored: bool) -> float:
    """Korthikanti et al. 2022, eq. 1: s·b·h·(34 + 5·a·s/h) with the attention scores stored,
    s·b·h·34 without them (selective recomputation, or FlashAttention)."""
    sbh = seq * batch * cfg.d_model
    scores = KORTHIKANTI_SCORES * cfg.heads * seq / cfg.d_model if scores_stored else 0.0
    return sbh * (KORTHIKANTI_CONST + scores)


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
        per_layer = activation_bytes_per_layer(cfg, batch, seq, scores_stored=scores)
        if sharding.recompute == "full":
            acts = (2 * seq * batch * cfg.d_model * cfg.layers
                    + activation_bytes_per_layer(cfg, batch, seq, scores_stored=not flash))
        else:
            acts = per_layer * cfg.layers
        return Memory(weights, grads, optimizer, acts, 0.0, capacity)
    if phase == "prefill":
        working = activation_bytes_per_layer(cfg, batch, seq, scores_stored=not flash)
        return Memory(params * b, 0.0, 0.0, working, kv_cache_bytes(cfg, batch, seq, b),
                      capacity)
    if phase == "decode":
        working = activation_bytes_per_layer(cfg, batch, 1, scores_stored=False)
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


def describe(s: Sharding) -> str:
    parts = [f"ZeRO-{s.zero_stage}" if s.zero_stage else "no ZeRO"]
    parts.append({"none": "no recomputation", "selective": "selective recomputation",
                  "full": "full recomputation"}[s.recompute])
    return ", ".join(parts)
