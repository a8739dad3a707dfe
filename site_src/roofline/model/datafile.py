"""Reading the TOML data files with errors that name the file."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from roofline.errors import RooflineError

DATA_DIR = Path(str(resources.files("roofline") / "data"))


def file_key(path: Path | str) -> tuple[str, int, int]:
    """(path, mtime_ns, size): the key every cache of a parsed data file uses, so an edit
    (`mkdocs serve` rebuilds in the same process) is seen; a missing file keys as (path, 0, -1)
    and its loader reports it."""
    try:
        st = Path(path).stat()
    except OSError:
        return (str(path), 0, -1)
    return (str(path), st.st_mtime_ns, st.st_size)


def load(path: Path) -> dict[str, Any]:
    """A TOML file's tables; anything that keeps it from being read (missing, a folder, not
    UTF-8, not TOML, unreadable) is one RooflineError naming the file."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise RooflineError("file not found", where=str(path)) from None
    except IsADirectoryError:
        raise RooflineError("is a folder; name a TOML file", where=str(path)) from None
    except UnicodeDecodeError as exc:
        raise RooflineError(f"not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
                            f"{exc.start}); TOML files are UTF-8", where=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise RooflineError(f"not valid TOML: {exc}", where=str(path)) from None
    except OSError as exc:
        raise RooflineError(f"cannot read: {exc.strerror or exc}", where=str(path)) from None


class Fields:
    """Typed access to one TOML table that reports the file, entry and field on error."""

    def __init__(self, table: Any, *, where: str, entry: str, prefix: str = "") -> None:
        if not isinstance(table, dict):
            raise RooflineError("expected a table", where=where, entry=entry, field=prefix or "")
        self.table, self.where, self.entry, self.prefix = table, where, entry, prefix
        self.used: set[str] = set()

    def error(self, key: str, msg: str) -> RooflineError:
        return RooflineError(msg, where=self.where, entry=self.entry, field=self.prefix + key)

    def get(self, key: str, kind: type | tuple[type, ...], *, required: bool = True,
            default: Any = None) -> Any:
        self.used.add(key)
        if key not in self.table:
            if required:
                raise self.error(key, "missing")
            return default
        value = self.table[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            name = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise self.error(key, f"expected {name}, got {type(value).__name__} {value!r}")
        return value

    def positive(self, key: str, *, required: bool = True, minimum: float = 0.0,
                 unit_hint: str = "") -> float | None:
        value = self.get(key, float, required=required)
        if value is None:
            return None
        if not value > 0:
            raise self.error(key, f"must be > 0, got {value!r}")
        if value < minimum:
            raise self.error(key, f"{value!r} is implausibly small: SI units expected{unit_hint}")
        return value

    def sub(self, key: str) -> "Fields":
        self.used.add(key)
        return Fields(self.table[key], where=self.where, entry=self.entry,
                      prefix=f"{self.prefix}{key}.")

    def finish(self) -> None:
        """Refuse unknown keys: a typo or a unit in the wrong name must not pass silently."""
        extra = sorted(set(self.table) - self.used)
        if extra:
            raise self.error(extra[0], f"unknown field (known: {', '.join(sorted(self.used))})")
