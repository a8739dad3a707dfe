"""`roofline compare` as a Table value: the same rows become the CLI's text, CSV, JSON and
Markdown and the hardware page's "which chip?" table (roofline.model.chip_ranking computes them)."""

from __future__ import annotations

from roofline import fmt
from roofline.model.chip_ranking import Comparison
from roofline.render.table_value import Column, Table


def fit_text(row: dict) -> str:
    if row["fits"]:
        return "yes"
    if row["gpus"] is None:
        return "no: not on 1,024 GPUs"
    return f"no: {row['fits_with']}"


def usd(x: float) -> str:
    return f"${fmt.num(x, 3)}"


def compare_table(c: Comparison) -> Table:
    """One row per chip; the price columns only when the reader gave a price."""
    priced = any(r.price_usd_per_hour is not None for r in c.rows)
    rows = tuple({**r.as_dict(), "fit": fit_text(r.as_dict())} for r in c.rows)
    ge, le = (" ≥", " ≤") if c.bounds else ("", "")
    cols = [Column("name", "Chip"), Column("step_time_s", "Step" + ge, fmt.seconds, "right"),
            Column("tokens_per_s", "Tokens/s" + le, lambda x: f"{fmt.num(x, 3):s}", "right"),
            Column("mfu_upper_bound", "MFU" + le, fmt.percent, "right"),
            Column("fit", "Fits"),
            Column("gpu_hours_per_billion_tokens", "GPU-h per 1B tokens" + ge,
                   lambda x: fmt.num(x, 3), "right")]
    if priced:
        cols += [Column("price_usd_per_hour", "$/GPU-h", usd, "right"),
                 Column("usd_per_million_tokens", "$ per 1M tokens" + ge, usd, "right")]
    run = {"train": "training step", "prefill": "prefill", "decode": "decode step"}[c.phase]
    tokens = c.batch * (1 if c.phase == "decode" else c.seq)
    how = ("Roofline bounds per GPU, launch gaps not counted: no real run is faster or cheaper."
           if c.bounds else
           f"Roofline time plus one launch gap per kernel, launched "
           f"{'as CUDA graphs' if c.launch == 'graphs' else 'eagerly'} "
           f"({fmt.num(c.launch_s * 1e6, 3)} µs per kernel): estimates per GPU, not bounds.")
    caption = (f"{c.model.name}, one {run}: {c.batch} sequence{'s' if c.batch > 1 else ''} "
               + (f"against a {c.seq:,}-token KV cache" if c.phase == "decode"
                  else f"of {c.seq:,} tokens") + f" per GPU ({tokens:,} tokens), {c.precision}"
               + (f", fused: {', '.join(sorted(c.fusions))}" if c.fusions else "")
               + ". " + how)
    return Table(tuple(cols), rows, caption=caption)
