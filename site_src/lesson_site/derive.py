"""§3, derived from the model: the worked RMSNorm and training GEMM (every intermediate
number shown), the tokens-per-step rule with its per-chip table, and the first, static
picture of a roofline."""

from __future__ import annotations

import html
import math

from roofline import fmt
from roofline.errors import RooflineError
from roofline.render.tables import HtmlColumn, html_table, rest_details
from roofline.model.tokens import (critical_tokens, critical_tokens_with_activations, matmul_cost,
    min_compute_bound_tokens)
from roofline.model.transformer import get_model
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker
from lesson_site.numbers import number
from lesson_site.teachkit import TOKENS_HW, TOKENS_MODEL, _b, _float_arg, _n, _steps


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
                model: str = TOKENS_MODEL, activations: str = "yes") -> str:
    """The critical tokens per step derived for one chip: weights only, then (unless
    activations=no) with the activations' bytes counted too."""
    if activations not in ("yes", "no"):
        raise RooflineError(f"activations must be yes or no, not {activations!r}",
                            field="activations", valid=["yes", "no"])
    from lesson_site.lesson_parts import _tex_num, mathml
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    b = ctx.catalog.precision(precision).bytes_per_element
    cfg = get_model(model)
    d, f = cfg.d_model, cfg.ffn
    t = critical_tokens(peak, bw, b)
    t_act, n = _tokens_act(ctx, hw, precision, b, b, model)
    # Two lines, each narrow enough for a phone's column (one ran off a 412 px screen).
    general = (r"I \approx \frac{2\,T\,d\,f}{d\,f\,b_w} = \frac{2T}{b_w} \geq "
               r"\frac{P_{\text{peak}}}{B_{\text{HBM}}}")
    solved = r"\iff\quad T \geq \frac{P_{\text{peak}}\, b_w}{2\, B_{\text{HBM}}}"
    worked = (rf"T^* = \frac{{{_tex_num(fmt.num(peak / 1e12))}\ \text{{TFLOP/s}} \times "
              rf"{_tex_num(fmt.num(b))}\ \text{{B}}}}{{2 \times {_tex_num(fmt.num(bw / 1e12))}"
              rf"\ \text{{TB/s}}}} \approx {_tex_num(fmt.num(t))}\ \text{{tokens}}")
    # Whole tokens, rounded up (a threshold rounds up): no "294.72 … 295.53" (issue #27).
    with_act = ("" if n is None or activations == "no" else
                f'<p class="rl-figure-note">Counting the activations as well (each step reads '
                f"T × d inputs and writes T × f outputs besides the d × f weights), the "
                f"{html.escape(cfg.name)} up_proj (d = {_n(d)}, f = {_n(f)}) needs "
                f"{n:,} tokens rather than {math.ceil(t):,}: a little more, because the "
                "activation bytes grow with T too.</p>\n")
    return (mathml(general, "AI is about 2 T over bytes per weight, which must reach peak over "
                   "bandwidth")
            + mathml(solved, "that is, T is at least peak times bytes per weight over twice "
                     "the bandwidth")
            + mathml(worked, f"on the {acc.name} in {precision}, T star is about {fmt.num(t)} "
                     "tokens")
            + f'\n<p class="rl-figure-note">On the {html.escape(acc.name)} in {precision}: '
            f"≈ {fmt.num(t)} tokens per step (at least {math.ceil(t - 1e-9):,} whole tokens), "
            "the scaling book's critical batch.</p>\n"
            + with_act)


def _ceil_tokens(t: float) -> str:
    """A token threshold as whole tokens, rounded up: the fewest that reach it."""
    return "never" if math.isinf(t) else f"{math.ceil(t - 1e-9):,}"


def _fp8_not_double(ctx: Context) -> list:
    return [a for a in ctx.catalog if "fp8" in a.peaks and "bf16" in a.peaks
            and abs(a.peak_flops_per_s("fp8") / a.peak_flops_per_s("bf16") - 2) > 0.02]


@marker("tokens_table", block=True)
def tokens_table(ctx: Context, *, model: str = TOKENS_MODEL) -> str:
    """Critical tokens per step, in whole tokens: bf16; activations counted; fp8 weights and
    activations; 8-bit weights with bf16 compute. The chips the lesson names (TOKENS_HW, and
    those whose fp8 peak is not twice the bf16 one) in the table, every other chip of the
    catalog in a collapsed one below it."""
    cfg = get_model(model)
    named = [ctx.hw(h) for h in TOKENS_HW] + [a for a in _fp8_not_double(ctx)
                                             if a.id not in TOKENS_HW]
    # A chip without a bf16 peak (V100: FP16 tensor cores) has no row; the summary names it.
    rest = [a for a in ctx.catalog if a not in named and "bf16" in a.peaks]
    without = [a.name for a in ctx.catalog if "bf16" not in a.peaks]

    def rows_for(chips) -> list[list[str]]:
        rows = []
        for acc in chips:
            if "bf16" not in acc.peaks:
                continue
            t = _tokens(ctx, acc.id, "bf16", 2.0)
            t_act, _ = _tokens_act(ctx, acc.id, "bf16", 2.0, 2.0, model)
            fp8 = _ceil_tokens(_tokens(ctx, acc.id, "fp8", 1.0)) if "fp8" in acc.peaks else "—"
            rows.append([html.escape(acc.name), f"<strong>{_ceil_tokens(t)}</strong>",
                         _ceil_tokens(t_act), fp8, _ceil_tokens(_tokens(ctx, acc.id, "bf16", 1.0))])
        return rows
    cols = [HtmlColumn("Chip", priority=1, wrap=True),
            HtmlColumn("Tokens, bf16", "right", 1),
            # Headers short enough for a phone's card labels; the caption says what each is.
            HtmlColumn("bf16 + activations", "right", 2),
            HtmlColumn("fp8 throughout", "right", 2),
            HtmlColumn("8-bit weights", "right", 1)]
    label = "Critical tokens per step for each chip"
    return (f"\n*{label}: the fewest whole tokens a weight matmul needs in one step to leave "
            "the bandwidth slope, peak × bytes per weight ÷ (2 × HBM bandwidth), rounded up. "
            "<strong>bf16 + activations</strong>: the "
            f"{html.escape(cfg.name)} up_proj, its input and output bytes counted too; "
            "<strong>fp8 throughout</strong>: fp8 weights and activations at the fp8 peak "
            "(— = none); <strong>8-bit weights</strong>: int8 or fp8 weights, bf16 compute."
            "*\n{: .rl-caption }\n\n"
            + html_table(cols, rows_for(named), label=label, css_class="rl-tokens")
            + rest_details(f"The other {len(rest):,} chips of the catalog"
                           + (f" (no bf16 peak, so no row: {', '.join(without)})"
                              if without else ""),
                           html_table(cols, rows_for(rest), label=f"{label}: the other chips",
                                      css_class="rl-tokens")))


@marker("fp8_not_double")
def fp8_not_double(ctx: Context) -> str:
    """Chips in the catalog whose fp8 peak is not twice their bf16 one (there fp8 moves the
    critical tokens per step), as a list of names."""
    names = [a.name for a in _fp8_not_double(ctx)]
    return ", ".join(names) if names else "no chip in the catalog"


# ---------------------------------------------------------------- the first roofline picture

@marker("roofline_figure", block=True)
def roofline_figure(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
                    ops: str = "rmsnorm,gemm-train", uid: str = "rl-first-roof") -> str:
    """A small static roofline (build-time SVG, no JS): the roof of one chip, its ridge and a
    few of the op zoo's ops, drawn by render/svgchart (colours follow the palette)."""
    from roofline.render import svgchart
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
           "AI × HBM bandwidth, the flat roof the peak, and they meet at the ridge. Below it "
           "an op is memory-bound (red); at or above it, the roof holds it (green).")
    return "\n" + svgchart.figure(wide, narrow, cap) + "\n"
