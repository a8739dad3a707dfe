"""Markers for choosing a chip and for mixture-of-experts models: the hardware page's "which
chip?" tables (roofline.model.chip_ranking, the running example in decode and in training) and the
op-zoo page's MoE passage (roofline.model.moe's rules on the bundled MoE models)."""

from __future__ import annotations

import html

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model.chip_ranking import compare, running_example
from roofline.model.hfconfig import bundled_models
from roofline.model.tokens import critical_tokens
from roofline.model.transformer import get_model
from roofline.render.ranking_table import compare_table
from roofline.render.tables import HtmlColumn, html_table, table_html
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker

PHASES = {"train": "training", "decode": "decode"}
BATCHES = (1, 16, 256)
"""Decode batches the MoE table shows the experts touched at."""


def running_comparison(ctx: Context, phase: str):
    """The running example (model, sequences per GPU, sequence, precision) on every chip, in
    `phase`."""
    if phase not in PHASES:
        raise RooflineError(f"unknown phase {phase!r}", field="phase", valid=list(PHASES))
    ex = running_example()
    return ctx.once(("running_comparison", phase), lambda: compare(
        get_model(ex["model"]), phase, ex["batch"], ex["seq"], ctx.catalog, ex["precision"]))


@marker("which_chip", block=True)
def which_chip(ctx: Context, *, phase: str) -> str:
    c = running_comparison(ctx, phase)
    t = compare_table(c)
    left = ", ".join(f"{h} ({why})" for h, why in c.skipped)
    return (f"\n*{html.escape(t.caption)}" + (f" Left out: {left}." if left else "")
            + "*\n{: .rl-caption }\n\n"
            + table_html(t, label=f"Which chip: {c.model.name}, {PHASES[phase]}",
                         wrap=("name", "fit"),
                         priority={"name": 1, "step_time_s": 2, "tokens_per_s": 1,
                                   "mfu_upper_bound": 2, "fit": 1,
                                   "gpu_hours_per_billion_tokens": 1}))


@marker("which_chip_fact")
def which_chip_fact(ctx: Context, *, phase: str, field: str, rank: int = 1) -> str:
    """One figure of the running example's comparison: the chip at `rank` (1: fewest GPU-hours
    per token) — its name, or its GPU-hours per billion tokens; how many chips; the model."""
    rows = running_comparison(ctx, phase).rows
    if not 1 <= rank <= len(rows):
        raise RooflineError(f"rank must be 1 to {len(rows)}, got {rank}", field="rank")
    row = rows[rank - 1]
    values = {"name": row.name, "gpu_hours": fmt.num(row.gpu_hours_per_billion_tokens, 3),
              "count": f"{len(rows):,}", "model": get_model(running_example()["model"]).name}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return values[field]


def _moe_models() -> dict:
    return {m: c for m, c in bundled_models().items() if c.moe is not None}


def _dense_critical(ctx: Context) -> float:
    acc = ctx.hw(LESSON_HW)
    b = ctx.catalog.precision(LESSON_PRECISION).bytes_per_element
    return critical_tokens(acc.peak_flops_per_s(LESSON_PRECISION),
                           acc.hbm_bandwidth_bytes_per_s, b)


@marker("moe_table", block=True)
def moe_table(ctx: Context) -> str:
    """Each bundled MoE model: experts, k, the tokens per step its expert GEMMs need to reach
    the lesson chip's ridge, the experts a decode step touches, the weights it reads."""
    dense = _dense_critical(ctx)
    b = ctx.catalog.precision(LESSON_PRECISION).bytes_per_element
    rows = []
    for cfg in _moe_models().values():
        moe = cfg.moe
        touched = " / ".join(fmt.num(moe.expected_experts(n), 3) for n in BATCHES)
        rows.append([html.escape(cfg.name), f"{moe.experts:,}", f"{moe.top_k:,}",
                     fmt.num(moe.experts / moe.top_k, 3),
                     f"{fmt.num(moe.critical_tokens(dense), 3)}",
                     touched,
                     f"{fmt.capacity(cfg.weight_params_read(1) * b)} of "
                     f"{fmt.capacity(cfg.params * b)}"])
    cols = [HtmlColumn("Model", priority=1, wrap=True), HtmlColumn("Experts E", "right", 2),
            HtmlColumn("k", "right", 2), HtmlColumn("E ÷ k", "right", 1),
            HtmlColumn("Tokens per step for expert GEMMs at the ridge", "right", 1, wrap=True),
            HtmlColumn(f"Experts touched per MoE layer at batch "
                       f"{' / '.join(str(n) for n in BATCHES)}", "right", 1, wrap=True),
            HtmlColumn("Weights read by a batch-1 decode step", "right", 2, wrap=True)]
    acc = ctx.hw(LESSON_HW)
    return (f"\n*The bundled MoE models on the {html.escape(acc.name)} in {LESSON_PRECISION}: "
            f"a dense weight matmul reaches the ridge at {fmt.num(dense, 3)} tokens per step, "
            "an expert's at that × E ÷ k. Experts touched assume uniform routing; weights "
            f"in {LESSON_PRECISION}.*\n{{: .rl-caption }}\n\n"
            + html_table(cols, rows, label="Mixture-of-experts models: tokens per step"))


@marker("moe_value")
def moe_value(ctx: Context, *, model: str, field: str, batch: int = 1) -> str:
    """One figure of a bundled MoE model for the prose: experts, k, tokens per expert at
    `batch` tokens, experts touched at `batch`, the tokens per step its experts need."""
    cfg = get_model(model)
    if cfg.moe is None:
        raise RooflineError(f"{model} has no experts", field="model",
                            valid=list(_moe_models()))
    moe = cfg.moe
    values = {"experts": lambda: f"{moe.experts:,}", "k": lambda: f"{moe.top_k:,}",
              "per_expert": lambda: fmt.num(moe.tokens_per_expert(batch), 3),
              "touched": lambda: fmt.num(moe.expected_experts(batch), 3),
              "critical": lambda: fmt.num(moe.critical_tokens(_dense_critical(ctx)), 3),
              "active_share": lambda: fmt.percent(cfg.params_active / cfg.params)}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return values[field]()
