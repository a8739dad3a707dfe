"""One transformer step as the kernels it launches, fused as asked: the kernel list the time
budget (roofline.model.budget) prices.

Conventions (stated once, used everywhere):
- Forward ops are `transformer.model_ops` without FlashAttention (flash is a fusion here).
- Backward (train), counted as the forward is: each tensor a kernel reads or writes, once.
  - A matmul op (GEMM, QKᵀ, S·V, fused attention) costs 2 × its forward FLOPs and bytes in two
    kernels: the input gradient and the weight gradient each read two of the three operands and
    write the third, so 2 × the bytes is exact.
  - Softmax, y = softmax(x): dx = y ⊙ (dy − rowsum(dy ⊙ y)) reads y and dy and writes dx, three
    tensors against the forward's two: 1.5 × its bytes.
  - SiLU·mul, out = silu(g) ⊙ u: dg = dout ⊙ u ⊙ silu'(g) and du = dout ⊙ silu(g) read g, u and
    dout and write dg and du: 5n elements against the forward's 3n.
  - RMSNorm, y = x · rstd · w: dx and dw read x, dy and w and write dx and dw (the weight's
    gradient reduced over the rows): (3·rows·d + 2·d) elements against (2·rows·d + d), ≈ 1.5 ×.
  - Residual add and embedding: their forward bytes once more (the residual stream's gradient
    is summed where it forks, one add; the embedding's gradient is scattered into its rows).
  - The backward's FLOPs of a non-matmul op are its forward FLOPs again: they are memory-bound
    at either count.
- The optimizer is one AdamW pass over fp32 state, of the parameters this GPU updates: all of
  them, or 1 / N of them under ZeRO stage ≥ 1 over N data-parallel GPUs (optimizer_shards).
- Useful FLOPs are the matmul FLOPs of the unfused step (6 N per token plus attention for
  training, the usual MFU numerator). Fusion changes bytes and kernel count, and FLOPs in one
  case: FlashAttention's backward pass recomputes QKᵀ (the scores never reached HBM), 2.5 × its
  forward's matmul FLOPs instead of 2 ×; the extra half is not useful (MFU counts 3 × forward).
- A fusion merges a run of consecutive kernels into one: FLOPs add, bytes add minus the
  intermediates that stay on chip (each written once and read by each consumer). A rule
  applies only where a layer has its ops in a Llama layer's order (an MoE layer's experts,
  MLA's projections and Gemma 2's post-attention norm keep their kernels apart).
- A model with more than one kind of layer (DeepSeek-V3: dense, then MoE) spells out each kind.
- Attention FLOPs are counted non-causal (the full score matrix), as the PaLM / Megatron MFU
  convention does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from roofline.errors import RooflineError
from roofline.model.maths import time_lower_bound
from roofline.model.ops import (ATTENTION, ELEMENTWISE, EMBEDDING, GEMM, NORM, OPTIMIZER, SOFTMAX,
    Op, attention_fused_like, adamw, embedding, gemm, rmsnorm)
from roofline.model.transformer import TransformerConfig, layer_ops

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

    def per_copy_s(self, peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> float:
        """One copy's roofline time."""
        return float(time_lower_bound(self.flops, self.bytes, peak_flops_per_s,
                                      bandwidth_bytes_per_s))

    def time_s(self, peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> float:
        return self.count * self.per_copy_s(peak_flops_per_s, bandwidth_bytes_per_s)



# ---------------------------------------------------------------- building the kernel list

@dataclass(frozen=True)
class _Slot:
    op: Op
    segment: int  # 0 prologue, 1..n layers, n + 1 epilogue


def _useful(op: Op) -> float:
    return op.flops if op.kind in MATMUL_KINDS else 0.0


def _bwd_factor(op: Op) -> float:
    """Backward FLOPs over forward FLOPs (see the module docstring)."""
    return 2.0 if op.kind in MATMUL_KINDS else 1.0


def backward_bytes(op: Op) -> float:
    """HBM bytes of an op's backward pass: the tensors it reads and writes, each once (the
    module docstring derives each case)."""
    b = op.bytes_per_element
    if op.kind in MATMUL_KINDS:
        return 2.0 * op.bytes
    if op.kind == "softmax":
        return 1.5 * op.bytes
    if op.kind == "silu_mul":
        return 5 * op.shape["n"] * b
    if op.kind == "rmsnorm":
        rows, d = op.shape["rows"], op.shape["d"]
        return (3 * rows * d + 2 * d) * b
    return op.bytes


def _forward_slots(cfg: TransformerConfig, phase: str, batch: int, seq: int,
                   b: float) -> tuple[list[_Slot], dict[int, int], int]:
    """The forward ops in order, with only min(n, 3) layers of each kind of layer spelled out:
    every middle layer of a kind is identical, so the second one stands for n - 2 of them
    (fusions may cross layers). Also each segment's copies per step, and the segment that
    stands for one layer (the middle one of the most numerous kind)."""
    tokens = batch * (1 if phase == "decode" else seq)
    slots = [_Slot(embedding(tokens, cfg.d_model, b, "embed_tokens"), 0)]
    counts, seg, mid, most = {0: 1}, 0, 1, 0
    for kind, layers in cfg.layer_groups():
        copies = [1, layers - 2, 1] if layers >= 3 else [1] * layers
        ops = layer_ops(cfg, phase, batch, seq, b, kind=kind)
        for c in copies:
            seg += 1
            counts[seg] = c
            slots += [_Slot(op, seg) for op in ops]
        if layers > most:
            most, mid = layers, seg - len(copies) + 1 + (len(copies) == 3)
    counts[seg + 1] = 1
    slots += [_Slot(rmsnorm(tokens, cfg.d_model, b, "norm"), seg + 1),
              _Slot(gemm(tokens, cfg.vocab, cfg.d_model, b, "lm_head"), seg + 1)]
    return slots, counts, mid


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

    def run(seg: int, *names: str) -> list[int] | None:
        # A rule fuses only ops that follow each other as in a Llama layer; a layer built
        # otherwise (MoE experts, MLA, Gemma's sandwich norms) keeps those kernels apart.
        found = [at(seg, n) for n in names]
        ok = None not in found and found == list(range(found[0], found[0] + len(found)))
        return found if ok else None

    for seg in range(1, last):
        if "flash" in fusions and (found := run(seg, "attn_qk", "attn_softmax", "attn_sv")):
            qk, sm, sv = found
            parts = [slots[i].op for i in (qk, sm, sv)]
            fused = attention_fused_like(parts[0])
            fwd = sum(p.bytes for p in parts) - fused.bytes
            bwd = sum(backward_bytes(p) for p in parts) - backward_bytes(fused)
            out.append(_Span(qk, sv, "flash", fwd, bwd))
        if "norm" in fusions:
            for norm, consumers in (("input_layernorm", ("q_proj", "k_proj", "v_proj")),
                                    ("post_attention_layernorm", ("gate_proj", "up_proj"))):
                if found := run(seg, norm, *consumers):
                    out.append(_norm_span(slots, found[0], found[-1], len(consumers)))
        if "epilogue" in fusions and (found := run(seg, "gate_proj", "up_proj", "act_fn")):
            gate, act = found[0], found[-1]
            saved = 4 * slots[act].op.shape["n"] * slots[act].op.bytes_per_element
            out.append(_Span(gate, act, "epilogue", saved, saved))
        if "residual" in fusions:
            if found := run(seg, "attn_residual", "post_attention_layernorm"):
                out.append(_residual_span(slots, *found))
            res, nxt = at(seg, "mlp_residual"), (at(seg + 1, "input_layernorm")
                                                 if seg + 1 < last else at(last, "norm"))
            if None not in (res, nxt) and nxt == res + 1:
                out.append(_residual_span(slots, res, nxt))
    if "norm" in fusions and (found := run(last, "norm", "lm_head")):
        out.append(_norm_span(slots, found[0], found[-1], 1))
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
        raw_b = sum(backward_bytes(p) for p in parts)
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
                 fusions: frozenset[str] | set[str] = frozenset(), optimizer_shards: int = 1,
                 *, memo: dict | None = None
                 ) -> tuple[list[Kernel], list[tuple[str, str, Kernel]]]:
    """Every kernel of one step (forward, backward and optimizer for train), fused as asked;
    and, for each op of one middle decoder layer, (op name, op class, its forward kernel).
    optimizer_shards: the data-parallel GPUs the AdamW state is sharded over (ZeRO stage ≥ 1):
    each updates only its 1 / shards of the parameters. memo: a dict the caller keeps across
    its calls (the budget widget's payload asks for each step under 16 fusion sets): a step's
    forward ops, and each kernel a fusion set leaves as another made it, are made once."""
    fusions = check_fusions(fusions)
    memo = {} if memo is None else memo
    shape = (cfg, phase, batch, seq, b)
    if shape not in memo:
        memo[shape] = _forward_slots(cfg, phase, batch, seq, b)
    slots, counts, mid = memo[shape]
    groups = {lo: (hi, members) for lo, hi, members in _merge(_spans(slots, fusions))}
    kernels: list[Kernel] = []
    placed: list[tuple[str, str, Kernel]] = []
    i = 0
    while i < len(slots):
        hi, members = groups.get(i, (i, []))
        seg = slots[i].segment
        # A kernel belongs to the layer of its first op; the middle layer is one full period.
        group = (shape, i, hi, tuple(members))
        made = memo.get(group)
        if made is None:
            made = memo[group] = _kernels_for([s.op for s in slots[i:hi + 1]], members,
                                              counts[seg], seg == mid, phase)
        kernels += made
        placed += [(s.op.name, s.op.op_class, made[0]) for s in slots[i:hi + 1]
                   if s.segment == mid]
        i = hi + 1
    if phase == "train":
        opt = adamw(cfg.params / optimizer_shards, 4.0, "adamw")
        kernels.append(Kernel(opt.name, opt.op_class, "optimizer", opt.flops, opt.bytes, 0.0, 1,
                              1, opt.bytes, (opt.name,)))
    return kernels, placed


def check_fusions(fusions) -> frozenset[str]:
    fusions = frozenset(fusions)
    unknown = sorted(fusions - set(FUSIONS))
    if unknown:
        raise RooflineError(f"unknown fusion {unknown[0]!r}", field="fuse", valid=list(FUSIONS))
    return fusions
