"""Measured matmul ceilings (data/ceilings.toml): the most FLOP/s a dense matmul reached on a
chip, from a third-party search over shapes. A GEMM's efficiency in the budget model is its
chip's ceiling ÷ the catalog's peak; a chip with no measurement has none (its GEMMs stay at
the roofline bound, and the pages say so). No chip borrows another's figure."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from roofline.errors import RooflineError
from roofline.model import datafile as _toml

BASES = ("third-party measurement", "own measurement")


@dataclass(frozen=True)
class Ceiling:
    chip: str
    precision: str
    flops_per_s: float
    shape: str
    software: str
    date: str
    basis: str
    source: str
    source_short: str
    """The source in a few words, for a sentence or a CLI line."""
    source_title: str
    url: str
    note: str


def ceilings_path() -> Path:
    return _toml.DATA_DIR / "ceilings.toml"


def load_ceilings(path=None) -> dict[tuple[str, str], Ceiling]:
    """data/ceilings.toml (or `path`), keyed by (chip, precision). Read once per version of
    the file."""
    path = Path(path) if path else ceilings_path()
    return _cached(_toml.file_key(path))


@functools.lru_cache(maxsize=4)
def _cached(key: tuple[str, int, int]) -> dict[tuple[str, str], Ceiling]:
    path = Path(key[0])
    data = _toml.load(path)
    where = str(path)
    sources = data.get("sources", {})
    if not isinstance(sources, dict):
        raise RooflineError("expected a table", where=where, field="sources")
    titles = {}
    for sid, table in sources.items():
        s = _toml.Fields(table, where=where, entry=f"sources.{sid}")
        titles[sid] = (s.get("short", str), s.get("title", str), s.get("url", str))
        s.finish()
    rows = data.get("ceiling", [])
    if not isinstance(rows, list):
        raise RooflineError("expected [[ceiling]] entries", where=where, field="ceiling")
    out: dict[tuple[str, str], Ceiling] = {}
    for i, row in enumerate(rows):
        f = _toml.Fields(row, where=where, entry=f"ceiling[{i}]")
        chip, precision = f.get("chip", str), f.get("precision", str)
        flops = f.positive("flops_per_s", minimum=1e9, unit_hint=" (FLOP/s, not TFLOP/s)")
        shape, software = f.get("shape", str), f.get("software", str)
        date, basis, source = f.get("date", str), f.get("basis", str), f.get("source", str)
        note = f.get("note", str, required=False, default="")
        f.finish()
        entry = f"ceiling[{i}] ({chip}, {precision})"
        if basis not in BASES:
            raise RooflineError(f"unknown basis {basis!r}", where=where, entry=entry,
                                field="basis", valid=list(BASES))
        if source not in titles:
            raise RooflineError(f"unknown source {source!r}", where=where, entry=entry,
                                field="source", valid=sorted(titles))
        if (chip, precision) in out:
            raise RooflineError("a second ceiling for this chip and precision", where=where,
                                entry=entry, field="chip")
        out[(chip, precision)] = Ceiling(chip, precision, flops, shape, software, date, basis,
                                         source, *titles[source], note)
    return out


def matmul_ceiling(chip_id: str, precision: str, path=None) -> Ceiling | None:
    """The chip's measured matmul ceiling at this precision, or None: not measured."""
    return load_ceilings(path).get((chip_id, precision))


def gemm_efficiency(hw, precision: str, path=None) -> float | None:
    """The chip's measured ceiling ÷ its catalog peak (None: no measurement). A ceiling above
    the peak is a data error, named."""
    c = matmul_ceiling(hw.id, precision, path)
    if c is None:
        return None
    peak = hw.peak_flops_per_s(precision)
    if c.flops_per_s > peak:
        raise RooflineError(f"{c.flops_per_s:.4g} FLOP/s is above the chip's {peak:.4g} peak",
                            where=str(path or ceilings_path()),
                            entry=f"ceiling ({c.chip}, {c.precision})", field="flops_per_s")
    return c.flops_per_s / peak
