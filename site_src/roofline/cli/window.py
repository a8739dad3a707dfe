"""`roofline window`: the serving window as text — decode tokens per second, MFU and price per
1M tokens against the batch for one model on one chip at one context, with the memory wall, the
regimes, the compute crossover and the cheapest batch within a latency budget. Its flags are the
```roofline-window fence's options (widgets/window/settings.py), and its figures come from the
JavaScript the page runs (widgets/window/window.mjs)."""

from __future__ import annotations

import argparse
import json

from roofline.cli._common import (add_format, add_settings_options, settings_options, warn_line,
                                  wrap, terminal_columns, write)
from roofline.render.table_value import Column, Table
from roofline.widgets.window.settings import WindowSettings


def series_table(series: list[dict], tp: int = 1) -> Table:
    """The window's batches as the package's Table (raw SI values in CSV, formatted in text);
    split over tp > 1 chips, tokens/s per chip and per replica and the all-reduces' share."""
    split = (Column("tokens_per_s_replica", "per replica", lambda v: f"{v:.4g}", "right"),
             Column("comm_share", "all-reduce", lambda v: f"{v * 100:.3g}%", "right")
             ) if tp > 1 else ()
    cols = (Column("batch", "batch", lambda v: f"{v:,}", "right"),
            Column("step_s", "ms/token", lambda v: f"{v * 1e3:.3g}", "right"),
            Column("tokens_per_s", "tokens/s" + ("/chip" if tp > 1 else ""),
                   lambda v: f"{v:.4g}", "right"),
            *split,
            Column("mfu", "MFU", lambda v: f"{v * 100:.3g}%", "right"),
            Column("mbu", "MBU", lambda v: f"{v * 100:.3g}%", "right"),
            Column("price_per_million", "$/1M tokens", lambda v: f"{v:.3g}", "right"),
            Column("regime", "regime"),
            Column("fits", "fits", lambda v: "yes" if v else "does not fit"))
    return Table(cols, tuple(series))


def add_parser(sub) -> None:
    p = sub.add_parser("window", help="decode throughput, MFU, MBU and price against the batch",
                       description="The serving window: for one model on one chip, decode "
                       "tokens per second per chip, MFU, MBU and price per 1M tokens against the "
                       "batch, the memory wall, the regimes, where the step turns compute-bound "
                       "and the cheapest batch within a latency budget. The text table shows "
                       "every batch its summary names (1, the wall, the latency limit, the "
                       "compute crossover, each regime's first and last batch) and the powers "
                       "of two; --format json and csv hold every integer batch from 1 to the "
                       "wall or 4,096, whichever is less, then the figure's batches past it "
                       "(about 20 to each doubling, and the wall) up to the figure's right "
                       "edge. The flags are the ```roofline-window "
                       "fence's options.")
    add_settings_options(p, WindowSettings, skip=("models", "chips", "url"))
    add_format(p, ("table", "json", "csv"))


def run(args: argparse.Namespace) -> int:
    from roofline.hosts import door
    from roofline.widgets.window.figures import figures

    settings = door.settings("roofline-window", settings_options(args, WindowSettings),
                             warn=warn_line("window"))
    out = figures(settings, rows="named" if args.format == "table" else "every")
    W = out["figures"]
    if args.format == "json":
        doc = {k: W[k] for k in ("state", "tp", "smallest_tp", "launch_s", "wall", "capacity",
                                 "bands", "crossover", "latency_limit", "batch_one", "best")}
        doc["series"] = W["rows"]
        doc["facts"] = out["facts"]
        write(json.dumps(doc, indent=1) + "\n")
        return 0
    if args.format == "csv":
        write(series_table(W["rows"], W["tp"]).as_csv())
        return 0
    P = out["payload"]
    st = W["state"]
    width = terminal_columns()
    launch = P["launch"][st["launch"]]
    split = f", tensor parallel over {st['tp']} chips" if st["tp"] > 1 else ""
    head = (f"Serving window: {P['models'][st['model']]['label']} on the "
            f"{P['chips'][st['hardware']]['label']}, {st['precision']}, KV cache "
            f"{st['kv_precision']}, context {st['context']:,} tokens{split}, launches: "
            f"{launch['label']} ({launch['seconds'] * 1e6:.3g} µs per kernel)")
    lines = [head, ""]
    for fact in out["facts"]:
        lines += wrap(fact, width, indent="  ")
    shown = series_table(W["rows"], W["tp"])
    write("\n".join(lines) + "\n\n" + shown.as_text(width))
    return 0

