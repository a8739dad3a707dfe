"""`python -m benchmarks.profile_trace [--mb 100]`: parse time and peak memory of
`roofline profile` on a large trace, synthesised by repeating the committed training trace's
steps (tests/fixtures/traces/torch-cpu-train.json.gz): each copy of its events is shifted past
the previous one and its ProfilerStep numbers continued, so the big file is that real trace,
many times over (and said so in BENCHMARKS.md). Each run is a fresh `roofline profile` process;
peak memory is its maximum resident set (GNU time's %M)."""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "fixtures" / "traces" / "torch-cpu-train.json.gz"


def synthesise(target_mb: float, out: Path) -> dict:
    doc = json.loads(gzip.decompress(SOURCE.read_bytes()))
    events = doc.pop("traceEvents")
    span = max(e.get("ts", 0) + e.get("dur", 0) for e in events) - min(
        e.get("ts", 0) for e in events if "ts" in e) + 1000.0
    steps = sum(1 for e in events if str(e.get("name", "")).startswith("ProfilerStep#"))
    one = len(json.dumps(events, separators=(",", ":")))
    copies = max(1, int(target_mb * 1e6 / one))
    with open(out, "w", encoding="utf-8") as fh:
        head = json.dumps(doc, separators=(",", ":"))[:-1]
        fh.write(head + ',"traceEvents":[')
        first = True
        for c in range(copies):
            for e in events:
                e2 = dict(e)
                if "ts" in e2:
                    e2["ts"] = e2["ts"] + c * span
                name = str(e2.get("name", ""))
                if name.startswith("ProfilerStep#"):
                    e2["name"] = f"ProfilerStep#{int(name.split('#')[1]) + c * steps}"
                fh.write(("" if first else ",") + json.dumps(e2, separators=(",", ":")))
                first = False
        fh.write("]}")
    return {"copies": copies, "events": copies * len(events), "steps": copies * steps,
            "bytes": out.stat().st_size}


def run_once(path: Path) -> tuple[float, float]:
    """(wall s, peak resident MiB) of one `roofline profile` process (GNU time's %e and %M)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats:
        proc = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", stats.name,
                               sys.executable, "-m", "roofline", "profile", str(path),
                               "--format", "json"], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT / "site_src")})
        if proc.returncode:
            raise SystemExit(proc.stderr)
        wall, kib = Path(stats.name).read_text().split()[-2:]
    return float(wall), float(kib) / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.json"
        info = synthesise(args.mb, big)
        runs = [run_once(big) for _ in range(args.runs)]
        small = [run_once(SOURCE) for _ in range(args.runs)]
    print(json.dumps({**info, "load": os.getloadavg(),
                      "wall_s": [round(w, 3) for w, _ in runs],
                      "wall_median_s": statistics.median(w for w, _ in runs),
                      "peak_rss_mib_max": max(m for _, m in runs),
                      "small_trace_peak_rss_mib_max": max(m for _, m in small),
                      "small_trace_wall_median_s": statistics.median(w for w, _ in small)},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
