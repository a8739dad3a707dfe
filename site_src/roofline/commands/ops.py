"""`roofline ops`: the op zoo, or a model's per-layer ops, placed on a chip's roofline."""

from __future__ import annotations

import argparse

from ..catalog import default_catalog
from ..maths import place
from ..ops import default_zoo
from ..render.tables import ops_table
from ..transformer import PHASES, get_model, layer_ops
from ._common import add_format, add_hw_options, positive_int, write


def add_parser(sub) -> None:
    p = sub.add_parser("ops", help="ops with FLOPs, bytes, intensity and bound")
    add_hw_options(p)
    p.add_argument("--model", default=None, metavar="NAME",
                   help="a transformer config (e.g. llama-2-7b); without it, the lesson's op zoo")
    p.add_argument("--phase", choices=PHASES, default="train")
    p.add_argument("--batch", type=positive_int, default=8)
    p.add_argument("--seq", type=positive_int, default=4096,
                   help="sequence length (train/prefill) or KV-cache length (decode)")
    p.add_argument("--flash", action="store_true", help="fused FlashAttention-style attention")
    add_format(p)


def run(args: argparse.Namespace) -> int:
    catalog = default_catalog(args.catalog)
    hw = catalog[args.hardware]
    hw.peak(args.precision)
    b = catalog.precision(args.precision).bytes_per_element
    if args.model:
        ops = layer_ops(get_model(args.model), args.phase, args.batch, args.seq, b,
                        flash=args.flash)
        contexts = None
    else:
        zoo = default_zoo()
        ops = zoo.ops(b)
        contexts = {p.id: p.context for p in zoo.presets.values()}
    table = ops_table([place(op, hw, args.precision) for op in ops], contexts=contexts)
    write(table.render(args.format))
    return 0
