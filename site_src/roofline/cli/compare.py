"""`roofline compare`: every chip of the catalog for one workload, ranked by what a token costs
(roofline.model.chip_ranking states the conventions). Prices come only from the reader."""

from __future__ import annotations

import argparse
import json
import math

from roofline.cli._common import add_catalog, add_format, positive_int, terminal_columns, write
from roofline.errors import RooflineError
from roofline.model.budget import FUSIONS
from roofline.model.catalog import default_catalog
from roofline.model.chip_ranking import running_example
from roofline.model.launch import LAUNCH_MODES
from roofline.model.transformer import PHASES, get_model
from roofline.render.ranking_table import compare_table

DEFAULT_FUSE = "flash"


def price(text: str) -> tuple[str, float]:
    """ID=USD_PER_HOUR, e.g. h100-sxm=2.49."""
    hw_id, eq, value = text.partition("=")
    if not eq or not hw_id.strip():
        raise argparse.ArgumentTypeError(f"expected ID=USD_PER_HOUR, got {text!r}")
    try:
        usd = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a price in dollars per GPU-hour after "
                                         f"'=', got {value!r}") from None
    if not (math.isfinite(usd) and usd > 0):
        raise argparse.ArgumentTypeError(f"a price must be a positive number, got {value!r}")
    return hw_id.strip(), usd


def add_parser(sub) -> None:
    ex = running_example()  # every default is the running example's
    p = sub.add_parser("compare", help="every chip for one workload: time, tokens/s, fit, "
                       "GPU-hours and (with your prices) cost per token",
                       description="One row per chip of the catalog for one model step: its "
                       "roofline time, tokens/s and MFU bound, whether it fits and the least "
                       "sharding that would, GPU-hours per billion tokens and, with --price, "
                       "dollars per million tokens. Without --launch all are bounds (no real "
                       "run beats them); with it, each kernel adds that mode's launch gap and "
                       "the figures are estimates.")
    p.add_argument("--model", default=ex["model"], metavar="NAME|FILE",
                   help="a bundled model (`roofline models` lists them) or a Hugging Face "
                        f"config.json (default: {ex['model']})")
    p.add_argument("--phase", choices=PHASES, default=ex["phase"],
                   help=f"default: {ex['phase']}")
    p.add_argument("--batch", type=positive_int, default=ex["batch"], metavar="B",
                   help=f"sequences per GPU per step (default: {ex['batch']})")
    p.add_argument("--seq", type=positive_int, default=ex["seq"], metavar="S",
                   help="sequence length (train/prefill) or KV-cache length (decode) "
                        f"(default: {ex['seq']:,})")
    p.add_argument("--precision", default=ex["precision"], metavar="P",
                   help=f"precision of the matmuls and weights (default: "
                        f"{ex['precision']}); chips without it are listed as left out")
    p.add_argument("--fuse", default=DEFAULT_FUSE, metavar="LIST",
                   help=f"comma-separated fusions: {','.join(FUSIONS)}, 'all' or 'none' "
                        f"(default: {DEFAULT_FUSE}, as serving and training stacks run)")
    p.add_argument("--price", type=price, action="append", default=[], metavar="ID=USD",
                   help="your price of one GPU-hour of a chip, e.g. h100-sxm=2.49 (repeat for "
                        "more chips). Only the prices you give are used: prices change weekly "
                        "and by provider. data/prices.toml bundles a default for some chips (the "
                        "serving window's, roofline window); a run without --price names them")
    p.add_argument("--launch", choices=("none", *LAUNCH_MODES), default="none",
                   help="add one launch gap per kernel: graphs (replayed as a CUDA graph, as "
                        "serving stacks run decode) or eager (one by one from the host), each "
                        "mode's gap from data/overhead.toml; none: the roofline time alone, a "
                        "bound (default: none)")
    add_catalog(p)
    add_format(p)


def _fusions(text: str) -> frozenset[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names in (["all"], ["none"]):
        return frozenset(FUSIONS) if names == ["all"] else frozenset()
    for n in names:
        if n not in FUSIONS:
            raise RooflineError(f"unknown fusion {n!r}", field="fuse",
                                valid=[*FUSIONS, "all", "none"])
    return frozenset(names)


def run(args: argparse.Namespace) -> int:
    from roofline.model.chip_ranking import compare
    prices: dict[str, float] = {}
    for hw_id, usd in args.price:
        if hw_id in prices:
            raise RooflineError(f"{hw_id} is priced twice", field="price")
        prices[hw_id] = usd
    catalog = default_catalog(args.catalog)
    catalog.precision(args.precision)
    c = compare(get_model(args.model), args.phase, args.batch, args.seq, catalog,
                args.precision, fusions=_fusions(args.fuse), prices=prices,
                launch=None if args.launch == "none" else args.launch)
    if args.format == "json":
        write(json.dumps(c.as_dict(), indent=2, ensure_ascii=False) + "\n")
        return 0
    table = compare_table(c)
    if args.format != "table":
        write(table.render(args.format))
        return 0
    out = table.as_text(terminal_columns(), wrap=("name", "fit"), hint="--format json has every "
                        "figure.", min_wrap=14)
    notes = [f"note: {n}" for n in c.model.notes]
    notes += [f"left out: {h} ({why})" for h, why in c.skipped]
    if not prices:
        from roofline.model.serving import load_prices
        bundled = load_prices(hardware_ids=set(catalog.accelerators))
        notes.append("no prices given: add --price ID=USD_PER_HOUR for cost per token"
                     + (" (data/prices.toml bundles " + ", ".join(
                         f"{hw}={p.usd_per_hour:.2f}" for hw, p in bundled.items())
                        + ", roofline window's defaults)" if bundled else ""))
    write(out + ("\n" + "\n".join(notes) + "\n" if notes else ""))
    return 0
