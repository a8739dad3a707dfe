"""`roofline hardware`: the catalog as a table, JSON, CSV or Markdown."""

from __future__ import annotations

import argparse
import json

from ..catalog import default_catalog
from ..render.tables import hardware_records, hardware_table
from ._common import add_format, write


def add_parser(sub) -> None:
    p = sub.add_parser("hardware", help="list the hardware catalog")
    p.add_argument("--hardware", default=None, metavar="ID", help="show one accelerator only")
    p.add_argument("--catalog", default=None, metavar="FILE", help="an alternative hardware.toml")
    add_format(p)


def run(args: argparse.Namespace) -> int:
    catalog = default_catalog(args.catalog)
    ids = [catalog[args.hardware].id] if args.hardware else list(catalog.accelerators)
    if args.format == "json":
        write(json.dumps([r for r in hardware_records(catalog) if r["id"] in ids], indent=2,
                         ensure_ascii=False) + "\n")
    else:
        write(hardware_table(catalog).filtered(lambda r: r["id"] in ids).render(args.format))
    return 0
