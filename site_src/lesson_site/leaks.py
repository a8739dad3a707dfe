"""Where MFU leaks, from the budget model: the lesson's §4 departure, §5's ranked leaks and its
answer to "why is MFU about 50 %?" print the waterfall of the budget page's training step (the
running example, as [Where the 50 % goes] opens it: FlashAttention on, the stated sharding).
Nothing here is typed: each cause, its points and its rank come from roofline.model.budget, so
the prose stays true when the model moves, and tests/test_leaks.py holds the claims the prose
makes about the ranking."""

from __future__ import annotations

import html

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model.example import EXAMPLE
from roofline.render.tables import HtmlColumn, html_table
from lesson_site.budget_text import _budget
from lesson_site.context import Context
from lesson_site.markers import marker

FUSES = ("flash", "none", "all")
"""The budget page opens with FlashAttention on ("flash"); "none" is the unfused step."""


def step(ctx: Context, fuse: str = "flash"):
    """The budget page's training step: the running example with its stated sharding."""
    if fuse not in FUSES:
        raise RooflineError(f"unknown fusion set {fuse!r}", field="fuse", valid=list(FUSES))
    return _budget(ctx, EXAMPLE.model, EXAMPLE.phase, EXAMPLE.batch, fuse, "default", -1,
                   "stated")


def ranked(bg) -> list:
    """The waterfall's causes, largest loss first (ties keep the model's order)."""
    return sorted(bg.waterfall(), key=lambda t: -t.loss)


def points(loss: float) -> str:
    """Points of peak, as the budget page's waterfall and `roofline budget` print them: three
    significant figures, and a plain 0 for a cause that costs nothing."""
    p = loss * 100
    return "0" if p == 0 else fmt.num(p, 3)


@marker("leak")
def leak(ctx: Context, *, key: str = "mfu", fuse: str = "flash", field: str = "points") -> str:
    """One figure of the step's waterfall: key=mfu (the estimate after every cause), bound
    (the roofline's upper bound), or a cause's key (points of peak it costs; field=rank for its
    place, field=label for its name)."""
    bg = step(ctx, fuse)
    if key == "mfu":
        return fmt.percent(bg.mfu_estimate, 3)
    if key == "bound":
        return fmt.percent(bg.mfu_upper_bound, 3)
    order = ranked(bg)
    found = next((t for t in order if t.key == key), None)
    if found is None:
        raise RooflineError(f"unknown cause {key!r}", field="key",
                            valid=["mfu", "bound", *(t.key for t in bg.waterfall())])
    if field == "points":
        return points(found.loss)
    if field == "rank":
        return f"{order.index(found) + 1}"
    if field == "label":
        return found.label
    raise RooflineError(f"unknown field {field!r}", field="field",
                        valid=["points", "rank", "label"])


@marker("leaks_top")
def leaks_top(ctx: Context, *, n: int = 2, fuse: str = "flash") -> str:
    """The n largest causes, in order, with their points: "A (24 points) and B (23 points)"."""
    order = ranked(step(ctx, fuse))
    if not 1 <= n <= len(order):
        raise RooflineError(f"n must be 1..{len(order)}, got {n}", field="n")
    parts = [f"{t.label} ({points(t.loss)} points)" for t in order[:n]]
    return parts[0] if n == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


@marker("kernel_efficiency")
def kernel_efficiency(ctx: Context) -> str:
    """The running example's GEMM efficiency, in percent: its chip's measured matmul ceiling ÷
    peak (data/ceilings.toml), as the budget page and `roofline budget` state it."""
    return fmt.percent(step(ctx).gemm_efficiency, 3)


@marker("mfu_vs_band")
def mfu_vs_band(ctx: Context, *, lo: int, hi: int) -> str:
    """Where the running example's MFU estimate falls against a band the prose quotes (the
    client's "40–55 %", given as lo and hi in percent): inside, above or below it."""
    if not 0 < lo < hi <= 100:
        raise RooflineError(f"need 0 < lo < hi <= 100, got lo={lo}, hi={hi}", field="lo")
    mfu = step(ctx).mfu_estimate * 100
    return "inside" if lo <= mfu <= hi else "above" if mfu > hi else "below"


def run_words(ctx: Context, bg) -> str:
    """The running example in words, from the budget it describes."""
    a = bg.assumptions
    recompute = {"full": "full activation recomputation", "selective":
                 "selective recomputation", "none": "no recomputation"}[bg.sharding.recompute]
    return (f"{bg.model.name}, {bg.batch:,} sequences of {bg.seq:,} tokens per GPU on "
            f"{a.dp_degree:,} {ctx.hw(EXAMPLE.hardware).name} in {bg.precision}, ZeRO stage "
            f"{bg.sharding.zero_stage} and {recompute}")


def ranking_reveal(ctx: Context) -> str:
    """The model's ranking as Markdown (a caption and a table): what the reader opens after
    ranking the leaks, and what the printed answers at the end of the lesson give."""
    flash, plain = step(ctx, "flash"), step(ctx, "none")
    if flash.sharding != EXAMPLE.sharding:
        raise RooflineError("the ranking must be the budget page's stated run", field="sharding")
    unfused = {t.key: t for t in plain.waterfall()}
    rows = [[f"{i}", html.escape(t.label), points(t.loss), points(unfused[t.key].loss)]
            for i, t in enumerate(ranked(flash), 1)]
    cols = [HtmlColumn("Rank", "right", 1), HtmlColumn("Leak", priority=1, wrap=True),
            HtmlColumn("Points, FlashAttention", "right", 1),
            HtmlColumn("Points, unfused", "right", 2)]
    label = "The step's leaks, largest first"
    table = html_table(cols, rows, label=label, css_class="rl-leaks-table")
    return (f"*{label}, in points of peak: {html.escape(run_words(ctx, flash))} (the run "
            "[Where the 50 % goes](../budget.md) opens on). Each cause costs its share of "
            "the step's time, so the points add up to 100 % less the MFU.*\n{: .rl-caption }"
            f"\n\n{table.strip()}\n\nWhat is left is an MFU of "
            f"**{fmt.percent(flash.mfu_estimate, 3)}** with FlashAttention, "
            f"{fmt.percent(plain.mfu_estimate, 3)} unfused.\n")


@marker("leak_ranking", block=True)
def leak_ranking(ctx: Context) -> str:
    """The reader ranks the step's leaks first (listed by name, in alphabetical order, which
    gives nothing away), then opens the model's ranking: points of peak each cause costs with
    FlashAttention (the budget page's step) and unfused, and the MFU left. On paper the
    ranking is printed with the answers at the end (qa.checkpoint_answers)."""
    names = sorted((t.label for t in step(ctx).waterfall()), key=str.lower)
    listed = "\n".join(f"- {html.escape(n)}" for n in names)
    return ('\n<div class="rl-leaks" markdown="1">\n\n'
            "**Rank the leaks first.** Here are the causes the budget model charges, in "
            "alphabetical order. Write them down largest first for the running example's "
            "training step, then open the model's ranking (on paper, it is printed with the "
            "answers at the end).\n\n"
            f"{listed}\n\n"
            '<details class="success rl-leaks-answer" markdown="1">\n'
            "<summary>The model's ranking</summary>\n\n"
            f"{ranking_reveal(ctx)}\n</details>\n\n</div>\n")


# ---------------------------------------------------------------- what the prose claims

PROSE_CLAIMS = {
    "top-two": "the two largest leaks are activation recomputation and GEMMs at their "
               "measured ceiling (§4 and §5 departures, §5 takeaway, the MFU prompt)",
    "memory-minor": "the memory-bound ops (with attention beyond its matmuls) are less than half "
                    "of the gap to 100 % (§4 departure and takeaway, §5 'mostly not')",
    "top-two-most-of-rest": "recomputation and the GEMMs' ceiling are more than half of what "
                            "the memory-bound ops leave (§4 departure, §5 'most of the rest')",
    "small-under-a-point": "launches and the exposed all-reduce cost under a point each (§5)",
}


def broken_claims(bg) -> list[str]:
    """The keys of PROSE_CLAIMS that this step's waterfall does not bear out: the lesson's
    words about the ranking are typed, so tests/test_leaks.py holds them to the model."""
    terms = {t.key: t.loss for t in bg.waterfall()}
    order = [t.key for t in ranked(bg)]
    gap = 1 - bg.mfu_estimate
    memory = terms.get("memory", 0) + terms.get("attention", 0)
    top = terms.get("recompute", 0) + terms.get("efficiency", 0)
    checks = {
        "top-two": set(order[:2]) == {"recompute", "efficiency"},
        "memory-minor": memory < gap / 2,
        "top-two-most-of-rest": top > (gap - memory) / 2,
        "small-under-a-point": all(terms.get(k, 0) < 0.01 for k in ("launch", "communication")),
    }
    return [k for k, ok in checks.items() if not ok]
