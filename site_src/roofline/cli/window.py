"""`roofline window`: the serving window as text — decode tokens per second, MFU and price per
1M tokens against the batch for one model on one chip at one context, with the memory wall, the
regimes, the compute crossover and the cheapest batch within a latency budget. Its flags are the
```roofline-window fence's options (widgets/window/settings.py), and its figures come from the
JavaScript the page runs (widgets/window/window.mjs)."""

from __future__ import annotations

import argparse
import csv
import io
import json

from roofline.cli._common import (add_format, add_settings_options, settings_options, warn_line,
                                  wrap, terminal_columns, write)
from roofline.widgets.window.settings import WindowSettings

COLUMNS = ("batch", "step_s", "tokens_per_s", "mfu", "price_per_million", "regime", "fits")


def add_parser(sub) -> None:
    p = sub.add_parser("window", help="decode throughput, MFU and price against the batch",
                       description="The serving window: for one model on one chip, decode "
                       "tokens per second per chip, MFU and price per 1M tokens at every batch "
                       "up to the memory wall and past it, the regimes, where the step turns "
                       "compute-bound and the cheapest batch within a latency budget. The "
                       "flags are the ```roofline-window fence's options.")
    add_settings_options(p, WindowSettings, skip=("models", "chips", "url"))
    add_format(p, ("table", "json", "csv"))


def run(args: argparse.Namespace) -> int:
    from roofline.hosts import door
    from roofline.widgets.window.figures import figures

    settings = door.settings("roofline-window", settings_options(args, WindowSettings),
                             warn=warn_line("window"))
    out = figures(settings)
    W = out["figures"]
    if args.format == "json":
        doc = {k: W[k] for k in ("state", "wall", "bands", "crossover", "latency_limit",
                                 "batch_one", "best", "series")}
        doc["facts"] = out["facts"]
        write(json.dumps(doc, indent=1) + "\n")
        return 0
    if args.format == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COLUMNS)
        for p in W["series"]:
            w.writerow(["" if p[c] is None else p[c] for c in COLUMNS])
        write(buf.getvalue())
        return 0
    P = out["payload"]
    st = W["state"]
    width = terminal_columns()
    head = (f"Serving window: {P['models'][st['model']]['label']} on the "
            f"{P['chips'][st['hardware']]['label']}, {st['precision']}, context "
            f"{st['context']:,} tokens")
    lines = [head, ""]
    for fact in out["facts"]:
        lines += wrap(fact, width, indent="  ")
    lines += ["", f"{'batch':>6}  {'ms/token':>9}  {'tokens/s':>9}  {'MFU':>7}  "
              f"{'$/1M tok':>9}  regime"]
    shown = [p for p in W["series"] if p["batch"] in _rows(W)]
    for p in shown:
        price = "" if p["price_per_million"] is None else f"{p['price_per_million']:.3g}"
        lines.append(f"{p['batch']:>6}  {p['step_s'] * 1e3:>9.3g}  {p['tokens_per_s']:>9.4g}  "
                     f"{p['mfu'] * 100:>6.3g}%  {price:>9}  "
                     f"{p['regime']}{'' if p['fits'] else ' (does not fit)'}")
    write("\n".join(lines) + "\n")
    return 0


def _rows(W: dict) -> set[int]:
    """Powers of two, the wall and the latency limit."""
    rows = {b for b in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)
            if b <= W["x_max"]}
    rows |= {b for b in (W["wall"], W["latency_limit"]) if b}
    return rows
