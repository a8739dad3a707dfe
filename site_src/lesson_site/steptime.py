"""§4 and §5 from the budget model: "FLOPs are not time" (each op class's share of a step's
FLOPs beside its share of the roofline time) and the launch overhead, the third regime
(roofline.model.launch: one gap added to every launched kernel)."""

from __future__ import annotations

import html

from roofline import fmt
from roofline.model import launch as launch_model
from roofline.model.budget import MEMORY_CLASSES, example_budget
from roofline.model.example import EXAMPLE
from roofline.errors import RooflineError
from roofline.model.memory import Sharding
from roofline.model.ops import ATTENTION, SOFTMAX
from roofline.render.tables import HtmlColumn, html_table
from roofline.model.transformer import get_model
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker
from lesson_site.teachkit import CLASS_LABELS, STEPS, _chip


# ---------------------------------------------------------------- §4 FLOPs are not time

def _budget(ctx: Context, step: str, hw: str, precision: str, fusions=frozenset(),
            launch_s: float | None = None, batch: int | None = None):
    """The running example's step (training as it runs: ZeRO-1, full recomputation), or its
    batch-1 decode step; `batch` replaces the step's batch."""
    if step not in STEPS:
        raise RooflineError(f"unknown step {step!r}", field="step", valid=list(STEPS))
    changes = dict(STEPS[step])
    if batch is not None:
        changes["batch"] = batch
    return example_budget(ctx.catalog, launch_overhead_s=launch_s, hardware=hw,
                          precision=precision, fusions=tuple(sorted(fusions)), **changes)


def _shares(bg) -> dict[str, tuple[float, float]]:
    """Per class: (share of the kernel list's FLOPs, share of its roofline time). The recomputed
    forward pass is left out: the shares are of one forward, backward and optimizer pass."""
    total_f, total_t = bg.flops, bg.pass_time_s
    return {c: (v["flops"] / total_f, v["time_s"] / total_t) for c, v in bg.by_class().items()}


def _memory_share(bg) -> tuple[float, float]:
    sh = _shares(bg)
    return (sum(sh[c][0] for c in MEMORY_CLASSES), sum(sh[c][1] for c in MEMORY_CLASSES))


def _memory_bound_share(bg) -> float:
    """Share of the pass's roofline time in memory-bound kernels, matmuls included."""
    ridge = bg.peak_flops_per_s / bg.bandwidth_bytes_per_s
    return sum(bg.kernel_time_s(k) for k in bg.kernels
               if k.intensity_flops_per_byte < ridge) / bg.pass_time_s


def _attention_share(bg) -> float:
    """Share of the pass's roofline time in attention: its matmuls and its softmax."""
    c = bg.by_class()
    return (c[ATTENTION]["time_s"] + c[SOFTMAX]["time_s"]) / bg.pass_time_s


def _qk_intensity(bg) -> float:
    """The unfused QKᵀ kernel's arithmetic intensity (FLOP/byte)."""
    return next(k.intensity_flops_per_byte for k in bg.kernels
                if k.pass_ == "forward" and k.parts == ("attn_qk",))


@marker("flops_vs_time", block=True)
def flops_vs_time(ctx: Context, *, step: str = "train", hw: str = LESSON_HW,
                  precision: str = LESSON_PRECISION) -> str:
    """Per op class: share of the step's FLOPs beside its share of the roofline time, unfused
    and with FlashAttention."""
    plain = _budget(ctx, step, hw, precision)
    flash = _budget(ctx, step, hw, precision, frozenset({"flash"}))
    a, f = _shares(plain), _shares(flash)
    rows = []
    for cls, label in CLASS_LABELS.items():
        if not plain.by_class()[cls]["launches"] and not flash.by_class()[cls]["launches"]:
            continue
        rows.append([html.escape(label), fmt.percent(a[cls][0]), fmt.percent(a[cls][1]),
                     fmt.percent(f[cls][1]) if flash.by_class()[cls]["launches"]
                     else "— (inside attention)"])
    mf, mt = _memory_share(plain)
    rows.append(["<strong>all non-matmul ops together</strong>",
                 f"<strong>{fmt.percent(mf)}</strong>",
                 f"<strong>{fmt.percent(mt)}</strong>",
                 f"<strong>{fmt.percent(_memory_share(flash)[1])}</strong>"])
    cfg = get_model(plain.model.id)
    what = (f"one training step of {cfg.name} ({plain.batch} × {plain.seq:,} tokens, forward, "
            "backward and AdamW)" if plain.phase == "train" else
            f"one decode step of {cfg.name} (batch {plain.batch}, {plain.seq:,}-token KV cache)")
    label = f"FLOPs against time, {what}"
    cols = [HtmlColumn("Op class", priority=1, wrap=True),
            # short enough for a phone's card labels (longer ones ran into their values)
            HtmlColumn("FLOP share", "right", 1),
            HtmlColumn("Time share, unfused", "right", 1),
            HtmlColumn("Time share, fused", "right", 1)]
    return (f"\n*{html.escape(label[0].upper() + label[1:])} on the {_chip(ctx, hw)} in "
            f"{precision}: time is each kernel's roofline floor, summed "
            f"({fmt.seconds(plain.pass_time_s)} unfused, {fmt.seconds(flash.pass_time_s)} fused: "
            "with FlashAttention); no launch gaps or efficiency losses." + _run_note(flash)
            + _matmul_note(plain) + "*\n{: .rl-caption }\n\n"
            + html_table(cols, rows, label=label, css_class="rl-flops-time"))


def _run_note(bg) -> str:
    """How a training step is run so that it fits, in the caption's words (decode: nothing);
    `bg` is the fused step, the running example's (its memory and recomputation, not the
    unfused run's)."""
    if bg.phase != "train":
        return ""
    import dataclasses
    m, dp = bg.memory, bg.assumptions.dp_degree
    unsharded = dataclasses.replace(bg, sharding=Sharding()).memory
    return (f" The fused run is the running example [Where the 50 % goes](../budget.md) states: "
            f"ZeRO-{bg.sharding.zero_stage} over {dp:,} data-parallel GPUs, so each keeps and "
            f"updates 1/{dp:,} of the AdamW state (the optimizer's row is that share), and full "
            f"activation recomputation, so it fits: {fmt.capacity(m.total)} of the "
            f"{fmt.capacity(m.capacity)} a GPU lets programs use (unsharded it would need "
            f"{fmt.capacity(unsharded.total)}). The recomputed forward pass adds "
            f"{fmt.seconds(bg.recompute_time_s)}: it is left out of the shares and counted in "
            "the MFU bound.")


def _matmul_note(bg) -> str:
    """Unfused attention's matmuls are memory-bound too: what the matmul/non-matmul split
    leaves out."""
    if bg.phase != "train":
        return ""
    ridge = bg.peak_flops_per_s / bg.bandwidth_bytes_per_s
    return (f" Unfused, the attention matmuls are memory-bound as well (QKᵀ at "
            f"{fmt.num(_qk_intensity(bg))} FLOP/byte, below the ridge's {fmt.num(ridge)}): "
            f"every memory-bound kernel together, matmuls included, takes "
            f"{fmt.percent(_memory_bound_share(bg))} of the unfused step, more than the "
            "non-matmul row says.")


STEP_FIGURES = {
    "memory_flops": lambda bg: fmt.percent(_memory_share(bg)[0]),
    "memory_time": lambda bg: fmt.percent(_memory_share(bg)[1]),
    "memory_bound_time": lambda bg: fmt.percent(_memory_bound_share(bg)),
    "attention_time": lambda bg: fmt.percent(_attention_share(bg)),
    "qk_ai": lambda bg: fmt.num(_qk_intensity(bg)),
    "step_time": lambda bg: fmt.seconds(bg.step_time_s),
    "mfu": lambda bg: fmt.percent(bg.mfu_upper_bound, 3),
    "mfu_no_recompute": lambda bg: fmt.percent(bg.mfu_upper_bound_without_recompute, 3),
}


@marker("step_share")
def step_share(ctx: Context, *, step: str = "train", what: str = "memory_time",
               fused: str = "none", batch: int = 0, hw: str = LESSON_HW,
               precision: str = LESSON_PRECISION) -> str:
    """One figure of the FLOPs-vs-time comparison: memory_flops, memory_time (shares of the
    pass's FLOPs and roofline time taken by the non-matmul classes), memory_bound_time (by
    every memory-bound kernel), attention_time, qk_ai, step_time, mfu (the step's useful FLOPs
    over its roofline time, recomputation included, × peak: no real step does better) or
    mfu_no_recompute (the same without the recomputed forward pass). batch: another batch of
    the same step (0: the step's own)."""
    if fused not in ("none", "flash"):
        raise RooflineError(f"unknown fusion {fused!r}", field="fused", valid=["none", "flash"])
    if what not in STEP_FIGURES:
        raise RooflineError(f"unknown quantity {what!r}", field="what", valid=list(STEP_FIGURES))
    bg = _budget(ctx, step, hw, precision, frozenset() if fused == "none" else {"flash"},
                 batch=batch or None)
    return STEP_FIGURES[what](bg)


# ---------------------------------------------------------------- overhead, the third regime

def _launch_s(at: str) -> float:
    overhead = launch_model.load_launch()
    values = {"default": overhead.seconds, "overlapped": overhead.overlapped_s,
              "synchronised": overhead.synchronised_s, "graph": overhead.graph_s}
    if at not in values:
        raise RooflineError(f"unknown launch figure {at!r}", field="at", valid=list(values))
    return values[at]


@marker("launch")
def launch(ctx: Context, *, field: str = "us", step: str = "decode", at: str = "default",
           fuse: str = "default", hw: str = LESSON_HW, precision: str = LESSON_PRECISION
           ) -> str:
    """The launch overhead (data/overhead.toml; `at` = default, overlapped, synchronised or
    graph: the figure or an end of its source's range) and what it adds to a step of the
    budget model (training: the running example; decode: unfused): us (the figure), kernels
    (launched, recomputed ones included), added (time), step (roofline time), share (added ÷
    step), rate_roofline and rate_launch (steps per second without and with the launch
    gaps). fuse=flash: decode with FlashAttention, as the serving window prices it (its
    tokens/s at batch 1, eager, are rate_launch's)."""
    if fuse not in ("default", "flash"):
        raise RooflineError(f"unknown fusion set {fuse!r}", field="fuse",
                            valid=["default", "flash"])
    seconds = _launch_s(at)
    if field == "us":
        return fmt.num(seconds * 1e6)
    # Training as the running example runs it; decode unfused, as eager inference launches it.
    fusions = EXAMPLE.fusions if step == "train" else () if fuse == "default" else ("flash",)
    bg = _budget(ctx, step, hw, precision, frozenset(fusions), launch_s=seconds)
    added = bg.overhead_times_s["launch"]
    values = {"kernels": f"{bg.step_launches:,}", "added": fmt.seconds(added),
              "step": fmt.seconds(bg.step_time_s),
              "share": fmt.percent(launch_model.launch_share(bg.step_launches, seconds,
                                                             bg.step_time_s)),
              "rate_roofline": fmt.num(1 / bg.step_time_s),
              "rate_launch": fmt.num(1 / (bg.step_time_s + added))}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field",
                            valid=["us", *values])
    return values[field]


@marker("launch_formula", block=True)
def launch_formula(ctx: Context) -> str:
    from lesson_site.lesson_parts import mathml
    return mathml(r"t = \max\left(\frac{\text{FLOPs}}{P_{\text{peak}}},\ "
                  r"\frac{\text{bytes}}{B_{\text{HBM}}}\right) + t_{\text{launch}}",
                  "time is the larger of FLOPs over peak and bytes over bandwidth, plus the "
                  "launch time")


@marker("launch_source", block=True)
def launch_source(ctx: Context) -> str:
    overhead = launch_model.load_launch()
    return (f'\n<details class="note rl-sources">\n<summary>Basis of the '
            f"{fmt.num(overhead.seconds * 1e6)} µs launch overhead "
            f"({html.escape(overhead.basis)})</summary>\n<p>{html.escape(overhead.note)}</p>\n"
            f"<p>Added to every kernel, not a floor under it: the source's overhead is added to "
            f"its kernel's own time whether the launches overlap "
            f"({fmt.num(overhead.overlapped_s * 1e6)} µs) or not "
            f"({fmt.num(overhead.synchronised_s * 1e6)} µs).</p>\n<p>Source: "
            f'<a href="{html.escape(overhead.url)}">{html.escape(overhead.source_title)}</a>.</p>'
            "\n</details>\n")


@marker("floor_ops")
def floor_ops(ctx: Context, *, step: str = "decode", hw: str = LESSON_HW,
              precision: str = LESSON_PRECISION) -> str:
    """How many of a step's kernel launches have less roofline work than one launch gap:
    overhead-bound (roofline.model.launch.regime)."""
    seconds = launch_model.load_launch().seconds
    bg = _budget(ctx, step, hw, precision)
    short = sum(k.count * k.launches for k in bg.kernels
                if launch_model.regime(k.flops / k.launches, k.bytes / k.launches,
                                       bg.peak_flops_per_s, bg.bandwidth_bytes_per_s,
                                       seconds) == "overhead")
    return f"{short:,}"
