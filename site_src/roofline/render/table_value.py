"""A table is a value: columns and rows, rendered to Markdown, CSV, JSON or aligned text."""

from __future__ import annotations

import csv
import io
import json
import textwrap
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

MIN_WRAP = 12
"""A wrapped text column keeps at least this many characters (or its longest word)."""


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    fmt: Callable[[Any], str] = str
    align: str = "left"  # "left" | "right"


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[dict[str, Any], ...]
    """Raw values (SI floats): CSV and JSON keep them; Markdown and text format them."""
    caption: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def filtered(self, keep: Callable[[dict[str, Any]], bool]) -> "Table":
        return replace(self, rows=tuple(r for r in self.rows if keep(r)))

    def sorted(self, key: str, reverse: bool = False) -> "Table":
        return replace(self, rows=tuple(sorted(self.rows, key=lambda r: r[key], reverse=reverse)))

    def _cells(self) -> list[list[str]]:
        return [[c.fmt(r.get(c.key)) if r.get(c.key) is not None else "—" for c in self.columns]
                for r in self.rows]

    def as_markdown(self) -> str:
        def cell(s: str) -> str:  # a pipe would end the Markdown cell
            return s.replace("|", "\\|")
        head = "| " + " | ".join(cell(c.title) for c in self.columns) + " |"
        rule = "|" + "|".join("---:" if c.align == "right" else "---" for c in self.columns) + "|"
        body = ["| " + " | ".join(cell(x) for x in row) + " |" for row in self._cells()]
        return "\n".join([head, rule, *body]) + "\n"

    def as_text(self, width: int | None = None, *, wrap: Sequence[str] = (),
                drop: Sequence[str] = (), hint: str = "", min_wrap: int = MIN_WRAP) -> str:
        """Aligned text under the caption (if any). Given `width`, a wider table first puts
        long column titles on two lines, then wraps the `wrap` columns (at spaces, to no
        fewer than `min_wrap` characters or the longest word), then leaves out `drop` columns
        in that order until it fits, and ends with a line naming what it left out (and
        `hint`). Without `width`, one line per row. Markdown, CSV and JSON never change."""
        cells = self._cells()
        keep = list(range(len(self.columns)))
        natural = [max([len(c.title)] + [len(r[i]) for r in cells])
                   for i, c in enumerate(self.columns)]

        def floors(least: int) -> list[int]:
            out = []
            for i, c in enumerate(self.columns):
                title_word = max(len(w) for w in c.title.split() or [""])
                if c.key in wrap:
                    words = max([title_word] + [len(w) for r in cells for w in r[i].split()])
                    out.append(min(natural[i], max(least, words)))
                else:
                    out.append(max([title_word] + [len(r[i]) for r in cells]))
            return out

        floor = floors(min_wrap)
        widths = list(natural)
        dropped: list[str] = []
        pending = [k for k in drop if any(c.key == k for c in self.columns)]
        while width is not None:
            fitted = _fit([natural[i] for i in keep], [floor[i] for i in keep],
                          [self.columns[i].key in wrap for i in keep], width)
            if fitted is None and pending:
                key = pending.pop(0)
                i = next(i for i in keep if self.columns[i].key == key)
                keep.remove(i)
                dropped.append(self.columns[i].title)
                continue
            if fitted is None and floor != floors(1):  # last resort: wrap down to one word
                floor = floors(1)
                continue
            for i, w in zip(keep, fitted or [floor[i] for i in keep]):  # or as narrow as goes
                widths[i] = w
            break
        cols = [self.columns[i] for i in keep]

        def lines(values: list[str]) -> list[str]:
            parts = [textwrap.wrap(v, widths[i], break_on_hyphens=False) or [""]
                     if len(v) > widths[i] else [v] for v, i in zip(values, keep)]
            out = []
            for n in range(max(len(p) for p in parts)):
                row = [p[n] if n < len(p) else "" for p in parts]
                out.append("  ".join(v.rjust(widths[i]) if c.align == "right"
                                     else v.ljust(widths[i])
                                     for v, i, c in zip(row, keep, cols)).rstrip())
            return out

        out = textwrap.wrap(self.caption, width) if width and self.caption else (
            [self.caption] if self.caption else [])
        out += lines([c.title for c in cols]) + ["  ".join("-" * widths[i] for i in keep)]
        for row in cells:
            out += lines([row[i] for i in keep])
        if dropped:
            note = f"Left out to fit {width} columns: {', '.join(dropped)}."
            out += textwrap.wrap(f"{note} {hint}".strip(), width)
        return "\n".join(out) + "\n"

    def as_csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow([c.key for c in self.columns])
        for r in self.rows:
            writer.writerow(["" if r.get(c.key) is None else _plain(r.get(c.key))
                             for c in self.columns])
        return buf.getvalue()

    def as_records(self) -> list[dict[str, Any]]:
        return [{c.key: r.get(c.key) for c in self.columns} for r in self.rows]

    def as_json(self) -> str:
        return json.dumps(self.as_records(), indent=2, ensure_ascii=False) + "\n"

    def render(self, fmt: str, **text_options: Any) -> str:
        """`text_options` (width, wrap, drop, hint) apply to the "table" format only."""
        if fmt == "table":
            return self.as_text(**text_options)
        return {"md": self.as_markdown, "csv": self.as_csv, "json": self.as_json}[fmt]()


def _fit(natural: list[int], floor: list[int], wrappable: list[bool],
         width: int) -> list[int] | None:
    """Column widths within `width` (two spaces between columns), or None if even the
    floors are too wide. Titles go onto two lines first (columns that are not wrappable),
    then wrappable columns narrow; within each group, the column with most room first."""
    widths = list(natural)
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    if sum(w - f for w, f in zip(widths, floor)) < excess:
        return None
    for group in (False, True):
        while excess > 0:
            i = max(range(len(widths)),
                    key=lambda j: widths[j] - floor[j] if wrappable[j] == group else -1)
            if wrappable[i] != group or widths[i] <= floor[i]:
                break
            widths[i] -= 1
            excess -= 1
    return widths


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
        return int(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value
