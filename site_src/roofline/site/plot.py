"""§6: the interactive roofline goes in through the ```roofline fence of the package's MkDocs
plugin (the same path other sites use); this marker writes that fence from the lesson's
choices so the lesson's Markdown names no figures."""

from __future__ import annotations

from .context import LESSON_HW, LESSON_PRECISION, Context
from .markers import marker


@marker("roofline_plot", block=True)
def roofline_plot(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
                  ai: str = "2") -> str:
    ctx.hw(hw).peak(precision)  # fail here, naming the page, if the lesson asks for nonsense
    ops = ", ".join(ctx.zoo.presets)
    return (f"\n```roofline\nhardware: {hw}\nprecision: {precision}\nops: [{ops}]\n"
            f"ai: {ai}\n```\n")
