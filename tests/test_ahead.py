"""Rendering ahead (roofline.hosts.ahead): a cold build's widgets drawn by a worker process while
the pages convert. Finding the fences, the worker's answers (drawn, warned, failed, taken back),
the claim protocol with a real worker, and the site: the cold shared build drew ahead and is
byte-identical to a build that drew everything in its own process."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest

from conftest import build_site
from roofline.errors import RooflineError
from roofline.hosts import ahead, ahead_worker, buildcache, door

TABLE = {"table": "fusions"}
MEASURED = {"file": "measurement-build-machine.json", "show": "ops"}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("ROOFLINE_CACHE", "1")
    monkeypatch.setenv("ROOFLINE_CACHE_DIR", str(folder))
    monkeypatch.delenv("ROOFLINE_CATALOG", raising=False)
    return folder


def key(kind: str, options: dict) -> str:
    return buildcache.key_of(kind, door.settings(kind, options))


# ---------------------------------------------------------------- finding the fences

PAGE = """\
# A page

```roofline
hardware: h100-sxm
```

!!! note "In an admonition"

    ~~~~roofline-budget-table
    table: fusions
    ~~~~

````text title="shown, not drawn"
```roofline
hardware: gb200
```
````

```python
print("not ours")
```
"""


def test_fences_are_found_at_any_indentation_and_examples_are_skipped():
    found = ahead.fences_in(PAGE, door.KINDS)
    assert found == [("roofline", "hardware: h100-sxm"),
                     ("roofline-budget-table", "table: fusions")]


def test_the_plan_keeps_what_the_cache_lacks_once_and_leaves_bad_fences_to_the_page(cache):
    bad = "```roofline\nprecison: bf16\n```\n"  # the page's conversion reports it, at its line
    pages = [("a.md", PAGE), ("b.md", PAGE + bad)]
    jobs = ahead.plan(pages)
    assert [(k, o) for k, o, _ in jobs] == [("roofline", {"hardware": "h100-sxm"}),
                                            ("roofline-budget-table", TABLE)]
    buildcache.store(jobs[0][2], "<p>cached</p>")
    assert [k for k, _, _ in ahead.plan(pages)] == ["roofline-budget-table"]


def test_how_many_workers(monkeypatch):
    monkeypatch.setattr(ahead, "default_workers", lambda: 1)
    monkeypatch.delenv("ROOFLINE_WORKERS", raising=False)
    assert (ahead.workers(None), ahead.workers(0), ahead.workers(3), ahead.workers(-2)) == \
        (1, 0, 3, 0)
    monkeypatch.setenv("ROOFLINE_WORKERS", "0")
    assert (ahead.workers(None), ahead.workers(2)) == (0, 2)  # the plugin's option wins
    monkeypatch.setenv("ROOFLINE_WORKERS", "two")
    with pytest.raises(RooflineError, match="ROOFLINE_WORKERS: must be a whole number of processes, got 'two'"):
        ahead.workers(None)


def test_no_cache_no_plan(monkeypatch):
    monkeypatch.setenv("ROOFLINE_CACHE", "0")
    assert ahead.plan([("a.md", PAGE)]) == []


# ---------------------------------------------------------------- the worker's answers

def run_worker(claims: Path, jobs: list[tuple[str, dict, str]]) -> list[str]:
    lines = io.StringIO("".join(
        __import__("json").dumps({"kind": k, "options": o, "key": x}) + "\n"
        for k, o, x in jobs))
    out = io.StringIO()
    ahead_worker.work(claims, lines, out)
    return out.getvalue().split()


def _warning_renderer(settings):
    logging.getLogger("mkdocs.plugins.roofline").warning("seeded warning")
    return "<p>drawn with a warning</p>"


def test_the_worker_draws_into_the_cache_what_the_door_would(cache, tmp_path):
    k = key("roofline-budget-table", TABLE)
    assert run_worker(tmp_path, [("roofline-budget-table", TABLE, k)]) == ["ok", k]
    drawn = buildcache.entry_path(cache, k).read_text(encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ROOFLINE_CACHE", "0")
        assert drawn == door.render_widget("roofline-budget-table", TABLE)


def test_a_taken_failed_or_warned_block_is_left_to_the_page(cache, tmp_path, monkeypatch):
    taken, failing = key("roofline-budget-table", TABLE), key("roofline-measurement", MEASURED)
    (tmp_path / taken).touch()  # claimed by the build's own process first
    monkeypatch.setitem(door.KINDS, "roofline-measurement", door.WidgetKind(
        door.KINDS["roofline-measurement"].settings, "test_ahead:_warning_renderer"))
    wrong_key = "0" * 64  # settings that no longer give the key planned
    out = run_worker(tmp_path, [("roofline-budget-table", TABLE, taken),
                                ("roofline-measurement", MEASURED, failing),
                                ("roofline-budget-table", {"table": "memory"}, wrong_key),
                                ("roofline-measurement", {"file": "nope.json"}, "1" * 64)])
    assert out == ["taken", taken, "warned", failing, "failed", wrong_key, "failed", "1" * 64]
    assert list(cache.rglob("*.html")) == []  # nothing stored but clean blocks


# ---------------------------------------------------------------- with a real worker

def test_claims_take_back_what_the_worker_has_not_started_and_wait_for_the_rest(cache):
    jobs = [("roofline-budget-table", TABLE, key("roofline-budget-table", TABLE)),
            ("roofline-measurement", MEASURED, key("roofline-measurement", MEASURED)),
            ("roofline-budget-table", {"table": "memory"},
             key("roofline-budget-table", {"table": "memory"}))]
    run = ahead.RenderAhead(docs_dir=Path("docs").resolve())
    run.give(jobs)
    try:
        assert run.claim(jobs[0][2]) is None  # the first is this process's (reserved)
        with run.changed:  # the worker has drawn the second (60 s: a hang guard only)
            assert run.changed.wait_for(lambda: jobs[1][2] in run.status, timeout=60), run.status
        second = run.claim(jobs[1][2])
        assert run.claim("f" * 64) is None  # not a job
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("ROOFLINE_CACHE", "0")
            assert second == door.render_widget("roofline-measurement", MEASURED)
        third = run.claim(jobs[2][2])
        assert third is None or "<table" in third  # taken back, or drawn by then
    finally:
        run.close()
    assert all(p.returncode is not None for p in run.procs) and not run.claims.exists()


def test_two_workers_draw_each_block_once(cache):
    jobs = [("roofline-budget-table", TABLE, key("roofline-budget-table", TABLE)),
            ("roofline-measurement", MEASURED, key("roofline-measurement", MEASURED)),
            ("roofline-budget-table", {"table": "memory"},
             key("roofline-budget-table", {"table": "memory"}))]
    run = ahead.RenderAhead(docs_dir=Path("docs").resolve(), workers=2)
    run.give(jobs)
    try:
        with run.changed:
            assert run.changed.wait_for(lambda: not run.running, timeout=60)
        assert len(run.procs) == 2
        assert run.status == {jobs[1][2]: "ok", jobs[2][2]: "ok"}  # the first is the build's
        assert sorted(p.stem for p in cache.rglob("*.html")) == sorted([jobs[1][2], jobs[2][2]])
    finally:
        run.close()


def test_a_worker_that_dies_leaves_every_block_to_the_page(cache):
    jobs = [("roofline-budget-table", TABLE, key("roofline-budget-table", TABLE)),
            ("roofline-measurement", MEASURED, key("roofline-measurement", MEASURED))]
    run = ahead.RenderAhead(docs_dir=Path("docs").resolve())
    run.give(jobs)
    try:
        for proc in run.procs:
            proc.kill()
        assert run.claim(jobs[1][2]) is None
    finally:
        run.close()


ROOF = {"hardware": "h100-sxm"}


def test_a_bokeh_block_is_left_to_the_worker_and_filled_from_its_copy(cache):
    from roofline.render import embed
    jobs = [("roofline-budget-table", TABLE, key("roofline-budget-table", TABLE)),
            ("roofline", ROOF, key("roofline", ROOF))]
    run = ahead.RenderAhead(docs_dir=Path("docs").resolve(), preload=True)
    run.give(jobs)
    rkey = jobs[1][2]
    settings = door.settings("roofline", ROOF)
    render = lambda: door.kind_of("roofline").renderer()(settings)  # noqa: E731
    try:
        page = run.defer(rkey, render)
        assert page is not None and run.defer(jobs[0][2], render) is None
        assert f'data-rl-deferred="{rkey}:0"' in page and "roofline-static" in page
        assert not embed.ITEM.search(page)   # no item drawn here
        with run.changed:   # the worker draws it (60 s: a hang guard only)
            assert run.changed.wait_for(lambda: rkey in run.status, timeout=60), run.status
        filled = embed.fill_deferred(page, run.items)
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("ROOFLINE_CACHE", "0")
            alone = door.render_widget("roofline", ROOF)
        assert filled == alone   # the same block as drawn whole in one process
        assert run.status[rkey] == "ok"   # its items drawn by the worker, and only them:
        drawn = ahead.items_path(run.claims, rkey).read_text()
        assert drawn.startswith('<script type="application/json" class="roofline-item">')
        assert '<div class="roofline-static">' not in drawn  # (the callback's code names it)
        # the whole block is cached for the next build, as drawn in one process
        assert buildcache.entry_path(cache, rkey).read_text() == alone
    finally:
        run.close()


def test_a_deferred_block_the_worker_failed_is_drawn_when_the_page_is_written(cache):
    from roofline.render import embed
    rkey = key("roofline", ROOF)
    run = ahead.RenderAhead(docs_dir=Path("docs").resolve())
    run.give([("roofline", ROOF, rkey)])
    for proc in run.procs:
        proc.kill()   # seeded: the worker dies before it draws anything
    settings = door.settings("roofline", ROOF)
    try:
        page = run.defer(rkey, lambda: door.kind_of("roofline").renderer()(settings))
        filled = embed.fill_deferred(page, run.items)
        assert embed.ITEM.search(filled) and not embed.DEFERRED.search(filled)
        assert buildcache.entry_path(cache, rkey).exists()   # and kept for the next build
    finally:
        run.close()


def test_a_first_build_starts_its_worker_early_only_when_a_page_has_a_fence(cache, monkeypatch):
    started = []
    monkeypatch.setattr(ahead, "RenderAhead", lambda **kw: started.append(kw) or
                        pytest.fail("a worker for a site with no fence of ours"))
    assert not cache.exists()   # a first build
    assert ahead.start([("index.md", "# No widgets\n\n```python\nx = 1\n```\n")],
                       workers=1, docs_dir=None) == 0
    assert started == []
    # seeded: a page with a fence does start one, before the plan (preload)
    monkeypatch.setattr(ahead, "RenderAhead", lambda **kw: started.append(kw) or
                        (_ for _ in ()).throw(RuntimeError("started")))
    with pytest.raises(RuntimeError, match="started"):
        ahead.start([("index.md", PAGE)], workers=1, docs_dir=None)
    assert started[0]["preload"] is True


def test_seeded_a_placeholder_no_build_will_fill_is_an_error():
    page = ('<script type="application/json" class="roofline-item" '
            f'data-rl-deferred="{"a" * 64}:0"></script>')
    assert ahead._active is None
    with pytest.raises(RuntimeError, match="deferred Bokeh items but no build"):
        ahead.fill(page)
    assert ahead.fill("<p>no items</p>") == "<p>no items</p>"


class _Drawing:
    """A stand-in for the build's RenderAhead: `done` are the keys the worker has reported."""

    def __init__(self, done: set[str]) -> None:
        self.done = done

    def ready(self, key: str) -> bool:
        return key in self.done

    def items(self, key: str) -> list[str]:
        assert key in self.done, "items() asked for before the worker reported it"
        return [f'{{"item": "{key[:4]}"}}']


def _placeholder(key: str) -> str:
    return f'<script type="application/json" class="roofline-item" data-rl-deferred="{key}:0"></script>'


def test_a_page_is_written_without_waiting_and_filled_after_the_last_page(tmp_path, monkeypatch):
    """on_post_page fills the items the worker has drawn and leaves the rest; on_post_build
    fills those into the written page: the same file as a page that had them all in time."""
    from types import SimpleNamespace

    from roofline.hosts.mkdocs_plugin import RooflinePlugin
    a, b = "a" * 64, "b" * 64
    html = f"<html><head></head><body>{_placeholder(a)}<p>text</p>{_placeholder(b)}</body></html>"
    monkeypatch.setattr(ahead, "stop", lambda: None)
    written = {}
    for name, done_at_first in (("late", {a}), ("in-time", {a, b})):
        site = tmp_path / name
        page = SimpleNamespace(url="lessons/one.html",
                               file=SimpleNamespace(abs_dest_path=str(site / "lessons/one.html")))
        config = SimpleNamespace(site_dir=str(site))
        plugin = RooflinePlugin()
        plugin.load_config({})
        drawing = _Drawing(set(done_at_first))
        monkeypatch.setattr(ahead, "_active", drawing)
        out = plugin.on_post_page(html, page=page, config=config)
        assert (embed_deferred := len(re.findall("data-rl-deferred", out))) == 2 - len(done_at_first)
        Path(page.file.abs_dest_path).parent.mkdir(parents=True)
        Path(page.file.abs_dest_path).write_text(out, encoding="utf-8")   # as MkDocs does
        drawing.done.add(b)   # the worker reports the last item
        plugin.on_post_build(config=config)
        written[name] = {p.relative_to(site).as_posix(): p.read_bytes()
                         for p in site.rglob("*") if p.is_file()}
        assert embed_deferred or not plugin._late
    assert written["late"] == written["in-time"]
    assert b"data-rl-deferred" not in written["late"]["lessons/one.html"]
    assert len([f for f in written["late"] if "/items/" in f]) == 2


def test_seeded_a_late_page_left_unfilled_is_caught(tmp_path, monkeypatch):
    """The check above fails when on_post_build does not fill late pages."""
    from types import SimpleNamespace

    from roofline.hosts.mkdocs_plugin import RooflinePlugin
    b = "b" * 64
    monkeypatch.setattr(ahead, "stop", lambda: None)
    site = tmp_path / "site"
    page = SimpleNamespace(url="one.html", file=SimpleNamespace(abs_dest_path=str(site / "one.html")))
    plugin = RooflinePlugin()
    plugin.load_config({})
    monkeypatch.setattr(ahead, "_active", _Drawing(set()))
    site.mkdir()
    Path(page.file.abs_dest_path).write_text(plugin.on_post_page(
        f"<html><head></head>{_placeholder(b)}</html>", page=page,
        config=SimpleNamespace(site_dir=str(site))), encoding="utf-8")
    plugin._late.clear()   # seeded: the page is forgotten
    plugin.on_post_build(config=SimpleNamespace(site_dir=str(site)))
    assert b"data-rl-deferred" in Path(page.file.abs_dest_path).read_bytes()


def test_fill_without_waiting_leaves_only_what_the_worker_still_draws(monkeypatch):
    a, b = "a" * 64, "b" * 64
    monkeypatch.setattr(ahead, "_active", _Drawing({a}))
    out = ahead.fill(_placeholder(a) + _placeholder(b), wait=False)
    assert '{"item": "aaaa"}' in out and out.endswith(_placeholder(b))
    ahead._active.done.add(b)
    assert "data-rl-deferred" not in ahead.fill(out)


# ---------------------------------------------------------------- the site

def differences(a: Path, b: Path) -> list[str]:
    """Files (relative paths) that one site has and the other lacks, or that differ."""
    files = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files |= {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    return sorted(f for f in files if not (a / f).is_file() or not (b / f).is_file()
                  or (a / f).read_bytes() != (b / f).read_bytes())


def test_differences_names_an_edited_a_missing_and_an_extra_file(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for site in (a, b):
        (site / "x").mkdir(parents=True)
        (site / "x" / "same.html").write_text("same")
        (site / "edited.html").write_text("one")
    (b / "edited.html").write_text("two")
    (a / "only-a.js").write_text("")
    (b / "x" / "only-b.css").write_text("")
    assert differences(a, b) == ["edited.html", "only-a.js", "x/only-b.css"]
    assert differences(a, a) == []


def test_the_cold_build_drew_ahead_and_is_the_same_site_without_it(built_site, tmp_path):
    log = (built_site.parent / "log.txt").read_text(encoding="utf-8")
    m = re.search(r"roofline: (\d+) of (\d+) widget block\(s\) drawn ahead", log)
    assert m, log[-2000:]
    assert 0 < int(m[1]) <= int(m[2])
    # a cold build's own process leaves every Bokeh layout to the worker
    assert re.search(r"\d+ Bokeh layout\(s\) left to it \(this process never imported Bokeh\)",
                     log), log[-2000:]
    alone = tmp_path / "site"
    proc = build_site(alone, env={"ROOFLINE_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "drawn ahead" not in proc.stderr
    assert differences(built_site, alone) == []
