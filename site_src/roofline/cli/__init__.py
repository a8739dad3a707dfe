"""The `roofline` command. Every error is one line naming the argument (or the file, entry and
field) and what is wrong, exit 2; a misspelt flag also shows the subcommand's usage."""

from __future__ import annotations

import argparse
import difflib
import importlib
import re
import sys

from roofline.errors import RooflineError

COMMANDS = ("hardware", "ops", "budget", "compare", "models", "measure", "plot",
            "export", "window", "profile")
"""The subcommands: each is a module of this package with `add_parser(subparsers)` and
`run(args) -> int`."""


class Parser(argparse.ArgumentParser):
    """argparse, with value errors on one line: usage is printed only for a syntax mistake
    (an unknown or missing flag), where it helps."""

    def error(self, message: str) -> None:  # type: ignore[override]
        if not message.startswith("argument ") or message.startswith("argument COMMAND"):
            self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def versions() -> str:
    """`roofline --version`: this package's version and the hardware catalog's data version."""
    from importlib.metadata import PackageNotFoundError, version

    from roofline.model import datafile as _toml
    from roofline.model.catalog import default_catalog

    try:
        package = version("roofline-lesson")
    except PackageNotFoundError:
        package = "unknown (not installed)"
    path = default_catalog().path
    catalog = _toml.load(path).get("version", "unversioned")
    return f"roofline {package}\ncatalog {catalog} ({path})"


class _Version(argparse.Action):
    """Like action="version", but reads the catalog only when asked."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the package's and the hardware catalog's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            text = versions()
        except RooflineError as exc:
            parser.exit(2, f"{parser.prog}: error: {exc}\n")
        print(text)
        parser.exit(0)


def build_parser() -> Parser:
    parser = Parser(prog="roofline", description=(
        "The roofline model behind the GPU lesson: hardware catalog, op costs and plots."))
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"roofline.cli.{name}").add_parser(sub)
    return parser


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _unrecognized(sub: argparse.ArgumentParser, extras: list[str]) -> str:
    known = [o for a in sub._actions for o in a.option_strings]
    message = f"unrecognized arguments: {' '.join(extras)}"
    for word in extras:
        if word.startswith("-"):
            close = difflib.get_close_matches(word.split("=")[0], known, n=1)
            if close:
                return f"{message} (did you mean {close[0]}?)"
    return message


def argument_name(sub: argparse.ArgumentParser, field: str) -> str | None:
    """The option a model error's field came from (`--batch` for field 'batch'), if any."""
    for action in sub._actions:
        names = {action.dest, *(o.lstrip("-") for o in action.option_strings)}
        if field.replace("_", "-") in {n.replace("_", "-") for n in names}:
            return "/".join(action.option_strings) or action.dest
    return None


def _is_file(where: str) -> bool:
    return bool(re.search(r"\.(toml|json|ya?ml|md|html)\b", where)) or "/" in where


def error_line(sub: argparse.ArgumentParser, exc: RooflineError,
               aliases: dict[str, str] | None = None) -> str:
    """One line: "argument --x: ..." when the error is about a command-line value (`aliases`
    maps a model's field name to the option it came from), else the error's own
    "file: entry: field: ..." text."""
    field = (aliases or {}).get(exc.field, exc.field)
    option = None
    if field and not exc.entry and not (exc.where and _is_file(exc.where)):
        option = argument_name(sub, field)
    if option is None:
        return f"{sub.prog}: error: {exc}"
    where = f"{exc.where}: " if exc.where else ""
    valid = f" (valid: {', '.join(exc.valid)})" if exc.valid else ""
    return f"{sub.prog}: error: argument {option}: {where}{exc.detail}{valid}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
        sub = subparsers(parser)[args.command]
        if extras:
            sub.error(_unrecognized(sub, extras))
    except SystemExit as exc:  # argparse's --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    module = importlib.import_module(f"roofline.cli.{args.command.replace('-', '_')}")
    try:
        return module.run(args)
    except RooflineError as exc:
        print(error_line(sub, exc, getattr(module, "FIELD_ALIASES", None)), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
