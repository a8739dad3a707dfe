"""Where the step time goes: a roofline time budget for one transformer step, fusion what-ifs,
and a waterfall from 100 % of peak down to an MFU estimate.

Conventions (stated once, used everywhere; the kernel list's own are in roofline.model.kernels):
- Every kernel takes its roofline lower bound max(FLOPs / peak, bytes / HBM BW); nothing overlaps.
- The waterfall attributes the step's lost time in proportion to each cause's time: a cause
  taking t of a step of T seconds costs t / T of peak, so the losses sum to 100 % - MFU and no
  loss depends on the order the causes are listed in.
- What the roofline cannot know (kernel efficiency, launch overhead, data parallelism) is an
  editable assumption; the launch overhead's default is data/overhead.toml's launch floor.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from roofline.model import datafile as _toml, tokens
from roofline.model.kernels import (CLASSES, FUSION_LABELS, FUSIONS, MATMUL_KINDS, MEMORY_CLASSES,
    PASSES, Kernel, check_fusions, step_kernels)
from roofline.model.catalog import Accelerator
from roofline.errors import RooflineError
from roofline.model.maths import time_lower_bound
from roofline.model.memory import Memory, Sharding, step_memory, what_fits
from roofline.model.ops import ATTENTION, GEMM
from roofline.model.transformer import TransformerConfig, check_run


@functools.lru_cache(maxsize=4)
def _launch_floor_s(key: tuple[str, int, int]) -> float:
    return tokens.load_launch_floor(key[0]).seconds


def default_launch_overhead_s() -> float:
    """data/overhead.toml's launch floor: the one figure behind the lesson's launch floor and
    the budget's launch overhead (cached per (path, mtime_ns, size), so an edit is seen)."""
    return _launch_floor_s(_toml.file_key(tokens.OVERHEAD_PATH))


@dataclass(frozen=True)
class Assumptions:
    """What the roofline cannot know: editable on the page and on the command line."""
    kernel_efficiency: float = 0.7
    """Share of its roofline bound a real kernel reaches: tile and wave quantisation, occupancy,
    pipeline fill and sustained (not boost) clocks. Tuned large GEMMs reach 0.7-0.8."""
    launch_overhead_s: float = field(default_factory=default_launch_overhead_s)
    """Per kernel: launch latency plus ramp-up and tail, the gap between back-to-back kernels."""
    dp_degree: int = 8
    """Data-parallel replicas (one 8-GPU node); the gradient all-reduce spans them."""
    overlap_fraction: float = 0.8
    """Share of the all-reduce hidden behind the backward pass."""
    grad_bytes_per_element: float = 2.0
    """Gradients reduced in bf16, the usual mixed-precision setting."""

    def __post_init__(self) -> None:
        if not (0 < self.kernel_efficiency <= 1):
            raise RooflineError(f"must be in (0, 1], got {self.kernel_efficiency!r}",
                                field="kernel_efficiency")
        if not (0 <= self.launch_overhead_s < 1):
            raise RooflineError(f"must be in [0, 1) seconds, got {self.launch_overhead_s!r}",
                                field="launch_overhead_s")
        if not (isinstance(self.dp_degree, int) and self.dp_degree >= 1):
            raise RooflineError(f"must be an integer >= 1, got {self.dp_degree!r}",
                                field="dp_degree")
        if not (0 <= self.overlap_fraction <= 1):
            raise RooflineError(f"must be in [0, 1], got {self.overlap_fraction!r}",
                                field="overlap_fraction")
        if not self.grad_bytes_per_element > 0:
            raise RooflineError(f"must be positive, got {self.grad_bytes_per_element!r}",
                                field="grad_bytes_per_element")


# ---------------------------------------------------------------- the budget

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


@dataclass(frozen=True)
class Budget:
    model: TransformerConfig
    phase: str
    batch: int
    seq: int
    hardware: Accelerator
    precision: str
    fusions: frozenset[str]
    assumptions: Assumptions
    kernels: tuple[Kernel, ...]
    layer_map: tuple[tuple[str, str, Kernel], ...] = ()
    """Each op of one middle layer with the forward kernel it runs in (fused or alone)."""
    sharding: Sharding = Sharding()
    """ZeRO stage and activation recomputation: memory per GPU, and recomputation's time."""
    bytes_per_element: float = 2.0
    """Of the weights and activations (the matmul precision's)."""

    # -- memory

    @property
    def memory(self) -> Memory:
        """Bytes per GPU against the chip's HBM (roofline.model.memory states the formulas)."""
        return step_memory(self.model, self.phase, self.batch, self.seq,
                           self.bytes_per_element, self.hardware.hbm.capacity_bytes,
                           flash="flash" in self.fusions,
                           dp_degree=self.assumptions.dp_degree, sharding=self.sharding)

    @property
    def fits(self) -> bool:
        return self.memory.fits

    def fitting_sharding(self) -> Sharding | None:
        """For a training step that does not fit: the least intrusive ZeRO stage and
        recomputation that would make it fit on these data-parallel GPUs (None: none does)."""
        if self.phase != "train":
            return None
        return what_fits(self.model, self.batch, self.seq, self.bytes_per_element,
                         self.hardware.hbm.capacity_bytes, flash="flash" in self.fusions,
                         dp_degree=self.assumptions.dp_degree)

    @property
    def recompute_time_s(self) -> float:
        """Recomputation re-runs forward work in the backward pass: the whole forward (full),
        or the attention scores and softmax (selective; nothing when FlashAttention already
        recomputes them)."""
        if self.phase != "train" or self.sharding.recompute == "none":
            return 0.0
        fwd = [k for k in self.kernels if k.pass_ == "forward"]
        if self.sharding.recompute == "full":
            return sum(self.kernel_time_s(k) for k in fwd)
        return sum(self.kernel_time_s(k) for k in fwd
                   if k.parts and set(k.parts) <= {"attn_qk", "attn_softmax"})

    @property
    def peak_flops_per_s(self) -> float:
        return self.hardware.peak_flops_per_s(self.precision)

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return self.hardware.hbm_bandwidth_bytes_per_s

    def kernel_time_s(self, k: Kernel) -> float:
        return k.time_s(self.peak_flops_per_s, self.bandwidth_bytes_per_s)

    @property
    def useful_flops(self) -> float:
        return sum(k.useful_flops * k.count for k in self.kernels)

    @property
    def flops(self) -> float:
        return sum(k.flops * k.count for k in self.kernels)

    @property
    def bytes(self) -> float:
        return sum(k.bytes * k.count for k in self.kernels)

    @property
    def launches(self) -> int:
        return sum(k.launches * k.count for k in self.kernels)

    @property
    def step_time_s(self) -> float:
        """The roofline time of the step: every kernel at its lower bound, back to back."""
        return sum(self.kernel_time_s(k) for k in self.kernels)

    @property
    def layer_time_s(self) -> float:
        """One decoder layer (forward, and backward when training)."""
        return sum(self.kernel_time_s(k) / k.count for k in self.kernels if k.in_layer)

    @property
    def ideal_time_s(self) -> float:
        return self.useful_flops / self.peak_flops_per_s

    @property
    def mfu_upper_bound(self) -> float:
        """Useful FLOPs / (roofline step time × peak): no real step can do better."""
        return self.ideal_time_s / self.step_time_s

    def by_class(self) -> dict[str, dict[str, float]]:
        out = {c: {"time_s": 0.0, "flops": 0.0, "bytes": 0.0, "launches": 0} for c in CLASSES}
        for k in self.kernels:
            row = out[k.op_class]
            row["time_s"] += self.kernel_time_s(k)
            row["flops"] += k.flops * k.count
            row["bytes"] += k.bytes * k.count
            row["launches"] += k.launches * k.count
        return out

    def bytes_saved(self) -> dict[str, float]:
        """Bytes per step each fusion keeps off HBM (they add up: fusions save disjoint bytes)."""
        out = {f: 0.0 for f in sorted(self.fusions)}
        for k in self.kernels:
            for f, v in k.saved_by.items():
                out[f] += v * k.count
        return out

    # -- overheads the roofline does not see

    @property
    def link(self):
        """The link the gradient all-reduce runs over: the scale-up tier, else host PCIe."""
        return self.hardware.tier("scaleup") or self.hardware.tier("host")

    @property
    def allreduce_time_s(self) -> float:
        """Ring all-reduce of the gradients: 2 (N - 1) / N × gradient bytes / link bandwidth."""
        a = self.assumptions
        if self.phase != "train" or a.dp_degree == 1:
            return 0.0
        link = self.link
        if link is None or link.bandwidth_bytes_per_s is None:
            raise RooflineError(f"{self.hardware.id} has no scale-up or host link for the "
                                "all-reduce; use dp_degree 1", field="dp_degree")
        grad_bytes = self.model.params * a.grad_bytes_per_element
        return (2 * (a.dp_degree - 1) / a.dp_degree * grad_bytes
                / link.bandwidth_bytes_per_s)

    @property
    def overhead_times_s(self) -> dict[str, float]:
        a = self.assumptions
        return {"efficiency": self.step_time_s * (1 / a.kernel_efficiency - 1),
                "launch": self.launches * a.launch_overhead_s,
                "communication": (1 - a.overlap_fraction) * self.allreduce_time_s,
                "recompute": self.recompute_time_s / a.kernel_efficiency}

    def waterfall(self) -> list[WaterfallTerm]:
        """From 100 % of peak down to the MFU: each cause loses its share of the step's time
        (order-independent; see waterfall_terms)."""
        by_kernel = {"memory": 0.0, "attention": 0.0, "gemm": 0.0}
        peak = self.peak_flops_per_s
        for k in self.kernels:
            # Per copy first, so a compute-bound GEMM (FLOPs = useful FLOPs) loses exactly 0.
            per_copy = float(time_lower_bound(k.flops, k.bytes, peak, self.bandwidth_bytes_per_s))
            excess = k.count * (per_copy - k.useful_flops / peak)
            key = ("gemm" if k.op_class == GEMM else
                   "attention" if k.op_class == ATTENTION else "memory")
            by_kernel[key] += excess
        times = [("memory", by_kernel["memory"]), ("attention", by_kernel["attention"]),
                 ("gemm", by_kernel["gemm"])]
        times += [(key, t) for key, t in self.overhead_times_s.items()]
        return waterfall_terms(self.ideal_time_s, times)

    @property
    def mfu_estimate(self) -> float:
        terms = self.waterfall()
        return terms[-1].level_after

    def as_dict(self) -> dict:
        classes = self.by_class()
        terms = self.waterfall()
        return {
            "model": self.model.id, "phase": self.phase, "batch": self.batch, "seq": self.seq,
            "params_total": self.model.params, "params_active": self.model.params_active,
            "flops_per_token": self.model.flops_per_token, "model_notes": list(self.model.notes),
            "hardware": self.hardware.id, "precision": self.precision,
            "fusions": sorted(self.fusions),
            "assumptions": {"kernel_efficiency": self.assumptions.kernel_efficiency,
                            "launch_overhead_s": self.assumptions.launch_overhead_s,
                            "dp_degree": self.assumptions.dp_degree,
                            "overlap_fraction": self.assumptions.overlap_fraction,
                            "grad_bytes_per_element": self.assumptions.grad_bytes_per_element},
            "peak_flops_per_s": self.peak_flops_per_s,
            "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
            "useful_flops": self.useful_flops, "total_flops": self.flops,
            "total_bytes": self.bytes, "launches": self.launches,
            "sharding": {"zero_stage": self.sharding.zero_stage,
                         "recompute": self.sharding.recompute},
            "memory": self.memory.as_dict(), "fits": self.fits,
            "fits_with": (None if self.fits or self.fitting_sharding() is None else
                          {"zero_stage": self.fitting_sharding().zero_stage,
                           "recompute": self.fitting_sharding().recompute}),
            "ideal_time_s": self.ideal_time_s, "step_time_s": self.step_time_s,
            "layer_time_s": self.layer_time_s,
            "mfu_upper_bound": self.mfu_upper_bound, "mfu_estimate": self.mfu_estimate,
            "time_s": {c: v["time_s"] for c, v in classes.items()},
            "flops": {c: v["flops"] for c, v in classes.items()},
            "bytes": {c: v["bytes"] for c, v in classes.items()},
            "launches_by_class": {c: v["launches"] for c, v in classes.items()},
            "bytes_saved": self.bytes_saved(),
            "allreduce_time_s": self.allreduce_time_s,
            "waterfall": [{"key": t.key, "label": t.label, "time_s": t.time_s,
                           "loss": t.loss, "level_after": t.level_after} for t in terms],
            "layer_ops": [{"op": name, "class": cls, "kernel": k.name,
                           "intensity_flops_per_byte": k.intensity_flops_per_byte}
                          for name, cls, k in self.layer_map],
            "kernels": [{"name": k.name, "pass": k.pass_, "class": k.op_class,
                         "count": k.count, "flops": k.flops, "bytes": k.bytes,
                         "unfused_bytes": k.unfused_bytes,
                         "intensity_flops_per_byte": k.intensity_flops_per_byte,
                         "time_s": self.kernel_time_s(k)} for k in self.kernels],
        }


WATERFALL_LABELS = {
    "memory": "memory-bound ops (norms, activations, softmax, embedding, optimizer)",
    "attention": "attention beyond its matmul time",
    "gemm": "GEMMs below the compute roof",
    "efficiency": "kernels below their roofline bound",
    "launch": "kernel launch overhead",
    "communication": "exposed gradient all-reduce",
    "recompute": "activation recomputation",
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


def budget(cfg: TransformerConfig, phase: str, batch: int, seq: int, hw: Accelerator,
           precision: str, b: float, fusions=frozenset(),
           assumptions: Assumptions | None = None, sharding: Sharding = Sharding()) -> Budget:
    """The time budget of one step; `b` is the precision's bytes per element. No
    `assumptions`: the defaults, read now (an edit to data/overhead.toml is seen)."""
    assumptions = Assumptions() if assumptions is None else assumptions
    check_run(phase, batch, seq)
    hw.peak(precision)
    fusions = check_fusions(fusions)
    kernels, placed = step_kernels(cfg, phase, batch, seq, b, fusions)
    bg = Budget(cfg, phase, batch, seq, hw, precision, fusions, assumptions, tuple(kernels),
                tuple(placed), sharding, b)
    return bg


# The configuration the page opens on and the CLI defaults to: a 7B model trained 8-way data
# parallel with 4 sequences of 4,096 tokens per GPU per optimizer step.
TYPICAL = {"model": "llama-2-7b", "phase": "train", "batch": 4, "seq": 4096,
           "hardware": "h100-sxm", "precision": "bf16"}
