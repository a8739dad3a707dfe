"""The running example: the one training run the lesson, the op zoo, the budget page, the
widgets' defaults and the `roofline` command all describe. Its figures are typed here and
nowhere else; roofline.model.budget.example_budget() prices it.

Llama 2 7B trained on one 8-GPU node of H100 SXMs in bf16, 4 sequences of 4,096 tokens per GPU
per optimizer step, with FlashAttention. Sharded as ZeRO stage 1 (each GPU keeps and updates
one eighth of the AdamW state) with full activation recomputation (each layer's input kept, the
forward pass run again in the backward pass; Megatron-LM's `--recompute-granularity full`).
The memory model (roofline.model.memory) says that fits with room to spare; without
recomputation the activations alone would not leave room for unsharded weights and gradients
(the budget page's memory table shows both).
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline.model.memory import Sharding


@dataclass(frozen=True)
class RunningExample:
    model: str = "llama-2-7b"
    phase: str = "train"
    batch: int = 4
    """Sequences per GPU per optimizer step."""
    seq: int = 4096
    hardware: str = "h100-sxm"
    precision: str = "bf16"
    dp_degree: int = 8
    """Data-parallel GPUs: one 8-GPU node; the gradients are all-reduced over them."""
    zero_stage: int = 1
    recompute: str = "full"
    fusions: tuple[str, ...] = ("flash",)
    """What the run fuses: FlashAttention, as the runs that report 40-55 % MFU do."""

    @property
    def sharding(self) -> Sharding:
        return Sharding(self.zero_stage, self.recompute)

    @property
    def tokens(self) -> int:
        """Tokens per GPU per step."""
        return self.batch * self.seq


EXAMPLE = RunningExample()
