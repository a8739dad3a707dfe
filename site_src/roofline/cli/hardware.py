"""`roofline hardware`: the catalog as a table, JSON, CSV or Markdown."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from roofline.model.catalog import default_catalog
from roofline.render.tables import hardware_records, hardware_table
from roofline.cli._common import add_catalog, add_format, terminal_columns, write

# Least needed first: a table too wide for the terminal leaves these out, in this order, after
# any column empty in every row shown (one V100 has no BF16, FP8 or FP4 column to keep, and
# keeps its FP16 one; FP16 is only given for chips without BF16 tensor math).
DROP = ("compute_units", "tdp_w", "fp16_flops_per_s", "tf32_flops_per_s", "fp64_flops_per_s",
        "fp4_flops_per_s", "fp32_flops_per_s", "ridge_bf16_flops_per_byte")


def add_parser(sub) -> None:
    p = sub.add_parser("hardware", help="list the hardware catalog",
                       description="The hardware catalog: dense peak FLOP/s per precision (no "
                       "2:4 sparsity), HBM capacity and bandwidth, the BF16 ridge point. "
                       "--format json adds every memory tier and the source of each figure.")
    p.add_argument("--hardware", default=None, metavar="ID", help="show one accelerator only")
    add_catalog(p)
    add_format(p)


def run(args: argparse.Namespace) -> int:
    catalog = default_catalog(args.catalog)
    ids = [catalog[args.hardware].id] if args.hardware else list(catalog.accelerators)
    if args.format == "json":
        write(json.dumps([r for r in hardware_records(catalog) if r["id"] in ids], indent=2,
                         ensure_ascii=False) + "\n")
    else:
        table = hardware_table(catalog).filtered(lambda r: r["id"] in ids)
        empty = tuple(c.key for c in table.columns if all(r[c.key] is None for r in table.rows))
        caption = (f"Hardware catalog ({catalog.path.name}): {len(ids)} accelerator"
                   f"{'' if len(ids) == 1 else 's'}, one chip each, dense peaks (— = not "
                   "published).")
        write(replace(table, caption=caption).render(
            args.format, width=terminal_columns(), wrap=("name",),
            drop=empty + tuple(k for k in DROP if k not in empty),
            hint="--format csv or json lists every column."))
    return 0
