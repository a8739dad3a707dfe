"""§4 and §5 from the budget model: "FLOPs are not time" (each op class's share of a step's
FLOPs beside its share of the roofline time) and the launch floor, overhead the third
regime."""

from __future__ import annotations

import html

from roofline import fmt
from roofline.model.budget import MEMORY_CLASSES, Assumptions, budget
from roofline.widgets.budget.payload import STATED_RUN
from roofline.errors import RooflineError
from roofline.model.memory import Sharding
from roofline.render.tables import HtmlColumn, html_table
from roofline.model.tokens import load_launch_floor
from roofline.model.transformer import get_model
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker
from lesson_site.teachkit import CLASS_LABELS, STEPS, _chip


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
            # short enough for a phone's card labels (longer ones ran into their values)
            HtmlColumn("FLOP share", "right", 1),
            HtmlColumn("Time share, unfused", "right", 1),
            HtmlColumn("Time share, fused", "right", 1)]
    return (f"\n*{html.escape(label[0].upper() + label[1:])} on the {_chip(ctx, hw)} in "
            f"{precision}: time is each kernel's roofline floor, summed "
            f"({fmt.seconds(plain.step_time_s)} unfused, {fmt.seconds(flash.step_time_s)} fused: "
            "with FlashAttention); no launch gaps or efficiency losses." + _run_note(plain)
            + "*\n{: .rl-caption }\n\n"
            + html_table(cols, rows, label=label, css_class="rl-flops-time"))


def _gib(x: float) -> str:
    return f"{fmt.num(x / 2 ** 30)} GiB"


def _run_note(bg) -> str:
    """How a training step is run so that it fits, in the caption's words (decode: nothing)."""
    if bg.phase != "train":
        return ""
    m, dp = bg.memory, bg.assumptions.dp_degree
    return (f" The run is the one [Where the 50 % goes](../budget.md) states: ZeRO-1 over "
            f"{dp:,} data-parallel GPUs and full activation recomputation, so it fits, "
            f"{_gib(m.total)} of {_gib(m.capacity)} per GPU; the recomputed forward pass adds "
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
    from lesson_site.lesson_parts import mathml
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
