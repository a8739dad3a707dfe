"""The waterfall from 100 % of peak to the MFU estimate: each cause's time as a sum of
component × factor (WATERFALL_TERMS), and each cause's loss in proportion to its time.
roofline.model.budget fills the components from a step; the budget widget's payload
(roofline.widgets.budget.payload) carries them precomputed, so this form is the only copy."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WaterfallTerm:
    key: str
    label: str
    time_s: float
    level_before: float
    level_after: float

    @property
    def loss(self) -> float:
        return self.level_before - self.level_after


WATERFALL_TERMS = (
    ("memory", (("memory", None), ("optimizer", None))),
    ("attention", (("attention", None),)),
    ("gemm", (("gemm", None),)),
    ("recompute", (("recompute", None), ("recompute_gemm", "waste"),
                   ("recompute_launches", "launch_s"))),
    ("efficiency", (("gemm_pass", "waste"),)),
    ("launch", (("launches", "launch_s"),)),
    ("communication", (("communication", "exposed"),)),
)
"""Each cause's seconds per step as a sum of component × factor: components from the step
(Budget.components), factors from the assumptions (knob_factors; None: 1). The waterfall is
this form evaluated; the budget widget evaluates the same form over components precomputed
for each setting, so the formula is written only here:

- memory-bound ops, attention and GEMMs: their roofline time beyond their useful FLOPs' time;
- recomputation: all the recomputed forward pass costs, so that removing it is running the
  step without recomputation: its kernels' roofline time, its GEMMs' shortfall from their
  ceiling (their roofline time × (1 / efficiency − 1)) and its launches × the launch gap;
- efficiency: the pass's GEMMs' roofline time × (1 / efficiency − 1), the efficiency being
  the chip's measured matmul ceiling ÷ its peak (or the reader's figure);
- launch: every kernel the pass launches × the launch gap;
- communication: the data-parallel traffic × the share not hidden behind the backward pass."""


def knob_factors(a, efficiency: float | None = None) -> dict[str, float]:
    """The factors WATERFALL_TERMS takes from the assumptions; a GEMM efficiency the reader
    set wins over `efficiency` (the chip's measured one). Neither: the bound alone, no waste."""
    eff = a.kernel_efficiency if a.kernel_efficiency is not None else efficiency
    return {"waste": 0.0 if eff is None else 1 / eff - 1, "launch_s": a.launch_overhead_s,
            "exposed": 1 - a.overlap_fraction}


def term_times(components: dict[str, float], factors: dict[str, float]
               ) -> list[tuple[str, float]]:
    """WATERFALL_TERMS evaluated: (cause, seconds) in the waterfall's order."""
    return [(key, sum(components[c] * (1.0 if f is None else factors[f]) for c, f in parts))
            for key, parts in WATERFALL_TERMS]


WATERFALL_LABELS = {
    "memory": "memory-bound ops (norms, activations, softmax, embedding, optimizer)",
    "attention": "attention beyond its matmul time",
    "gemm": "GEMMs below the compute roof",
    "recompute": "activation recomputation (the forward pass run again)",
    "efficiency": "GEMMs at their measured ceiling, below the peak",
    "launch": "kernel launch overhead",
    "communication": "exposed gradient all-reduce",
}


def waterfall_terms(ideal_time_s: float, times: list[tuple[str, float]]) -> list[WaterfallTerm]:
    """The step takes T = ideal + the sum of the causes' times, so MFU = ideal / T. Each cause
    loses t / T of peak: in proportion to its time, whatever the order, and the losses add up to
    1 - MFU exactly. The levels are the running total, for drawing. Mirrored by budget_view.mjs."""
    total = ideal_time_s + sum(t for _, t in times)
    level = 1.0
    out = []
    for key, t in times:
        after = level - t / total
        out.append(WaterfallTerm(key, WATERFALL_LABELS[key], t, level, after))
        level = after
    return out
