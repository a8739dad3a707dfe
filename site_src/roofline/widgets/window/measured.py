"""The serving window against measured servers: data/measured_servers.toml's public benchmark
runs, each with the window's time per token at the same setting. The window is a lower bound
on a real server's step, so `finding` flags a run it does not bound, and one it bounds so loosely
(below half) that the bound says little; tests/test_measured_servers.py keeps every entry clear
of both, and the serving page quotes the ratios."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from roofline.errors import RooflineError
from roofline.model.datafile import DATA_DIR, Fields, load

PATH = DATA_DIR / "measured_servers.toml"
FLOOR = 0.5
"""The least share of a measured time per token the window's bound may be: below it the bound
misses most of what the server spends, and the entry is a finding, not a check."""


@dataclass(frozen=True)
class MeasuredServer:
    """One published run: a server decoding `batch` sequences of `input_tokens` prompt and
    `output_tokens` output on `tp` chips, at `seconds_per_token` per output token of a
    sequence."""
    id: str
    hardware: str
    model: str
    precision: str
    kv_precision: str
    tp: int
    batch: int
    input_tokens: int
    output_tokens: int
    seconds_per_token: float
    server: str
    source: str
    date: str
    note: str
    output_tokens_per_s_per_chip: float | None = None

    def __post_init__(self) -> None:
        where = f"{PATH.name} [{self.id}]"
        for name in ("tp", "batch", "input_tokens", "output_tokens"):
            if getattr(self, name) < 1:
                raise RooflineError("must be a positive integer", where=where, field=name)
        if not self.seconds_per_token > 0:
            raise RooflineError("must be above 0", where=where, field="seconds_per_token")

    @property
    def context(self) -> int:
        """The context the step is priced at: the prompt plus half the output. Each step reads
        the KV cache of every token so far, which grows by one a step, so the mean step over
        the output is the step at its mean context, input + (output - 1) / 2; the window's
        cost is linear in the context, and the half token is below its resolution."""
        return self.input_tokens + self.output_tokens // 2


def load_measured(path: Path | None = None) -> tuple[MeasuredServer, ...]:
    """Every [[entry]] of the file, validated; each names a key of its [sources]."""
    path = Path(path or PATH)
    doc = load(path)
    sources = doc.get("sources", {})
    out = []
    for i, table in enumerate(doc.get("entry", [])):
        f = Fields(table, where=str(path), entry=f"entry {i + 1}")
        source = f.get("source", str)
        if source not in sources:
            raise RooflineError(f"unknown source {source!r}", where=str(path),
                                entry=f"entry {i + 1}", field="source")
        if f.get("basis", str) != "third-party measurement":
            raise RooflineError("basis must be 'third-party measurement'", where=str(path),
                                entry=f"entry {i + 1}", field="basis")
        entry = MeasuredServer(
            id=f.get("id", str), hardware=f.get("hardware", str), model=f.get("model", str),
            precision=f.get("precision", str), kv_precision=f.get("kv_precision", str),
            tp=f.get("tp", int), batch=f.get("batch", int),
            input_tokens=f.get("input_tokens", int), output_tokens=f.get("output_tokens", int),
            seconds_per_token=f.get("seconds_per_token", float), server=f.get("server", str),
            source=source, date=f.get("date", str), note=f.get("note", str),
            output_tokens_per_s_per_chip=f.get("output_tokens_per_s_per_chip", (int, float),
                                               required=False))
        f.finish()
        out.append(entry)
    return tuple(out)


def window_seconds_per_token(entry: MeasuredServer) -> float:
    """The window's step at the entry's setting, with CUDA graphs as servers launch decode: the
    time between a sequence's tokens at `batch` sequences of `context` tokens."""
    from roofline.widgets.window.figures import figures
    from roofline.widgets.window.settings import WindowSettings
    settings = WindowSettings(model=entry.model, hardware=entry.hardware,
                              precision=entry.precision, kv_precision=entry.kv_precision,
                              context=entry.context, tp=entry.tp, launch="graphs",
                              models=(entry.model,), chips=(entry.hardware,), controls=False)
    rows = figures(settings, rows="every")["figures"]["rows"]
    found = [r for r in rows if r["batch"] == entry.batch and r["fits"]]
    if not found:
        raise RooflineError(f"batch {entry.batch} does not fit in the window", where=PATH.name,
                            entry=entry.id, field="batch")
    return found[0]["step_s"]


def finding(entry: MeasuredServer, ours: float) -> str | None:
    """Why the window's `ours` does not check out against the entry, or None where it does:
    above the measured time (the bound is broken) or below FLOOR of it (too loose to say)."""
    ratio = ours / entry.seconds_per_token
    if ratio > 1:
        return (f"{entry.id}: the window's {ours * 1e3:.4g} ms/token is above the measured "
                f"{entry.seconds_per_token * 1e3:.4g} ms (ratio {ratio:.3f}): not a lower bound")
    if ratio < FLOOR:
        return (f"{entry.id}: the window's {ours * 1e3:.4g} ms/token is below {FLOOR:g} of the "
                f"measured {entry.seconds_per_token * 1e3:.4g} ms (ratio {ratio:.3f})")
    return None


def comparisons(path: Path | None = None) -> list[tuple[MeasuredServer, float, float]]:
    """(entry, the window's seconds per token, window ÷ measured) for every entry."""
    out = []
    for e in load_measured(path):
        ours = window_seconds_per_token(e)
        out.append((e, ours, ours / e.seconds_per_token))
    return out
