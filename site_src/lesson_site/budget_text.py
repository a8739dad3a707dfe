"""Markers for the budget page's prose: every default the widget opens with, printed in the
text (so it reads with JavaScript off and on paper), and the figures the prose argues from,
computed by roofline.model.budget and roofline.model.memory for the running example
(roofline.model.example) or a variant of it."""

from __future__ import annotations

import html

from roofline import fmt
from roofline.model import launch as launch_model
from roofline.model.budget import FUSIONS, MEMORY_CLASSES, Assumptions, example_budget
from roofline.model.example import EXAMPLE
from roofline.errors import RooflineError
from roofline.model.memory import ADAM_STATE_BYTES_PER_PARAM, GRAD_BYTES_PER_PARAM, RECOMPUTE
from roofline.model.transformer import get_model
from roofline.render.tables import HtmlColumn, html_table
from lesson_site.context import Context
from lesson_site.markers import marker

DEFAULTS = {
    "launch_overhead_us": lambda a: fmt.num(a.launch_overhead_s * 1e6, 3),
    "dp_degree": lambda a: f"{a.dp_degree:,}",
    "overlap_percent": lambda a: fmt.num(a.overlap_fraction * 100, 3),
    "grad_bytes": lambda a: fmt.num(a.grad_bytes_per_element, 3),
}
EXAMPLE_FIELDS = {
    "batch": lambda: f"{EXAMPLE.batch:,}", "seq": lambda: f"{EXAMPLE.seq:,}",
    "model": lambda: get_model(EXAMPLE.model).name, "zero_stage": lambda: str(EXAMPLE.zero_stage),
    "recompute": lambda: EXAMPLE.recompute,
}


@marker("budget_default")
def budget_default(ctx: Context, *, name: str) -> str:
    """One default of the budget (roofline.model.budget.Assumptions, the widget's only copy), or
    of the running example it opens on (batch, seq, model, zero_stage, recompute), or of the
    memory model (bytes per parameter)."""
    a = Assumptions()
    if name == "kernel_efficiency":  # the chip's measured ceiling ÷ peak, not an Assumptions field
        return fmt.num(example_budget(ctx.catalog).gemm_efficiency, 3)
    if name == "overlap_basis":  # data/overlap.toml's basis, said as such
        from roofline.model.overlap import load_overlap
        o = load_overlap()
        return html.escape(f"an {o.basis}: no source here measures it; the mechanism is "
                           f"{o.source_short}, which hides all but the last bucket")
    if name in DEFAULTS:
        return DEFAULTS[name](a)
    if name in EXAMPLE_FIELDS:
        return EXAMPLE_FIELDS[name]()
    if name == "bytes_per_param":
        return fmt.num(2 + GRAD_BYTES_PER_PARAM + ADAM_STATE_BYTES_PER_PARAM, 3)
    if name == "adam_bytes_per_param":
        return fmt.num(ADAM_STATE_BYTES_PER_PARAM, 3)
    raise RooflineError(f"unknown default {name!r}", field="name",
                        valid=["kernel_efficiency", "overlap_basis", *DEFAULTS, *EXAMPLE_FIELDS,
                               "bytes_per_param",
                               "adam_bytes_per_param"])


@marker("gemm_ceiling")
def gemm_ceiling(ctx: Context, *, field: str = "sentence") -> str:
    """The running example's GEMM efficiency and where it comes from: the sentence the CLI
    prints (roofline.widgets.budget.tables.efficiency_words), or the measurement's source."""
    from roofline.widgets.budget.tables import efficiency_words
    bg = example_budget(ctx.catalog)
    c = bg.gemm_ceiling
    if field == "sentence":
        return html.escape(efficiency_words(bg))
    if field == "source":
        if c is None:
            return "no measurement: the roofline bound alone"
        return html.escape(f"{c.basis}: {c.source_short}, {c.software}, best shape "
                           f"{c.shape}, {c.date}")
    raise RooflineError(f"unknown field {field!r}", field="field", valid=["sentence", "source"])


FUSE_SETS = {"example": EXAMPLE.fusions, "none": (), "flash": ("flash",), "all": FUSIONS}


def _budget(ctx: Context, model: str, phase: str, batch: int, fuse: str, efficiency: str,
            zero: int, recompute: str, launch_s: float | None = None):
    """The running example with the variant a marker asks for (recompute=stated keeps its
    sharding; zero=-1 keeps its ZeRO stage)."""
    if fuse not in FUSE_SETS:
        raise RooflineError(f"unknown fusion set {fuse!r}", field="fuse", valid=list(FUSE_SETS))
    if recompute not in ("stated", *RECOMPUTE):
        raise RooflineError(f"unknown recomputation {recompute!r}", field="recompute",
                            valid=["stated", *RECOMPUTE])
    changes = {"model": model, "phase": phase, "batch": batch, "fusions": FUSE_SETS[fuse]}
    if recompute != "stated":
        changes["recompute"] = recompute
    if zero >= 0:
        changes["zero_stage"] = zero
    eff = None if efficiency == "default" else float(efficiency)
    return example_budget(ctx.catalog, kernel_efficiency=eff, launch_overhead_s=launch_s,
                          **changes)


def _pct(x: float) -> str:
    """An MFU as every page and the CLI print it: three significant figures."""
    return fmt.percent(x, 3)


@marker("budget_mfu")
def budget_mfu(ctx: Context, *, fuse: str = "example", field: str = "estimate",
               efficiency: str = "default", model: str = EXAMPLE.model,
               phase: str = EXAMPLE.phase, batch: int = EXAMPLE.batch, zero: int = -1,
               recompute: str = "stated") -> str:
    """The running example (or a variant): estimate (MFU after overheads), bound (the roofline
    bound, recomputation included) or bound_no_recompute. What a leak costs is the ranked
    account's (lesson_site.leaks: share of step time, points of MFU recovered)."""
    bg = _budget(ctx, model, phase, batch, fuse, efficiency, zero, recompute)
    if field == "estimate":
        return _pct(bg.mfu_estimate)
    if field == "bound":
        return _pct(bg.mfu_upper_bound)
    if field == "bound_no_recompute":
        return _pct(bg.mfu_upper_bound_without_recompute)
    raise RooflineError(f"unknown field {field!r}", field="field",
                        valid=["estimate", "bound", "bound_no_recompute"])


@marker("budget_flops")
def budget_flops(ctx: Context, *, fuse: str = "none") -> str:
    """The running example's FLOPs in one forward, backward and optimizer pass, in TFLOP (no
    recomputation): FlashAttention's backward adds its recomputed QKᵀ."""
    bg = _budget(ctx, EXAMPLE.model, EXAMPLE.phase, EXAMPLE.batch, fuse, "default", -1,
                 "stated")
    return f"{fmt.num(bg.flops / 1e12)} TFLOP"


@marker("budget_memory")
def budget_memory(ctx: Context, *, field: str = "total", fuse: str = "none",
                  model: str = EXAMPLE.model, phase: str = EXAMPLE.phase,
                  batch: int = EXAMPLE.batch, zero: int = 0,
                  recompute: str = "none") -> str:
    """Bytes per GPU of one step (roofline.model.memory), in GB: total, state (weights,
    gradients and optimizer), activations, kv_cache, weights, overflow, headroom (capacity -
    total), or capacity (what programs can use of the chip's HBM, and how it is built)."""
    bg = _budget(ctx, model, phase, batch, fuse, "default", zero, recompute)
    m = bg.memory
    values = {"total": m.total, "state": m.weights + m.gradients + m.optimizer,
              "activations": m.activations, "kv_cache": m.kv_cache, "weights": m.weights,
              "overflow": m.overflow, "headroom": max(0.0, m.capacity - m.total)}
    if field == "capacity":
        built = bg.hardware.hbm.capacity_bytes
        return (fmt.memory_and_bytes(built) if m.capacity == built else
                f"{fmt.capacity(m.capacity)} programs can use (of {fmt.memory(built)})")
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field",
                            valid=[*values, "capacity"])
    return fmt.capacity(values[field])


@marker("launch_range", block=True)
def launch_range(ctx: Context) -> str:
    """How the answers move across the launch overhead's range (roofline.model.launch): the
    launch share of the lesson's unfused batch-1 decode step and of the running example, and
    the running example's MFU estimate, at each end of the source's range and at the default."""
    overhead = launch_model.load_launch()
    rows = []
    for label, seconds in overhead.launch_range():
        decode = _budget(ctx, EXAMPLE.model, "decode", 1, "none", "default", -1, "stated",
                         launch_s=seconds)
        train = _budget(ctx, EXAMPLE.model, EXAMPLE.phase, EXAMPLE.batch, "example",
                        "default", -1, "stated", launch_s=seconds)
        rows.append([html.escape(label), f"{fmt.num(seconds * 1e6)} µs",
                     "+" + fmt.percent(launch_model.launch_share(
                         decode.step_launches, seconds, decode.step_time_s)),
                     "+" + fmt.percent(launch_model.launch_share(
                         train.step_launches, seconds, train.step_time_s)),
                     _pct(train.mfu_estimate)])
    cols = [HtmlColumn("Launches", priority=1, wrap=True), HtmlColumn("Gap", "right", 1),
            HtmlColumn("Decode, batch 1, unfused", "right", 1),
            HtmlColumn("Training step", "right", 1),
            HtmlColumn("MFU after overheads", "right", 2)]
    label = "The launch overhead across its source's range"
    return ("\n*" + label + ": the gap each launched kernel adds, the launch gaps' share of the "
            "unfused batch-1 decode step's (the lesson's) and the running example's roofline "
            "time, and the running example's MFU estimate.*\n{: .rl-caption }\n\n"
            + html_table(cols, rows, label=label))


@marker("budget_vector")
def budget_vector(ctx: Context, *, field: str = "ridge") -> str:
    """Why the vector roof never binds in the budget: ridge (the fp32 vector roof's ridge,
    FLOP/byte), max_ai (the highest intensity of the running example's non-matmul kernels),
    max_op (its name), fp32 or bf16 (the vector roofs, TFLOP/s)."""
    bg = example_budget(ctx.catalog, fusions=())
    hw = bg.hardware
    fp32, bf16 = hw.vector_peak_for("fp32"), hw.vector_peak_for(EXAMPLE.precision)
    top = max((k for k in bg.kernels if k.op_class in MEMORY_CLASSES),
              key=lambda k: k.intensity_flops_per_byte)
    values = {"ridge": fmt.num(fp32.flops_per_s / hw.hbm_bandwidth_bytes_per_s),
              "max_ai": fmt.num(top.intensity_flops_per_byte),
              "max_op": top.name.replace("_", " "),
              "fp32": fmt.tflops(fp32.flops_per_s), "bf16": fmt.tflops(bf16.flops_per_s)}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return values[field]


# ---------------------------------------------------------------- the op zoo's runs

# The op-zoo page's runs: the running example's training step, a prompt prefill of one of its
# sequences, one decode step against a cache of that length.
RUNS = {"train": (EXAMPLE.batch, EXAMPLE.seq), "prefill": (1, EXAMPLE.seq),
        "decode": (1, EXAMPLE.seq)}


def run_budget(ctx: Context, model: str, phase: str):
    """A run of the op zoo's summary as the budget model prices it: the running example's
    whole training step for that model (forward, backward, the recomputed forward, AdamW over
    its ZeRO shard), or its prefill or decode step; FlashAttention, as the op tables."""
    from lesson_site.context import LESSON_HW, LESSON_PRECISION
    batch, seq = RUNS[phase]
    return example_budget(ctx.catalog, model=model, phase=phase, batch=batch, seq=seq,
                          fusions=("flash",), hardware=LESSON_HW, precision=LESSON_PRECISION)


def misfit_words(bg) -> str:
    """A run that does not fit, in the CLI's words: what it needs per GPU against the HBM."""
    m = bg.memory
    return f"does not fit: {fmt.capacity(m.total)} per GPU against {fmt.capacity(m.capacity)}"

