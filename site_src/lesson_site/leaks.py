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
from roofline.widgets.budget.tables import LEFT_LABEL  # noqa: F401  (the account's last row)
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
    """The waterfall's causes, largest first (ties keep the model's order): the account's
    order (roofline.model.leaks.leak_account)."""
    return sorted(bg.waterfall(), key=lambda t: -t.loss)


def points(loss: float) -> str:
    """A fraction as a number of points, three significant figures, and a plain 0 for a cause
    that costs nothing (as the account's table prints them, without its sign)."""
    p = loss * 100
    return "0" if p == 0 else fmt.num(p, 3)


FIELDS = ("recovered", "share", "rank", "label")


@marker("leak")
def leak(ctx: Context, *, key: str = "mfu", fuse: str = "flash",
         field: str = "recovered") -> str:
    """One figure of the step's ranked account (roofline.model.leaks): key=mfu (the estimate
    after every leak), bound (the roofline's upper bound), or a leak's key, with
    field=recovered (the points of MFU removing it alone would recover, a number), share (its
    share of step time, as the account's table prints it), rank or label."""
    from roofline.model.leaks import leak_account
    bg = step(ctx, fuse)
    if key == "mfu":
        return fmt.percent(bg.mfu_estimate, 3)
    if key == "bound":
        return fmt.percent(bg.mfu_upper_bound, 3)
    order = leak_account(bg).leaks
    found = next((x for x in order if x.key == key), None)
    if found is None:
        raise RooflineError(f"unknown cause {key!r}", field="key",
                            valid=["mfu", "bound", *(x.key for x in order)])
    if field == "recovered":
        return points(found.recovered)
    if field == "share":
        return fmt.percent(found.share, 3)
    if field == "rank":
        return f"{order.index(found) + 1}"
    if field == "label":
        return found.label
    raise RooflineError(f"unknown field {field!r}", field="field", valid=list(FIELDS))


@marker("leaks_top")
def leaks_top(ctx: Context, *, n: int = 2, fuse: str = "flash") -> str:
    """The n largest leaks, in order, each with its share of step time, named as such:
    "A (24.6 % of step time) and B (11.9 % of step time)"."""
    from roofline.model.leaks import leak_account
    order = leak_account(step(ctx, fuse)).leaks
    if not 1 <= n <= len(order):
        raise RooflineError(f"n must be 1..{len(order)}, got {n}", field="n")
    parts = [f"{x.label} ({fmt.percent(x.share, 3)} of step time)" for x in order[:n]]
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
            f"{bg.sharding.zero_stage}, {recompute}, FlashAttention")


def _table(ctx: Context, table: str) -> tuple:
    """One of the budget's tables for the running example, as its fence renders it (the
    budget page's ```roofline-budget-table), and the Table value behind it."""
    from roofline.hosts import door
    from roofline.widgets.budget.tables import summary_table
    settings = door.settings("roofline-budget-table", {"table": table}, where=f"rl:{table}")
    value = summary_table(table)
    return value, door.render(settings)


@marker("leak_account", block=True)
def leak_account_block(ctx: Context, *, form: str = "html") -> str:
    """The one ranked account of the running example's leaks: the lesson's §5, the budget page
    and the interview answer print this block, and `roofline budget` prints the same Table
    (roofline.widgets.budget.tables.leak_table) as text. form=html: the budget page's fence's
    table; form=markdown: the same Table as a Markdown table, for a place raw HTML cannot
    stand (an indented box, such as an interview answer)."""
    if step(ctx).sharding != EXAMPLE.sharding:
        raise RooflineError("the account must be the budget page's stated run", field="sharding")
    if form not in ("html", "markdown"):
        raise RooflineError(f"unknown form {form!r}", field="form", valid=["html", "markdown"])
    value, table = _table(ctx, "leaks")
    if form == "markdown":
        table = html.escape(value.as_markdown(), quote=False)
    return (f"\n*{html.escape(value.caption.rstrip(':'))}. The run: "
            f"{html.escape(run_words(ctx, step(ctx)))}.*\n{{: .rl-caption }}\n\n"
            f"{table.strip()}\n")


@marker("recompute_choice", block=True)
def recompute_choice_block(ctx: Context) -> str:
    """Recomputation as a choice for the running example: the step as run, without
    recomputation at its batch, and the largest batch that fits without it, each with its
    memory and MFU (roofline.model.leaks.recompute_choice: the memory model decides what
    fits)."""
    value, table = _table(ctx, "recompute")
    return (f"\n*{html.escape(value.caption.rstrip(':'))}.*\n{{: .rl-caption }}\n\n"
            f"{table.strip()}\n")


@marker("recompute_alt")
def recompute_alt(ctx: Context, *, field: str = "mfu") -> str:
    """The running example without recomputation, at the largest batch that fits
    (roofline.model.leaks.without_recompute): batch, tokens (per GPU per step), memory (per
    GPU) or mfu (after overheads)."""
    from roofline.model.leaks import without_recompute
    alt = without_recompute(step(ctx))
    if alt is None:
        raise RooflineError("no batch fits without recomputation", field="recompute")
    values = {"batch": lambda: f"{alt.batch:,}", "tokens": lambda: f"{alt.batch * alt.seq:,}",
              "memory": lambda: fmt.capacity(alt.memory.total),
              "mfu": lambda: fmt.percent(alt.mfu_estimate, 3)}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return values[field]()


def ranking_reveal(ctx: Context) -> str:
    """The model's ranking as Markdown: the account, then recomputation as a choice. What the
    reader opens after ranking the leaks, and what the printed answers at the end give."""
    from lesson_site.markers import expand
    return expand("<!-- rl:leak_account -->\n\n<!-- rl:recompute_choice -->", ctx,
                  "leaks.ranking_reveal")


@marker("leak_ranking", block=True)
def leak_ranking(ctx: Context) -> str:
    """The reader ranks the step's leaks first (listed by name, in alphabetical order, which
    gives nothing away), then opens the model's account (share of step time and points of MFU
    recovered per leak) and recomputation as a choice. On paper the ranking is printed with the
    answers at the end (qa.checkpoint_answers)."""
    names = sorted((t.label for t in step(ctx).waterfall()), key=str.lower)
    listed = "\n".join(f"- {html.escape(n)}" for n in names)
    return ('\n<div class="rl-leaks" markdown="1">\n\n'
            "**Rank the leaks first.** Here are the causes the budget model charges, in "
            "alphabetical order. Write them down largest first for the running example's "
            "training step, then open the model's account (on paper, it is printed with the "
            "answers at the end).\n\n"
            f"{listed}\n\n"
            '<details class="success rl-leaks-answer" markdown="1">\n'
            "<summary>The model's account</summary>\n\n"
            f"{ranking_reveal(ctx)}\n</details>\n\n</div>\n")


# ---------------------------------------------------------------- what the prose claims

PROSE_CLAIMS = {
    "top-two": "the two largest leaks are activation recomputation and GEMMs at their "
               "measured ceiling (§4 and §5 departures, §5 takeaway, the MFU prompt)",
    "memory-minor": "the memory-bound ops (with attention beyond its matmuls) are less than half "
                    "of the gap to 100 % (§4 departure and takeaway, §5 'mostly not')",
    "top-two-most-of-rest": "recomputation and the GEMMs' ceiling are more than half of what "
                            "the memory-bound ops leave (§4 departure, §5 'most of the rest')",
    "small-under-a-point": "launches and the exposed all-reduce take under 1 % of step time "
                           "each (§5)",
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
