"""Entries of the lesson's written-parts data files (failure modes, checkpoint, prompts,
problems): each a table with an id and text fields that carry markers. Shared by qa.py and the
teaching markers (exercises.py), so neither imports the other."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from roofline.model import datafile as _toml

from lesson_site import DATA_DIR
from roofline.model.datafile import Fields
from roofline.errors import RooflineError
from lesson_site.context import Context
from lesson_site.markers import expand


@dataclass(frozen=True)
class Entry:
    id: str
    fields: dict[str, str]


def load_entries(name: str, table: str, keys: tuple[str, ...], optional: tuple[str, ...] = (),
                 path: Path | None = None) -> tuple[Path, list[Entry]]:
    """The [[table]] entries of data/<name>.toml (or `path`), read once per version of the
    file (path, mtime, size: an edit under `mkdocs serve` is seen; a build asks 23 times)."""
    path = path or DATA_DIR / f"{name}.toml"
    return path, list(_cached_entries(_toml.file_key(path), table, tuple(keys), tuple(optional)))


@functools.lru_cache(maxsize=16)
def _cached_entries(key: tuple[str, int, int], table: str, keys: tuple[str, ...],
                    optional: tuple[str, ...]) -> tuple[Entry, ...]:
    path = Path(key[0])
    data = _toml.load(path)
    raw = data.get(table)
    if not isinstance(raw, list) or not raw:
        raise RooflineError(f"no [[{table}]] entries", where=str(path), field=table)
    out, seen = [], set()
    for i, item in enumerate(raw):
        f = Fields(item, where=str(path), entry=str(item.get("id", f"#{i}"))
                   if isinstance(item, dict) else f"#{i}")
        fields = {k: f.get(k, str) for k in keys}
        fields.update({k: f.get(k, str) for k in optional if k in f.table})
        entry = Entry(f.get("id", str), fields)
        f.finish()
        for k, v in entry.fields.items():
            if not v.strip():
                raise RooflineError("empty text", where=str(path), entry=entry.id, field=k)
        if entry.id in seen:
            raise RooflineError("duplicate id", where=str(path), entry=entry.id, field="id")
        seen.add(entry.id)
        out.append(entry)
    return tuple(out)


def entry_text(ctx: Context, path: Path, entry: Entry, key: str) -> str:
    return expand(entry.fields[key], ctx, f"{path} [{entry.id}].{key}").strip()


def indent(text: str, n: int = 4) -> str:
    return "\n".join((" " * n + line) if line else "" for line in text.split("\n"))
