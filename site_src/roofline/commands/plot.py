"""`roofline plot`: one self-contained interactive roofline HTML file (BokehJS inlined), which
works opened straight from disk."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_hw_options


def _ids(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="write the interactive roofline as one standalone HTML file")
    add_hw_options(p)
    p.add_argument("--ops", type=_ids, default=None, metavar="A,B",
                   help="op-zoo ids to draw and offer as presets (default: all)")
    p.add_argument("--ai", type=float, default=None, help="initial intensity, FLOP/byte")
    p.add_argument("--ceilings", type=_ids, default=[], metavar="A,B",
                   help="extra roofs: sram, l2, hbm, host, scaleup, vector")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.html")


def run(args: argparse.Namespace) -> int:
    from ..catalog import default_catalog
    from ..fences import CONTROLS_HEIGHT_PX
    from ..plot.embed import block, page
    from ..plot.widget import figure

    catalog = default_catalog(args.catalog)
    layout = figure(hardware=args.hardware, precision=args.precision, ops=args.ops, ai=args.ai,
                    ceilings=args.ceilings, catalog=catalog)
    name = catalog[args.hardware].name
    title = f"Roofline: {name}, {catalog.precision(args.precision).label}"
    html = page(block(layout, height_px=400 + CONTROLS_HEIGHT_PX, label=title), title=title)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(html, encoding="utf-8")
    print(f"wrote {args.output} ({len(html.encode()) / 1e6:.2f} MB, BokehJS inlined)")
    return 0
