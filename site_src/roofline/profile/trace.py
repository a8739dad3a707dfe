"""Reading a Chrome-trace JSON as `torch.profiler` writes it (`prof.export_chrome_trace`),
plain or gzipped, one event at a time: a trace of several hundred MB is read in memory
bounded by one chunk and the events kept, never the whole text.

    for kind, value in stream(path):    # ("meta", (key, value)) or ("event", {...})

Bad input is one TraceError naming the file and what is wrong (not JSON, truncated, no
traceEvents array); roofline.cli turns it into one line and exit 2."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import IO, Iterator

from roofline.errors import RooflineError

CHUNK = 1 << 20
MAX_VALUE = 64 << 20
"""The longest one event (or top-level value) may be, in characters."""
_decoder = json.JSONDecoder()
_WS = " \t\r\n"


class TraceError(RooflineError):
    """A trace that cannot be read: the message names the file and what is wrong."""


def _open(path: Path) -> IO[str]:
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
    except FileNotFoundError:
        raise TraceError("file not found", where=str(path)) from None
    except IsADirectoryError:
        raise TraceError("is a folder; name a trace file (.json or .json.gz)",
                         where=str(path)) from None
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


class _Reader:
    """A text stream with a sliding buffer: `peek`, `skip_ws`, `expect` and `value` (one JSON
    value decoded from the buffer, reading more while it is incomplete)."""

    def __init__(self, fh: IO[str], where: str) -> None:
        self.fh, self.where = fh, where
        self.buf, self.pos, self.eof = "", 0, False
        self.offset = 0  # characters consumed before buf[0]

    def _more(self) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.fh.read(CHUNK)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise TraceError(f"truncated or corrupt gzip stream ({exc})",
                             where=self.where) from None
        except UnicodeDecodeError:
            raise TraceError("not UTF-8 text: not a Chrome trace", where=self.where) from None
        if not chunk:
            self.eof = True
            return False
        self.offset += self.pos
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def skip_ws(self) -> str:
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return ""

    def expect(self, chars: str, what: str) -> str:
        c = self.skip_ws()
        if not c or c not in chars:
            where = f"character {self.offset + self.pos}"
            found = "the end of the file" if not c else repr(c)
            raise TraceError(f"not a Chrome trace: expected {what} at {where}, found {found}"
                             + (" (the file is truncated)" if not c else ""), where=self.where)
        self.pos += 1
        return c

    def value(self, raw: bool = False):
        """The next value decoded; with `raw`, (the value, its text as in the file)."""
        self.skip_ws()
        while True:
            try:
                value, end = _decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                # Most likely the value runs past the buffer: read on (one event is far
                # smaller than MAX_VALUE; past it, the text is not a trace's).
                if not self.eof and len(self.buf) - self.pos < MAX_VALUE and self._more():
                    continue
                at = f"character {self.offset + exc.pos}"
                if self.eof and (exc.pos >= len(self.buf) - 2 or "Unterminated" in exc.msg):
                    raise TraceError(f"truncated JSON at {at}: the file ends inside a value",
                                     where=self.where) from None
                raise TraceError(f"not JSON: {exc.msg} at {at}", where=self.where) from None
            # A number or a literal may run past the buffer: make sure it has ended.
            if end == len(self.buf) and not self.eof and self._more():
                continue
            start, self.pos = self.pos, end
            return (value, self.buf[start:end]) if raw else value


def stream(path: Path | str, raw: bool = False) -> Iterator[tuple[str, object]]:
    """The trace's top-level fields as ("meta", (key, value)) and each element of its
    traceEvents array as ("event", dict), in file order; with `raw`, each event as its JSON
    text (checked, not kept decoded: a host that hands the text on to the JS engine)."""
    path = Path(path)
    with _open(path) as fh:
        r = _Reader(fh, str(path))
        if r.skip_ws() == "":
            raise TraceError("the file is empty: not a Chrome trace", where=str(path))
        r.expect("{", "'{' (a trace is one JSON object)")
        seen_events = False
        if r.skip_ws() == "}":
            r.pos += 1
        else:
            while True:
                key = r.value()
                if not isinstance(key, str):
                    raise TraceError("not a Chrome trace: a key is not a string",
                                     where=str(path))
                r.expect(":", "':'")
                if key == "traceEvents":
                    seen_events = True
                    r.expect("[", "'[' (traceEvents is an array)")
                    if r.skip_ws() == "]":
                        r.pos += 1
                    else:
                        while True:
                            event, text = r.value(raw=True)
                            if isinstance(event, dict):
                                yield "event", text if raw else event
                            if r.expect(",]", "',' or ']' in traceEvents") == "]":
                                break
                else:
                    yield "meta", (key, r.value())
                if r.expect(",}", "',' or '}'") == "}":
                    break
        if r.skip_ws() != "":
            raise TraceError("not a Chrome trace: text after its closing '}'", where=str(path))
        if not seen_events:
            raise TraceError("no traceEvents array: not a PyTorch profiler trace",
                             where=str(path))
