"""The share of the data-parallel gradient all-reduce hidden behind the backward pass
(data/overlap.toml): the budget's one communication figure the roofline cannot give. Its basis
is stated ("assumption" today: no source here measures it), and every page and the CLI print
the basis beside the figure."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from roofline.errors import RooflineError
from roofline.model import datafile as _toml

BASES = ("assumption", "measurement")


@dataclass(frozen=True)
class Overlap:
    fraction: float
    basis: str
    date: str
    source: str
    source_short: str
    source_title: str
    url: str
    note: str


def overlap_path() -> Path:
    return _toml.DATA_DIR / "overlap.toml"


def load_overlap(path=None) -> Overlap:
    """data/overlap.toml (or `path`), read once per version of the file."""
    return _cached(_toml.file_key(Path(path) if path else overlap_path()))


@functools.lru_cache(maxsize=4)
def _cached(key: tuple[str, int, int]) -> Overlap:
    path = Path(key[0])
    data = _toml.load(path)
    where = str(path)
    sources = data.get("sources", {})
    if not isinstance(sources, dict):
        raise RooflineError("expected a table", where=where, field="sources")
    f = _toml.Fields(data.get("allreduce_overlap"), where=where, entry="allreduce_overlap")
    value = f.get("value", float)
    basis, date, source = f.get("basis", str), f.get("date", str), f.get("source", str)
    note = f.get("note", str)
    f.finish()
    if not 0 <= value <= 1:
        raise f.error("value", f"must be a fraction in [0, 1], got {value!r}")
    if basis not in BASES:
        raise RooflineError(f"unknown basis {basis!r}", where=where, entry="allreduce_overlap",
                            field="basis", valid=list(BASES))
    if source not in sources:
        raise RooflineError(f"unknown source {source!r}", where=where, entry="allreduce_overlap",
                            field="source", valid=sorted(sources))
    s = _toml.Fields(sources[source], where=where, entry=f"sources.{source}")
    short, title, url = s.get("short", str), s.get("title", str), s.get("url", str)
    s.finish()
    return Overlap(value, basis, date, source, short, title, url, note)


def default_overlap_fraction() -> float:
    """data/overlap.toml's share: the budget's default (Assumptions.overlap_fraction)."""
    return load_overlap().fraction
