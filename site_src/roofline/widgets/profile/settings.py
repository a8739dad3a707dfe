"""The profile report's settings (bokeh-free; see widgets/base.py): the ```roofline-profile
fence and its Sphinx directive parse into ProfileSettings; `roofline profile` reads the same
trace with the same analysis."""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from roofline.errors import RooflineError
from roofline.widgets.base import Option, WidgetSettings


def resolve(value: str, docs_dir: Path | None = None, what: str = "trace",
            folder: bool = False) -> Path:
    """A file (or, with `folder`, a folder) named in a fence: relative to the docs folder, else
    the working directory."""
    p = Path(value)
    candidates = [p] if p.is_absolute() else [(docs_dir or Path("docs")) / p, p]
    for c in candidates:
        if c.is_file() or (folder and c.is_dir()):
            return c
    raise RooflineError(f"no such file (looked in: {', '.join(map(str, candidates))})",
                        field=what)


@dataclass(frozen=True)
class ProfileSettings(WidgetSettings):
    """A trace's report: its last ProfilerStep (or `step`), on the measured CPU roofline of
    the bundled build machine (or `measurement`)."""
    trace: str = ""
    step: int | None = None
    measurement: str = ""
    hardware: str = ""
    """A GPU trace's chip (default: from the trace's deviceProperties)."""
    drop: bool = False
    """True: a reader drops their own trace (and, if they like, their CPU's measurement) on the
    block and it is read in their browser; `trace`, if given, is what it shows first."""

    KIND: ClassVar[str] = "roofline-profile"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("trace", str, "a torch.profiler Chrome trace (.json or .json.gz), or a folder of "
               "one job's per-rank GPU traces, a path under docs/"),
        Option("step", int, "which ProfilerStep#N", default_text="the last one"),
        Option("measurement", str, "a CPU trace's measurement JSON (roofline measure)",
               default_text="the build machine's"),
        Option("hardware", str, "a GPU trace's chip, from the catalog",
               default_text="from the trace's deviceProperties"),
        Option("drop", bool, "a drop zone: the reader's own trace, read in their browser"),
    )

    def check(self) -> None:
        if not self.trace:
            if self.drop:
                self.roof()
                return
            raise self.fail("trace", "missing: name a trace file (or set drop: true)")
        try:
            self.report()
        except RooflineError as exc:
            option = exc.field if exc.field in ("step", "measurement", "hardware") else (
                "hardware" if exc.where == "--hardware" else "trace")
            raise self.fail(option, f"{exc.detail} ({exc.where})" if exc.where
                            else exc.detail) from None

    def data_files(self) -> list[str]:
        # (the build machine's measurement is package data, hashed with the rest of it)
        files = []
        if self.trace:
            from roofline.profile.ranks import rank_files
            path = resolve(self.trace, folder=True)
            files = [str(f) for f in (rank_files([path]) if path.is_dir() else [path])]
        if self.measurement:
            files.append(str(resolve(self.measurement, what="measurement")))
        return files

    def measurement_path(self) -> Path:
        """The CPU measurement the trace is placed on: the option's, else the build machine's."""
        from roofline.model import datafile as _toml
        from roofline.profile.analyse import BUILD_MACHINE
        return (resolve(self.measurement, what="measurement") if self.measurement
                else _toml.DATA_DIR / BUILD_MACHINE)

    def report(self) -> dict:
        """The trace's analysis (a copy: the caller owns it), kept per version of the trace and
        measurement files: a build checks a fence and then draws it."""
        from roofline.model import datafile as _toml
        path = resolve(self.trace, folder=True)
        if path.is_dir():   # the ranks of one job: the key is every rank file's
            from roofline.profile.ranks import rank_files
            keys = tuple(_toml.file_key(f) for f in rank_files([path]))
            return copy.deepcopy(_ranks(str(path), keys, self.step, self.hardware or None))
        measurement = (_toml.file_key(resolve(self.measurement, what="measurement"))
                       if self.measurement else None)
        return copy.deepcopy(_report(_toml.file_key(path), measurement, self.step,
                                     self.hardware or None))

    def roof(self) -> dict:
        """The roofline a dropped trace is placed on first: the measurement's, else the build
        machine's (a reader may drop their own measurement beside the trace)."""
        import dataclasses

        from roofline.measure.schema import load
        from roofline.profile.analyse import cpu_roof
        try:
            return dataclasses.asdict(cpu_roof(load(self.measurement_path())))
        except RooflineError as exc:
            raise self.fail("measurement", exc.detail) from None

    @property
    def height_px(self) -> int:
        return 0

    @property
    def label(self) -> str:
        if not self.trace:
            return "Profile on the roofline: your own trace"
        return f"Profile on the roofline: {Path(self.trace).name}"

    def payload(self) -> dict | None:
        """What profile.mjs (and, with `drop`, drop.mjs) reads: widgets/profile/payload.py."""
        from roofline.widgets.profile.payload import payload
        return payload(self)


@functools.lru_cache(maxsize=16)
def _report(trace_key: tuple, measurement_key: tuple | None, step: int | None,
            hardware: str | None) -> dict:
    from roofline.profile.analyse import report
    return report(Path(trace_key[0]), step, hardware=hardware,
                  measurement=Path(measurement_key[0]) if measurement_key else None)


@functools.lru_cache(maxsize=4)
def _ranks(folder: str, keys: tuple, step: int | None, hardware: str | None) -> dict:
    from roofline.profile.ranks import ranks
    return ranks([Path(folder)], step, hardware=hardware)
