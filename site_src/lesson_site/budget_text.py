"""Markers for the budget page's prose: every default the widget opens with, printed in the
text (so it reads with JavaScript off and on paper), and the figures the prose argues from,
computed by roofline.model.budget and roofline.model.memory."""

from __future__ import annotations

from roofline import fmt
from roofline.model.budget import FUSIONS, TYPICAL, Assumptions, budget
from roofline.widgets.budget.payload import SEQ, STATED_RUN
from roofline.errors import RooflineError
from roofline.model.memory import (ADAM_STATE_BYTES_PER_PARAM, GRAD_BYTES_PER_PARAM, RECOMPUTE,
    Sharding)
from roofline.model.transformer import get_model
from lesson_site.context import Context
from lesson_site.markers import marker

DEFAULTS = {
    "kernel_efficiency": lambda a: fmt.num(a.kernel_efficiency, 3),
    "launch_overhead_us": lambda a: fmt.num(a.launch_overhead_s * 1e6, 3),
    "dp_degree": lambda a: f"{a.dp_degree:,}",
    "overlap_percent": lambda a: fmt.num(a.overlap_fraction * 100, 3),
    "grad_bytes": lambda a: fmt.num(a.grad_bytes_per_element, 3),
}


@marker("budget_default")
def budget_default(ctx: Context, *, name: str) -> str:
    """One default of the budget (roofline.model.budget.Assumptions, the widget's only copy), or of
    the configuration it opens on (batch, seq), or of the memory model (bytes per parameter)."""
    a = Assumptions()
    if name in DEFAULTS:
        return DEFAULTS[name](a)
    if name == "batch":
        return f"{TYPICAL['batch']:,}"
    if name == "seq":
        return f"{SEQ['train']:,}"
    if name == "bytes_per_param":
        return fmt.num(2 + GRAD_BYTES_PER_PARAM + ADAM_STATE_BYTES_PER_PARAM, 3)
    if name == "adam_bytes_per_param":
        return fmt.num(ADAM_STATE_BYTES_PER_PARAM, 3)
    raise RooflineError(f"unknown default {name!r}", field="name",
                        valid=[*DEFAULTS, "batch", "seq", "bytes_per_param",
                               "adam_bytes_per_param"])


def _budget(ctx: Context, model: str, phase: str, batch: int, fuse: str, efficiency: str,
            zero: int, recompute: str):
    fusions = {"none": (), "flash": ("flash",), "all": FUSIONS}.get(fuse)
    if fusions is None:
        raise RooflineError(f"unknown fusion set {fuse!r}", field="fuse",
                            valid=["none", "flash", "all"])
    if recompute not in ("stated", *RECOMPUTE):
        raise RooflineError(f"unknown recomputation {recompute!r}", field="recompute",
                            valid=["stated", *RECOMPUTE])
    sharding = (STATED_RUN if recompute == "stated" else Sharding(zero, recompute))
    a = Assumptions() if efficiency == "default" else Assumptions(kernel_efficiency=float(efficiency))
    hw = ctx.hw(TYPICAL["hardware"])
    b = ctx.catalog.precision(TYPICAL["precision"]).bytes_per_element
    return budget(get_model(model), phase, batch, SEQ[phase], hw, TYPICAL["precision"], b,
                  frozenset(fusions), a, sharding if phase == "train" else Sharding())


@marker("budget_mfu")
def budget_mfu(ctx: Context, *, fuse: str = "none", field: str = "estimate",
               efficiency: str = "default", model: str = TYPICAL["model"],
               phase: str = TYPICAL["phase"], batch: int = TYPICAL["batch"], zero: int = 0,
               recompute: str = "stated") -> str:
    """The page's step (the stated run's sharding unless given): MFU estimate, roofline bound,
    or the points one cause costs (field=loss_KEY)."""
    bg = _budget(ctx, model, phase, batch, fuse, efficiency, zero, recompute)
    if field == "estimate":
        return fmt.percent(bg.mfu_estimate, 2)
    if field == "bound":
        return fmt.percent(bg.mfu_upper_bound, 2)
    if field.startswith("loss_"):
        key = field[5:]
        terms = {t.key: t for t in bg.waterfall()}
        if key not in terms:
            raise RooflineError(f"unknown cause {key!r}", field="field", valid=list(terms))
        return fmt.num(terms[key].loss * 100, 3)
    raise RooflineError(f"unknown field {field!r}", field="field",
                        valid=["estimate", "bound", "loss_<cause>"])


@marker("budget_memory")
def budget_memory(ctx: Context, *, field: str = "total", fuse: str = "none",
                  model: str = TYPICAL["model"], phase: str = TYPICAL["phase"],
                  batch: int = TYPICAL["batch"], zero: int = 0,
                  recompute: str = "none") -> str:
    """Bytes per GPU of one step (roofline.model.memory), in GB: total, state (weights, gradients and
    optimizer), activations, kv_cache, weights, overflow, or capacity (the chip's HBM)."""
    m = _budget(ctx, model, phase, batch, fuse, "default", zero, recompute).memory
    values = {"total": m.total, "state": m.weights + m.gradients + m.optimizer,
              "activations": m.activations, "kv_cache": m.kv_cache, "weights": m.weights,
              "overflow": m.overflow}
    if field == "capacity":
        return fmt.memory(m.capacity)
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field",
                            valid=[*values, "capacity"])
    return fmt.capacity(values[field])
