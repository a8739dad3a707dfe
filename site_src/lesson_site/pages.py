"""Block markers for the reference pages (hardware catalog, op zoo) and the downloadable
tables behind them: the same Table values become Markdown on the page and CSV/JSON files."""

from __future__ import annotations

import html
import json
import math
from dataclasses import replace

from latex2mathml.converter import convert

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model.maths import place
from roofline.render import svgchart
from roofline.render.table_value import Column, Table
from roofline.render.tables import (PRECISION_ORDER, HtmlColumn, hardware_records, hardware_table,
    html_table, ops_table, rest_details, table_html)
from roofline.model.example import EXAMPLE
from roofline.model.transformer import PHASES, default_models, model_ops
from lesson_site.budget_text import RUNS, misfit_words, run_budget
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker
from lesson_site.teachkit import TOKENS_HW

OP_FORMULAS = (
    ("GEMM (m×k · k×n)", r"2mnk", r"(mk + kn + mn)\,b"),
    ("GEMV (n×k · k)", r"2nk", r"(nk + k + n)\,b"),
    ("RMSNorm (rows × d)", r"c_{\mathrm{rms}}\,rd", r"(2rd + d)\,b"),
    ("LayerNorm (rows × d)", r"c_{\mathrm{ln}}\,rd", r"(2rd + 2d)\,b"),
    ("Softmax (rows × d)", r"c_{\mathrm{sm}}\,rd", r"2rd\,b"),
    ("GELU / SiLU (n)", r"c_{\mathrm{act}}\,n", r"2n\,b"),
    ("SiLU·mul (n)", r"c_{\mathrm{swiglu}}\,n", r"3n\,b"),
    ("Bias add (rows × cols)", r"rc", r"(2rc + c)\,b"),
    ("Residual add (n)", r"n", r"3n\,b"),
    ("Attention, fused (B, H, H_kv, d_h, q, s)",
     r"4BHqs\,d_h + c_{\mathrm{sm}}BHqs", r"(2BqHd_h + 2BsH_{kv}d_h)\,b"),
    ("Embedding (tokens × d)", r"0", r"2td\,b"),
    ("AdamW (params)", r"c_{\mathrm{adam}}\,p", r"7p \cdot 4"),
)


def _m(latex: str) -> str:
    return convert(latex)


@marker("op_formulas", block=True)
def op_formulas(ctx: Context) -> str:
    c = ctx.zoo.conventions
    consts = (f"c_rms = {fmt.num(c.rmsnorm_flops_per_element)}, "
              f"c_ln = {fmt.num(c.layernorm_flops_per_element)}, "
              f"c_sm = {fmt.num(c.softmax_flops_per_element)}, "
              f"c_act = {fmt.num(c.gelu_flops_per_element)} (GELU) / "
              f"{fmt.num(c.silu_flops_per_element)} (SiLU), "
              f"c_swiglu = {fmt.num(c.silu_mul_flops_per_element)}, "
              f"c_adam = {fmt.num(c.adamw_flops_per_param)}")
    rows = [[html.escape(name), _m(fl), _m(by)] for name, fl, by in OP_FORMULAS]
    return (html_table([HtmlColumn("Op (shape)", priority=1, wrap=True),
                        HtmlColumn("FLOPs", priority=1), HtmlColumn("HBM bytes", priority=1)],
                       rows, label="Op-cost formulas") +
            f"\n*b* is bytes per element of the precision. FLOPs per element: {consts} "
            f"({html.escape(ctx.zoo.source)})\n")


@marker("op_zoo_presets", block=True)
def op_zoo_presets(ctx: Context) -> str:
    rows = [[f"<code>{html.escape(p.id)}</code>", html.escape(p.label), html.escape(p.context)]
            for p in ctx.zoo.presets.values()]
    return html_table([HtmlColumn("id", priority=1), HtmlColumn("Op", priority=1),
                       HtmlColumn("Shapes", priority=2, wrap=True)],
                      rows, label="The lesson's op presets")


def model_table(ctx: Context, model: str, phase: str, hw: str = LESSON_HW,
                precision: str = LESSON_PRECISION) -> Table:
    models = default_models()
    if model not in models:
        raise RooflineError(f"unknown model {model!r}", field="model", valid=list(models))
    if phase not in RUNS:
        raise RooflineError(f"unknown phase {phase!r}", field="phase", valid=list(PHASES))
    batch, seq = RUNS[phase]
    acc = ctx.hw(hw)
    b = ctx.catalog.precision(precision).bytes_per_element
    ops = model_ops(models[model], phase, batch, seq, b, flash=True, conv=ctx.zoo.conventions)
    table = ops_table([place(op, acc, precision) for op in ops])
    if hw == LESSON_HW and precision == LESSON_PRECISION and not run_budget(ctx, model,
                                                                            phase).fits:
        # A run that does not fit on the chip has no time to quote, as `roofline budget`
        # says: its ops keep their FLOPs, bytes and bound, not a "Time ≥".
        table = replace(table, columns=tuple(c for c in table.columns if c.key != "time_s"))
    return table



def model_caption(ctx: Context, model: str, phase: str, hw: str = LESSON_HW,
                  precision: str = LESSON_PRECISION) -> str:
    cfg = default_models()[model]
    batch, seq = RUNS[phase]
    run = {"train": f"the forward ops of a training step, batch {batch} × {seq:,} tokens, and "
                    "AdamW in fp32 over every parameter, as one GPU without ZeRO runs it (the "
                    "summary's training row is the whole step)",
           "prefill": f"prefill of {batch} × {seq:,} prompt tokens",
           "decode": f"one decode step, batch {batch}, against a {seq:,}-token KV cache"}[phase]
    return (f"{cfg.name} — {run}, on the {ctx.hw(hw).name} in {precision}, FlashAttention-style "
            f"attention. Per-layer ops are counted × {cfg.layers} layers."
            + ("" if run_budget(ctx, model, phase).fits or hw != LESSON_HW else
               f" The run {misfit_words(run_budget(ctx, model, phase))}, so no time is "
               "quoted."))


@marker("model_ops", block=True)
def model_ops_block(ctx: Context, *, model: str, phase: str) -> str:
    t = model_table(ctx, model, phase)
    name = f"ops-{model}-{phase}"
    title = {"train": "Training", "prefill": "Prefill", "decode": "Decode"}[phase]
    return (f'\n<details class="rl-more" markdown="1">\n<summary>{title}: every op, '
            f"{len(t.rows)} rows</summary>\n\n*{model_caption(ctx, model, phase)}*\n"
            "{: .rl-caption }\n\n"
            + table_html(t, label=f"Ops of {model}, {phase}", wrap=("name",),
                         priority={"shape": 3, "flops": 3, "bytes": 3}) +
            f"\nDownload: [{name}.csv](downloads/{name}.csv) · "
            f"[{name}.json](downloads/{name}.json)\n\n</details>\n")


@marker("hardware_summary", block=True)
def hardware_summary(ctx: Context) -> str:
    cat = ctx.catalog
    cols = [HtmlColumn("Accelerator", priority=1, wrap=True),
            HtmlColumn("BF16 TFLOP/s", "right", 1), HtmlColumn("FP8 TFLOP/s", "right", 2),
            HtmlColumn("HBM", "right", 2), HtmlColumn("Memory BW", "right", 1),
            HtmlColumn("BF16 ridge (FLOP/B)", "right", 1), HtmlColumn("TDP", "right", 3)]

    def row(acc) -> list[str]:
        def peak(p: str) -> str:
            return fmt.num(acc.peak_flops_per_s(p) / 1e12, 3) if p in acc.peaks else "—"
        # A chip without BF16 tensor math (V100: FP16 only) says what it has instead, so its
        # row does not read as a chip without tensor cores.
        p = "bf16" if "bf16" in acc.peaks else _instead_of_bf16(acc)
        bf16, ridge = (peak(p), fmt.num(acc.ridge_flops_per_byte(p), 3)) if p else ("—", "—")
        if p and p != "bf16":
            bf16, ridge = f"— ({p.upper()} {bf16})", f"— ({p.upper()} {ridge})"
        return [f'<a href="#{acc.id}">{html.escape(acc.name)}</a>', bf16,
                peak("fp8"), fmt.memory(acc.hbm.capacity_bytes),
                fmt.bandwidth(acc.hbm_bandwidth_bytes_per_s), ridge,
                f"{acc.tdp_w:,.0f} W" if acc.tdp_w else "—"]
    # The chips the lesson uses first; the rest of the catalog collapsed below them, so a
    # phone's cards are a screen, not three (print and no-JS readers get every row).
    named = [ctx.hw(h) for h in TOKENS_HW]
    rest = [a for a in cat if a not in named]
    return (_ridge_chart(ctx) + "\n*Dense peaks, HBM and the bf16 ridge of the chips the "
            "lesson uses; the other chips are in the collapsed table below it, and the other "
            "precisions, tiers and sources under each chip below and in "
            "[hardware.csv](downloads/hardware.csv).*\n{: .rl-caption }\n\n"
            + html_table(cols, [row(a) for a in named], label="Accelerators compared",
                         css_class="rl-hw")
            + rest_details(f"The other {len(rest):,} chips of the catalog",
                           html_table(cols, [row(a) for a in rest],
                                      label="Accelerators compared: the other chips",
                                      css_class="rl-hw")))


def _instead_of_bf16(acc) -> str | None:
    """The tensor precision a chip without a BF16 peak has in its place (V100: fp16), if any."""
    return "fp16" if "bf16" not in acc.peaks and "fp16" in acc.peaks else None


def _src(key: str) -> str:
    return f'<a href="#source-{key.lower()}">{html.escape(key)}</a>'


FACT_LABELS = {"compute_units": "compute units", "tdp_w": "TDP", "boost_clock_hz": "boost clock"}


def _fact(acc, key: str, value: float) -> str:
    if key == "boost_clock_hz":
        return fmt.si(value, "Hz")
    if key == "tdp_w":
        return f"{value:,.0f} W"
    if key == "compute_units":
        return f"{value:,.0f} {html.escape(acc.compute_unit_name)}s"
    return fmt.num(value, 4)


@marker("hardware_details", block=True)
def hardware_details(ctx: Context) -> str:
    out = []
    for acc in ctx.catalog:
        out.append(f"\n### {acc.name} {{#{acc.id}}}\n")
        facts = ", ".join(
            f"{FACT_LABELS.get(k, k.replace('_', ' '))} {_fact(acc, k, v)} ({_src(s)})"
            for k, (v, s, _, _) in acc.facts.items())
        out.append(f"`{acc.id}` · {acc.vendor} · {facts}\n")
        peaks = []
        for p in sorted(acc.peaks.values(), key=lambda p: PRECISION_ORDER.index(p.precision)
                        if p.precision in PRECISION_ORDER else 99):
            peaks.append([p.precision, p.unit, fmt.tflops(p.flops_per_s),
                          fmt.num(acc.ridge_flops_per_byte(p.precision)), p.basis,
                          _src(p.source), html.escape(p.note)])
        # The two tables per chip open on demand: the summary above is the comparison, this
        # is the reference (28 tables made a 17,000 px wall).
        out.append(f'<details class="rl-more"><summary>{html.escape(acc.name)}: '
                   f"{len(acc.peaks)} peaks with ridges, {len(acc.tiers)} memory tiers, "
                   "sources</summary>")
        out.append(html_table(
            [HtmlColumn("Precision", priority=1), HtmlColumn("Unit", priority=2),
             HtmlColumn("Peak", "right", 1), HtmlColumn("Ridge (FLOP/byte of HBM)", "right", 1),
             HtmlColumn("Basis", priority=2), HtmlColumn("Source", priority=2),
             HtmlColumn("Note", priority=3, wrap=True)],
            peaks, label=f"{acc.name}: peaks and ridges"))
        tiers = []
        for t in acc.tiers:
            cap = fmt.memory(t.capacity_bytes) if t.capacity_bytes else "—"
            if t.per_unit_capacity_bytes:
                cap += f" ({fmt.memory(t.per_unit_capacity_bytes)}/{acc.compute_unit_name})"
            bw = fmt.bandwidth(t.bandwidth_bytes_per_s) if t.bandwidth_bytes_per_s else "—"
            tiers.append([html.escape(t.name), html.escape(cap), bw, t.basis, _src(t.source),
                          html.escape(t.note)])
        out.append(html_table(
            [HtmlColumn("Tier", priority=1, wrap=True), HtmlColumn("Capacity", "right", 1, wrap=True),
             HtmlColumn("Bandwidth", "right", 1), HtmlColumn("Basis", priority=2),
             HtmlColumn("Source", priority=2), HtmlColumn("Note", priority=2, wrap=True)],
            tiers, label=f"{acc.name}: memory tiers"))
        out.append("</details>\n")
    return "\n".join(out) + "\n"


def chip_label(name: str) -> str:
    """'NVIDIA H100 SXM5 80GB' -> 'H100 SXM5 80GB': the chart's labels drop the vendor."""
    for prefix in ("NVIDIA GeForce ", "NVIDIA ", "AMD Instinct ", "Google ", "Intel "):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name.split(" (")[0]


def ridge_charts(ctx: Context):
    """The hardware page's chart, wide and narrow (LogLogChart values), and its description."""
    accs = [a for a in ctx.catalog if "bf16" in a.peaks]
    bws = [a.hbm_bandwidth_bytes_per_s / 1e12 for a in accs]
    ridges = [a.ridge_flops_per_byte("bf16") for a in accs]
    x_range = (10 ** math.floor(math.log10(min(bws))), 10 ** math.ceil(math.log10(max(bws))))
    y_range = (min(100.0, min(ridges) * 0.8), max(1000.0, max(ridges) * 1.25))
    desc = "; ".join(f"{a.name}: {fmt.bandwidth(a.hbm_bandwidth_bytes_per_s)}, ridge "
                     f"{fmt.num(r, 3)} FLOP/byte" for a, r in zip(accs, ridges))
    without = [a.name for a in ctx.catalog if "bf16" not in a.peaks]
    desc += f". Not drawn (no BF16 peak): {', '.join(without)}" if without else ""
    # Chips with the same HBM and the same BF16 peak (H100 SXM and H800) share one dot and
    # one label: two labels on one dot would leave the second beside another chip's dot.
    at: dict[tuple[float, float], list] = {}
    for a, b, r in zip(accs, bws, ridges):
        at.setdefault((b, r), []).append(a)

    def chart(width: int, height: int, font: float) -> svgchart.LogLogChart:
        return svgchart.LogLogChart(
            width, height, x_range, y_range, "HBM bandwidth (TB/s, log)",
            "BF16 ridge (FLOP/byte, log)", x_tick=lambda v: f"{v:g}",
            y_tick=lambda v: f"{v:g}", font=font, y_ticks=(100, 200, 300, 500, 1000),
            x_ticks=tuple(v for v in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20)
                          if x_range[0] <= v <= x_range[1]),
            points=[svgchart.Point(b, r, " / ".join(chip_label(a.name) for a in same),
                                   title=f"{' / '.join(a.name for a in same)}: "
                                   f"{fmt.bandwidth(same[0].hbm_bandwidth_bytes_per_s)}, "
                                   f"ridge {fmt.num(r, 3)}")
                    for (b, r), same in at.items()])
    return chart(760, 440, 13), chart(380, 420, 11), desc


def _ridge_chart(ctx: Context) -> str:
    w, n, desc = ridge_charts(ctx)
    without = [a.name for a in ctx.catalog if "bf16" not in a.peaks]
    wide = w.svg(title="BF16 ridge against HBM bandwidth, every accelerator"
                 + (" with a BF16 peak" if without else ""), desc=desc, uid="rl-ridge-bw")
    narrow = n.svg(title="BF16 ridge against HBM bandwidth", desc=desc, uid="rl-ridge-bw-n")
    cap = ("Where each chip's ridge sits: an op needs at least this many FLOPs per byte of HBM "
           "traffic to be compute-bound in bf16. Faster memory lowers the bar; faster tensor "
           "cores raise it."
           + (f" Not drawn, having no BF16 tensor math: {', '.join(without)}." if without
              else ""))
    return "\n" + svgchart.figure(wide, narrow, cap) + "\n"


def zoo_charts(ctx: Context, points, labels: list[str]):
    """The op zoo's mini-roofline, wide and narrow (LogLogChart values), and its description."""
    acc = ctx.hw(LESSON_HW)
    peak = acc.peak_flops_per_s(LESSON_PRECISION) / 1e12
    bw = acc.hbm_bandwidth_bytes_per_s / 1e12
    ais = [p.intensity_flops_per_byte for p in points]
    lo = 10 ** math.floor(math.log10(min(ais)))
    hi = 10 ** math.ceil(math.log10(max(max(ais), acc.ridge_flops_per_byte(LESSON_PRECISION))
                                    * 1.5))
    roof = [(lo, lo * bw), (peak / bw, peak), (hi, peak)]
    y_lo = 10 ** math.floor(math.log10(lo * bw))
    desc = "; ".join(f"{n}. {lab}: AI {fmt.num(p.intensity_flops_per_byte, 3)}, "
                     f"{fmt.percent(p.fraction_of_peak)} of peak"
                     for n, (lab, p) in enumerate(zip(labels, points), 1))

    def chart(width: int, height: int, font: float) -> svgchart.LogLogChart:
        return svgchart.LogLogChart(
            width, height, (lo, hi), (y_lo, peak * 3),
            "Arithmetic intensity I (FLOP/byte, log)", "Attainable TFLOP/s (log)",
            font=font, lines=[svgchart.Line(roof, "rl-chart-roof",
                                            f"{LESSON_PRECISION} roof {fmt.num(peak, 3)}")],
            points=[svgchart.Point(p.intensity_flops_per_byte, p.attainable_flops_per_s / 1e12,
                                   str(n), "rl-mem" if p.bound == "memory" else "rl-comp",
                                   title=lab)
                    for n, (lab, p) in enumerate(zip(labels, points), 1)])
    return chart(760, 400, 13), chart(380, 380, 11), desc


def _zoo_chart(ctx: Context, points, labels: list[str]) -> str:
    acc = ctx.hw(LESSON_HW)
    w, n, desc = zoo_charts(ctx, points, labels)
    title = f"The lesson's ops on the {acc.name} roofline, {LESSON_PRECISION}"
    wide = w.svg(title=title, desc=desc, uid="rl-zoo-roof")
    narrow = n.svg(title=title, desc=desc, uid="rl-zoo-roof-n")
    key = " · ".join(f"<b>{n}</b> {html.escape(lab)}" for n, lab in enumerate(labels, 1))
    cap = (f"The lesson's ops on the {html.escape(acc.name)} in {LESSON_PRECISION} (ridge ≈ "
           f"{fmt.num(acc.ridge_flops_per_byte(LESSON_PRECISION))} FLOP/byte): {key}.")
    return "\n" + svgchart.figure(wide, narrow, cap) + "\n"


@marker("op_zoo_summary", block=True)
def op_zoo_summary(ctx: Context) -> str:
    """A mini-roofline of the lesson's ops, then one row per model and run, each the whole step
    as the budget model prices it: FLOPs and bytes moved, the time floor, how much of it
    memory-bound kernels take, and the MFU bound."""
    acc = ctx.hw(LESSON_HW)
    pts = ctx.points(LESSON_HW, LESSON_PRECISION)
    labels = [ctx.zoo.presets[p.name].label for p in pts]
    ridge = acc.ridge_flops_per_byte(LESSON_PRECISION)
    rows, misfits = [], []
    for key, cfg in default_models().items():
        for phase in RUNS:
            bg = run_budget(ctx, key, phase)
            kernels = bg.kernels + bg.recomputed
            flops = sum(k.flops * k.count for k in kernels)
            bytes_ = sum(k.bytes * k.count for k in kernels)
            mem = sum(bg.kernel_time_s(k) for k in kernels
                      if k.intensity_flops_per_byte < ridge)
            if not bg.fits:  # no time for a run that cannot run, as the CLI says
                rows.append([html.escape(cfg.name), RUN_LABELS[phase], fmt.count(flops),
                             fmt.count(bytes_), "does not fit", "—", "—"])
                misfits.append(f"{cfg.name}'s {RUN_LABELS[phase]} {misfit_words(bg)}")
                continue
            rows.append([html.escape(cfg.name), RUN_LABELS[phase],
                         fmt.count(flops), fmt.count(bytes_), fmt.seconds(bg.step_time_s),
                         fmt.percent(mem / bg.step_time_s),
                         fmt.percent(bg.mfu_upper_bound, 3)])
    cols = [HtmlColumn("Model", priority=1), HtmlColumn("Run", priority=1, wrap=True),
            HtmlColumn("FLOPs", "right", 3), HtmlColumn("HBM bytes", "right", 3),
            HtmlColumn("Time ≥", "right", 1), HtmlColumn("Memory-bound share of time", "right", 1),
            HtmlColumn("MFU bound", "right", 1)]
    batch, seq = RUNS["train"]
    return (_zoo_chart(ctx, pts, labels) +
            f"\n*Every kernel of each run placed on the {acc.name} in {LESSON_PRECISION}, "
            "summed, with FlashAttention: the time floor is the sum of each kernel's bound. "
            f"Training is the running example's whole step, {batch} × {seq:,} tokens per GPU: "
            "forward, backward, the forward recomputed, and AdamW over this GPU's "
            f"ZeRO-{EXAMPLE.zero_stage} shard of {EXAMPLE.dp_degree}; prefill is one "
            f"{seq:,}-token prompt, decode one token against a {seq:,}-token cache. *MFU bound* "
            "is the run's useful (matmul) FLOPs over that time at peak; "
            "[Where the 50 % goes](budget.md) adds what the roofline cannot see."
            + "".join(f" {m[0].upper()}{m[1:]}: no time." for m in misfits) +
            "*\n{: .rl-caption }\n\n"
            + html_table(cols, rows, label="Op zoo summary: whole runs"))


RUN_LABELS = {"train": "training step", "prefill": "prefill", "decode": "decode"}


@marker("sources", block=True)
def sources(ctx: Context) -> str:
    lines = []
    for s in sorted(ctx.catalog.sources.values(), key=lambda s: s.key):
        lines.append(f'- <span id="source-{s.key.lower()}">**{s.key}**</span> — '
                     f"{html.escape(s.title)}: <{s.url}>")
    return "\n" + "\n".join(lines) + "\n"


def generated_tables(ctx: Context) -> dict[str, str]:
    """Every downloadable file, path under the site -> content (deterministic)."""
    files: dict[str, str] = {}
    hw = hardware_table(ctx.catalog)
    files["downloads/hardware.csv"] = hw.as_csv()
    files["downloads/hardware.json"] = json.dumps(
        {"catalog": hardware_records(ctx.catalog),
         "sources": {s.key: {"title": s.title, "url": s.url}
                     for s in ctx.catalog.sources.values()}},
        indent=2, ensure_ascii=False) + "\n"
    zoo = ops_table(ctx.points(LESSON_HW, LESSON_PRECISION),
                    contexts={p.id: p.context for p in ctx.zoo.presets.values()})
    files["downloads/op-zoo-h100-sxm-bf16.csv"] = zoo.as_csv()
    files["downloads/op-zoo-h100-sxm-bf16.json"] = zoo.as_json()
    for model in default_models():
        for phase in RUNS:
            t = model_table(ctx, model, phase)
            files[f"downloads/ops-{model}-{phase}.csv"] = t.as_csv()
            files[f"downloads/ops-{model}-{phase}.json"] = t.as_json()
    return files
