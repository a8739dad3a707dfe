"""`roofline plot`: one self-contained interactive roofline HTML file (BokehJS inlined), which
works opened straight from disk. Its flags are the ```roofline fence's options (the widget's
settings schema, roofline.widgets.roofline.settings), so the two cannot drift."""

from __future__ import annotations

import argparse
from pathlib import Path

from roofline.cli._common import (add_catalog, add_settings_options, output_file,
                                  settings_options, warn_line, write_error)
from roofline.widgets.roofline.settings import RooflineSettings


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="write the interactive roofline as one standalone HTML file",
                       description="Write the interactive roofline (slider, presets, chip and "
                       "precision pickers) as one HTML file with BokehJS inlined: it opens "
                       "straight from disk, with no network. The flags are the ```roofline "
                       "fence's options.")
    add_settings_options(p, RooflineSettings)
    add_catalog(p)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.html",
                   help="the HTML file to write (replaced if it exists; its folder must exist)")


def run(args: argparse.Namespace) -> int:
    from roofline.hosts import door
    from roofline.render.embed import page

    output_file(args.output, "--output")
    settings = door.settings("roofline", settings_options(args, RooflineSettings),
                             catalog=args.catalog, warn=warn_line("plot"))
    catalog, _ = settings.model()
    name = catalog[settings.hardware].name
    title = f"Roofline: {name}, {catalog.precision(settings.precision).label}"
    html = page(door.render(settings), title=title)
    try:
        args.output.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise write_error(exc, args.output, "--output") from None
    print(f"wrote {args.output} ({len(html.encode()) / 1e6:.2f} MB, BokehJS inlined)")
    return 0
