"""Markers that teach by deriving: the §3 worked examples (an RMSNorm and a training GEMM,
every intermediate number from the model), the tokens-per-step rule with its per-chip table,
the §4 "FLOPs are not time" table from the budget model, the launch floor (overhead, the third
regime) and the figures the back-of-envelope problems need."""

from __future__ import annotations

import dataclasses
import html
import json
import math
import re
from pathlib import Path

from .. import fmt
from ..budget import MEMORY_CLASSES, Assumptions, budget
from ..errors import RooflineError
from ..plot.jsmodule import join
from ..render.tables import HtmlColumn, html_table
from ..tokens import (critical_tokens, critical_tokens_with_activations, load_launch_floor,
                      matmul_cost, min_compute_bound_tokens)
from ..transformer import get_model
from ..budget_widget import STATED_RUN
from ..memory import Sharding
from .context import LESSON_HW, LESSON_PRECISION, Context
from .markers import marker
from .numbers import number

# The §4 comparison and the overhead figure: the budget page's typical training step, and one
# batch-1 decode step of the same model against a 4,096-token KV cache.
STEPS = {"train": {"model": "llama-2-7b", "phase": "train", "batch": 4, "seq": 4096},
         "decode": {"model": "llama-2-7b", "phase": "decode", "batch": 1, "seq": 4096}}
CLASS_LABELS = {"gemm": "GEMMs (projections, lm_head)", "attention": "attention matmuls",
                "norm": "norms", "elementwise": "elementwise (SiLU·mul, residual adds)",
                "softmax": "softmax", "embedding": "embedding", "optimizer": "optimizer (AdamW)"}
# The tokens rule's worked matmul: a 7B model's up_proj, d_model × ffn.
TOKENS_MODEL = "llama-2-7b"


def _n(x: float) -> str:
    """A shape dimension or count as written: 32,768."""
    return f"{int(x):,}" if float(x).is_integer() else fmt.num(x)


def _b(x: float) -> str:
    return fmt.capacity(x)


def _float_arg(raw: str, field: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise RooflineError(f"expected a number, got {raw!r}", field=field) from None
    if not value > 0:
        raise RooflineError(f"must be > 0, got {raw!r}", field=field)
    return value


def _steps(items: list[str], label: str) -> str:
    lis = "".join(f"<li>{x}</li>" for x in items)
    return (f'\n<ol class="rl-steps" aria-label="{html.escape(label)}">{lis}</ol>\n')


def _chip(ctx: Context, hw: str) -> str:
    return html.escape(ctx.hw(hw).name)


# ---------------------------------------------------------------- §3 worked derivations

@marker("norm_steps", block=True)
def norm_steps(ctx: Context, *, op: str = "rmsnorm", hw: str = LESSON_HW,
               precision: str = LESSON_PRECISION) -> str:
    """An RMSNorm worked from its shape: FLOPs per element, bytes read and written, AI, the
    time floor and the share of peak."""
    p = ctx.point(op, hw, precision)
    o = p.op
    if o.kind != "rmsnorm":
        raise RooflineError(f"op {op!r} is not an RMSNorm preset", field="op")
    rows, d, b = o.shape["rows"], o.shape["d"], o.bytes_per_element
    per = ctx.zoo.conventions.rmsnorm_flops_per_element
    elems = rows * d
    read, written = (rows * d + d) * b, rows * d * b
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    t_mem, t_cmp = o.bytes / bw, o.flops / peak
    items = [
        f"<strong>Shape.</strong> x is rows × d = {_n(rows)} × {_n(d)} = {fmt.count(elems)} "
        f"elements of {precision} ({fmt.num(b)} bytes each), plus a weight γ of d = {_n(d)}.",
        f"<strong>FLOPs.</strong> {fmt.num(per)} per element (square, accumulate, scale by "
        f"the reciprocal root, scale by γ): {fmt.num(per)} × {fmt.count(elems)} = "
        f"{fmt.count(o.flops)} FLOPs.",
        f"<strong>Bytes.</strong> Read x and γ: ({_n(rows)} × {_n(d)} + {_n(d)}) × {fmt.num(b)} "
        f"= {_b(read)}; write y: {_n(rows)} × {_n(d)} × {fmt.num(b)} = {_b(written)}; "
        f"total {_b(o.bytes)}.",
        f"<strong>AI.</strong> {fmt.count(o.flops)} FLOPs ÷ {_b(o.bytes)} = "
        f"{fmt.num(p.intensity_flops_per_byte)} FLOP/byte, against a ridge of "
        f"{fmt.num(p.ridge_flops_per_byte)}: <strong>{p.bound}-bound</strong>.",
        f"<strong>Time floor.</strong> max(FLOPs ÷ peak, bytes ÷ BW) = max({fmt.seconds(t_cmp)}, "
        f"{_b(o.bytes)} ÷ {fmt.bandwidth(bw)} = {fmt.seconds(t_mem)}) = "
        f"<strong>{fmt.seconds(p.time_s)}</strong>.",
        f"<strong>Share of peak.</strong> {fmt.count(o.flops)} FLOPs in {fmt.seconds(p.time_s)} "
        f"= {fmt.tflops(p.attainable_flops_per_s)} (= AI × BW), "
        f"<strong>{fmt.percent(p.fraction_of_peak)}</strong> of the "
        f"{fmt.tflops(peak)} peak.",
    ]
    return _steps(items, f"RMSNorm worked on the {acc.name}")


@marker("gemm_steps", block=True)
def gemm_steps(ctx: Context, *, op: str = "gemm-train", hw: str = LESSON_HW,
               precision: str = LESSON_PRECISION) -> str:
    """A training GEMM worked from its shape: 2mnk, (mk + kn + mn)·b, AI, bound, time."""
    p = ctx.point(op, hw, precision)
    o = p.op
    if o.kind != "gemm":
        raise RooflineError(f"op {op!r} is not a GEMM preset", field="op")
    m, n, k, b = o.shape["m"], o.shape["n"], o.shape["k"], o.bytes_per_element
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    t_mem, t_cmp = o.bytes / bw, o.flops / peak
    items = [
        f"<strong>Shape.</strong> [m × k] · [k × n] with m = {_n(m)} tokens, k = {_n(k)}, "
        f"n = {_n(n)}, in {precision}.",
        f"<strong>FLOPs.</strong> 2mnk = 2 × {_n(m)} × {_n(n)} × {_n(k)} = "
        f"{fmt.count(o.flops)} FLOPs (one multiply and one add per term).",
        f"<strong>Bytes.</strong> (mk + kn + mn) × {fmt.num(b)} = ({fmt.count(m * k)} + "
        f"{fmt.count(k * n)} + {fmt.count(m * n)}) × {fmt.num(b)} = {_b(o.bytes)}.",
        f"<strong>AI.</strong> {fmt.count(o.flops)} ÷ {_b(o.bytes)} = "
        f"{fmt.num(p.intensity_flops_per_byte)} FLOP/byte, "
        f"{fmt.num(p.intensity_flops_per_byte / p.ridge_flops_per_byte, 2)}× the ridge of "
        f"{fmt.num(p.ridge_flops_per_byte)}: <strong>{p.bound}-bound</strong>.",
        f"<strong>Time.</strong> max(FLOPs ÷ peak = {fmt.seconds(t_cmp)}, bytes ÷ BW = "
        f"{fmt.seconds(t_mem)}) = <strong>{fmt.seconds(p.time_s)}</strong>, at "
        f"{fmt.percent(p.fraction_of_peak)} of peak.",
    ]
    return _steps(items, f"Training GEMM worked on the {acc.name}")


# ---------------------------------------------------------------- tokens per step

def _tokens(ctx: Context, hw: str, precision: str, weight_bytes: float) -> float:
    acc = ctx.hw(hw)
    return critical_tokens(acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s,
                           weight_bytes)


def _tokens_act(ctx: Context, hw: str, precision: str, weight_bytes: float,
                act_bytes: float, model: str = TOKENS_MODEL) -> tuple[float, int | None]:
    acc = ctx.hw(hw)
    cfg = get_model(model)
    args = (acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s, cfg.d_model,
            cfg.ffn, weight_bytes, act_bytes)
    return critical_tokens_with_activations(*args), min_compute_bound_tokens(*args)


@marker("critical_tokens")
def critical_tokens_marker(ctx: Context, *, hw: str = LESSON_HW,
                           precision: str = LESSON_PRECISION, weight_bytes: str = "",
                           act_bytes: str = "", model: str = TOKENS_MODEL,
                           field: str = "weights", digits: str = "3") -> str:
    """Tokens per step for a weight matmul to reach the ridge. field: weights (weights' bytes
    only), activations (the model's up_proj, activations counted), min (smallest whole
    compute-bound batch), ai_below / ai_at (the matmul's AI one token below that batch, and
    at it). Bytes default to the precision's."""
    b = ctx.catalog.precision(precision).bytes_per_element
    wb = _float_arg(weight_bytes, "weight_bytes") if weight_bytes else b
    ab = _float_arg(act_bytes, "act_bytes") if act_bytes else b
    if field == "weights":
        return number(_tokens(ctx, hw, precision, wb), digits)
    t, n = _tokens_act(ctx, hw, precision, wb, ab, model)
    if field == "activations":
        return "never" if math.isinf(t) else number(t, digits)
    if field == "min":
        return "no batch" if n is None else f"{n:,}"
    if field in ("ai_below", "ai_at") and n is not None:
        cfg = get_model(model)
        flops, bytes_ = matmul_cost(n - 1 if field == "ai_below" else n, cfg.d_model, cfg.ffn,
                                    wb, ab)
        return number(flops / bytes_, digits)
    raise RooflineError(f"unknown field {field!r}", field="field",
                        valid=["weights", "activations", "min", "ai_below", "ai_at"])


@marker("tokens_rule", block=True)
def tokens_rule(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
                model: str = TOKENS_MODEL) -> str:
    """The critical tokens per step derived for one chip: weights only, then activations."""
    from .lesson_parts import _tex_num, mathml
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    b = ctx.catalog.precision(precision).bytes_per_element
    cfg = get_model(model)
    d, f = cfg.d_model, cfg.ffn
    t = critical_tokens(peak, bw, b)
    t_act, n = _tokens_act(ctx, hw, precision, b, b, model)
    general = (r"I \approx \frac{2\,T\,d\,f}{d\,f\,b_w} = \frac{2T}{b_w} \geq "
               r"\frac{P_{\text{peak}}}{B_{\text{HBM}}} \quad\iff\quad "
               r"T \geq \frac{P_{\text{peak}}\, b_w}{2\, B_{\text{HBM}}}")
    worked = (rf"T^* = \frac{{{_tex_num(fmt.num(peak / 1e12))}\ \text{{TFLOP/s}} \times "
              rf"{_tex_num(fmt.num(b))}\ \text{{B}}}}{{2 \times {_tex_num(fmt.num(bw / 1e12))}"
              rf"\ \text{{TB/s}}}} \approx {_tex_num(fmt.num(t))}\ \text{{tokens}}")
    cost_lo = matmul_cost(n - 1, d, f, b, b) if n else None
    cost_hi = matmul_cost(n, d, f, b, b) if n else None
    with_act = ("" if n is None else
                f'<p class="rl-figure-note">Counting the activations as well (each step reads '
                f"T × d inputs and writes T × f outputs besides the d × f weights), the "
                f"{html.escape(cfg.name)} up_proj (d = {_n(d)}, f = {_n(f)}) needs "
                f"T ≥ {fmt.num(t_act)}: at {n - 1:,} tokens its AI is "
                f"{fmt.num(cost_lo[0] / cost_lo[1], 5)}, at {n:,} it is "
                f"{fmt.num(cost_hi[0] / cost_hi[1], 5)}, against a ridge of "
                f"{fmt.num(peak / bw, 5)} FLOP/byte.</p>\n")
    return (mathml(general, "AI is about 2 T over bytes per weight, which reaches peak over "
                   "bandwidth once T is at least peak times bytes per weight over twice the "
                   "bandwidth")
            + mathml(worked, f"on the {acc.name} in {precision}, T star is about {fmt.num(t)} "
                     "tokens")
            + f'\n<p class="rl-figure-note">On the {html.escape(acc.name)} in {precision}: '
            f"≈ {fmt.num(t)} tokens per step, the scaling book's critical batch.</p>\n"
            + with_act)


@marker("tokens_table", block=True)
def tokens_table(ctx: Context, *, model: str = TOKENS_MODEL) -> str:
    """Critical tokens per step for every chip in the catalog: bf16; activations counted;
    fp8 weights and activations; 8-bit weights with bf16 compute."""
    cfg = get_model(model)
    rows = []
    for acc in ctx.catalog:
        if "bf16" not in acc.peaks:
            continue
        t = _tokens(ctx, acc.id, "bf16", 2.0)
        t_act, _ = _tokens_act(ctx, acc.id, "bf16", 2.0, 2.0, model)
        fp8 = (fmt.num(_tokens(ctx, acc.id, "fp8", 1.0)) if "fp8" in acc.peaks else "—")
        w8 = _tokens(ctx, acc.id, "bf16", 1.0)
        rows.append([html.escape(acc.name), f"<strong>{fmt.num(t)}</strong>",
                     "never" if math.isinf(t_act) else fmt.num(t_act), fp8, fmt.num(w8)])
    cols = [HtmlColumn("Chip", priority=1, wrap=True),
            HtmlColumn("Tokens, bf16", "right", 1),
            HtmlColumn(f"bf16, {cfg.name} up_proj with activations", "right", 2),
            HtmlColumn("fp8 weights and activations", "right", 2),
            HtmlColumn("8-bit weights, bf16 compute", "right", 1)]
    label = "Critical tokens per step for each chip"
    return (f"\n*{label}: the fewest tokens a weight matmul needs in one step to leave the "
            "bandwidth slope, peak × bytes per weight ÷ (2 × HBM bandwidth). In bf16 (2 bytes "
            "per weight) it equals the ridge in FLOP/byte. — = no fp8 peak in the "
            "catalog.*\n{: .rl-caption }\n\n"
            + html_table(cols, rows, label=label, css_class="rl-tokens"))


# ---------------------------------------------------------------- §4 FLOPs are not time

def _budget(ctx: Context, step: str, hw: str, precision: str, fusions=frozenset(),
            launch_s: float | None = None):
    if step not in STEPS:
        raise RooflineError(f"unknown step {step!r}", field="step", valid=list(STEPS))
    s = STEPS[step]
    a = Assumptions() if launch_s is None else Assumptions(launch_overhead_s=launch_s)
    # Training runs as the budget page states it (ZeRO-1, full recomputation): unsharded, the
    # step would not fit on one GPU. Sharding changes memory, not the kernels' floors.
    sharding = STATED_RUN if s["phase"] == "train" else Sharding()
    return budget(get_model(s["model"]), s["phase"], s["batch"], s["seq"], ctx.hw(hw),
                  precision, ctx.catalog.precision(precision).bytes_per_element, fusions, a,
                  sharding)


def _shares(bg) -> dict[str, tuple[float, float]]:
    total_f, total_t = bg.flops, bg.step_time_s
    return {c: (v["flops"] / total_f, v["time_s"] / total_t) for c, v in bg.by_class().items()}


def _memory_share(bg) -> tuple[float, float]:
    sh = _shares(bg)
    return (sum(sh[c][0] for c in MEMORY_CLASSES), sum(sh[c][1] for c in MEMORY_CLASSES))


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
    s = STEPS[step]
    cfg = get_model(s["model"])
    what = (f"one training step of {cfg.name} ({s['batch']} × {s['seq']:,} tokens, forward, "
            "backward and AdamW)" if s["phase"] == "train" else
            f"one decode step of {cfg.name} (batch {s['batch']}, {s['seq']:,}-token KV cache)")
    label = f"FLOPs against time, {what}"
    cols = [HtmlColumn("Op class", priority=1, wrap=True),
            HtmlColumn("Share of FLOPs", "right", 1),
            HtmlColumn("Share of time, unfused", "right", 1),
            HtmlColumn("Share of time, FlashAttention", "right", 1)]
    return (f"\n*{html.escape(label[0].upper() + label[1:])} on the {_chip(ctx, hw)} in "
            f"{precision}: time is each kernel's roofline floor, summed "
            f"({fmt.seconds(plain.step_time_s)} unfused, {fmt.seconds(flash.step_time_s)} with "
            "FlashAttention); no launch gaps or efficiency losses." + _run_note(plain)
            + "*\n{: .rl-caption }\n\n"
            + html_table(cols, rows, label=label, css_class="rl-flops-time"))


def _gib(x: float) -> str:
    return f"{fmt.num(x / 2 ** 30)} GiB"


def _run_note(bg) -> str:
    """How a training step is run so that it fits, in the caption's words (decode: nothing)."""
    if bg.phase != "train":
        return ""
    m, dp = bg.memory, bg.assumptions.dp_degree
    unsharded = dataclasses.replace(bg, sharding=Sharding()).memory
    return (f" The run is the one [Where the 50 % goes](../budget.md) states: ZeRO-1 over "
            f"{dp:,} data-parallel GPUs and full activation recomputation, so it fits, "
            f"{_gib(m.total)} of {_gib(m.capacity)} per GPU (unsharded it would need "
            f"{_gib(unsharded.total)}). Sharding changes memory, not these "
            f"kernels' floors; the recomputed forward pass adds "
            f"{fmt.seconds(bg.recompute_time_s)} and is left out of the shares.")


@marker("step_share")
def step_share(ctx: Context, *, step: str = "train", what: str = "memory_time",
               fused: str = "none", hw: str = LESSON_HW,
               precision: str = LESSON_PRECISION) -> str:
    """One figure of the FLOPs-vs-time comparison: memory_flops, memory_time (shares of the
    step's FLOPs and roofline time taken by the non-matmul classes), step_time, or mfu (the
    roofline step's useful FLOPs over time × peak: no real step does better)."""
    if fused not in ("none", "flash"):
        raise RooflineError(f"unknown fusion {fused!r}", field="fused", valid=["none", "flash"])
    bg = _budget(ctx, step, hw, precision, frozenset() if fused == "none" else {"flash"})
    mf, mt = _memory_share(bg)
    if what == "memory_flops":
        return fmt.percent(mf)
    if what == "memory_time":
        return fmt.percent(mt)
    if what == "step_time":
        return fmt.seconds(bg.step_time_s)
    if what == "mfu":
        return fmt.percent(bg.mfu_upper_bound)
    raise RooflineError(f"unknown quantity {what!r}", field="what",
                        valid=["memory_flops", "memory_time", "step_time", "mfu"])


# ---------------------------------------------------------------- overhead, the third regime

@marker("launch")
def launch(ctx: Context, *, field: str = "us", step: str = "decode", hw: str = LESSON_HW,
           precision: str = LESSON_PRECISION) -> str:
    """The launch floor (data/overhead.toml) and what it adds to a step of the budget model:
    us (the floor), kernels, added (time), step (roofline time), share (added ÷ step),
    rate_roofline and rate_launch (steps per second without and with the launch gaps)."""
    floor = load_launch_floor()
    if field == "us":
        return fmt.num(floor.seconds * 1e6)
    bg = _budget(ctx, step, hw, precision, launch_s=floor.seconds)
    added = bg.overhead_times_s["launch"]
    values = {"kernels": f"{bg.launches:,}", "added": fmt.seconds(added),
              "step": fmt.seconds(bg.step_time_s), "share": fmt.percent(added / bg.step_time_s),
              "rate_roofline": fmt.num(1 / bg.step_time_s),
              "rate_launch": fmt.num(1 / (bg.step_time_s + added))}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field",
                            valid=["us", *values])
    return values[field]


@marker("launch_formula", block=True)
def launch_formula(ctx: Context) -> str:
    from .lesson_parts import mathml
    return mathml(r"t \geq \max\left(\frac{\text{FLOPs}}{P_{\text{peak}}},\ "
                  r"\frac{\text{bytes}}{B_{\text{HBM}}},\ t_{\text{launch}}\right)",
                  "time is at least the largest of FLOPs over peak, bytes over bandwidth, "
                  "and the launch time")


@marker("launch_source", block=True)
def launch_source(ctx: Context) -> str:
    floor = load_launch_floor()
    return (f'\n<details class="note rl-sources">\n<summary>Basis of the '
            f"{fmt.num(floor.seconds * 1e6)} µs launch floor ({html.escape(floor.basis)})"
            f"</summary>\n<p>{html.escape(floor.note)}</p>\n<p>Source: "
            f'<a href="{html.escape(floor.url)}">{html.escape(floor.source_title)}</a>.</p>'
            "\n</details>\n")


@marker("floor_ops")
def floor_ops(ctx: Context, *, step: str = "decode", hw: str = LESSON_HW,
              precision: str = LESSON_PRECISION) -> str:
    """How many of a step's kernels finish their roofline work faster than one launch."""
    floor = load_launch_floor().seconds
    bg = _budget(ctx, step, hw, precision)
    short = sum(k.count * k.launches for k in bg.kernels
                if bg.kernel_time_s(k) / k.count < floor)
    return f"{short:,}"


# ---------------------------------------------------------------- problem figures

@marker("decode_tokens_per_s")
def decode_tokens_per_s(ctx: Context, *, model: str = "llama-2-7b", hw: str = LESSON_HW,
                        weight_bytes: str = "2", field: str = "rate", digits: str = "3") -> str:
    """Best-case batch-1 decode: every weight read once per token, nothing else. field rate
    (tokens/s), gb (weight bytes in GB), params (billions), ms (per token)."""
    cfg = get_model(model)
    wb = _float_arg(weight_bytes, "weight_bytes")
    total = cfg.params * wb
    bw = ctx.hw(hw).hbm_bandwidth_bytes_per_s
    values = {"rate": bw / total, "gb": total / 1e9, "params": cfg.params / 1e9,
              "ms": total / bw * 1e3}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return number(values[field], digits)


@marker("decode_attention_ai")
def decode_attention_ai(ctx: Context, *, model: str = "llama-2-7b", kv_heads: int = 0,
                        seq: int = 4096, precision: str = LESSON_PRECISION,
                        digits: str = "3") -> str:
    """AI of one decode step's attention (batch 1, q_len 1) for a model, with its own KV heads
    or kv_heads given (grouped-query attention shares each K/V head across heads ÷ kv_heads)."""
    from ..ops import attention_fused
    cfg = get_model(model)
    kv = kv_heads or cfg.kv_heads
    b = ctx.catalog.precision(precision).bytes_per_element
    op = attention_fused(1, cfg.heads, kv, cfg.head_dim, 1, seq, b, conv=ctx.zoo.conventions)
    return number(op.intensity_flops_per_byte, digits)


@marker("model_fact")
def model_fact(ctx: Context, *, model: str = "llama-2-7b", field: str = "kv_heads") -> str:
    cfg = get_model(model)
    values = {"kv_heads": cfg.kv_heads, "heads": cfg.heads, "d_model": cfg.d_model,
              "ffn": cfg.ffn, "layers": cfg.layers, "group": cfg.heads // cfg.kv_heads}
    if field == "name":
        return cfg.name
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field",
                            valid=["name", *values])
    return f"{values[field]:,}"


# ---------------------------------------------------------------- predict, then reveal

PREDICT_JS = Path(__file__).resolve().parents[1] / "plot" / "js" / "predict.mjs"
FORMAT_JS = PREDICT_JS.with_name("format.mjs")  # the formatting both inlined scripts import
PREDICT_HW = ("h100-sxm", "a100-sxm-80gb", "h200", "b200", "l4")


def predict_answers(ctx: Context, precision: str = LESSON_PRECISION) -> dict:
    """What the Checkpoint's guess form reveals, per (op, chip): bound, % of peak, and the
    derivation as HTML, all from the model at build time."""
    ops = [(pid, ctx.zoo.presets[pid].label) for pid in ctx.zoo.presets]
    hws = [(h, ctx.hw(h).name) for h in PREDICT_HW if h in {a.id for a in ctx.catalog}
           and precision in ctx.hw(h).peaks]
    answers = {}
    for h, name in hws:
        acc = ctx.hw(h)
        peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
        for p in ctx.points(h, precision):
            ai = p.intensity_flops_per_byte
            answers[f"{p.name}|{h}"] = {
                "bound": p.bound, "percent": p.fraction_of_peak * 100,
                "html": (f"<strong>{html.escape(ctx.zoo.presets[p.name].label)} on the "
                         f"{html.escape(name)}, {precision}.</strong> AI = "
                         f"{fmt.count(p.op.total_flops)} FLOPs ÷ {fmt.capacity(p.op.total_bytes)}"
                         f" = {fmt.num(ai)} FLOP/byte against a ridge of "
                         f"{fmt.num(p.ridge_flops_per_byte)}: <strong>{p.bound}-bound</strong>. "
                         f"Attainable = min(peak, AI × BW) = min({fmt.tflops(peak)}, "
                         f"{fmt.num(ai)} × {fmt.bandwidth(bw)}) = "
                         f"{fmt.tflops(p.attainable_flops_per_s)}, "
                         f"<strong>{fmt.percent(p.fraction_of_peak)}</strong> of peak; "
                         f"time ≥ {fmt.seconds(p.time_s)}.")}
    return {"precision": precision, "ops": ops, "hardware": hws, "answers": answers}


@marker("predict", block=True)
def predict(ctx: Context, *, precision: str = LESSON_PRECISION) -> str:
    """The guess form: native controls, hidden until predict.mjs (inlined, no request) runs;
    the answers as JSON computed here."""
    data = predict_answers(ctx, precision)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    script = join(FORMAT_JS, PREDICT_JS).replace("</", "<\\/")
    uid = "rl-predict"
    opts = lambda pairs: "".join(  # noqa: E731
        f'<option value="{html.escape(v)}">{html.escape(t)}</option>' for v, t in pairs)
    return (
        f'\n<div class="rl-predict" data-rl-predict>\n'
        f'<script type="application/json" class="rl-predict-data">{payload}</script>\n'
        '<p class="rl-predict-nojs"><em>With JavaScript on, a form here lets you commit a '
        "guess for any op and chip before seeing the model's answer; the questions below "
        "work without it.</em></p>\n"
        f'<form class="rl-predict-form" hidden aria-describedby="{uid}-help">\n'
        f'<p id="{uid}-help">A new op or chip hides the answer until you commit a new '
        "guess.</p>\n"
        '<fieldset class="rl-predict-pick"><legend>1 · The question</legend>\n'
        f'<span class="rl-field"><label for="{uid}-op">Op</label> '
        f'<select id="{uid}-op" name="op">{opts(data["ops"])}</select></span>\n'
        f'<span class="rl-field"><label for="{uid}-hw">Chip ({precision})</label> '
        f'<select id="{uid}-hw" name="hw">{opts(data["hardware"])}</select></span>\n'
        "</fieldset>\n"
        '<fieldset class="rl-predict-guess"><legend>2 · Your guess</legend>\n'
        '<fieldset class="rl-predict-bound"><legend>Which roof limits it?</legend>\n'
        f'<span class="rl-field"><input type="radio" id="{uid}-mem" name="bound" '
        f'value="memory"> <label for="{uid}-mem">memory-bound</label></span>\n'
        f'<span class="rl-field"><input type="radio" id="{uid}-cmp" name="bound" '
        f'value="compute"> <label for="{uid}-cmp">compute-bound</label></span>\n</fieldset>\n'
        f'<span class="rl-field"><label for="{uid}-pct">Best share of peak it can reach, in %'
        f'</label> <input type="text" id="{uid}-pct" name="percent" inputmode="decimal" '
        'autocomplete="off" size="6"></span>\n</fieldset>\n'
        '<button type="submit" class="md-button md-button--primary">Commit and reveal</button>\n'
        "</form>\n"
        '<p class="rl-predict-result" role="status" aria-live="polite"></p>\n'
        '<div class="rl-predict-answer" hidden></div>\n'
        f'<script type="module">\n{script}\nenhanceAll(document);\n</script>\n'
        "</div>\n")


@marker("problems", block=True)
def problems(ctx: Context) -> str:
    """Back-of-envelope problems (data/problems.toml), each worked answer collapsed."""
    from .qa import _indent, _text, load_entries
    path, entries = load_entries("problems", "problem", ("title", "question", "answer"))
    blocks = []
    for i, e in enumerate(entries, 1):
        blocks.append(f'<div class="rl-problem" id="problem-{e.id}" markdown="1">\n\n'
                      f"**P{i}. {_text(ctx, path, e, 'title')}.** "
                      f"{_text(ctx, path, e, 'question')}\n\n"
                      f'??? success "Worked answer"\n\n{_indent(_text(ctx, path, e, "answer"))}'
                      "\n\n</div>")
    return "\n" + "\n\n".join(blocks) + "\n"


# ---------------------------------------------------------------- the glossary page

@marker("glossary", block=True)
def glossary(ctx: Context) -> str:
    """Every term of data/glossary.md once (plural and capitalised variants folded)."""
    from .glossary import load_glossary
    terms = load_glossary()
    names = {t.term for t in terms}
    items = []
    for t in terms:
        lower = t.term[0].lower() + t.term[1:]
        if (t.term != lower and lower in names) or (t.term.endswith("s") and t.term[:-1] in names):
            continue
        slug = re.sub(r"[^a-z0-9]+", "-", t.term.lower()).strip("-")
        items.append(f'<dt id="term-{slug}">{html.escape(t.term)}</dt>'
                     f"<dd>{html.escape(t.definition)}</dd>")
    return '\n<dl class="rl-glossary">\n' + "\n".join(items) + "\n</dl>\n"


def predict_cases(ctx: Context | None = None) -> dict:
    """tests/cases/predict_cases.json: roofline.fmt's outputs for the numbers predict.mjs
    formats, and some of the page's answers, for node to check the module against.

        python -c "from roofline.site.teach import predict_cases, json; ..."  (see the test)
    """
    from .context import load_context
    ctx = ctx or load_context()
    data = predict_answers(ctx)
    xs = (0.0034, 0.01, 0.125, 0.3385838774850021, 0.5, 1, 1.25, 2.5, 7.4, 9.95, 10, 29.5,
          33.333, 99.94, 99.95, 100, 123.456, 1375, 2740.3)
    fmt_cases = ([{"fn": "num", "x": x, "digits": d, "expected": fmt.num(x, d)}
                  for x in xs for d in (2, 3)]
                 + [{"fn": "percent", "x": x / 100, "digits": 2,
                     "expected": fmt.percent(x / 100)} for x in xs])
    keys = sorted(data["answers"])[:: max(1, len(data["answers"]) // 12)]
    return {"format": fmt_cases,
            "answers": {k: {"bound": data["answers"][k]["bound"],
                            "percent": data["answers"][k]["percent"]} for k in keys}}


@marker("op_term")
def op_term(ctx: Context, *, op: str, term: str = "elements") -> str:
    """One term of a preset's cost, as a count: elements (rows × d or n), or a GEMM's mk, kn,
    mn, or a GEMV's nk (the weights)."""
    s = ctx.zoo.preset(op).shape
    terms = {"elements": s.get("rows", 0) * s.get("d", s.get("cols", 0)) or s.get("n", 0),
             "mk": s.get("m", 0) * s.get("k", 0), "kn": s.get("k", 0) * s.get("n", 0),
             "mn": s.get("m", 0) * s.get("n", 0),
             "nk": s.get("n", 0) * s.get("k", 0) if "m" not in s else 0}
    if term not in terms:
        raise RooflineError(f"unknown term {term!r}", field="term", valid=list(terms))
    if not terms[term]:
        raise RooflineError(f"op {op!r} has no term {term!r}", field="term")
    return fmt.count(terms[term])


# ---------------------------------------------------------------- the first roofline picture

@marker("roofline_figure", block=True)
def roofline_figure(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
                    ops: str = "rmsnorm,gemm-train", uid: str = "rl-first-roof") -> str:
    """A small static roofline (build-time SVG, no JS): the roof of one chip, its ridge and a
    few of the op zoo's ops, drawn by render/svgchart (colours follow the palette)."""
    from ..render import svgchart
    acc = ctx.hw(hw)
    peak = acc.peak_flops_per_s(precision) / 1e12
    bw = acc.hbm_bandwidth_bytes_per_s / 1e12
    ridge = acc.ridge_flops_per_byte(precision)
    pts = ctx.points(hw, precision, [o for o in ops.split(",") if o])
    ais = [p.intensity_flops_per_byte for p in pts] + [ridge]
    lo = 10 ** math.floor(math.log10(min(ais) / 2))
    hi = 10 ** math.ceil(math.log10(max(ais) * 2))
    y_lo = 10 ** math.floor(math.log10(lo * bw))
    roof = [(lo, lo * bw), (ridge, peak), (hi, peak)]
    labels = {p.name: ctx.zoo.presets[p.name].label for p in pts}
    desc = (f"The {acc.name} roofline in {precision}: attainable TFLOP/s rises with arithmetic "
            f"intensity along the bandwidth slope ({fmt.bandwidth(acc.hbm_bandwidth_bytes_per_s)}"
            f") until the ridge at {fmt.num(ridge)} FLOP/byte, then stays flat at the "
            f"{fmt.tflops(peak * 1e12)} peak. " + "; ".join(
                f"{labels[p.name]}: AI {fmt.num(p.intensity_flops_per_byte)}, "
                f"{fmt.percent(p.fraction_of_peak)} of peak, {p.bound}-bound" for p in pts))

    def chart(width: int, height: int, font: float, short: bool = False):
        points = [svgchart.Point(ridge, peak, f"ridge ≈ {fmt.num(ridge)}",
                                 title=f"ridge: {fmt.num(ridge)} FLOP/byte")]
        points += [svgchart.Point(p.intensity_flops_per_byte, p.attainable_flops_per_s / 1e12,
                                  labels[p.name].split(" (")[0] if short else labels[p.name],
                                  "rl-mem" if p.bound == "memory" else "rl-comp",
                                  title=f"{labels[p.name]}: {fmt.percent(p.fraction_of_peak)} "
                                  "of peak") for p in pts]
        return svgchart.LogLogChart(
            width, height, (lo, hi), (y_lo, peak * (10 if short else 3)),
            "Arithmetic intensity (FLOP/byte, log)",
            "Attainable TFLOP/s (log)", font=font,
            lines=[svgchart.Line(roof, "rl-chart-roof", f"{precision} roof "
                                 f"{fmt.num(peak)} TFLOP/s")], points=points)
    title = f"The roofline of the {acc.name}, {precision}"
    wide = chart(640, 320, 13).svg(title=title, desc=desc, uid=uid)
    narrow = chart(380, 340, 11, short=True).svg(title=title, desc=desc, uid=f"{uid}-n")
    cap = (f"The roofline of the {html.escape(acc.name)} in {precision}: the slope is "
           f"AI × {fmt.bandwidth(acc.hbm_bandwidth_bytes_per_s)}, the flat roof "
           f"{fmt.tflops(peak * 1e12)}, and they meet at the ridge, ≈ {fmt.num(ridge)} "
           "FLOP/byte. Below it an op is memory-bound (orange), at or above it compute-bound "
           "(green).")
    return "\n" + svgchart.figure(wide, narrow, cap) + "\n"


# ---------------------------------------------------------------- the tokens explorer

TOKENS_JS = Path(__file__).resolve().parents[1] / "plot" / "js" / "tokens.mjs"
DECODE_BATCHES = (1, 64, 256)  # the decode marks: batch 1 to 256


@marker("tokens_explorer", block=True)
def tokens_explorer(ctx: Context, *, model: str = TOKENS_MODEL,
                    precision: str = LESSON_PRECISION) -> str:
    """A slider for tokens per step that moves the model's projection GEMMs along a static
    roofline (tokens.mjs, inlined: no request, no Bokeh); its text is announced politely."""
    from ..render import svgchart
    cfg = get_model(model)
    b = ctx.catalog.precision(precision).bytes_per_element
    hws = [ctx.hw(h) for h in PREDICT_HW if precision in ctx.hw(h).peaks]
    train = ctx.zoo.preset("gemm-train").shape["m"]
    prefill = ctx.zoo.preset("attention-train").shape["q_len"]
    families = [{"label": f"q/k/v/o ({_n(cfg.d_model)} × {_n(cfg.d_model)})", "short": "q/k/v/o",
                 "shape": [cfg.d_model, cfg.d_model]},
                {"label": f"gate/up/down ({_n(cfg.d_model)} × {_n(cfg.ffn)})", "short": "MLP",
                 "shape": [cfg.d_model, cfg.ffn]}]
    peaks = [a.peak_flops_per_s(precision) / 1e12 for a in hws]
    bws = [a.hbm_bandwidth_bytes_per_s / 1e12 for a in hws]
    top_ai = max(matmul_cost(train, d, f, b, b)[0] / matmul_cost(train, d, f, b, b)[1]
                 for d, f in (fam["shape"] for fam in families))
    x_lo, x_hi = 0.1, 10 ** math.ceil(math.log10(top_ai))
    y_lo = 10 ** math.floor(math.log10(x_lo * min(bws)))
    y_hi = 10 ** math.ceil(math.log10(max(peaks) * 1.5))
    lead = hws[0]
    roof = [(x_lo, x_lo * bws[0]), (lead.ridge_flops_per_byte(precision), peaks[0]),
            (x_hi, peaks[0])]
    geometry = {}
    drawn = {}
    for key, (w, h, font) in {"wide": (640, 340, 13), "narrow": (380, 340, 11)}.items():
        ch = svgchart.LogLogChart(w, h, (x_lo, x_hi), (y_lo, y_hi),
                                  "Arithmetic intensity (FLOP/byte, log)",
                                  "Attainable TFLOP/s (log)", font=font,
                                  lines=[svgchart.Line(roof, "rl-chart-roof", "")])
        f = ch.frame
        geometry[key] = {"x": [x_lo, x_hi], "y": [y_lo, y_hi], "frame": [f.x0, f.y0, f.x1, f.y1],
                         "font": font}
        drawn[key] = ch.svg(title=f"{cfg.name}'s projection GEMMs on the roofline",
                            desc=f"The {precision} roofline of the chosen chip; the slider "
                            "moves the two families of projection GEMMs along it.",
                            uid=f"rl-tokens-{key}")
    data = {"bytes": b, "families": families, "charts": geometry,
            "hardware": [{"id": a.id, "name": a.name, "peak": a.peak_flops_per_s(precision),
                          "bw": a.hbm_bandwidth_bytes_per_s} for a in hws]}
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    script = join(FORMAT_JS, TOKENS_JS).replace("</", "<\\/")
    top = math.log2(train)
    marks = [*(math.log2(t) for t in DECODE_BATCHES), math.log2(prefill), top]
    presets = ([(f"Decode, batch {t:,}", t) for t in DECODE_BATCHES]
               + [(f"Prefill, {_n(prefill)}", prefill), (f"Training, {_n(train)}", train)])
    buttons = "".join(f'<button type="button" class="rl-tokens-preset" data-tokens="{int(t)}">'
                      f"{html.escape(lab)}</button> " for lab, t in presets)
    chips = "".join(f'<option value="{a.id}">{html.escape(a.name)}</option>' for a in hws)
    fig = svgchart.figure(drawn["wide"], drawn["narrow"],
                          f"{html.escape(cfg.name)}'s projection GEMMs at the tokens per step "
                          "you choose: orange on the bandwidth slope, green under the roof.")
    return (
        '\n<div class="rl-tokens" data-rl-tokens>\n'
        f'<script type="application/json" class="rl-tokens-data">{payload}</script>\n'
        '<p class="rl-tokens-nojs"><em>With JavaScript on, a slider here moves the projection '
        "GEMMs along the roofline as the tokens per step grow; the table above gives the "
        "crossing points.</em></p>\n"
        '<form class="rl-tokens-form" hidden>\n'
        '<span class="rl-field"><label for="rl-tokens-t">Tokens per step</label> '
        f'<input type="range" id="rl-tokens-t" min="0" max="{top:g}" step="0.25" value="0" '
        'list="rl-tokens-marks" aria-describedby="rl-tokens-help"> '
        '<output for="rl-tokens-t">1</output></span>\n'
        '<datalist id="rl-tokens-marks">' + "".join(f'<option value="{m:g}"></option>'
                                                   for m in marks) + "</datalist>\n"
        f'<p id="rl-tokens-help" class="rl-tokens-help">Marks: decode at batch '
        f"{', '.join(f'{t:,}' for t in DECODE_BATCHES)}; prefill of {_n(prefill)} tokens; "
        f"training at {_n(train)} tokens per step.</p>\n"
        f'<p class="rl-tokens-presets">{buttons}</p>\n'
        f'<span class="rl-field"><label for="rl-tokens-hw">Chip ({precision})</label> '
        f'<select id="rl-tokens-hw">{chips}</select></span>\n'
        "</form>\n" + fig + "\n"
        '<p class="rl-tokens-result" role="status" aria-live="polite"></p>\n'
        f'<script type="module">\n{script}\nenhanceAllTokens(document);\n</script>\n'
        "</div>\n")


@marker("fp8_not_double")
def fp8_not_double(ctx: Context) -> str:
    """Chips in the catalog whose fp8 peak is not twice their bf16 one (there fp8 moves the
    critical tokens per step), as a list of names."""
    names = [a.name for a in ctx.catalog if "fp8" in a.peaks and "bf16" in a.peaks
             and abs(a.peak_flops_per_s("fp8") / a.peak_flops_per_s("bf16") - 2) > 0.02]
    return ", ".join(names) if names else "no chip in the catalog"
