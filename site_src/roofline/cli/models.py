"""`roofline models`: the models a name reaches (the lesson's and the bundled catalog), or one
config.json, with what the model reports of each: parameters total and active, the MTP layers
apart, FLOPs per token, weights read by a decode step at batch 1, the KV cache per token."""

from __future__ import annotations

import argparse
import json

from roofline import fmt
from roofline.cli._common import add_catalog, add_format, terminal_columns, write
from roofline.model.catalog import default_catalog
from roofline.model.transformer import get_model, known_models
from roofline.render.table_value import Column, Table


def add_parser(sub) -> None:
    p = sub.add_parser("models", help="the bundled models (or one config.json): parameters, "
                       "FLOPs per token, KV cache per token",
                       description="The models --model takes by name, or with --model one "
                       "model or Hugging Face config.json, with their parameters (total, active "
                       "per token, multi-token-prediction layers apart), FLOPs per token, the "
                       "weights a batch-1 decode step reads and the KV cache per token.")
    p.add_argument("--model", default=None, metavar="NAME|FILE",
                   help="one model or config.json (default: every bundled model)")
    p.add_argument("--precision", default="bf16", metavar="P",
                   help="bytes per element of the weights and the KV cache (default: bf16)")
    add_catalog(p)
    add_format(p)


def summary(cfg, b: float) -> dict:
    return {**cfg.summary(), "decode_weight_bytes_batch1": cfg.weight_params_read(1) * b,
            "kv_cache_bytes_per_token": cfg.kv_cache_elements_per_token * b}


def run(args: argparse.Namespace) -> int:
    b = default_catalog(args.catalog).precision(args.precision).bytes_per_element
    ids = [args.model] if args.model else list(known_models())
    rows = tuple(summary(get_model(m), b) for m in ids)
    if args.format == "json":
        write(json.dumps(list(rows), indent=2, ensure_ascii=False) + "\n")
        return 0
    cols = (Column("model", "Model"), Column("attention", "Attention"),
            Column("params_total", "Params", fmt.count, "right"),
            Column("params_active", "Active", fmt.count, "right"),
            Column("mtp_params", "MTP apart", lambda x: fmt.count(x) if x else "—", "right"),
            Column("flops_per_token", "FLOP/token", fmt.count, "right"),
            Column("decode_weight_bytes_batch1", "Decode reads (B=1)", fmt.capacity, "right"),
            Column("kv_cache_bytes_per_token", "KV/token", fmt.capacity, "right"),
            Column("source", "Source"))
    table = Table(cols, rows, caption=f"Models at {args.precision} (FLOPs per token: forward, "
                  "from the active parameters; attention apart):")
    if args.format != "table":
        write(table.render(args.format))
        return 0
    notes = [f"{r['model']}: {n}" for r in rows for n in r["notes"]]
    write(table.as_text(terminal_columns(), wrap=("source",), drop=("source",),
                        hint="--format json has every figure.")
          + ("\n" + "\n".join(f"note: {n}" for n in notes) + "\n" if notes else ""))
    return 0
