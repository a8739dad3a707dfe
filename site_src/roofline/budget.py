"""Where the step time goes: a roofline time budget for one transformer step, fusion what-ifs,
and a waterfall from 100 % of peak down to an MFU estimate.

Conventions (stated once, used everywhere):
- Every kernel takes its roofline lower bound max(FLOPs / peak, bytes / HBM BW); nothing overlaps.
- Forward ops are `transformer.model_ops` without FlashAttention (flash is a fusion here).
- Backward (train): a matmul op (GEMM, QKᵀ, S·V) costs 2 × its forward FLOPs and bytes in two
  kernels (input gradient and weight gradient: each reads two of the three operands and writes
  the third, so 2 × the bytes is exact); every other op costs its forward FLOPs and bytes again
  in one kernel. No activation recomputation. The optimizer is one AdamW pass over fp32 state.
- Useful FLOPs are the matmul FLOPs of the unfused step (6 N per token plus attention for
  training, the usual MFU numerator). Fusion never changes FLOPs, only bytes and kernel count.
- A fusion merges a run of consecutive kernels into one: FLOPs add, bytes add minus the
  intermediates that stay on chip (each written once and read by each consumer).
- The waterfall attributes the step's lost time in proportion to each cause's time: a cause
  taking t of a step of T seconds costs t / T of peak, so the losses sum to 100 % - MFU and no
  loss depends on the order the causes are listed in.
- Attention FLOPs are counted non-causal (the full score matrix), as the PaLM / Megatron MFU
  convention does; FlashAttention's backward pass is 2.5x its forward FLOPs (the forward's two
  matmuls twice, plus the recomputed QK^T).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .catalog import Accelerator
from .errors import RooflineError
from .maths import time_lower_bound
from .memory import Memory, Sharding, step_memory, what_fits
from .ops import (ATTENTION, ELEMENTWISE, EMBEDDING, GEMM, NORM, OPTIMIZER, SOFTMAX, Op,
                  attention_fused, adamw, embedding, gemm, rmsnorm)
from .transformer import PHASES, TransformerConfig, layer_ops

FUSIONS = ("norm", "epilogue", "residual", "flash")
FUSION_LABELS = {
    "norm": "RMSNorm into the next GEMM's prologue",
    "epilogue": "SiLU·mul into the gate/up GEMM epilogue",
    "residual": "residual add + RMSNorm in one kernel",
    "flash": "FlashAttention (scores stay on chip)",
}
CLASSES = (GEMM, ATTENTION, NORM, ELEMENTWISE, SOFTMAX, EMBEDDING, OPTIMIZER)
# A merged kernel is named by the most expensive kind of work in it.
_CLASS_PRIORITY = {c: i for i, c in enumerate(CLASSES)}
MATMUL_KINDS = ("gemm", "gemv", "attention_qk", "attention_sv", "attention_fused")
MEMORY_CLASSES = (NORM, ELEMENTWISE, SOFTMAX, EMBEDDING, OPTIMIZER)
PASSES = ("forward", "backward", "optimizer")


@dataclass(frozen=True)
class Assumptions:
    """What the roofline cannot know: editable on the page and on the command line."""
    kernel_efficiency: float = 0.7
    """Share of its roofline bound a real kernel reaches: tile and wave quantisation, occupancy,
    pipeline fill and sustained (not boost) clocks. Tuned large GEMMs reach 0.7-0.8."""
    launch_overhead_s: float = 4e-6
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


@dataclass(frozen=True)
class Kernel:
    """One launched kernel, `count` identical copies per step. FLOPs and bytes are per copy."""
    name: str
    op_class: str
    pass_: str
    flops: float
    bytes: float
    useful_flops: float
    launches: int
    count: int
    unfused_bytes: float
    parts: tuple[str, ...]
    saved_by: dict[str, float] = field(default_factory=dict)
    """Bytes per copy each fusion kept on chip in this kernel."""
    in_layer: bool = False

    @property
    def intensity_flops_per_byte(self) -> float:
        return self.flops / self.bytes if self.bytes else float("inf")

    def time_s(self, peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> float:
        return self.count * float(time_lower_bound(self.flops, self.bytes, peak_flops_per_s,
                                                   bandwidth_bytes_per_s))


# ---------------------------------------------------------------- building the kernel list

@dataclass(frozen=True)
class _Slot:
    op: Op
    segment: int  # 0 prologue, 1..n layers, n + 1 epilogue


def _useful(op: Op) -> float:
    return op.flops if op.kind in MATMUL_KINDS else 0.0


def _bwd_factor(op: Op) -> float:
    return 2.0 if op.kind in MATMUL_KINDS else 1.0


def _forward_slots(cfg: TransformerConfig, phase: str, batch: int, seq: int,
                   b: float) -> tuple[list[_Slot], int]:
    """The forward ops in order, with only min(layers, 3) layers spelled out: every middle layer
    is identical, so the second one stands for layers - 2 of them (fusions may cross layers)."""
    tokens = batch * (1 if phase == "decode" else seq)
    n = min(cfg.layers, 3)
    slots = [_Slot(embedding(tokens, cfg.d_model, b, "embed_tokens"), 0)]
    for i in range(n):
        slots += [_Slot(op, i + 1) for op in layer_ops(cfg, phase, batch, seq, b)]
    slots += [_Slot(rmsnorm(tokens, cfg.d_model, b, "norm"), n + 1),
              _Slot(gemm(tokens, cfg.vocab, cfg.d_model, b, "lm_head"), n + 1)]
    return slots, n


@dataclass(frozen=True)
class _Span:
    lo: int
    hi: int  # inclusive
    fusion: str
    saved_fwd: float
    saved_bwd: float


def _spans(slots: list[_Slot], fusions: frozenset[str]) -> list[_Span]:
    """Each fusion rule names the runs of ops it merges and the intermediate bytes it saves."""
    index = {(s.segment, s.op.name): i for i, s in enumerate(slots)}
    last = max(s.segment for s in slots)
    out: list[_Span] = []

    def at(seg: int, name: str) -> int | None:
        return index.get((seg, name))

    for seg in range(1, last):
        if "flash" in fusions:
            qk, sm, sv = (at(seg, n) for n in ("attn_qk", "attn_softmax", "attn_sv"))
            parts = [slots[i].op for i in (qk, sm, sv)]
            s = parts[0].shape
            fused = attention_fused(s["batch"], s["heads"], s["kv_heads"], s["head_dim"],
                                    s["q_len"], s["kv_len"], parts[0].bytes_per_element)
            fwd = sum(p.bytes for p in parts) - fused.bytes
            bwd = sum(_bwd_factor(p) * p.bytes for p in parts) - 2 * fused.bytes
            out.append(_Span(qk, sv, "flash", fwd, bwd))
        if "norm" in fusions:
            for norm, consumers in (("input_layernorm", ("q_proj", "k_proj", "v_proj")),
                                    ("post_attention_layernorm", ("gate_proj", "up_proj"))):
                i = at(seg, norm)
                out.append(_norm_span(slots, i, at(seg, consumers[-1]), len(consumers)))
        if "epilogue" in fusions:
            gate, act = at(seg, "gate_proj"), at(seg, "act_fn")
            saved = 4 * slots[act].op.shape["n"] * slots[act].op.bytes_per_element
            out.append(_Span(gate, act, "epilogue", saved, saved))
        if "residual" in fusions:
            res = at(seg, "attn_residual")
            out.append(_residual_span(slots, res, at(seg, "post_attention_layernorm")))
            res = at(seg, "mlp_residual")
            nxt = at(seg + 1, "input_layernorm") if seg + 1 < last else at(last, "norm")
            out.append(_residual_span(slots, res, nxt))
    if "norm" in fusions:
        out.append(_norm_span(slots, at(last, "norm"), at(last, "lm_head"), 1))
    return out


def _norm_span(slots: list[_Slot], norm: int, last_consumer: int, consumers: int) -> _Span:
    # The normalised rows are written once and read by each consumer GEMM; fused, the GEMM
    # reads the raw rows (already counted in the norm's bytes) and scales them on chip.
    op = slots[norm].op
    saved = (1 + consumers) * op.shape["rows"] * op.shape["d"] * op.bytes_per_element
    return _Span(norm, last_consumer, "norm", saved, saved)


def _residual_span(slots: list[_Slot], res: int, norm: int) -> _Span:
    # The sum is still written (it is the residual stream); the norm no longer reads it back.
    op = slots[res].op
    saved = op.shape["n"] * op.bytes_per_element
    return _Span(res, norm, "residual", saved, saved)


def _merge(spans: list[_Span]) -> list[tuple[int, int, list[_Span]]]:
    """Spans that share an op become one kernel (intervals merged); others stay apart."""
    groups: list[tuple[int, int, list[_Span]]] = []
    for sp in sorted(spans, key=lambda s: (s.lo, s.hi)):
        if groups and sp.lo <= groups[-1][1]:
            lo, hi, members = groups[-1]
            groups[-1] = (lo, max(hi, sp.hi), members + [sp])
        else:
            groups.append((sp.lo, sp.hi, [sp]))
    return groups


def _class_of(parts: list[Op]) -> str:
    return min((p.op_class for p in parts), key=_CLASS_PRIORITY.__getitem__)


def _kernels_for(parts: list[Op], members: list[_Span], count: int, in_layer: bool,
                 phase: str) -> list[Kernel]:
    name = "+".join(p.name for p in parts)
    cls = _class_of(parts)
    saved_fwd: dict[str, float] = {}
    saved_bwd: dict[str, float] = {}
    for sp in members:
        saved_fwd[sp.fusion] = saved_fwd.get(sp.fusion, 0.0) + sp.saved_fwd
        saved_bwd[sp.fusion] = saved_bwd.get(sp.fusion, 0.0) + sp.saved_bwd
    raw = sum(p.bytes for p in parts)
    out = [Kernel(name, cls, "forward", sum(p.flops for p in parts),
                  raw - sum(saved_fwd.values()), sum(_useful(p) for p in parts), 1, count, raw,
                  tuple(p.name for p in parts), saved_fwd, in_layer)]
    if phase == "train":
        raw_b = sum(_bwd_factor(p) * p.bytes for p in parts)
        has_matmul = any(p.kind in MATMUL_KINDS for p in parts)
        # FlashAttention's backward recomputes QK^T (the scores never reached HBM): 2.5x the
        # forward's matmul FLOPs, the extra half not useful (MFU counts 3x the forward).
        recompute = (sum(p.flops for p in parts if p.kind == "attention_qk")
                     if any(sp.fusion == "flash" for sp in members) else 0.0)
        out.append(Kernel(name, cls, "backward",
                          sum(_bwd_factor(p) * p.flops for p in parts) + recompute,
                          raw_b - sum(saved_bwd.values()),
                          sum(_bwd_factor(p) * _useful(p) for p in parts),
                          2 if has_matmul else 1, count, raw_b, tuple(p.name for p in parts),
                          saved_bwd, in_layer))
    return out


def step_kernels(cfg: TransformerConfig, phase: str, batch: int, seq: int, b: float,
                 fusions: frozenset[str] | set[str] = frozenset()
                 ) -> tuple[list[Kernel], list[tuple[str, str, Kernel]]]:
    """Every kernel of one step (forward, backward and optimizer for train), fused as asked;
    and, for each op of one middle decoder layer, (op name, op class, its forward kernel)."""
    fusions = check_fusions(fusions)
    slots, n = _forward_slots(cfg, phase, batch, seq, b)
    counts = {0: 1, n + 1: 1}
    counts.update({i + 1: 1 for i in range(n)})
    if n == 3:
        counts[2] = cfg.layers - 2
    mid = 2 if n == 3 else 1
    groups = {lo: (hi, members) for lo, hi, members in _merge(_spans(slots, fusions))}
    kernels: list[Kernel] = []
    placed: list[tuple[str, str, Kernel]] = []
    i = 0
    while i < len(slots):
        hi, members = groups.get(i, (i, []))
        seg = slots[i].segment
        # A kernel belongs to the layer of its first op; the middle layer is one full period.
        made = _kernels_for([s.op for s in slots[i:hi + 1]], members, counts[seg], seg == mid,
                            phase)
        kernels += made
        placed += [(s.op.name, s.op.op_class, made[0]) for s in slots[i:hi + 1]
                   if s.segment == mid]
        i = hi + 1
    if phase == "train":
        opt = adamw(cfg.params, 4.0, "adamw")
        kernels.append(Kernel(opt.name, opt.op_class, "optimizer", opt.flops, opt.bytes, 0.0, 1,
                              1, opt.bytes, (opt.name,)))
    return kernels, placed


def check_fusions(fusions) -> frozenset[str]:
    fusions = frozenset(fusions)
    unknown = sorted(fusions - set(FUSIONS))
    if unknown:
        raise RooflineError(f"unknown fusion {unknown[0]!r}", field="fuse", valid=list(FUSIONS))
    return fusions


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
        """Bytes per GPU against the chip's HBM (roofline.memory states the formulas)."""
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
    1 - MFU exactly. The levels are the running total, for drawing. Mirrored by budget.mjs."""
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
           assumptions: Assumptions = Assumptions(), sharding: Sharding = Sharding()) -> Budget:
    """The time budget of one step; `b` is the precision's bytes per element."""
    if phase not in PHASES:
        from .errors import unknown_id
        raise unknown_id("phase", phase, list(PHASES))
    for key, value in (("batch", batch), ("seq", seq)):
        if not (isinstance(value, int) and value > 0):
            raise RooflineError(f"must be a positive integer, got {value!r}", field=key)
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
