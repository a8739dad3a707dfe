"""`roofline plot`: one self-contained interactive roofline HTML file (BokehJS inlined), which
works opened straight from disk."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_hw_options, output_file, write_error

# The widget's settings name an op-zoo id field 'op'; here those ids come from --ops.
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
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.html",
                   help="the HTML file to write (replaced if it exists; its folder must exist)")


def run(args: argparse.Namespace) -> int:
    from ..catalog import default_catalog
    from ..fences import CONTROLS_HEIGHT_PX
    from ..plot.embed import block, page
    from ..plot.widget import figure

    output_file(args.output, "--output")
    catalog = default_catalog(args.catalog)
    layout = figure(hardware=args.hardware, precision=args.precision, ops=args.ops, ai=args.ai,
                    ceilings=args.ceilings, catalog=catalog)
    name = catalog[args.hardware].name
    title = f"Roofline: {name}, {catalog.precision(args.precision).label}"
    html = page(block(layout, height_px=400 + CONTROLS_HEIGHT_PX, label=title), title=title)
    try:
        args.output.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise write_error(exc, args.output, "--output") from None
    print(f"wrote {args.output} ({len(html.encode()) / 1e6:.2f} MB, BokehJS inlined)")
    return 0
