"""The browser benchmarks of the full study (`python -m benchmarks.bench`): plot ready and slider
repaint in Chromium, and Lighthouse (mobile) against a loopback server."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from benchmarks.sitebuild import ARGS, CHROMIUM, ENV, LESSON, ROOT, median, serve_site, weights
from benchmarks.widget import IDLE_JS, READY_JS, REPAINT_JS, p95


def bench_browser(site: Path, runs: int, changes: int) -> dict:
    from playwright.sync_api import sync_playwright

    httpd, base = serve_site(site)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        out = weights(browser, base, site)
        # plot ready: navigation start → first frame drawn after the loader embedded the plot,
        # with the plot in view at load (the §6 anchor)
        ready = []
        for _ in range(runs):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(base + LESSON + "#6-drive-the-roofline")
            ready.append(page.evaluate(READY_JS))
            page.close()
        out["plot_ready_ms"] = {"median": median(ready), "p95": p95(ready), "runs": runs}
        # slider → repainted frame, through the public `ai-slider` model
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(base + LESSON + "#6-drive-the-roofline")
        page.evaluate(READY_JS)
        lat = page.evaluate(REPAINT_JS, changes)
        idle = page.evaluate(IDLE_JS, changes)
        out["slider_ms"] = {"median": median(lat), "p95": p95(lat), "changes": len(lat),
                            "idle_median": median(idle), "idle_p95": p95(idle)}
        browser.close()
    httpd.shutdown()
    return out


LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
LH_METRICS = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
              "cumulative-layout-shift", "speed-index")


def lighthouse_once(url: str) -> dict | None:
    """One Lighthouse run (mobile, its default simulated throttling): the category scores and
    the metrics, and the main-thread work by category (TBT's make-up)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "lh.json"
        subprocess.run([str(LIGHTHOUSE), url, "--quiet", "--output=json",
                        f"--output-path={report}",
                        "--only-categories=performance,accessibility,best-practices,seo",
                        "--chrome-flags=--headless --no-sandbox --disable-gpu"],
                       env={**ENV, "CHROME_PATH": CHROMIUM}, capture_output=True, timeout=300)
        if not report.exists():
            return None
        data = json.loads(report.read_text())
    work = data["audits"].get("mainthread-work-breakdown", {}).get("details", {})
    return {"scores": {k: round(c["score"] * 100) for k, c in data["categories"].items()},
            "metrics": {m: data["audits"][m]["numericValue"] for m in LH_METRICS},
            "main_thread": {i["group"]: i["duration"] for i in work.get("items", [])}}


def lighthouse_summary(runs: list[dict]) -> dict | None:
    """Medians of each score and metric over the runs that produced a report."""
    runs = [r for r in runs if r]
    if not runs:
        return None
    pick = lambda part, key: median([r[part].get(key, 0) for r in runs])  # noqa: E731
    return {"scores": {k: pick("scores", k) for k in runs[0]["scores"]},
            "metrics": {k: pick("metrics", k) for k in runs[0]["metrics"]},
            "main_thread": {k: pick("main_thread", k) for k in runs[0]["main_thread"]},
            "runs": len(runs)}


def bench_lighthouse(site: Path, runs: int) -> dict | None:
    if not LIGHTHOUSE.exists():
        return None
    httpd, base = serve_site(site)
    try:
        return lighthouse_summary([lighthouse_once(base + LESSON) for _ in range(runs)])
    finally:
        httpd.shutdown()
