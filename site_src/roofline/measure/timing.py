"""Timing with warm-up and repeats, and a progress bar on stderr.

A sample times `inner` back-to-back calls, with `inner` chosen so one sample lasts at least
`min_sample_s`: a cache-resident copy takes microseconds, below the timer's useful resolution
and the cost of one Python call, so it is repeated until the sample is long enough to trust."""

from __future__ import annotations

import math
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable, TextIO


@dataclass(frozen=True)
class Method:
    warmup: int = 2
    repeats: int = 7
    min_sample_s: float = 0.02

    def as_dict(self) -> dict:
        return {"warmup": self.warmup, "repeats": self.repeats,
                "min_sample_s": self.min_sample_s, "statistic": "median",
                "spread": "min and max of the samples; every sample is kept",
                "clock": "time.perf_counter (CPU); CUDA events after a synchronize (GPU)"}


def stats(samples: list[float], inner: int) -> dict:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "samples": samples, "inner_loops": inner}


def time_call(fn: Callable[[], object], method: Method,
              clock: Callable[[], float] = time.perf_counter,
              sync: Callable[[], None] = lambda: None) -> dict:
    """Median, min, max and all samples of the seconds one call of `fn` takes."""
    sync()
    t0 = clock()
    fn()
    sync()
    first = max(clock() - t0, 1e-9)
    inner = max(1, math.ceil(method.min_sample_s / first))
    for _ in range(max(0, method.warmup - 1)):
        for _ in range(inner):
            fn()
    samples = []
    for _ in range(method.repeats):
        sync()
        t0 = clock()
        for _ in range(inner):
            fn()
        sync()
        samples.append((clock() - t0) / inner)
    return stats(samples, inner)


def time_interleaved(fns: list[Callable[[], object]], method: Method,
                     clock: Callable[[], float] = time.perf_counter) -> list[dict]:
    """time_call for several calls whose rates are compared with each other: each repeat
    times every call in turn, so a burst of load from elsewhere on a shared machine lands on
    all of them rather than on whichever happened to run then."""
    inner = []
    for fn in fns:
        t0 = clock()
        fn()
        inner.append(max(1, math.ceil(method.min_sample_s / max(clock() - t0, 1e-9))))
    for _ in range(max(0, method.warmup - 1)):
        for fn, k in zip(fns, inner):
            for _ in range(k):
                fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(method.repeats):
        for fn, k, out in zip(fns, inner, samples):
            t0 = clock()
            for _ in range(k):
                fn()
            out.append((clock() - t0) / k)
    return [stats(s, k) for s, k in zip(samples, inner)]


class Progress:
    """`[#####.....]  12/40  triad 64 MiB` redrawn in place on a terminal; on a pipe or a
    log file, one line per step so nothing is garbled."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True,
                 width: int = 28) -> None:
        self.total, self.done, self.width = max(total, 1), 0, width
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.perf_counter()

    def step(self, label: str) -> None:
        if not self.enabled:
            return
        filled = round(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.perf_counter() - self.started
        text = f"[{bar}] {self.done:>3}/{self.total}  {elapsed:5.1f} s  {label}"
        if self.tty:
            self.stream.write("\r\x1b[2K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.done += 1

    def close(self) -> None:
        if not self.enabled:
            return
        self.done = self.total
        elapsed = time.perf_counter() - self.started
        text = f"[{'#' * self.width}] {self.total:>3}/{self.total}  {elapsed:5.1f} s  done"
        self.stream.write(("\r\x1b[2K" + text + "\n") if self.tty else text + "\n")
        self.stream.flush()
