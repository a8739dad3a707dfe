"""Options shared by several subcommands."""

from __future__ import annotations

import argparse
import sys

FORMATS = ("table", "json", "csv", "md")


def add_hw_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hardware", default="h100-sxm", metavar="ID",
                   help="accelerator id from the catalog (default: h100-sxm)")
    p.add_argument("--precision", default="bf16", metavar="P",
                   help="precision id, e.g. bf16, fp8 (default: bf16)")
    p.add_argument("--catalog", default=None, metavar="FILE",
                   help="an alternative hardware.toml")


def add_format(p: argparse.ArgumentParser, choices: tuple[str, ...] = FORMATS) -> None:
    p.add_argument("--format", choices=choices, default="table")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def write(text: str) -> None:
    sys.stdout.write(text)
