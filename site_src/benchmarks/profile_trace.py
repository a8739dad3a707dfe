"""`python -m benchmarks.profile_trace [--mb 100] [--baseline SRC] [--browser SITE]`: parse
time and peak memory of `roofline profile` on a large trace, synthesised by repeating the committed training trace's
steps (tests/fixtures/traces/torch-cpu-train.json.gz): each copy of its events is shifted past
the previous one and its ProfilerStep numbers continued, so the big file is that real trace,
many times over (and said so in BENCHMARKS.md). Each run is a fresh `roofline profile` process;
peak memory is its maximum resident set (GNU time's %M). `--baseline SRC`: the same runs of
another checkout's package (its site_src), interleaved with ours. `--browser SITE`: the same
file chosen on a built site's drop page in Chromium, from file://: the time until the report is
shown and the page's largest JS heap (sampled over the Chrome DevTools protocol)."""

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


def run_once(path: Path, src: Path = ROOT / "site_src") -> tuple[float, float]:
    """(wall s, peak resident MiB) of one `roofline profile` process (GNU time's %e and %M)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats:
        proc = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", stats.name,
                               sys.executable, "-m", "roofline", "profile", str(path),
                               "--format", "json"], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(src)})
        if proc.returncode:
            raise SystemExit(proc.stderr)
        wall, kib = Path(stats.name).read_text().split()[-2:]
    return float(wall), float(kib) / 1024


def browser_once(site: Path, trace: Path) -> tuple[float, float]:
    """(ms until the report is shown, largest JS heap in MiB) of the drop page reading `trace`."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path="/usr/bin/chromium",
                               args=["--no-sandbox", "--disable-gpu"])
        page = b.new_page()
        page.goto((site / "profile.html").as_uri())
        root = page.locator(".rl-drop").first
        page.wait_for_function("el => el.getAttribute('data-rl-drop-state') === 'ready'",
                               arg=root.element_handle())
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.evaluate("el => new MutationObserver(() => { const s = el.getAttribute("
                      "'data-rl-drop-state'); if (s === 'reading') window.__t0 = performance.now();"
                      " if (s === 'shown' || s === 'error') window.__t1 = performance.now(); })"
                      ".observe(el, { attributes: true })", root.element_handle())
        root.locator("input[name=trace]").set_input_files(str(trace))
        heap = 0.0
        while page.evaluate("window.__t1 === undefined"):
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            heap = max(heap, metrics.get("JSHeapUsedSize", 0.0))
            page.wait_for_timeout(50)   # a benchmark's sampling period, not a test's wait
        if root.get_attribute("data-rl-drop-state") != "shown":
            raise SystemExit(root.locator(".rl-drop-status").inner_text())
        ms = page.evaluate("window.__t1 - window.__t0")
        b.close()
        return ms, heap / 2 ** 20


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="another checkout's site_src, run interleaved")
    ap.add_argument("--browser", type=Path, metavar="SITE", help="a built site (mkdocs build)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.json"
        info = synthesise(args.mb, big)
        load0 = os.getloadavg()
        runs, base, pages = [], [], []
        for _ in range(args.runs):
            runs.append(run_once(big))
            if args.baseline:
                base.append(run_once(big, args.baseline))
            if args.browser:
                pages.append(browser_once(args.browser, big))
        small = [run_once(SOURCE) for _ in range(args.runs)]
    out = {**info, "load_before_after": [load0[0], os.getloadavg()[0]],
           "wall_s": [round(w, 3) for w, _ in runs],
           "wall_median_s": statistics.median(w for w, _ in runs),
           "peak_rss_mib_max": max(m for _, m in runs),
           "small_trace_peak_rss_mib_max": max(m for _, m in small),
           "small_trace_wall_median_s": statistics.median(w for w, _ in small)}
    if base:
        out |= {"baseline_wall_s": [round(w, 3) for w, _ in base],
                "baseline_wall_median_s": statistics.median(w for w, _ in base),
                "baseline_peak_rss_mib_max": max(m for _, m in base)}
    if pages:
        out |= {"browser_ms": [round(ms) for ms, _ in pages],
                "browser_median_ms": statistics.median(ms for ms, _ in pages),
                "browser_js_heap_mib_max": round(max(h for _, h in pages), 1)}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
