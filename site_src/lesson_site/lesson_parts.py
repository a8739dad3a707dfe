"""Block markers for the lesson's lost parts: the §1 tier table (collapsed, under the
client's pyramid, the lesson's one view of the hierarchy), the §2 compute-vs-bandwidth
comparison, the §3 formulas (MathML at build time, no JS) and the §4 op-zoo table. Each
returns a Markdown or HTML block computed from the model."""

from __future__ import annotations

import html
from dataclasses import replace

from latex2mathml.converter import convert

from roofline import fmt
from roofline.errors import RooflineError
from roofline.render.tables import HtmlColumn, html_table, ops_table, table_html, tiers_table
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker

# One notation across the site: P_peak (peak FLOP/s of the precision), B_HBM (HBM bandwidth),
# I (arithmetic intensity, the text's "AI"), I_ridge = P_peak / B_HBM. Short subscripts.
PEAK, BW, AI = r"P_{\text{peak}}", r"B_{\text{HBM}}", "I"
FORMULAS = {
    "ai": rf"{AI} = \frac{{\text{{FLOPs}}}}{{\text{{bytes moved to and from HBM}}}}",
    "time": rf"t \geq \max\left(\frac{{\text{{FLOPs}}}}{{{PEAK}}},\ "
            rf"\frac{{\text{{bytes}}}}{{{BW}}}\right)",
    "attainable": rf"P({AI}) = \min\left({PEAK},\ {AI} \times {BW}\right)",
    "ridge": rf"{AI}_{{\text{{ridge}}}} = \frac{{{PEAK}}}{{{BW}}}",
}
FORMULA_LABELS = {
    "ai": "I, the arithmetic intensity, equals FLOPs divided by bytes moved to and from HBM",
    "time": "time t is at least the larger of FLOPs over P peak and bytes over B HBM",
    "attainable": "attainable FLOP/s at intensity I equals the smaller of P peak and I times "
                  "B HBM",
    "ridge": "I ridge equals P peak divided by B HBM",
}


def mathml(latex: str, label: str = "") -> str:
    """A display formula as a raw HTML block (Python-Markdown leaves <div> blocks alone)."""
    aria = f' role="math" aria-label="{html.escape(label)}"' if label else ""
    return f'\n<div class="rl-formula"{aria}>{convert(latex, display="block")}</div>\n'


def _tex_num(text: str) -> str:
    return text.replace(",", "{,}")


@marker("formula", block=True)
def formula(ctx: Context, *, name: str) -> str:
    if name not in FORMULAS:
        raise RooflineError(f"unknown formula {name!r}", field="name", valid=list(FORMULAS))
    out = mathml(FORMULAS[name], FORMULA_LABELS[name])
    if name == "ai":  # the notation, said once where it starts
        out += ('\n<p class="rl-figure-note"><i>I</i> is the arithmetic intensity (AI in the '
                "text); below, <i>P</i><sub>peak</sub> is the chip's peak FLOP/s at the "
                "precision and <i>B</i><sub>HBM</sub> its HBM bandwidth.</p>\n")
    return out


@marker("ridge_example", block=True)
def ridge_example(ctx: Context, *, hw: str = LESSON_HW,
                  precision: str = LESSON_PRECISION) -> str:
    """The ridge worked out for one chip, in the lesson's style: ≈ 295, call it ~300."""
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    r = acc.ridge_flops_per_byte(precision)
    latex = (rf"{AI}_{{\text{{ridge}}}} = "
             rf"\frac{{{_tex_num(fmt.num(peak / 1e12))}\ \text{{TFLOP/s}}}}"
             rf"{{{_tex_num(fmt.num(bw / 1e12))}\ \text{{TB/s}}}} \approx "
             rf"{_tex_num(fmt.num(r))}\ \text{{FLOP/byte}}")
    return (mathml(latex, f"ridge on the {acc.name} in {precision}") +
            f'\n<p class="rl-figure-note">On the {html.escape(acc.name)} in {precision}: '
            f"≈ {fmt.num(r)}, call it ~{fmt.approx(r)} FLOP per byte.</p>\n")


@marker("tiers_table", block=True)
def tiers(ctx: Context, *, hw: str = LESSON_HW) -> str:
    acc = ctx.hw(hw)
    t = tiers_table(acc)
    keep = [c for c in t.columns if c.key in
            ("name", "capacity_bytes", "per_unit_capacity_bytes", "bandwidth_bytes_per_s", "role")]
    table = replace(t, columns=tuple(keep))
    notes = [f"- *{html.escape(r['name'])}*: {html.escape(r['note'])} "
             f"(source {r['source']}, {r['basis']})" for r in t.rows if r["note"]]
    return (f"\n*Memory hierarchy of the {acc.name}, fastest tier first "
            "(— = not published).*\n{: .rl-caption }\n\n"
            + table_html(table, label=f"Memory hierarchy of the {acc.name}",
                         priority={"bandwidth_bytes_per_s": 1, "role": 2},
                         wrap=("name", "role"), css_class="rl-tiers") + "\n"
            + '<details class="note rl-sources" markdown="1">\n<summary>Notes and sources'
            "</summary>\n\n" + "\n".join(notes) +
            "\n\nFull sources: [Hardware catalog](../hardware.md).\n\n</details>\n")


@marker("compute_vs_bw", block=True)
def compute_vs_bw(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION) -> str:
    """§2: the two rates side by side and their ratio."""
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    # One column of rates (issue #46: each figure once per section; the fp8 peak is in the
    # correction note beside the client's "roughly double").
    rows = [[f"Tensor cores, {precision}", fmt.tflops(peak)]]
    vec = acc.vector_peak
    if vec is not None:
        rows.append([f"CUDA cores, {vec.precision} (elementwise math)",
                     fmt.tflops(vec.flops_per_s)])
    packed = acc.vector_peaks.get(precision)
    if packed is not None:  # elementwise math in the run's dtype (issue #13)
        rows.append([f"CUDA cores, packed {precision} (elementwise math)",
                     fmt.tflops(packed.flops_per_s)])
    rows.append(["HBM bandwidth", fmt.bandwidth(bw)])
    r = acc.ridge_flops_per_byte(precision)
    table = ("\n*Compute against bandwidth on the " + acc.name + ".*\n{: .rl-caption }\n\n"
             + html_table([HtmlColumn("Rate", priority=1, wrap=True),
                           HtmlColumn("Per second", "right", 1)],
                          [[html.escape(x) for x in r] for r in rows],
                          label=f"Compute against bandwidth on the {acc.name}"))
    latex = (rf"\frac{{{_tex_num(fmt.num(peak / 1e12))}\times 10^{{12}}\ \text{{FLOP/s}}}}"
             rf"{{{_tex_num(fmt.num(bw / 1e12))}\times 10^{{12}}\ \text{{byte/s}}}} \approx "
             rf"{_tex_num(fmt.num(r))}\ \text{{FLOP per byte}}")
    return (table + mathml(latex, f"peak over bandwidth is about {fmt.num(r)} FLOP per byte")
            + f'\n<p class="rl-figure-note">≈ {fmt.num(r)}, call it ~{fmt.approx(r)} '
            f"FLOPs for every byte read from HBM.</p>\n")


@marker("op_zoo", block=True)
def op_zoo(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION) -> str:
    acc = ctx.hw(hw)
    points = ctx.points(hw, precision)
    contexts = {p.name: ctx.zoo.presets[p.name].context for p in points}
    t = ops_table(points, contexts=contexts)
    # Readers see the op's label; the id stays in the downloads and the plot's presets.
    t = replace(t, rows=tuple({**r, "name": ctx.zoo.presets[r["name"]].label} for r in t.rows))
    b = ctx.catalog.precision(precision).bytes_per_element
    # The chip's peak, bandwidth and ridge are printed once, in §2 and §3 (issue #46).
    return (f"\n*The op zoo on the {acc.name} in {precision} ({fmt.num(b)} bytes per element). "
            "FLOPs count 2 per multiply-add; bytes are HBM traffic, each operand read once and "
            "each result written once.*\n{: .rl-caption }\n\n"
            + table_html(t, label=f"The op zoo on the {acc.name}", wrap=("name", "context"),
                         # FLOPs and bytes are the two inputs of the AI the table teaches;
                         # attainable is % of peak × peak, so it steps aside first.
                         priority={"context": 2, "flops": 1, "bytes": 1,
                                   "attainable_flops_per_s": 3},
                         css_class="rl-ops"))
