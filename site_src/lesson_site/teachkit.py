"""What the teaching markers share: the steps they run, the classes they name, and small
formatting helpers. The markers live in derive.py (§3), steptime.py (§4–5) and exercises.py
(the Checkpoint); teach.py registers them all."""

from __future__ import annotations

import html
from pathlib import Path

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model.example import EXAMPLE
from lesson_site.context import Context

# The §4 comparison and the overhead figure: the running example's training step, and one
# batch-1 decode step of the same model against a KV cache of its sequence length (changes to
# roofline.model.example.RunningExample's fields).
STEPS = {"train": {}, "decode": {"phase": "decode", "batch": 1}}
CLASS_LABELS = {"gemm": "GEMMs (projections, lm_head)", "attention": "attention matmuls",
                "norm": "norms", "elementwise": "elementwise (SiLU·mul, residual adds)",
                "softmax": "softmax", "embedding": "embedding", "optimizer": "optimizer (AdamW)"}
# The tokens rule's worked matmul: the running example's up_proj, d_model × ffn.
TOKENS_MODEL = EXAMPLE.model
# The chips the lesson's text names beside the H100 (the problems, the predict form): the
# tokens table shows these and folds the rest of the catalog away.
TOKENS_HW = ("h100-sxm", "a100-sxm-80gb", "h200", "b200")
# The inlined page script (predict.mjs) and the formatting it imports; the chips the predict
# form draws from.
JS_DIR = Path(__file__).resolve().parent / "js"
PREDICT_HW = ("h100-sxm", "a100-sxm-80gb", "h200", "b200", "l4")


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
