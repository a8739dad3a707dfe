"""Render ahead: while MkDocs converts pages on one core, a worker process draws the widgets it
will meet, so a cold build uses a second core for the work that dominates it (importing Bokeh,
the budget's payload, building and serializing each layout).

The MkDocs plugin starts it at `on_config`, with the pages read from the docs folder in the
order MkDocs converts them:

1. `plan()` reads each page's Markdown for our fences (a hint, not the truth: the fences
   superfences finds are still the ones drawn) and keeps those whose block the disk cache
   (roofline.hosts.buildcache) lacks, through the door's own settings and cache key. A fence
   whose options are wrong is left out: the page's own conversion reports it, at its line.
2. A worker (`python -m roofline.hosts.ahead_worker`, a plain child process: nothing of the build's
   `__main__` is imported again) takes the jobs from its stdin: those with a Bokeh item first,
   then the rest in page order, and draws each with the kind's renderer into the disk cache.
   On a first build (no cache folder yet) it starts before the plan and imports Bokeh while
   this process plans.
3. A block with a Bokeh item (a kind with `bokeh=True`) is left to the worker: the build's
   process draws the rest of it (its static first frame, caption and key) with the item as a
   placeholder (embed.deferring); the worker draws the items alone (embed.items_only) into
   the build's temporary folder. When the page is written (the plugin's on_post_page) the
   items the worker has reported are filled in (`fill(page, wait=False)`); a page whose items
   it is still drawing is written with their placeholders, and the plugin's on_post_build
   fills those into the written file after the last page (`items(key)` waits only then), and
   puts each whole block in the cache. So a cold build's own process never imports Bokeh, no
   page waits for the worker, and each half of a block is drawn once: the worker builds and
   serializes every layout while this process converts and writes the pages. The worker draws
   without Bokeh's per-document integrity check (WORKER_ENV; the suite runs it instead).
4. For any other block, when a page's conversion reaches its fence, `buildcache.cached()` asks
   `claim(key)` before drawing. Each job is claimed once, by whoever creates its claim file
   first (O_EXCL): one the
   worker has not started is taken back and drawn here (nothing waits behind the worker's
   queue); one it has started is waited for, then read from the cache. While the build draws
   the first (slow) block, the worker draws the next ones.

The blocks are the same bytes either way: the same renderer on the same settings (item ids are
renumbered from the text, so they do not depend on the process; a test builds the site both
ways and compares). A block whose drawing warned or raised in the worker is drawn again here,
so the page reports the message or the error in its place. The plugin's `workers: 0` (or
ROOFLINE_WORKERS=0, one CPU, or the cache turned off: ROOFLINE_CACHE=0) draws everything in the
build's own process.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from roofline.errors import RooflineError
from roofline.hosts import buildcache, door
from roofline.hosts.ahead_worker import claim_file, ignore_warnings, items_path

log = logging.getLogger("mkdocs.plugins.roofline")

# An opening fence of one of our kinds, at any indentation (admonitions, tabs, lists).
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*\{?\.?(?P<kind>[\w-]+)\}?"
                   r"[^\n`]*$")
WAIT_S = 120.0
"""The longest a page waits for the worker's block before drawing it itself."""

WORKER_ENV = {"BOKEH_VALIDATE_DOC": "false"}
"""The worker draws without Bokeh's integrity check of each document (~45 ms a layout, a fifth
of its drawing; 1.17 → 0.94 s CPU for the site's five, 2026-12-07): tests/test_bokeh_integrity.py
runs that check on every Bokeh layout the site draws, and a block drawn in the build's own
process (no worker, or taken back from it) is still checked."""


def workers(option: int | None) -> int:
    """How many processes draw ahead: the plugin's `workers` option, else ROOFLINE_WORKERS,
    else default_workers(); a bad ROOFLINE_WORKERS is an error naming it."""
    if option is None:
        env = os.environ.get("ROOFLINE_WORKERS", "").strip()
        if env:
            try:
                option = int(env)
            except ValueError:
                raise RooflineError(f"must be a whole number of processes, got {env!r}",
                                    where="ROOFLINE_WORKERS") from None
    return max(0, default_workers() if option is None else option)


def default_workers() -> int:
    """One worker where the build may use a second CPU (more did not help on two cores: they
    compete with the build for them); none on a single one."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return 1 if cpus > 1 else 0


def fences_in(markdown: str, kinds: Iterable[str]) -> list[tuple[str, str]]:
    """(kind, body) of each fence of `kinds` in `markdown`, in page order, each body dedented
    by its fence's indentation. Any other fence is skipped whole (a fence shown as an example
    inside a ```text block is not drawn)."""
    kinds = set(kinds)
    out: list[tuple[str, str]] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, kind = m["indent"], m["fence"], m["kind"]
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                break
            text = lines[j]
            body.append(text[len(indent):] if text.startswith(indent) else text.lstrip())
            j += 1
        if kind in kinds:
            out.append((kind, "\n".join(body)))
        i = j + 1
    return out


def plan(pages: Iterable[tuple[str, str]]) -> list[tuple[str, dict, str]]:
    """(kind, options, cache key) of each fence in `pages` ((path, Markdown), build order)
    whose block the disk cache lacks, each key once, in page order."""
    from roofline.hosts.fences import parse
    where = buildcache.folder()
    if where is None:
        return []
    seen: set[str] = set()
    jobs: list[tuple[str, dict, str]] = []
    for _path, markdown in pages:
        for kind, body in fences_in(markdown, door.KINDS):
            try:
                options = parse(body)
                # the key needs the options, not their full check (a profile's is its report)
                key = buildcache.key_of(kind, door.settings(kind, options, warn=ignore_warnings,
                                                            check=False))
            except Exception:  # the page's own conversion reports it, where it is
                continue
            if key in seen or buildcache.entry_path(where, key).exists():
                continue
            seen.add(key)
            jobs.append((kind, options, key))
    return jobs


class RenderAhead:
    """One build's worker processes, their jobs and what they reported of each. The workers
    start first (`preload`: importing Bokeh and the layouts while this process plans), and
    get their jobs on stdin from give()."""

    def __init__(self, *, docs_dir: Path | None, workers: int = 1,
                 preload: bool = False) -> None:
        where = buildcache.folder()
        assert where is not None
        self.where = where
        self.keys: set[str] = set()
        self.deferrable: set[str] = set()
        self.pending: dict[str, tuple[Callable[[], str], str]] = {}
        """Deferred here: key → (its renderer, the block drawn here with placeholders)."""
        self.resolved: dict[str, list[str]] = {}
        self.jobs = 0
        self.mine: set[str] = set()
        self.claims = Path(tempfile.mkdtemp(prefix="roofline-ahead-"))
        self.status: dict[str, str] = {}
        self.changed = threading.Condition()
        self.stderr = (self.claims / "worker.log").open("w+b")
        env = {**os.environ, **WORKER_ENV, "ROOFLINE_CACHE_DIR": str(where)}
        # Each worker goes through the same jobs; the claim files give each job to one. Its
        # answers come back on its stdout.
        self.procs = [subprocess.Popen(
            [sys.executable, "-m", "roofline.hosts.ahead_worker", str(self.claims),
             str(docs_dir) if docs_dir is not None else "", *(["--preload"] if preload else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env)
            for _ in range(max(1, workers))]
        self.running = len(self.procs)
        self.readers = [threading.Thread(target=self._read, args=(p.stdout,), daemon=True,
                                         name="roofline-ahead") for p in self.procs]
        for reader in self.readers:
            reader.start()

    def give(self, jobs: list[tuple[str, dict, str]]) -> None:
        """The build's jobs, in the order the workers take them: those with a Bokeh item
        first (only a worker draws them: this process defers them), then the rest in page
        order (this process takes back any it meets before a worker has started it)."""
        jobs = sorted(jobs, key=lambda j: not door.kind_of(j[0]).bokeh)
        self.keys = {key for _, _, key in jobs}
        self.deferrable = {key for kind, _, key in jobs if door.kind_of(kind).bokeh}
        self.jobs = len(jobs)
        # A first job without a Bokeh item is this process's: it meets it long before a worker
        # has started (the worker would make the first page wait for its imports).
        if jobs and jobs[0][2] not in self.deferrable and claim_file(self.claims, jobs[0][2]):
            self.mine = {jobs[0][2]}
        text = "".join(json.dumps({"kind": k, "options": o, "key": key}, default=str) + "\n"
                       for k, o, key in jobs).encode()

        def send(proc: subprocess.Popen) -> None:   # a thread: a full pipe never stalls us
            try:
                proc.stdin.write(text)
                proc.stdin.close()
            except OSError:   # a worker that died: its jobs are drawn here
                pass
        for proc in self.procs:
            threading.Thread(target=send, args=(proc,), daemon=True,
                             name="roofline-ahead-jobs").start()

    def _read(self, stdout: IO[bytes]) -> None:
        for raw in stdout:
            status, _, key = raw.decode(errors="replace").strip().partition(" ")
            if status == "taken":  # another's (this process's, or another worker's)
                continue
            with self.changed:
                self.status[key] = status
                self.changed.notify_all()
        with self.changed:  # this worker has ended
            self.running -= 1
            self.changed.notify_all()

    def defer(self, key: str, render: Callable[[], str]) -> str | None:
        """`key`'s block drawn here with placeholders for its Bokeh items, which a worker
        draws (items() fills them); None for a block that is not a worker's to draw, or that
        it has drawn already (claim() then reads it)."""
        if key in self.pending:
            return self.pending[key][1]
        if key not in self.deferrable or key not in self.keys:
            return None
        from roofline.render.embed import deferring
        with deferring(key):
            html = render()
        self.pending[key] = (render, html)
        return html

    def items(self, key: str) -> list[str]:
        """The Bokeh items of a deferred block, in order: those a worker drew (waited for),
        or, if none has started it or one failed or warned, the whole block drawn here. The
        whole block (this process's half and the items) goes into the cache for the next
        build."""
        if key not in self.resolved:
            from roofline.render.embed import ITEM, fill_deferred
            render, half = self.pending[key]
            drawn = self.claim(key, items=True)
            if drawn is not None:
                found = ITEM.findall(drawn)
                whole = fill_deferred(half, lambda _key: found)
            else:
                whole = render()
                found = ITEM.findall(whole)
            buildcache.store(key, whole)
            self.resolved[key] = found
        return self.resolved[key]

    def ready(self, key: str) -> bool:
        """Whether items(key) would answer now: drawn and filled already, reported by the
        worker, or no worker left running (a job it never started would then be drawn here)."""
        with self.changed:
            return key in self.resolved or key in self.status or not self.running

    def claim(self, key: str, items: bool = False) -> str | None:
        """The block the worker drew for `key` (`items`: the Bokeh items it drew for a
        deferred one); None: draw it here (not a job, taken back before the worker started
        it, or it warned or failed there)."""
        if key not in self.keys:
            return None
        self.keys.discard(key)
        if key in self.mine or claim_file(self.claims, key):
            return None  # not started: ours now
        with self.changed:
            done = self.changed.wait_for(lambda: key in self.status or not self.running,
                                         timeout=WAIT_S)
            status = self.status.get(key) if done else None
        if status != "ok":
            log.debug("roofline: the worker gave %s for block %s: drawn here", status, key[:12])
            return None
        try:
            return (items_path(self.claims, key) if items
                    else buildcache.entry_path(self.where, key)).read_text(encoding="utf-8")
        except OSError:
            return None

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()  # its remaining jobs (if any) are no page's
            proc.wait()
        for reader in self.readers:
            reader.join(timeout=5)
        self.stderr.seek(0)
        tail = self.stderr.read()[-2000:].decode(errors="replace").strip()
        self.stderr.close()
        if tail:  # a block a worker could not draw (drawn here instead), or its own failure
            log.debug("roofline: the render-ahead worker said: %s", tail)
        shutil.rmtree(self.claims, ignore_errors=True)


_active: RenderAhead | None = None


def start(pages: Iterable[tuple[str, str]], *, workers: int, docs_dir: Path | None) -> int:
    """Plan and start rendering ahead for one build (ending any earlier one); returns how
    many blocks were handed to the workers. With no cache folder yet (a first build: every
    block is missing) and a fence of ours on some page, the workers start before the plan
    and import Bokeh meanwhile."""
    global _active
    stop()
    where = buildcache.folder()
    if workers <= 0 or where is None:
        return 0
    pages = list(pages)
    early = None
    if not where.exists() and any(fences_in(md, door.KINDS) for _, md in pages):
        early = RenderAhead(docs_dir=docs_dir, workers=workers, preload=True)
    jobs = plan(pages)
    if not jobs:
        if early is not None:
            early.give([])
            early.close()
        return 0
    _active = early or RenderAhead(docs_dir=docs_dir, workers=workers)
    _active.give(jobs)
    buildcache.draw_elsewhere(claim, defer)
    log.debug("roofline: drawing %d widget block(s) ahead in %d worker(s)", len(jobs), workers)
    return len(jobs)


def stop() -> None:
    """End the build's rendering ahead (the plugin, after each build and on its error)."""
    global _active
    if _active is not None:
        buildcache.draw_elsewhere(None)
        drawn = sum(1 for v in _active.status.values() if v == "ok")
        _active.close()
        deferred = len(_active.resolved)
        log.info("roofline: %d of %d widget block(s) drawn ahead by %s%s", drawn, _active.jobs,
                 "a worker process" if len(_active.procs) == 1
                 else f"{len(_active.procs)} worker processes",
                 f"; {deferred} Bokeh layout(s) left to it (this process "
                 f"{'imported' if 'bokeh' in sys.modules else 'never imported'} Bokeh)"
                 if deferred else "")
        _active = None


def claim(key: str) -> str | None:
    """What buildcache.cached() asks before it draws a block itself."""
    return _active.claim(key) if _active is not None else None


def defer(key: str, render: Callable[[], str]) -> str | None:
    """What buildcache.cached() asks first: this block with its items deferred, or None."""
    return _active.defer(key, render) if _active is not None else None


def fill(page_html: str, *, wait: bool = True) -> str:
    """`page_html` with its deferred items filled (the plugin's on_post_page); `wait=False`:
    only those the worker has drawn by now, the others left as they are (the page is written
    with them and filled after the last page: the build goes on writing pages meanwhile)."""
    from roofline.render.embed import DEFERRED, fill_deferred
    if not DEFERRED.search(page_html):
        return page_html
    if _active is None:
        raise RuntimeError("a page holds deferred Bokeh items but no build is drawing them")
    if wait:
        return fill_deferred(page_html, _active.items)
    return DEFERRED.sub(lambda m: fill_deferred(m.group(0), _active.items)
                        if _active.ready(m.group(1)) else m.group(0), page_html)


atexit.register(stop)  # a build that never ended (an error before on_post_build): no worker left
