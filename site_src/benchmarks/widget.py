"""Measure the widget in Debian Chromium: plot-ready time (navigation → first rendered canvas)
and slider change → repaint latency. Timings are for BENCHMARKS.md, never test assertions.

    python -m benchmarks.widget SITE_DIR [PAGE] [--changes 60]
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

    ap = argparse.ArgumentParser(prog="python -m benchmarks.widget")
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


# ---------------------------------------------------------------- the widget study (#12)
# Used by `python -m benchmarks.bench --widget`: what a reader of the lesson meets, interleaved
# per run so a noisy machine hits every figure alike.

# First contentful paint, and whether the static first frame was in the page and on screen then
# (its box in the viewport; the live plot is not ready so early).
FCP_JS = """() => new Promise((resolve) => {
  const report = (fcp) => {
    // (the SVG's own box is empty once the live plot has replaced it: measure the block's)
    const s = document.querySelector('.roofline-static svg');
    const b = document.querySelector('.roofline-block');
    const r = s && b ? b.getBoundingClientRect() : null;
    resolve({fcp, svg: !!s, inView: !!r && r.bottom > 0 && r.top < innerHeight && r.height > 100,
             live: !!b && b.dataset.rooflineState === 'ready'});
  };
  const seen = performance.getEntriesByName('first-contentful-paint')[0];
  if (seen) { report(seen.startTime); return; }
  new PerformanceObserver((list) => {
    const e = list.getEntriesByName('first-contentful-paint')[0];
    if (e) report(e.startTime);
  }).observe({type: 'paint', buffered: true});
})"""

# A reader who has read the top of the page (scrolled a screen) jumps to §6: time from the jump
# to the plot being ready, and to the first slider change painted.
JUMP_JS = """async () => {
  const b = document.querySelector('.roofline-block');
  const t0 = performance.now();
  b.scrollIntoView();
  if (b.dataset.rooflineState !== 'ready') {
    await new Promise((r) => b.addEventListener('roofline:ready', r, {once: true}));
  }
  const ready = performance.now() - t0;
  const s = window.roofline.documents[0].get_model_by_name('ai-slider');
  s.value = 1.5;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return {ready, responds: performance.now() - t0};
}"""

# Main-thread work per slider change: `n` changes one frame apart, then `n` frames with no
# change; Chromium's TaskDuration (CDP Performance metrics) over each, per frame.
FRAMES_JS = """async ([n, change]) => {
  const s = window.roofline.documents[0].get_model_by_name('ai-slider');
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    if (change) s.value = -1 + (4 * ((i * 37) % n)) / n;
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    out.push(performance.now() - t0);
  }
  return out;
}"""


def _task_s(cdp) -> tuple[float, float]:
    """(TaskDuration, ThreadTime) of the page's main thread so far, in s: the first is the wall
    time of its tasks (it grows when other processes take the CPU), the second its CPU time."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return metrics["TaskDuration"], metrics.get("ThreadTime", float("nan"))


def widget_study(base_urls: list[str], page_path: str, runs: int, changes: int) -> list[dict]:
    """Medians over `runs` loads of each site, interleaved (site A, site B, A, B, ...): FCP with
    the static SVG, jump-to-interactive, and per slider change the frame time (p95) and
    main-thread CPU against the same run's frames with no change."""
    from playwright.sync_api import sync_playwright

    rows: list[dict[str, list]] = [{} for _ in base_urls]

    def add(k: int, key: str, value) -> None:
        rows[k].setdefault(key, []).append(value)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(runs):
            for k, base_url in enumerate(base_urls):
                # 1. first paint, plot's section in view at load
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(base_url + page_path + "#6-drive-the-roofline")
                f = page.evaluate(FCP_JS)
                add(k, "fcp_ms", f["fcp"])
                add(k, "svg_at_fcp", f["svg"])
                add(k, "svg_in_view", f["inView"])
                add(k, "live_at_fcp", f["live"])
                page.evaluate(READY_JS)
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")
                for change in (False, True):  # no-change frames, then changes, same page
                    t, c = _task_s(cdp)
                    frames = page.evaluate(FRAMES_JS, [changes, change])
                    key = "change" if change else "idle"
                    t1, c1 = _task_s(cdp)
                    add(k, f"{key}_cpu_ms", (t1 - t) * 1000 / changes)
                    add(k, f"{key}_thread_ms", (c1 - c) * 1000 / changes)
                    add(k, f"{key}_p95_ms", p95(frames))
                page.close()
                # 2. the top of the page read (one screen scrolled), then a jump to §6
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(base_url + page_path)
                page.wait_for_load_state("networkidle")
                page.mouse.wheel(0, 600)
                page.wait_for_timeout(2500)
                j = page.evaluate(JUMP_JS)
                add(k, "jump_ready_ms", j["ready"])
                add(k, "jump_responds_ms", j["responds"])
                page.close()
        browser.close()
    out = []
    for r in rows:
        o = {k: statistics.median(v) for k, v in r.items()
             if k not in ("svg_at_fcp", "svg_in_view", "live_at_fcp")}
        o["cpu_per_change_ms"] = o["change_cpu_ms"] - o["idle_cpu_ms"]
        o["thread_per_change_ms"] = o["change_thread_ms"] - o["idle_thread_ms"]
        o["svg_at_fcp"] = all(r["svg_at_fcp"])
        o["svg_in_view"] = all(r["svg_in_view"])
        o["live_at_fcp"] = sum(r["live_at_fcp"])
        o["runs"], o["changes"] = runs, changes
        out.append(o)
    return out
