"""The offline zip has no dead link: its own copy of the home page cannot link to the zip (the zip
does not hold itself), so that link becomes its text and a note."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from lesson_site import build
from lesson_site.build import ZIP_NOTE, ZIP_ROOT, ZIP_URI, write_zip
from sitecheck import broken_links

ZIP_NAME = Path(ZIP_URI).name


def unpack(site: Path, dest: Path) -> Path:
    with zipfile.ZipFile(site / ZIP_URI) as zf:
        zf.extractall(dest)
    return dest / ZIP_ROOT


@pytest.fixture
def tiny_site(tmp_path) -> Path:
    site = tmp_path / "site"
    (site / "downloads").mkdir(parents=True)
    (site / "lessons").mkdir()
    (site / "index.html").write_text(
        '<h1 id="top">Home</h1><p>Download <a href="downloads/' + ZIP_NAME + '">the whole '
        'site as one zip</a>, or read <a href="lessons/one.html#part">the lesson</a>.</p>',
        encoding="utf-8")
    (site / "lessons" / "one.html").write_text(
        '<h2 id="part">Part</h2><a class="md-button" href="../downloads/' + ZIP_NAME + '">zip'
        '</a> <a href="../index.html#top">home</a>', encoding="utf-8")
    (site / "downloads" / "hardware.csv").write_text("id\n", encoding="utf-8")
    (site / ZIP_URI).write_bytes(b"")
    return site


def test_zipped_pages_have_no_dead_link(tiny_site, tmp_path):
    before = (tiny_site / "index.html").read_bytes()
    write_zip(tiny_site)
    unpacked = unpack(tiny_site, tmp_path / "unpacked")
    assert broken_links(unpacked) == []
    home = (unpacked / "index.html").read_text(encoding="utf-8")
    assert ('Download <span class="rl-zip-note">the whole site as one zip</span>'
            f'{ZIP_NOTE}, or read <a href="lessons/one.html#part">') in home
    assert ZIP_NAME not in (unpacked / "lessons" / "one.html").read_text(encoding="utf-8")
    assert (tiny_site / "index.html").read_bytes() == before  # the site itself keeps its link
    assert (unpacked / "downloads" / "hardware.csv").exists()


def test_link_check_reports_the_zip_link_when_it_is_kept(tiny_site, tmp_path, monkeypatch):
    """The seeded defect: zipped pages copied unchanged; the check names both dead links."""
    monkeypatch.setattr(build, "zipped_copy", lambda name, data: data)
    write_zip(tiny_site)
    dead = broken_links(unpack(tiny_site, tmp_path / "unpacked"))
    assert len(dead) == 2 and all(ZIP_NAME in d and "missing file" in d for d in dead), dead


@pytest.mark.slow
def test_the_real_zip_has_no_dead_link(built_site, tmp_path):
    unpacked = unpack(built_site, tmp_path)
    assert len(list(unpacked.rglob("*.html"))) > 5
    assert broken_links(unpacked) == []
    assert ZIP_NOTE in (unpacked / "index.html").read_text(encoding="utf-8")
