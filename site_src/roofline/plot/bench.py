"""Measure the widget in Debian Chromium: plot-ready time (navigation → first rendered canvas)
and slider change → repaint latency. Timings are for BENCHMARKS.md, never test assertions.

    python -m roofline.plot.bench SITE_DIR [PAGE] [--changes 60]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]

# One slider change: set the value, then wait for the frame Bokeh schedules (its rAF was queued
# first, so ours runs after its paint) and for that frame to finish.
REPAINT_JS = """async (n) => {
  const s = window.roofline.documents[0].get_model_by_name('ai-slider');
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    s.value = -2 + (6 * ((i * 37) % n)) / n;
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    out.push(performance.now() - t0);
  }
  return out;
}"""

# The same wait with nothing changed: the part of REPAINT_JS that is only waiting for the next
# frame boundary (up to one 16.7 ms frame), which no faster callback or paint can remove.
IDLE_JS = """async (n) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    out.push(performance.now() - t0);
  }
  return out;
}"""

READY_JS = """() => new Promise((resolve) => {
  const b = document.querySelector('.roofline-block');
  const done = () => requestAnimationFrame(() => resolve(performance.now()));
  if (b.dataset.rooflineState === 'ready') done();
  else b.addEventListener('roofline:ready', done, {once: true});
})"""


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(prog="python -m roofline.plot.bench")
    ap.add_argument("site", type=Path)
    ap.add_argument("page", nargs="?", default="embed.html",
                    help="a page whose first roofline is in the first screen")
    ap.add_argument("--changes", type=int, default=60)
    ap.add_argument("--loads", type=int, default=5)
    args = ap.parse_args(argv)
    url = (args.site / args.page).resolve().as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        ready = []
        for _ in range(args.loads):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            ready.append(page.evaluate(READY_JS))
            page.close()
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.evaluate(READY_JS)
        repaint = page.evaluate(REPAINT_JS, args.changes)
        browser.close()
    print(f"plot ready (navigation -> first drawn frame), {args.loads} loads: "
          f"median {statistics.median(ready):.0f} ms, max {max(ready):.0f} ms")
    print(f"slider change -> repainted frame, {len(repaint)} changes: "
          f"median {statistics.median(repaint):.1f} ms, p95 {p95(repaint):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
