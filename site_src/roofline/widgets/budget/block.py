"""The budget's fences as HTML blocks, without Bokeh: ```roofline-budget (its static first
frame, caption and the Bokeh layout, which layout.py builds when the block's item is made)
and ```roofline-budget-table (static tables)."""

from __future__ import annotations

from pathlib import Path

from roofline.model.budget import FUSIONS, Assumptions
from roofline.widgets.budget.payload import TITLES, X_RANGE
from roofline.widgets.budget.settings import BudgetSettings, BudgetTableSettings
from roofline.widgets.budget.tables import summary_table

JS = Path(__file__).parent / "budget.mjs"


# The live layout's controls, readout and summary in a column narrower than the desktop's 688 px
# (the selects and knobs wrap, the summary table grows): measured in Chromium at 568, 380 and
# 328 px columns, the narrowest each breakpoint serves (tests/test_layout_shift_browser.py holds
# the 412 px phone to it). The desktop's is payload.CONTROLS_HEIGHT_PX.
NARROW_CONTROLS_PX = {688: 811, 480: 970, 380: 1278}


def budget_block(settings: BudgetSettings) -> str:
    """```roofline-budget: the interactive time budget for validated settings, with its first
    frame as static SVG (static.mjs, the live callback's own frameAt(), drawn by the chart
    engine at build time): what shows before BokehJS arrives, without JavaScript and on
    paper."""
    import html

    from roofline.render.embed import block
    from roofline.render.jsengine import call

    static_js = JS.with_name("static.mjs")
    first = settings.payload(initial_only=True)
    values = initial_values(settings)

    def static() -> str:
        drawn = call(static_js, "staticBudget", first, values, heights(settings), TITLES,
                     list(X_RANGE))
        return (f'<p class="roofline-static-text">{html.escape(drawn["readout"])}</p>'
                + drawn["svg"])

    def layout():   # Bokeh's part, built only when the block is drawn (not on a cache hit)
        from roofline.widgets.budget.layout import _build
        return _build(settings, settings.payload())
    # The caption and the printed record (static.mjs): the live callback rewrites both, and
    # the drawing, as the reader moves a control.
    record = html.escape(call(static_js, "budgetRecord", first, values))
    narrow = {w: 3 * settings.height + px for w, px in NARROW_CONTROLS_PX.items()}
    return block(layout, height_px=settings.height_px, narrow_px=narrow, label=settings.label,
                 caption=call(static_js, "budgetCaption", first, values), static=static,
                 key=f'<p class="roofline-record">{record}</p>')


def heights(settings: BudgetSettings) -> dict:
    """The three plots' heights in the live layout (_build), which the static drawing keeps."""
    return {"waterfall": settings.height, "classes": settings.height - 40,
            "roofline": settings.height + 60}


def initial_values(settings: BudgetSettings) -> dict:
    """The setting the widget opens on, as budget.mjs's frameAt() takes it: the fence's options
    and the assumptions' defaults (the controls' first values, _build)."""
    defaults = Assumptions()
    return {"model": settings.model, "phase": settings.phase, "batch": settings.batch,
            "active": [i for i, f in enumerate(FUSIONS) if f in settings.fusions],
            "efficiency": settings.payload(initial_only=True)["efficiency"],
            "launch_us": defaults.launch_overhead_s * 1e6, "dp": defaults.dp_degree,
            "overlap": defaults.overlap_fraction, "zero": settings.zero_stage,
            "recompute": settings.recompute}


RESPONSIVE = {
    # The ranked account: the leak, its share of step time and the MFU it would give back.
    "leaks": ("The step's leaks, ranked",
              {"rank": 2, "leak": 1, "time_s": 2, "share": 1, "recovered": 1}, ("leak",)),
    "recompute": ("Recomputation as a choice",
                  {"config": 1, "tokens": 2, "memory": 1, "mfu": 1}, ("config", "memory")),
    "memory": ("What one step holds per GPU, against the chip's HBM",
               {"config": 1, "verdict": 1, "total": 1, "weights": 2, "state": 2,
                "activations": 2, "kv": 2}, ("config", "verdict")),
    # HBM traffic is why a fusion shortens the step, so it stays; the batch is one value per
    # phase (the fence's), the detail that steps aside at 1280 px.
    "configs": ("Step time and MFU by phase and fusion",
                {"phase": 1, "fused": 1, "bound": 1, "estimate": 1, "step_time_s": 1,
                 "batch": 3, "memory": 2, "bytes": 1}, ("phase", "memory")),
}


def budget_table_block(settings: BudgetTableSettings) -> str:
    """```roofline-budget-table: a static table of budget figures (the text alternative; the
    tables are BudgetTableSettings's)."""
    import markdown as _markdown
    s = settings
    table = summary_table(s.table, model=s.model, batch=s.batch, hardware=s.hardware,
                          precision=s.precision)
    if s.table in RESPONSIVE:
        # The punchline columns (verdict, MFU) stay on screen at any width.
        from roofline.render.tables import table_html
        label, priority, wrap = RESPONSIVE[s.table]
        return table_html(table, label=label, priority=priority, wrap=wrap)
    return _markdown.markdown(table.as_markdown(), extensions=["tables"])
