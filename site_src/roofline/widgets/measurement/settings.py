"""Measurement settings (see widgets/base.py for the pattern): the overlay a ```roofline fence
draws with `measurement: FILE`, and the ```roofline-measurement table fence. No bokeh."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from roofline.model import datafile as _toml
from roofline.errors import RooflineError
from roofline.widgets.base import Option, WidgetSettings

PICKER_HEIGHT_PX = 110
"""Height the overlay's file picker and status line add under the roofline widget."""
TABLES = ("summary", "verdict", "check", "ceilings", "stream", "ops", "spread", "machine")


def resolve(value: str | Path, docs_dir: Path | None = None) -> Path:
    """A measurement named in a fence: a file of the package data (measurement-*.json), or a
    path relative to the docs folder (or the working directory)."""
    value = Path(value)
    candidates = [value] if value.is_absolute() else [_toml.DATA_DIR / value]
    if not value.is_absolute():
        candidates += [(docs_dir or Path("docs")) / value, value]
    for path in candidates:
        if path.is_file():
            return path
    raise RooflineError(f"no such file (looked in: {', '.join(str(c) for c in candidates)})",
                        where=str(value), field="measurement")


def load_measurement(measurement: dict | str | Path, docs_dir: Path | None = None) -> dict:
    """A validated measurement document (from a dict, or a file as resolve() finds it)."""
    from roofline.measure.schema import load, validate
    if isinstance(measurement, dict):
        return validate(measurement, where="measurement")
    return load(resolve(measurement, docs_dir))


@dataclass(frozen=True)
class OverlaySettings(WidgetSettings):
    """A measurement drawn over the roofline, with a file picker for the reader's own."""
    measurement: str = ""
    picker: bool = True

    KIND: ClassVar[str] = "roofline"  # an option of the ```roofline fence
    OPTIONS: ClassVar[tuple[Option, ...]] = (Option("measurement", str, "a measurement JSON"),)

    def check(self) -> None:
        self.document()

    def data_files(self) -> list[str]:
        return [str(resolve(self.measurement))]

    def document(self) -> dict:
        try:
            return load_measurement(self.measurement)
        except RooflineError as exc:
            # One line naming the file and its field, reported against the fence's option.
            raise self.fail("measurement", str(exc)) from None

    @property
    def height_px(self) -> int:
        return PICKER_HEIGHT_PX if self.picker else 0

    def payload(self) -> dict:
        from roofline.widgets.measurement.payload import payload
        return payload(self)


@dataclass(frozen=True)
class MeasurementTableSettings(WidgetSettings):
    """```roofline-measurement: one table of a measurement, built from its JSON."""
    file: str = ""
    show: str = ""

    KIND: ClassVar[str] = "roofline-measurement"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("file", str, "a measurement JSON: package data name, or a path under docs/"),
        Option("show", str, "which table: " + " | ".join(TABLES)),
    )

    def check(self) -> None:
        for key in ("file", "show"):
            if not getattr(self, key):
                raise self.fail(key, "missing")
        if self.show not in TABLES:
            raise self.fail("show", f"unknown table {self.show!r}", list(TABLES))
        self.document()

    def data_files(self) -> list[str]:
        return [str(resolve(self.file))]

    def document(self) -> dict:
        try:
            return load_measurement(self.file)
        except RooflineError as exc:
            raise self.fail("file", str(exc)) from None

    @property
    def height_px(self) -> int:
        return 0  # a static table: nothing to reserve

    @property
    def label(self) -> str:
        return f"Measurement: {self.show}"

    def payload(self) -> dict:
        from roofline.widgets.measurement.payload import payload
        return payload(self)
