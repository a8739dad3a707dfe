"""Options and checks shared by several subcommands."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

from roofline.errors import RooflineError
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION, Option, WidgetSettings

FORMATS = ("table", "json", "csv", "md")
PIPED_WIDTH = 100
"""Text tables' width when stdout is not a terminal (and COLUMNS is not set)."""


def add_hw_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hardware", default=DEFAULT_HARDWARE, metavar="ID",
                   help=f"accelerator id from the catalog (default: {DEFAULT_HARDWARE}; "
                        "`roofline hardware` lists them)")
    p.add_argument("--precision", default=DEFAULT_PRECISION, metavar="P",
                   help=f"precision id, e.g. bf16, fp8 (default: {DEFAULT_PRECISION})")
    add_catalog(p)


def add_catalog(p: argparse.ArgumentParser) -> None:
    p.add_argument("--catalog", default=None, metavar="FILE",
                   help="an alternative hardware.toml (default: the bundled catalog, or "
                        "$ROOFLINE_CATALOG)")


def add_format(p: argparse.ArgumentParser, choices: tuple[str, ...] = FORMATS) -> None:
    what = {"table": "aligned text that fits the terminal",
            "json": "every column, raw SI values", "csv": "every column, raw SI values",
            "md": "a Markdown table, every column"}
    p.add_argument("--format", choices=choices, default="table",
                   help="; ".join(f"{c}: {what[c]}" for c in choices) + " (default: table)")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def only_with(args: argparse.Namespace, flags: dict[str, str], condition: bool,
              needs: str) -> None:
    """Refuse flags the chosen mode would silently ignore. `flags` maps dest -> option; a
    flag counts as given when its value is not None (give such options default=None)."""
    if condition:
        return
    for dest, option in flags.items():
        if getattr(args, dest) not in (None, False):
            raise RooflineError(f"applies only {needs}", field=option.lstrip("-"))


def output_file(path: Path, option: str) -> Path:
    """Check a file the command will write before any work is done: one line naming the option
    if it is a folder, its folder is missing, or it cannot be written. An existing file is
    replaced."""
    field = option.lstrip("-")
    if path.is_dir():
        raise RooflineError(f"'{path}' is a folder; name a file inside it", field=field)
    folder = path.parent
    if not folder.exists():
        raise RooflineError(f"folder '{folder}' does not exist", field=field)
    if not folder.is_dir():
        raise RooflineError(f"'{folder}' is a file, not a folder", field=field)
    if path.exists() and not os.access(path, os.W_OK):
        raise RooflineError(f"'{path}' is not writable", field=field)
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise RooflineError(f"folder '{folder}' is not writable", field=field)
    return path


def output_dir(path: Path, option: str, *, parents: bool = False) -> Path:
    """Check a folder the command will create or write into: its parent must exist, unless
    `parents` (then the nearest existing ancestor must be a writable folder)."""
    field = option.lstrip("-")
    if path.exists() and not path.is_dir():
        raise RooflineError(f"'{path}' is an existing file; name a folder", field=field)
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise RooflineError(f"folder '{path}' is not writable", field=field)
        return path
    if parents:
        ancestor = path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise RooflineError(f"'{ancestor}' is a file, not a folder", field=field)
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise RooflineError(f"folder '{ancestor}' is not writable", field=field)
        return path
    return output_file(path, option)  # a new folder: same rules as a new file


def write_error(exc: OSError, path: Path, option: str) -> RooflineError:
    """What the checks above cannot see in advance (root on a read-only file system, a full
    disk) still ends in one line naming the option."""
    where = exc.filename or path
    return RooflineError(f"cannot write '{where}': {exc.strerror or exc}",
                         field=option.lstrip("-"))


def warn_line(command: str):
    """The door's `warn` for a subcommand: one line on stderr naming the flag, as an error
    would, and the command goes on (exit 0)."""
    def warn(option: str, message: str) -> None:
        print(f"roofline {command}: warning: argument --{option.replace('_', '-')}: {message}",
              file=sys.stderr)
    return warn


# A space between a number and its unit ("0 B", "34.9 ms", "-0.3 pt"): never a line break.
_UNIT_SPACE = re.compile(r"(?<=\d) (?=(?:[kMGTP]?i?B|[kMGTPE]?FLOP|[kMGTP]?B/s|[µmn]?s|pt|%)"
                         r"(?!\w))")


def wrap(text: str, width: int, *, indent: str = "") -> list[str]:
    """`text` as lines of at most `width` characters, broken at spaces but never between a
    number and its unit; lines after the first start with `indent`."""
    glued = _UNIT_SPACE.sub("\0", text)
    lines = textwrap.wrap(glued, width, subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False)
    return [line.replace("\0", " ") for line in lines] or [""]


def terminal_columns() -> int:
    """Columns of the terminal (COLUMNS wins), or PIPED_WIDTH when stdout is not one."""
    return shutil.get_terminal_size((PIPED_WIDTH, 24)).columns


def write(text: str) -> None:
    sys.stdout.write(text)


# ---------------------------------------------------------------- flags from a widget's schema

def flag(option: Option) -> str:
    """The command-line flag of a widget option: `--name` (an underscore becomes a dash)."""
    return "--" + option.name.replace("_", "-")


def _ids(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _number(text: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() \
        else value


def add_settings_options(p: argparse.ArgumentParser, settings: type[WidgetSettings], *,
                         skip: tuple[str, ...] = ()) -> None:
    """One flag per option of the widget kind's schema (its settings class's OPTIONS, the one
    copy of names, types and help): lists as comma-separated ids, true/false as
    --name/--no-name. Every flag defaults to None, so the settings' own default applies."""
    defaults = {f.name: f.default for f in settings.__dataclass_fields__.values()}
    for opt in settings.OPTIONS:
        if opt.name in skip:
            continue
        types = opt.types if isinstance(opt.types, tuple) else (opt.types,)
        default = defaults.get(opt.attr)
        shown = (f" (default: {opt.default_text})" if opt.default_text else
                 "" if default is None or default == () else
                 f" (default: {','.join(default) if isinstance(default, tuple) else default})")
        kwargs: dict = {"default": None, "dest": opt.attr, "help": opt.help + shown}
        if bool in types:
            kwargs["action"] = argparse.BooleanOptionalAction
        elif list in types or tuple in types:
            kwargs.update(type=_ids, metavar="A,B")
        elif float in types:
            kwargs.update(type=_number, metavar="X")
        elif int in types:
            kwargs.update(type=int, metavar="N")
        else:
            kwargs["metavar"] = opt.name.upper()
        p.add_argument(flag(opt), **kwargs)


def settings_options(args: argparse.Namespace, settings: type[WidgetSettings]) -> dict:
    """The options given on the command line (None: not given), by option name, for the
    door (roofline.hosts.door.settings)."""
    out = {}
    for opt in settings.OPTIONS:
        value = getattr(args, opt.attr, None)
        if value is not None:
            out[opt.name] = value
    return out
