"""The on-disk build cache of widget HTML (roofline.hosts.buildcache): warm output is byte-identical
to cold, a warm render never imports bokeh, and any input's edit misses. In-process (plus one
short subprocess for sys.modules), no site build."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roofline.model import datafile as _toml
from roofline.hosts import buildcache, door

WIDGETS = {
    "roofline": {"hardware": "a100-sxm-80gb", "ops": ["rmsnorm", "gemm-train"], "ai": 2},
    "roofline-overlay": {"measurement": "measurement-build-machine.json"},
    "roofline-measurement": {"file": "measurement-build-machine.json", "show": "ops"},
    "roofline-budget": {"model": "llama-2-7b", "phase": "decode", "batch": 32},
    "roofline-budget-table": {"table": "fusions"},
}


def render(kind: str) -> str:
    name = "roofline" if kind == "roofline-overlay" else kind
    return door.render_widget(name, WIDGETS[kind], where="t.md:1")


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


@pytest.fixture(scope="module")
def cold_and_warm(tmp_path_factory):
    """Each kind rendered cold, then warm, into an empty cache folder."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("ROOFLINE_CATALOG", raising=False)
        mp.setenv("ROOFLINE_CACHE", "1")
        mp.setenv("ROOFLINE_CACHE_DIR", str(folder))
        cold = {kind: render(kind) for kind in WIDGETS}
        written = len(entries(folder))
        warm = {kind: render(kind) for kind in WIDGETS}
    return folder, cold, warm, written


@pytest.mark.parametrize("kind", list(WIDGETS))
def test_warm_output_is_byte_identical_to_cold(kind, cold_and_warm):
    folder, cold, warm, written = cold_and_warm
    assert written == len(WIDGETS)
    assert 'class="roofline-block"' in cold[kind] or "<table>" in cold[kind]
    assert warm[kind].encode() == cold[kind].encode()


def test_a_warm_render_never_imports_bokeh(cold_and_warm):
    """What a warm `mkdocs build` / serve rebuild does per fence: the plugin module and every
    fence kind through Markdown, in a fresh interpreter."""
    folder = cold_and_warm[0]
    blocks = "\n".join(f"```{'roofline' if k == 'roofline-overlay' else k}\n"
                       + "".join(f"{key}: {json.dumps(v)}\n" for key, v in opts.items())
                       + "```\n" for k, opts in WIDGETS.items())
    code = f"""
import sys, markdown
import roofline.hosts.mkdocs_plugin
from roofline.hosts import fences
html = markdown.markdown({blocks!r}, extensions=["pymdownx.superfences"], extension_configs={{
    "pymdownx.superfences": {{"custom_fences": fences.custom_fences()}}}})
print(html.count('class="roofline-block"'), html.count("<table>"))
print(sorted(m for m in sys.modules if m == "bokeh" or m.startswith("bokeh.")))
"""
    env = {**os.environ, "ROOFLINE_CACHE_DIR": str(folder), "ROOFLINE_CACHE": "1"}
    env.pop("ROOFLINE_CATALOG", None)
    # Twice, checking the second: keys must agree between two processes (as between two
    # builds), and a source edit by someone else mid-test only makes the first run cold.
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
    counts, imported = proc.stdout.strip().splitlines()
    assert counts.split() == ["3", "2"], proc.stdout
    assert imported == "[]", imported


def test_cache_off_or_unset_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFLINE_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("ROOFLINE_CACHE", "0")
    render("roofline-measurement")
    assert not (tmp_path / "c").exists()
    assert buildcache.Cache.here(tmp_path / "d") is None  # off overrides the plugin's folder too
    monkeypatch.delenv("ROOFLINE_CACHE")
    monkeypatch.delenv("ROOFLINE_CACHE_DIR")
    assert buildcache.Cache.here() is None  # no plugin, no variable: the CLI and Sphinx render


def test_an_edit_misses_and_the_same_content_hits_again(tmp_path, monkeypatch):
    """Keyed by content: an edited data file renders anew; restoring it (a newer mtime, the
    same bytes) finds the first entry again."""
    data = tmp_path / "data"
    shutil.copytree(_toml.DATA_DIR, data)
    monkeypatch.setattr(_toml, "DATA_DIR", data)
    monkeypatch.delenv("ROOFLINE_CATALOG", raising=False)
    monkeypatch.setenv("ROOFLINE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ROOFLINE_CACHE", raising=False)
    first = render("roofline-budget-table")
    hw = data / "hardware.toml"
    original = hw.read_text(encoding="utf-8")
    hw.write_text(original.replace('name = "NVIDIA H100 SXM5 80GB"',
                                   'name = "NVIDIA H100 SXM5 80GB (edited)"'), encoding="utf-8")
    assert render("roofline-budget-table") == first  # the name is not in this table, but
    assert len(entries(tmp_path / "cache")) == 2  # the key changed: rendered again
    hw.write_text(original, encoding="utf-8")
    assert render("roofline-budget-table") == first
    assert len(entries(tmp_path / "cache")) == 2  # same bytes: the first entry, no new one


def test_the_key_covers_every_input(monkeypatch, tmp_path):
    from roofline.widgets.roofline.settings import RooflineSettings
    base = RooflineSettings()
    key = buildcache.key_of("roofline", base)
    assert key == buildcache.key_of("roofline", RooflineSettings())
    assert key != buildcache.key_of("roofline-x", base)
    assert key != buildcache.key_of("roofline", base.replace(ai=2.0))
    monkeypatch.setattr(buildcache, "_version", lambda dist: "9.9.9")
    assert key != buildcache.key_of("roofline", base)  # bokeh's (or our) version
    monkeypatch.undo()
    monkeypatch.setattr(buildcache, "_code_hash", lambda: "edited")
    assert key != buildcache.key_of("roofline", base)  # our Python or JavaScript
    assert key != buildcache.key_of("roofline", base, code="edited")  # a build's own read


def test_a_build_reads_our_code_once_and_the_next_build_again(monkeypatch, tmp_path):
    """The plugin's Cache (one per build) hashes our code once for all its blocks; a new one
    (a `serve` rebuild) reads it again, so an edit to our code misses."""
    calls = []
    monkeypatch.setattr(buildcache, "_code_hash", lambda: calls.append(1) or str(len(calls)))
    monkeypatch.delenv("ROOFLINE_CACHE", raising=False)
    monkeypatch.delenv("ROOFLINE_CACHE_DIR", raising=False)
    first = buildcache.Cache(tmp_path)
    for _ in range(3):
        door.render_widget("roofline-budget-table", WIDGETS["roofline-budget-table"],
                           cache=first)
    assert len(calls) == 1 and len(entries(tmp_path)) == 1
    door.render_widget("roofline-budget-table", WIDGETS["roofline-budget-table"],
                       cache=buildcache.Cache(tmp_path))
    assert len(calls) == 2 and len(entries(tmp_path)) == 2  # the "edited" code missed


def test_the_plugin_caches_beside_mkdocs_yml(monkeypatch):
    from mkdocs.config import load_config
    monkeypatch.delenv("ROOFLINE_CACHE_DIR", raising=False)
    monkeypatch.delenv("ROOFLINE_CACHE", raising=False)
    fixture = Path(__file__).resolve().parent / "fixtures" / "plugin-site"
    config = load_config(str(fixture / "mkdocs.yml"))
    config.plugins.on_config(config)  # every plugin's, in priority order
    cache = config.plugins["roofline"].cache
    assert cache.folder == fixture / ".cache" / "roofline"
    # its fences draw through the plugin's cache: nothing module-wide was set
    (fence,) = [f["format"] for f in config.mdx_configs["pymdownx.superfences"]["custom_fences"]
                if f["name"] == "roofline-budget-table"]
    assert fence.__closure__ and cache in [c.cell_contents for c in fence.__closure__]
    assert buildcache.Cache.here() is None
    ignored = (Path(__file__).resolve().parent.parent / ".gitignore").read_text()
    assert ".cache/" in ignored.splitlines()


def test_old_entries_are_pruned_and_hits_stay(tmp_path, monkeypatch):
    import time
    monkeypatch.setenv("ROOFLINE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ROOFLINE_CACHE", raising=False)
    render("roofline-measurement")
    (a,) = entries(tmp_path)
    render("roofline-budget-table")
    (b,) = set(entries(tmp_path)) - {a}
    past = time.time() - (buildcache.MAX_AGE_DAYS + 1) * 86400
    for entry in (a, b):
        os.utime(entry, (past, past))
    render("roofline-budget-table")  # a hit refreshes its entry's date
    assert buildcache.prune(tmp_path) == 1
    assert entries(tmp_path) == [b]
