"""The `roofline` command. Bad input ends in one line naming file, entry and field; exit 2."""

from __future__ import annotations

import argparse
import importlib
import sys

from .commands import COMMANDS
from .errors import RooflineError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="roofline", description=(
        "The roofline model behind the GPU lesson: hardware catalog, op costs and plots."))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"roofline.commands.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    module = importlib.import_module(f"roofline.commands.{args.command.replace('-', '_')}")
    try:
        return module.run(args)
    except RooflineError as exc:
        print(f"roofline {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
