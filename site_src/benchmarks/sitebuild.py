"""Sites for the benchmarks (`python -m benchmarks.bench`): build ours, a bare Material build of
the same Markdown, or a past commit's; serve one over loopback gzipping like a static host;
time `mkdocs serve` rebuilds and `roofline measure --quick`; weigh what a page loads."""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "1764633600"}
LESSON = "lessons/06-gpus-the-hardware-youre-renting.html"


def median(xs):
    return statistics.median(xs)


def build_site(config: Path, dest: Path, cwd: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config),
                           "-d", str(dest)], cwd=cwd, env=ENV, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"build failed: {proc.stderr[-2000:]}")
    return time.perf_counter() - t


def bare_config(work: Path) -> Path:
    """The same docs and theme without our plugin, hooks or generated content."""
    shutil.copytree(ROOT / "docs", work / "docs")
    if (ROOT / "overrides").is_dir():  # the theme's custom_dir (a template, no build work)
        shutil.copytree(ROOT / "overrides", work / "overrides")
    text = (ROOT / "mkdocs.yml").read_text()
    lines = []
    skip_block = False
    for line in text.splitlines():
        if re.match(r"^hooks:", line):
            skip_block = True
            continue
        if skip_block and line.startswith((" ", "-")):
            continue
        skip_block = False
        if re.match(r"^\s*-\s*roofline\s*$", line) or re.match(r"^\s*-\s*roofline:", line):
            continue
        lines.append(line)
    text = "\n".join(lines).replace("strict: true", "strict: false")
    text = re.sub(r"^watch:.*?(?=^\S)", "", text, flags=re.S | re.M)
    (work / "mkdocs.yml").write_text(text)
    return work / "mkdocs.yml"


def bench_build(runs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bare = bare_config(tmp / "bare")
        ours = [build_site(ROOT / "mkdocs.yml", tmp / f"ours{i}", ROOT) for i in range(runs)]
        plain = [build_site(bare, tmp / f"bare{i}", ROOT) for i in range(runs)]
    return {"ours_s": median(ours), "bare_s": median(plain),
            "ratio": median(ours) / median(plain), "runs": runs}


def _timed_build(config: Path, dest: Path | None, cwd: Path, env: dict,
                 python: str = sys.executable) -> tuple[float, float]:
    """(wall, CPU) seconds of one `mkdocs build` (into `dest`, else the config's site_dir) by
    `python`, CPU being the child's user + system time."""
    before = os.times()
    t = time.perf_counter()
    where = ["-d", str(dest)] if dest is not None else []
    proc = subprocess.run([python, "-m", "mkdocs", "build", "-q", "-f", str(config), *where],
                          cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"build failed: {proc.stderr[-2000:]}")
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def bench_build_rounds(rounds: int) -> dict:
    """Cold (an empty ROOFLINE_CACHE_DIR), warm (a cache filled before the rounds) and bare
    Material builds, interleaved round by round so each meets the same machine load."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bare = bare_config(tmp / "bare")
        warm_env = {**ENV, "ROOFLINE_CACHE_DIR": str(tmp / "warm-cache")}
        _timed_build(ROOT / "mkdocs.yml", tmp / "fill", ROOT, warm_env)
        runs: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": [], "bare": []}
        for i in range(rounds):
            cold_env = {**ENV, "ROOFLINE_CACHE_DIR": str(tmp / f"cold-cache{i}")}
            runs["cold"].append(_timed_build(ROOT / "mkdocs.yml", tmp / f"c{i}", ROOT, cold_env))
            runs["warm"].append(_timed_build(ROOT / "mkdocs.yml", tmp / f"w{i}", ROOT, warm_env))
            # From the repository, like ours: snippets' paths are relative to the cwd.
            runs["bare"].append(_timed_build(bare, tmp / f"b{i}", ROOT, ENV))
            for name in ("c", "w", "b"):
                shutil.rmtree(tmp / f"{name}{i}", ignore_errors=True)
    return _against_bare(runs)


def _against_bare(runs: dict[str, list[tuple[float, float]]]) -> dict:
    """Each kind's (wall, CPU) samples, their medians, and every kind's ratios to "bare"."""
    out: dict = {k: {"wall": [w for w, _ in v], "cpu": [c for _, c in v],
                     "wall_median": median([w for w, _ in v]),
                     "cpu_median": median([c for _, c in v])} for k, v in runs.items()}
    for k in out:
        if k != "bare":
            out[k]["ratio_wall"] = out[k]["wall_median"] / out["bare"]["wall_median"]
            out[k]["ratio_cpu"] = out[k]["cpu_median"] / out["bare"]["cpu_median"]
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bench_serve(edits: int) -> dict:
    """Edit a page under `mkdocs serve` and time until the served page carries the edit."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "proj"
        shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(
            "node_modules", ".git", "site", "test-output", "*.egg-info", "__pycache__"))
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a",
                                 f"127.0.0.1:{port}", "-q"],
                                cwd=work, env=ENV, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/"
        try:
            wait_for(lambda: http_get(url) is not None, 120)
            page = work / "docs" / "index.md"
            times = []
            for i in range(edits):
                marker = f"bench-edit-{i}-{time.time_ns()}"
                page.write_text(page.read_text() + f"\n\n{marker}\n")
                t = time.perf_counter()
                wait_for(lambda: marker in (http_get(url) or ""), 120)
                times.append(time.perf_counter() - t)
        finally:
            proc.terminate()
            proc.wait(10)
    return {"median_s": median(times), "max_s": max(times), "edits": edits}


def http_get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8", "replace")
    except Exception:
        return None


def wait_for(cond, timeout: float) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise SystemExit("timed out waiting")


COMPRESSIBLE = {".html", ".js", ".css", ".json", ".svg", ".xml", ".txt", ".csv"}


def serve_site(site: Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        """Serves gzip to clients that accept it, as any static host does: page weights and
        Lighthouse then see what a reader downloads, not the raw bytes."""

        def log_message(self, *args):
            pass

        def do_GET(self):
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                path = path / "index.html"
            accepts = "gzip" in self.headers.get("Accept-Encoding", "")
            if not (accepts and path.is_file() and path.suffix in COMPRESSIBLE):
                return super().do_GET()
            body = gzip.compress(path.read_bytes(), 6, mtime=0)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def sizes(site: Path, paths: set[str]) -> tuple[int, int]:
    raw = gz = 0
    for rel in paths:
        data = (site / rel).read_bytes()
        raw += len(data)
        gz += len(gzip.compress(data, 9, mtime=0))
    return raw, gz


def weights(browser, base: str, site: Path) -> dict:
    """Page weight: what loads before scrolling, then after the plot has loaded."""
    out: dict = {}
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    seen: list[str] = []
    page.on("requestfinished", lambda r: seen.append(r.url))
    page.goto(base + LESSON)
    page.wait_for_load_state("networkidle")
    first = {u[len(base):].split("#")[0].split("?")[0] for u in seen if u.startswith(base)}
    page.evaluate("document.querySelector('.roofline-block').scrollIntoView()")
    page.wait_for_selector(".roofline-block[data-roofline-state=ready]", timeout=30000)
    page.wait_for_load_state("networkidle")
    full = {u[len(base):].split("#")[0].split("?")[0] for u in seen if u.startswith(base)}
    first = {p if p else "index.html" for p in first}
    full = {p if p else "index.html" for p in full}
    out["first_view"] = dict(zip(("raw", "gzip"), sizes(site, first)), files=len(first))
    out["full"] = dict(zip(("raw", "gzip"), sizes(site, full)), files=len(full))
    out["full_files"] = sorted(full)
    out["first_files"] = sorted(first)
    page.close()
    return out


def build_rev(rev: str, work: Path, dest: Path) -> None:
    """Build the site as commit `rev` had it (its package, hooks and docs), for a baseline."""
    src = work / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    env = {**ENV, "PYTHONPATH": str(src / "site_src")}
    # The installed package's entry point names today's plugin module; the commit's own
    # pyproject may name another (59ef382: roofline.mkdocs_plugin), so use the commit's.
    found = re.search(r'"mkdocs\.plugins"\]\s*roofline\s*=\s*"([^"]+)"',
                      (src / "pyproject.toml").read_text())
    shim = ("import sys, mkdocs.plugins as P; from importlib.metadata import EntryPoint as E; "
            "g = P.get_plugins; P.get_plugins = lambda: {**g(), 'roofline': "
            f"E('roofline', {found.group(1)!r}, 'mkdocs.plugins')}}; "
            "from mkdocs.__main__ import cli; sys.argv[0] = 'mkdocs'; cli()")
    proc = subprocess.run([sys.executable, "-c", shim, "build", "-q", "-d", str(dest)],
                          cwd=src, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"baseline build failed: {proc.stderr[-2000:]}")


def bench_measure_quick(runs: int) -> dict:
    """Wall time of `roofline measure --quick` (issue: under a minute on two cores)."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "roofline", "measure", "--quick", "--no-progress",
                            "--out", str(Path(tmp) / "m.json")], check=True, capture_output=True)
            times.append(time.perf_counter() - t)
    return {"median_s": median(times), "max_s": max(times), "runs": runs}


def bench_newcomer(rounds: int) -> dict:
    """The first `mkdocs build` as a newcomer meets it: a fresh clone of HEAD, a fresh venv with
    `pip install -e .` (once; timed and reported), then per round a first build in a clone that
    git has just cleaned to a fresh checkout
    (no `.cache/`, no `__pycache__`, no `site/`), against bare Material on the same text in the
    same clone, interleaved. The OS's file cache is not dropped (a container cannot), so the
    packages' files may be in memory: a newcomer straight after `pip install` meets the same."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        clone = tmp / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        venv = tmp / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        py = str(venv / "bin" / "python")
        t = time.perf_counter()
        subprocess.run([py, "-m", "pip", "install", "-q", "-e", str(clone)], check=True,
                       env={**ENV, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
        install_s = time.perf_counter() - t
        bare = bare_config(tmp / "bare")
        env = {k: v for k, v in ENV.items() if not k.startswith("ROOFLINE_")}

        def first_build(extra: dict, config: Path) -> tuple[float, float]:
            subprocess.run(["git", "clean", "-q", "-fdx", "-e", "*.egg-info"], cwd=clone,
                           check=True)
            return _timed_build(config, None, clone, {**env, **extra}, python=py)

        runs: dict[str, list[tuple[float, float]]] = {"first build": [], "bare": []}
        for _ in range(rounds):
            runs["first build"].append(first_build({}, clone / "mkdocs.yml"))
            runs["bare"].append(first_build({}, bare))
    return {**_against_bare(runs), "pip_install_e_s": install_s}


def bench_against(rev: str, rounds: int) -> dict:
    """This tree (HEAD) against commit `rev`, each in a clone of its own run by this Python with
    PYTHONPATH at the clone's site_src: per round, in turn, a first build (the clone cleaned to
    a fresh checkout: no `.cache/`, no `__pycache__`, no `site/`) and a warm rebuild (its cache
    kept from a first build) of each, and bare Material on the same text."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        clones = {}
        for name, commit in (("before", rev), ("after", "HEAD")):
            clone = clones[name] = tmp / name
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
            subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
        bare = bare_config(tmp / "bare")
        env = {k: v for k, v in ENV.items() if not k.startswith("ROOFLINE_")}

        def build(name: str, first: bool) -> tuple[float, float]:
            clone = clones[name]
            if first:
                subprocess.run(["git", "clean", "-q", "-fdx"], cwd=clone, check=True)
            return _timed_build(clone / "mkdocs.yml", tmp / "out", clone,
                                {**env, "PYTHONPATH": str(clone / "site_src")})

        runs: dict[str, list[tuple[float, float]]] = {
            f"{kind}, {name}": [] for kind in ("first", "warm") for name in clones}
        runs["bare"] = []
        for name in clones:
            build(name, True)  # each clone's warm cache, before the rounds
        for i in range(rounds):
            order = list(clones) if i % 2 == 0 else list(clones)[::-1]
            for name in order:
                runs[f"warm, {name}"].append(build(name, False))
            runs["bare"].append(_timed_build(bare, tmp / "out", ROOT, env))
            for name in order:
                runs[f"first, {name}"].append(build(name, True))  # it leaves a warm cache
    return {"rev": rev, **_against_bare(runs)}
