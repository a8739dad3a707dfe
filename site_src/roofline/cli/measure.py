"""`roofline measure`: time this machine's bandwidth, FLOP/s and the lesson's ops, and write
a JSON the site's widget can overlay on the catalog roofline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from roofline.cli._common import output_file, write_error


def add_parser(sub) -> None:
    p = sub.add_parser("measure", help="measure this machine (bandwidth, FLOP/s, the lesson's "
                                       "ops) into a JSON the widget can overlay",
                       description="Measure attainable bandwidth (STREAM-style copy, scale, add, "
                       "triad, in cache and past it), matmul FLOP/s and the lesson's ops, with "
                       "warm-up, repeats, median and spread. Progress goes to stderr.")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="cpu (numpy, always available) or cuda (needs torch with a CUDA device)")
    p.add_argument("--out", type=Path, default=None, metavar="FILE.json",
                   help="where to write the measurement (default: print it to stdout)")
    p.add_argument("--quick", action="store_true",
                   help="fewer sizes and repeats: about 5-12 s on two cores (15 s at "
                   "most); the full run prints its own estimate first")
    p.add_argument("--label", default=None, metavar="TEXT",
                   help="how the site names this measurement (default: CPU model and date)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    # The test suite's own size: the whole pipeline in seconds, numbers without meaning.
    p.add_argument("--plan", choices=("full", "quick", "tiny"), default=None,
                   help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    from roofline.measure import measure

    if args.out is not None:
        output_file(args.out, "--out")
    plan = args.plan or ("quick" if args.quick else "full")
    doc = measure(args.device, plan, label=args.label, progress=not args.no_progress)
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            args.out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise write_error(exc, args.out, "--out") from None
        print(f"wrote {args.out}", file=sys.stderr)
    return 0
