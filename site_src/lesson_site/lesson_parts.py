"""Block markers for the lesson's lost parts: the §1 tier table, bandwidth cliff and pyramid,
the §2 compute-vs-bandwidth comparison, the §3 formulas (MathML at build time, no JS) and the
§4 op-zoo table. Each returns a Markdown or HTML block computed from the model."""

from __future__ import annotations

import html
import math
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


@marker("cliff", block=True)
def cliff(ctx: Context, *, hw: str = LESSON_HW) -> str:
    """The bandwidth cliff as an inline SVG: one bar per tier, log-scale bytes/s."""
    acc = ctx.hw(hw)
    tiers = [t for t in acc.tiers if t.bandwidth_bytes_per_s]
    missing = [t.name for t in acc.tiers if not t.bandwidth_bytes_per_s]
    if len(tiers) < 2:
        raise RooflineError(f"hardware '{hw}' needs two tiers with a bandwidth to draw a cliff",
                            field="tiers")
    tiers.sort(key=lambda t: -t.bandwidth_bytes_per_s)
    wide = _cliff_svg(acc, tiers, narrow=False)
    narrow = _cliff_svg(acc, tiers, narrow=True)
    out = ['<figure class="rl-cliff">', '<div class="rl-chart-wide">', wide, "</div>",
           '<div class="rl-chart-narrow">', narrow, "</div>"]
    cap = (f"The bandwidth cliff on the {html.escape(acc.name)}: each step down the hierarchy "
           f"costs about an order of magnitude (log scale).")
    if missing:
        cap += f" No published bandwidth for: {html.escape(', '.join(missing))}."
    out.append(f"<figcaption>{cap}</figcaption></figure>")
    return "\n" + "".join(out) + "\n"


def _cliff_svg(acc, tiers, *, narrow: bool) -> str:
    """One drawing of the cliff. Wide: names left of the bars, values right of them. Narrow
    (phones, drawn 380 units wide so its 12-unit text renders at about 12 px): name and value
    on a line above each bar."""
    lo = 10 ** math.floor(math.log10(min(t.bandwidth_bytes_per_s for t in tiers)))
    hi = 10 ** math.ceil(math.log10(max(t.bandwidth_bytes_per_s for t in tiers)))
    if narrow:
        left, right, bar_h, gap, top, width = 8, 372, 14, 24, 22, 380
    else:
        left, right, bar_h, gap, top = 175, 430, 26, 12, 16
        width = right + 180
    span = math.log10(hi / lo)

    def x(v: float) -> float:
        return left + (right - left) * math.log10(v / lo) / span

    height = top + len(tiers) * (bar_h + gap) + 34
    uid = f"rl-cliff-{acc.id}" + ("-n" if narrow else "")
    out = [f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'role="img" aria-labelledby="{uid}-t {uid}-d" xmlns="http://www.w3.org/2000/svg">',
           f'<title id="{uid}-t">Bandwidth per memory tier of the {html.escape(acc.name)}, '
           f'log scale</title>',
           f'<desc id="{uid}-d">' + "; ".join(
               f"{html.escape(t.name)}: {fmt.bandwidth(t.bandwidth_bytes_per_s)}" for t in tiers)
           + "</desc>"]
    decade = lo
    while decade <= hi * 1.0001:
        gx = x(decade)
        anchor = ("start" if gx - left < 20 else "end" if right - gx < 20 else "middle") \
            if narrow else "middle"
        out.append(f'<line class="rl-grid" x1="{gx:.1f}" y1="{top - 6}" x2="{gx:.1f}" '
                   f'y2="{height - 28}"/>')
        out.append(f'<text class="rl-axis" x="{gx:.1f}" y="{height - 12}" '
                   f'text-anchor="{anchor}">{fmt.bandwidth(decade, 1)}</text>')
        decade *= 10
    hbm = acc.hbm_bandwidth_bytes_per_s
    for i, t in enumerate(tiers):
        y = top + i * (bar_h + gap)
        bw = t.bandwidth_bytes_per_s
        cls = "rl-bar rl-bar-hbm" if t.kind == "hbm" else "rl-bar"
        ratio = bw / hbm
        rel = ("HBM" if t.kind == "hbm" else
               f"{fmt.num(ratio, 2)}× HBM" if ratio >= 1 else f"1/{fmt.num(1 / ratio, 2)} of HBM")
        if narrow:
            out.append(f'<text class="rl-label" x="{left}" y="{y - 5}">{html.escape(t.name)}: '
                       f'{fmt.bandwidth(bw)} · {rel}</text>')
        else:
            out.append(f'<text class="rl-label" x="{left - 8}" y="{y + bar_h * 0.68:.1f}" '
                       f'text-anchor="end">{html.escape(t.name)}</text>')
        out.append(f'<rect class="{cls}" x="{left}" y="{y}" width="{x(bw) - left:.1f}" '
                   f'height="{bar_h}" rx="3"/>')
        if not narrow:
            out.append(f'<text class="rl-value" x="{x(bw) + 6:.1f}" y="{y + bar_h * 0.68:.1f}">'
                       f'{fmt.bandwidth(bw)} · {rel}</text>')
    out.append("</svg>")
    return "".join(out)


@marker("pyramid", block=True)
def pyramid(ctx: Context, *, hw: str = LESSON_HW) -> str:
    """The client's ASCII pyramid, its figures taken from the catalog."""
    acc = ctx.hw(hw)

    def tier(kind: str):
        t = acc.tier(kind)
        if t is None:
            raise RooflineError(f"hardware '{hw}' has no '{kind}' tier", field="tiers")
        return t
    sram, l2, hbm, host = tier("sram"), tier("l2"), tier("hbm"), tier("host")
    unit = acc.compute_unit_name
    speed = (f"~{fmt.approx(sram.bandwidth_bytes_per_s / hbm.bandwidth_bytes_per_s)}x HBM BW"
             if sram.bandwidth_bytes_per_s else "faster than HBM")
    # A thread's share of the register file: at most max registers × bytes each (issue #27:
    # the client's "few KB/thread" is about 1 KiB at most, see the departure box).
    from lesson_site.figures import thread_limits
    lim = thread_limits(hw)
    most = lim.max_registers_per_thread * lim.bytes_per_register
    per_thread = f"{fmt.approx(most / 2 ** 10)} KiB"
    rows = [
        ("registers", f"≤{per_thread}/thread", "fastest", "<- ALUs eat from here"),
        None,
        ("SRAM", f"~{fmt.memory(sram.per_unit_capacity_bytes)}/{unit}", speed,
         "<- staging tile, shared within a block"),
        ("(L1/shared)", "", "", ""),
        None,
        # L2 is its own tier (issue #27): one cache for all SMs, not part of their SRAM.
        ("L2", f"~{fmt.memory(l2.capacity_bytes)}", "", f"<- one cache shared by all {unit}s"),
        None,
        ("HBM", f"~{fmt.memory(hbm.capacity_bytes)}", f"~{fmt.bandwidth(hbm.bandwidth_bytes_per_s)}",
         "<- everything lives here; the slow tier"),
        None,
        ("host/PCIe", "TB", f"~{fmt.bandwidth(host.bandwidth_bytes_per_s)}",
         "<- off-GPU; avoid in the hot loop entirely"),
    ]
    lines = []
    for r in rows:
        if r is None:
            lines.append("      ^")
        else:
            lines.append(f"  {r[0]:<12}{r[1]:<15}{r[2]:<15}{r[3]}".rstrip())
    # The client's pyramid earns its place as the picture to remember: a captioned figure,
    # sized to fit the text column at desktop widths (it scrolls, with a cue, on phones).
    return ('\n<figure class="rl-pyramid"><pre><code>' + html.escape("\n".join(lines))
            + "</code></pre><figcaption>The hierarchy to remember: each step up is smaller "
            "and faster; the table above has the figures, the chart the ratios.</figcaption>"
            "</figure>\n")


@marker("compute_vs_bw", block=True)
def compute_vs_bw(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION) -> str:
    """§2: the two rates side by side and their ratio."""
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    rows = [[f"Tensor cores, {precision}", fmt.tflops(peak), f"{fmt.count(peak)} FLOPs"]]
    if "fp8" in acc.peaks and precision != "fp8":
        p8 = acc.peak_flops_per_s("fp8")
        rows.append(["Tensor cores, fp8", fmt.tflops(p8), f"{fmt.count(p8)} FLOPs"])
    vec = acc.vector_peak
    if vec is not None:
        rows.append([f"CUDA cores, {vec.precision} (elementwise math)",
                     fmt.tflops(vec.flops_per_s), f"{fmt.count(vec.flops_per_s)} FLOPs"])
    packed = acc.vector_peaks.get(precision)
    if packed is not None:  # elementwise math in the run's dtype (issue #13)
        rows.append([f"CUDA cores, packed {precision} (elementwise math)",
                     fmt.tflops(packed.flops_per_s), f"{fmt.count(packed.flops_per_s)} FLOPs"])
    rows.append(["HBM bandwidth", fmt.bandwidth(bw), f"{fmt.count(bw)} bytes"])
    r = acc.ridge_flops_per_byte(precision)
    table = ("\n*Compute against bandwidth on the " + acc.name + ".*\n{: .rl-caption }\n\n"
             + html_table([HtmlColumn("Rate", priority=1, wrap=True),
                           HtmlColumn("Per second", "right", 1),
                           HtmlColumn("In one second", "right", 2)],
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
    return (f"\n*The op zoo on the {acc.name} in {precision} ({fmt.num(b)} bytes per element; "
            f"peak {fmt.tflops(acc.peak_flops_per_s(precision))}, HBM "
            f"{fmt.bandwidth(acc.hbm_bandwidth_bytes_per_s)}, ridge ≈ "
            f"{fmt.num(acc.ridge_flops_per_byte(precision))} FLOP/byte). FLOPs count 2 per "
            "multiply-add; bytes are HBM traffic, every operand read once and every result "
            "written once.*\n{: .rl-caption }\n\n"
            + table_html(t, label=f"The op zoo on the {acc.name}", wrap=("name", "context"),
                         # FLOPs and bytes are the two inputs of the AI the table teaches;
                         # attainable is % of peak × peak, so it steps aside first.
                         priority={"context": 2, "flops": 1, "bytes": 1,
                                   "attainable_flops_per_s": 3},
                         css_class="rl-ops"))
