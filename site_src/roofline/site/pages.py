"""Block markers for the reference pages (hardware catalog, op zoo) and the downloadable
tables behind them: the same Table values become Markdown on the page and CSV/JSON files."""

from __future__ import annotations

import html
import json

from latex2mathml.converter import convert

from .. import fmt
from ..errors import RooflineError
from ..maths import place
from ..render.table import Column, Table
from ..render.tables import PRECISION_ORDER, hardware_records, hardware_table, ops_table
from ..transformer import PHASES, default_models, model_ops
from .context import LESSON_HW, LESSON_PRECISION, Context
from .markers import marker, scroll_region

# The op-zoo page's runs: a training step, a prompt prefill, one decode step against a cache.
RUNS = {"train": (8, 4096), "prefill": (1, 4096), "decode": (1, 4096)}

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
    rows = "\n".join(f"| {name} | {_m(fl)} | {_m(by)} |" for name, fl, by in OP_FORMULAS)
    return (scroll_region("| Op (shape) | FLOPs | HBM bytes |\n|---|---|---|\n" + rows,
                          "Op-cost formulas") +
            f"\n*b* is bytes per element of the precision. FLOPs per element: {consts} "
            f"({html.escape(ctx.zoo.source)})\n")


@marker("op_zoo_presets", block=True)
def op_zoo_presets(ctx: Context) -> str:
    rows = "\n".join(f"| `{p.id}` | {p.label} | {html.escape(p.context)} |"
                     for p in ctx.zoo.presets.values())
    return scroll_region("| id | Op | Shapes |\n|---|---|---|\n" + rows, "The lesson's op presets")


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
    return ops_table([place(op, acc, precision) for op in ops])


def model_caption(ctx: Context, model: str, phase: str, hw: str = LESSON_HW,
                  precision: str = LESSON_PRECISION) -> str:
    cfg = default_models()[model]
    batch, seq = RUNS[phase]
    run = {"train": f"training step, batch {batch} × {seq:,} tokens (forward ops; AdamW in fp32)",
           "prefill": f"prefill of {batch} × {seq:,} prompt tokens",
           "decode": f"one decode step, batch {batch}, against a {seq:,}-token KV cache"}[phase]
    return (f"{cfg.name} — {run}, on the {ctx.hw(hw).name} in {precision}, FlashAttention-style "
            f"attention. Per-layer ops are counted × {cfg.layers} layers.")


@marker("model_ops", block=True)
def model_ops_block(ctx: Context, *, model: str, phase: str) -> str:
    t = model_table(ctx, model, phase)
    name = f"ops-{model}-{phase}"
    return (f"\n*{model_caption(ctx, model, phase)}*\n\n"
            + scroll_region(t.as_markdown(), f"Ops of {model}, {phase}") +
            f"\nDownload: [{name}.csv](downloads/{name}.csv) · "
            f"[{name}.json](downloads/{name}.json)\n")


@marker("hardware_summary", block=True)
def hardware_summary(ctx: Context) -> str:
    t = hardware_table(ctx.catalog)
    return scroll_region(t.as_markdown(), "Accelerators: peaks, memory and ridge")


def _src(key: str) -> str:
    return f"[{key}](#source-{key.lower()})"


@marker("hardware_details", block=True)
def hardware_details(ctx: Context) -> str:
    out = []
    for acc in ctx.catalog:
        out.append(f"\n### {acc.name} {{#{acc.id}}}\n")
        facts = ", ".join(
            f"{k.replace('_', ' ')}: {fmt.num(v, 4) if k != 'boost_clock_hz' else fmt.si(v, 'Hz')}"
            f" ({_src(s)})" for k, (v, s, _, _) in acc.facts.items())
        out.append(f"`{acc.id}` · {acc.vendor} · {facts}\n")
        peaks = ["| Precision | Unit | Peak | Ridge (FLOP/byte of HBM) | Basis | Source |",
                 "|---|---|---:|---:|---|---|"]
        for p in sorted(acc.peaks.values(), key=lambda p: PRECISION_ORDER.index(p.precision)
                        if p.precision in PRECISION_ORDER else 99):
            peaks.append(f"| {p.precision} | {p.unit} | {fmt.tflops(p.flops_per_s)} | "
                         f"{fmt.num(acc.ridge_flops_per_byte(p.precision))} | {p.basis} | "
                         f"{_src(p.source)} |")
        out.append(scroll_region("\n".join(peaks), f"{acc.name}: peaks and ridges"))
        tiers = ["| Tier | Capacity | Bandwidth | Basis | Source | Note |",
                 "|---|---:|---:|---|---|---|"]
        for t in acc.tiers:
            cap = fmt.capacity(t.capacity_bytes) if t.capacity_bytes else "—"
            if t.per_unit_capacity_bytes:
                cap += f" ({fmt.capacity(t.per_unit_capacity_bytes)}/{acc.compute_unit_name})"
            bw = fmt.bandwidth(t.bandwidth_bytes_per_s) if t.bandwidth_bytes_per_s else "—"
            note = html.escape(t.note).replace("|", "\\|")
            tiers.append(f"| {t.name} | {cap} | {bw} | {t.basis} | {_src(t.source)} | {note} |")
        out.append(scroll_region("\n".join(tiers), f"{acc.name}: memory tiers"))
    return "\n".join(out) + "\n"


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
