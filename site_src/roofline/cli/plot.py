"""`roofline plot`: one self-contained interactive roofline HTML file (BokehJS inlined), which
works opened straight from disk."""

from __future__ import annotations

import argparse
from pathlib import Path

from roofline.cli._common import add_hw_options, output_file, write_error

# Errors name the widget's options (roofline.widgets.roofline.settings); these are the flags they map to.
FIELD_ALIASES = {"op": "ops", "ceiling": "ceilings"}


def _ids(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="write the interactive roofline as one standalone HTML file",
                       description="Write the interactive roofline (slider, presets, chip and "
                       "precision pickers) as one HTML file with BokehJS inlined: it opens "
                       "straight from disk, with no network.")
    add_hw_options(p)
    p.add_argument("--ops", type=_ids, default=None, metavar="A,B",
                   help="op-zoo ids to draw and offer as presets (default: all)")
    p.add_argument("--ai", type=float, default=None, metavar="X",
                   help="initial arithmetic intensity, FLOP/byte, 0.01-10,000 "
                        "(default: the first op's)")
    p.add_argument("--ceilings", type=_ids, default=[], metavar="A,B",
                   help="extra roofs: sram, l2, hbm, host, scaleup, vector")
    p.add_argument("--tokens", type=int, default=None, metavar="T",
                   help="add the tokens-per-step slider, starting at T tokens (1-1,048,576)")
    p.add_argument("--model", default=None, metavar="NAME",
                   help="with --tokens: the transformer whose projection GEMMs and RMSNorm it "
                        "moves (default: llama-2-7b)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.html",
                   help="the HTML file to write (replaced if it exists; its folder must exist)")


def run(args: argparse.Namespace) -> int:
    from roofline.widgets.blocks import roofline_block
    from roofline.render.embed import page
    from roofline.widgets.roofline.settings import RooflineSettings

    output_file(args.output, "--output")
    options = {"hardware": args.hardware, "precision": args.precision, "ops": args.ops,
               "ai": args.ai, "ceilings": args.ceilings, "tokens": args.tokens,
               "model": args.model}
    settings = RooflineSettings.from_options({k: v for k, v in options.items() if v is not None},
                                             catalog=args.catalog)
    catalog, _ = settings.model()
    name = catalog[settings.hardware].name
    title = f"Roofline: {name}, {catalog.precision(settings.precision).label}"
    html = page(roofline_block(settings, label=title), title=title)
    try:
        args.output.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise write_error(exc, args.output, "--output") from None
    print(f"wrote {args.output} ({len(html.encode()) / 1e6:.2f} MB, BokehJS inlined)")
    return 0
