"""`roofline ops`: the op zoo, or a model's per-layer ops, placed on a chip's roofline."""

from __future__ import annotations

import argparse
from dataclasses import replace

from roofline.model.catalog import default_catalog
from roofline.model.maths import place
from roofline.model.ops import default_zoo
from roofline.render.tables import ops_table
from roofline.model.transformer import PHASES, get_model, layer_ops
from roofline.cli._common import (add_format, add_hw_options, only_with, positive_int, terminal_columns,
    write)

# What the shape flags mean without them; given without --model they are an error, not ignored.
MODEL_DEFAULTS = {"phase": "train", "batch": 8, "seq": 4096}
MODEL_FLAGS = {"phase": "--phase", "batch": "--batch", "seq": "--seq", "flash": "--flash"}


def add_parser(sub) -> None:
    p = sub.add_parser("ops", help="ops with FLOPs, bytes, intensity and bound",
                       description="The lesson's op zoo (one kernel each, at the shapes listed), "
                       "or with --model the ops of one transformer layer, placed on a chip's "
                       "roofline.")
    add_hw_options(p)
    p.add_argument("--model", default=None, metavar="NAME|FILE",
                   help="a bundled model (e.g. llama-2-7b, mixtral-8x7b; `roofline models` "
                        "lists them) or a Hugging Face config.json; without it, the lesson's "
                        "op zoo")
    p.add_argument("--phase", choices=PHASES, default=None,
                   help=f"with --model: {', '.join(PHASES)} (default: train)")
    p.add_argument("--batch", type=positive_int, default=None, metavar="B",
                   help=f"with --model: sequences per step (default: {MODEL_DEFAULTS['batch']})")
    p.add_argument("--seq", type=positive_int, default=None, metavar="S",
                   help="with --model: sequence length (train/prefill) or KV-cache length "
                        f"(decode) (default: {MODEL_DEFAULTS['seq']})")
    p.add_argument("--flash", action="store_true",
                   help="with --model: fused FlashAttention-style attention")
    add_format(p)


def run(args: argparse.Namespace) -> int:
    only_with(args, MODEL_FLAGS, bool(args.model), "with --model (the op zoo's shapes are fixed)")
    catalog = default_catalog(args.catalog)
    hw = catalog[args.hardware]
    hw.peak(args.precision)
    b = catalog.precision(args.precision).bytes_per_element
    label = catalog.precision(args.precision).label
    if args.model:
        run = {k: getattr(args, k) if getattr(args, k) is not None else v
               for k, v in MODEL_DEFAULTS.items()}
        cfg = get_model(args.model)
        ops = layer_ops(cfg, run["phase"], run["batch"], run["seq"], b, flash=args.flash)
        contexts = None
        kind = cfg.main_layer_kind
        count = dict(cfg.layer_groups())[kind]
        others = "; ".join(f"{n} {k} layer{'s' if n > 1 else ''} besides"
                           for k, n in cfg.layer_groups() if k != kind)
        caption = (f"One {'MoE ' if kind == 'moe' else ''}transformer layer of {cfg.name} "
                   f"({count} per step{'; ' + others if others else ''}): "
                   f"{run['phase']}, batch {run['batch']} × seq {run['seq']:,}, on the "
                   f"{hw.name} at {label}"
                   + (", FlashAttention-style attention." if args.flash else ".")
                   + "".join(f" Note: {n}." for n in cfg.notes))
    else:
        zoo = default_zoo()
        ops = zoo.ops(b)
        contexts = {p.id: p.context for p in zoo.presets.values()}
        caption = (f"The lesson's op zoo, one kernel each at the shapes listed, on the "
                   f"{hw.name} at {label}.")
    table = ops_table([place(op, hw, args.precision) for op in ops], contexts=contexts)
    write(replace(table, caption=caption).render(
        args.format, width=terminal_columns(), wrap=("context", "shape"),
        drop=("attainable_flops_per_s", "fraction_of_peak", "bytes", "flops"),
        hint="--format csv or json lists every column.", min_wrap=24))
    return 0
