"""Where the step time goes: a roofline time budget for one transformer step, fusion what-ifs,
and a waterfall from 100 % of peak down to an MFU estimate.

Conventions (stated once, used everywhere; the kernel list's own are in roofline.model.kernels):
- Every kernel takes its roofline lower bound max(FLOPs / peak, bytes / HBM BW); nothing overlaps.
- The step as run: the kernel list once (forward, backward, optimizer) plus the forward kernels
  recomputation runs again. Its roofline time gives the MFU upper bound; the bound without
  recomputation is stated beside it, never instead of it.
- The waterfall attributes the step's lost time in proportion to each cause's time: a cause
  taking t of a step of T seconds costs t / T of peak, so the losses sum to 100 % - MFU and no
  loss depends on the order the causes are listed in.
- A GEMM runs at its chip's measured matmul ceiling ÷ peak (data/ceilings.toml; the roofline
  bound alone where a chip has no measurement); memory-bound kernels, attention and the
  optimizer at their roofline bound: no source here measures their share of it.
- What the roofline cannot know (launch overhead, data parallelism, overlap) is an editable
  assumption; so is a GEMM efficiency other than the measured one. Launch overhead is
  roofline.model.launch's gap, added once per launched kernel (recomputed ones included); its
  default is data/overhead.toml's. The share of the all-reduce hidden behind the backward pass
  is data/overlap.toml's, with its basis (an assumption: roofline.model.overlap).
- Communication: a ring all-reduce of the bf16 gradients. ZeRO stages 1 and 2 move the same
  bytes (a reduce-scatter of the gradients and an all-gather of the updated weights); stage 3
  also all-gathers the weights before the backward pass: 1.5 × (Rajbhandari et al. 2020, §7).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from roofline.model import launch
from roofline.model.ceilings import Ceiling, gemm_efficiency, matmul_ceiling
from roofline.model.overlap import default_overlap_fraction
from roofline.model.kernels import (CLASSES, FUSION_LABELS, FUSIONS, MATMUL_KINDS, MEMORY_CLASSES,
    PASSES, Kernel, check_fusions, step_kernels)
from roofline.model.catalog import Accelerator
from roofline.model.example import EXAMPLE
from roofline.errors import RooflineError
from roofline.model.memory import (Memory, Sharding, step_memory, usable_capacity_bytes,
    what_fits)
from roofline.model.ops import ATTENTION, GEMM
from roofline.model.transformer import TransformerConfig, check_run
from roofline.model.waterfall import (WaterfallTerm, knob_factors, term_times,
    waterfall_terms)


ZERO3_COMM_FACTOR = 1.5
"""ZeRO stage 3 moves 1.5 × a data-parallel all-reduce's bytes (Rajbhandari et al. 2020, §7.2)."""


def default_launch_overhead_s() -> float:
    """data/overhead.toml's launch overhead: the one figure behind the lesson's launch figures
    and the budget's default (launch.load_launch reads each version of the file once)."""
    return launch.load_launch().seconds


@dataclass(frozen=True)
class Assumptions:
    """What the roofline cannot know: editable on the page and on the command line."""
    kernel_efficiency: float | None = None
    """Share of its roofline bound a GEMM reaches, if the reader sets one. None (the default):
    the chip's measured matmul ceiling ÷ its peak (roofline.model.ceilings), or, for a chip with
    no measurement, the roofline bound alone (Budget.gemm_efficiency says which)."""
    launch_overhead_s: float = field(default_factory=default_launch_overhead_s)
    """Per launched kernel, added to its roofline time (roofline.model.launch)."""
    dp_degree: int = EXAMPLE.dp_degree
    """Data-parallel replicas (the running example's: one 8-GPU node); the gradient all-reduce
    spans them, and ZeRO shards over them."""
    overlap_fraction: float = field(default_factory=default_overlap_fraction)
    """Share of the all-reduce hidden behind the backward pass: data/overlap.toml's, an
    assumption (roofline.model.overlap states its basis)."""
    grad_bytes_per_element: float = 2.0
    """Gradients reduced in bf16, the usual mixed-precision setting."""

    def __post_init__(self) -> None:
        if self.kernel_efficiency is not None and not (0 < self.kernel_efficiency <= 1):
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
                           self.bytes_per_element, self.capacity_bytes,
                           flash="flash" in self.fusions,
                           dp_degree=self.assumptions.dp_degree, sharding=self.sharding)

    @property
    def capacity_bytes(self) -> float:
        """What a step may hold: the HBM programs can use (roofline.model.memory)."""
        return usable_capacity_bytes(self.hardware.hbm)

    @property
    def fits(self) -> bool:
        return self.memory.fits

    def fitting_sharding(self) -> Sharding | None:
        """For a training step that does not fit: the least intrusive ZeRO stage and
        recomputation that would make it fit on these data-parallel GPUs (None: none does)."""
        if self.phase != "train":
            return None
        return what_fits(self.model, self.batch, self.seq, self.bytes_per_element,
                         self.capacity_bytes, flash="flash" in self.fusions,
                         dp_degree=self.assumptions.dp_degree)

    @property
    def recomputed(self) -> tuple[Kernel, ...]:
        """The forward kernels recomputation runs again in the backward pass: all of them
        (full), or the attention scores and softmax (selective; none when FlashAttention
        already recomputes them)."""
        if self.phase != "train" or self.sharding.recompute == "none":
            return ()
        fwd = [k for k in self.kernels if k.pass_ == "forward"]
        if self.sharding.recompute == "full":
            return tuple(fwd)
        return tuple(k for k in fwd if k.parts and set(k.parts) <= {"attn_qk", "attn_softmax"})

    @property
    def recompute_time_s(self) -> float:
        return sum(self.kernel_time_s(k) for k in self.recomputed)

    @property
    def recompute_launches(self) -> int:
        return sum(k.launches * k.count for k in self.recomputed)

    @functools.cached_property
    def peak_flops_per_s(self) -> float:
        return self.hardware.peak_flops_per_s(self.precision)

    @functools.cached_property
    def bandwidth_bytes_per_s(self) -> float:
        # Looked up once per budget: every kernel's time asks for it (the widget's payload
        # prices ~10^5 kernels).
        return self.hardware.hbm_bandwidth_bytes_per_s

    @functools.cached_property
    def gemm_ceiling(self) -> Ceiling | None:
        """The chip's measured matmul ceiling at this precision (None: not measured)."""
        return matmul_ceiling(self.hardware.id, self.precision)

    @property
    def efficiency_basis(self) -> str:
        """Where gemm_efficiency comes from: "override" (the reader's), "measured" (the
        chip's ceiling) or "unmeasured" (no measurement: the roofline bound alone)."""
        if self.assumptions.kernel_efficiency is not None:
            return "override"
        return "measured" if self.gemm_ceiling is not None else "unmeasured"

    @functools.cached_property
    def gemm_efficiency(self) -> float:
        """The share of its roofline bound a GEMM reaches: the reader's figure, else the
        chip's measured ceiling ÷ its peak, else 1 (the bound alone, said so)."""
        if self.assumptions.kernel_efficiency is not None:
            return self.assumptions.kernel_efficiency
        measured = gemm_efficiency(self.hardware, self.precision)
        return 1.0 if measured is None else measured

    def kernel_time_s(self, k: Kernel) -> float:
        return k.time_s(self.peak_flops_per_s, self.bandwidth_bytes_per_s)

    @functools.cached_property
    def _per_copy_s(self) -> tuple[float, ...]:
        """Each kernel's roofline time per copy, in self.kernels' order: components(),
        by_class() and pass_time_s share it (the widget's payload asks each ~10^3 times)."""
        peak, bw = self.peak_flops_per_s, self.bandwidth_bytes_per_s
        return tuple(k.per_copy_s(peak, bw) for k in self.kernels)

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
        """Kernels launched by the kernel list (one forward, backward and optimizer pass)."""
        return sum(k.launches * k.count for k in self.kernels)

    @property
    def step_launches(self) -> int:
        """Kernels launched by the step as run: the list and the recomputed forward kernels."""
        return self.launches + self.recompute_launches

    @property
    def pass_time_s(self) -> float:
        """The kernel list's roofline time: every kernel at its lower bound, back to back,
        without recomputation."""
        return sum(k.count * t for k, t in zip(self.kernels, self._per_copy_s))

    @property
    def step_time_s(self) -> float:
        """The roofline time of the step as run: the kernel list and the recomputed kernels."""
        return self.pass_time_s + self.recompute_time_s

    @property
    def layer_time_s(self) -> float:
        """One decoder layer (forward, and backward when training)."""
        return sum(self.kernel_time_s(k) / k.count for k in self.kernels if k.in_layer)

    @property
    def ideal_time_s(self) -> float:
        return self.useful_flops / self.peak_flops_per_s

    @property
    def mfu_upper_bound(self) -> float:
        """Useful FLOPs / (roofline step time × peak), recomputation included: no real step
        run this way can do better."""
        return self.ideal_time_s / self.step_time_s

    @property
    def mfu_upper_bound_without_recompute(self) -> float:
        """The bound if the step needed no recomputation (it may then not fit)."""
        return self.ideal_time_s / self.pass_time_s

    def by_class(self) -> dict[str, dict[str, float]]:
        out = {c: {"time_s": 0.0, "flops": 0.0, "bytes": 0.0, "launches": 0} for c in CLASSES}
        for k, per_copy in zip(self.kernels, self._per_copy_s):
            row = out[k.op_class]
            row["time_s"] += k.count * per_copy
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
    def communication_time_s(self) -> float:
        """The data-parallel traffic of one step: the all-reduce, 1.5 × under ZeRO stage 3."""
        factor = ZERO3_COMM_FACTOR if self.sharding.zero_stage >= 3 else 1.0
        return factor * self.allreduce_time_s

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

    def components(self) -> dict[str, float]:
        """The step's figures WATERFALL_TERMS multiplies: the roofline time each kind of kernel
        spends beyond its useful FLOPs' time (memory-bound ops, attention, GEMMs, the optimizer
        apart: ZeRO shards it), the pass's roofline time without the optimizer, recomputation's
        time and launches, the pass's launches and the data-parallel communication."""
        out = {"memory": 0.0, "attention": 0.0, "gemm": 0.0, "optimizer": 0.0}
        peak = self.peak_flops_per_s
        pass_s = 0.0  # pass_time_s, summed in the same walk (the payload asks ~10^3 times)
        gemm_s = 0.0  # the GEMMs' roofline time: what the measured ceiling stretches
        # Per copy first, so a compute-bound GEMM (FLOPs = useful FLOPs) loses exactly 0.
        for k, per_copy in zip(self.kernels, self._per_copy_s):
            pass_s += k.count * per_copy
            if k.op_class == GEMM:
                gemm_s += k.count * per_copy
            key = ("gemm" if k.op_class == GEMM else "attention" if k.op_class == ATTENTION
                   else "optimizer" if k.pass_ == "optimizer" else "memory")
            out[key] += k.count * (per_copy - k.useful_flops / peak)
        return {**out, "pass": pass_s - out["optimizer"], "gemm_pass": gemm_s,
                "recompute": self.recompute_time_s,
                "recompute_gemm": sum(self.kernel_time_s(k) for k in self.recomputed
                                      if k.op_class == GEMM),
                "launches": self.launches,
                "recompute_launches": self.recompute_launches,
                "communication": self.communication_time_s}

    @property
    def overhead_times_s(self) -> dict[str, float]:
        """What the roofline does not see, in seconds per step: GEMMs short of their bound
        (recomputed ones too), launch gaps (recomputed kernels' too), the exposed share of the
        communication. The waterfall charges the recomputed kernels' part to recomputation."""
        c, f = self.components(), self.factors
        return {"efficiency": (c["gemm_pass"] + c["recompute_gemm"]) * f["waste"],
                "launch": (c["launches"] + c["recompute_launches"]) * f["launch_s"],
                "communication": c["communication"] * f["exposed"]}

    def waterfall(self) -> list[WaterfallTerm]:
        """From 100 % of peak down to the MFU: each cause loses its share of the step's time
        (order-independent; see waterfall_terms)."""
        return waterfall_terms(self.ideal_time_s, term_times(self.components(), self.factors))

    @property
    def factors(self) -> dict[str, float]:
        """The factors WATERFALL_TERMS takes, with this chip's GEMM efficiency."""
        return knob_factors(self.assumptions, self.gemm_efficiency)

    @property
    def mfu_estimate(self) -> float:
        terms = self.waterfall()
        return terms[-1].level_after


def budget(cfg: TransformerConfig, phase: str, batch: int, seq: int, hw: Accelerator,
           precision: str, b: float, fusions=frozenset(),
           assumptions: Assumptions | None = None, sharding: Sharding = Sharding(),
           kernels_of=step_kernels) -> Budget:
    """The time budget of one step; `b` is the precision's bytes per element. No
    `assumptions`: the defaults, read now (an edit to data/overhead.toml is seen). Under ZeRO
    stage ≥ 1 each data-parallel GPU runs AdamW over its shard of the parameters only.
    `kernels_of`: step_kernels, or a caller's memo of it (the widget's payload asks for the
    same step under every recomputation choice and data-parallel degree)."""
    assumptions = Assumptions() if assumptions is None else assumptions
    check_run(phase, batch, seq)
    hw.peak(precision)
    fusions = check_fusions(fusions)
    if phase != "train":
        sharding = Sharding()
    shards = assumptions.dp_degree if sharding.zero_stage >= 1 else 1
    kernels, placed = kernels_of(cfg, phase, batch, seq, b, fusions, optimizer_shards=shards)
    return Budget(cfg, phase, batch, seq, hw, precision, fusions, assumptions, tuple(kernels),
                  tuple(placed), sharding, b)


def example_budget(catalog=None, *, kernel_efficiency: float | None = None,
                   launch_overhead_s: float | None = None, **changes) -> Budget:
    """The running example's budget (roofline.model.example), or a variant of it: `changes`
    replaces its fields (model, phase, batch, seq, hardware, precision, dp_degree, zero_stage,
    recompute, fusions); the two keywords replace an assumption's default."""
    import dataclasses
    from roofline.model.catalog import default_catalog
    from roofline.model.transformer import get_model
    ex = dataclasses.replace(EXAMPLE, **changes)
    catalog = catalog or default_catalog()
    a = {"dp_degree": ex.dp_degree}
    if kernel_efficiency is not None:
        a["kernel_efficiency"] = kernel_efficiency
    if launch_overhead_s is not None:
        a["launch_overhead_s"] = launch_overhead_s
    return budget(get_model(ex.model), ex.phase, ex.batch, ex.seq, catalog[ex.hardware],
                  ex.precision, catalog.precision(ex.precision).bytes_per_element,
                  frozenset(ex.fusions), Assumptions(**a), ex.sharding)
