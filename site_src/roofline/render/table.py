"""A table is a value: columns and rows, rendered to Markdown, CSV, JSON or aligned text."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable


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
        def esc(s: str) -> str:
            return s.replace("|", "\\|")
        head = "| " + " | ".join(esc(c.title) for c in self.columns) + " |"
        rule = "|" + "|".join("---:" if c.align == "right" else "---" for c in self.columns) + "|"
        body = ["| " + " | ".join(esc(x) for x in row) + " |" for row in self._cells()]
        return "\n".join([head, rule, *body]) + "\n"

    def as_text(self) -> str:
        cells = self._cells()
        widths = [max([len(c.title)] + [len(r[i]) for r in cells])
                  for i, c in enumerate(self.columns)]

        def line(values: list[str]) -> str:
            return "  ".join(v.rjust(w) if c.align == "right" else v.ljust(w)
                             for v, w, c in zip(values, widths, self.columns)).rstrip()
        return "\n".join([line([c.title for c in self.columns]),
                          line(["-" * w for w in widths]), *map(line, cells)]) + "\n"

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

    def render(self, fmt: str) -> str:
        return {"md": self.as_markdown, "csv": self.as_csv, "json": self.as_json,
                "table": self.as_text}[fmt]()


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
        return int(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value
