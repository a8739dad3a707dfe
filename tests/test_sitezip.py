"""The site zip's own writer (members deflated in parallel) writes the bytes zipfile writes."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from lesson_site import sitezip

WHEN = (1980, 1, 1, 0, 0, 0)


def _files(root: Path) -> list[tuple[str, Path]]:
    (root / "a").mkdir(parents=True)
    made = {"index.html": b"<p>home</p>" * 500, "a/empty.txt": b"",
            "a/noise.bin": os.urandom(70_000), "a/one.js": b"let x = 1;\n"}
    for rel, data in made.items():
        (root / rel).write_bytes(data)
    return [(f"site/{rel}", root / rel) for rel in sorted(made)]


def _with_zipfile(target: Path, members, content) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, path in members:
            info = zipfile.ZipInfo(name, WHEN)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            zf.writestr(info, content(path.name, path.read_bytes()))


def test_the_parallel_writer_writes_what_zipfile_writes(tmp_path):
    members = _files(tmp_path / "in")
    upper = lambda name, data: data.upper() if name.endswith(".html") else data  # noqa: E731
    sitezip.write(tmp_path / "ours.zip", members, upper, WHEN)
    _with_zipfile(tmp_path / "theirs.zip", members, upper)
    assert (tmp_path / "ours.zip").read_bytes() == (tmp_path / "theirs.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "ours.zip") as zf:
        assert zf.testzip() is None
        assert zf.read("site/index.html") == b"<P>HOME</P>" * 500
        assert [i.filename for i in zf.infolist()] == [n for n, _ in members]


def test_seeded_a_wrong_crc_is_caught_by_the_comparison_and_by_unzip(tmp_path, monkeypatch):
    members = _files(tmp_path / "in")
    same = lambda name, data: data  # noqa: E731
    real = sitezip._deflate
    monkeypatch.setattr(sitezip, "_deflate", lambda data: (real(data)[0], real(data)[1] ^ 1))
    sitezip.write(tmp_path / "ours.zip", members, same, WHEN)
    _with_zipfile(tmp_path / "theirs.zip", members, same)
    assert (tmp_path / "ours.zip").read_bytes() != (tmp_path / "theirs.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "ours.zip") as zf, pytest.raises(zipfile.BadZipFile):
        zf.read("site/index.html")


def test_a_name_outside_ascii_is_refused(tmp_path):
    (tmp_path / "é.txt").write_bytes(b"x")
    with pytest.raises(ValueError, match="not an ASCII name"):
        sitezip.write(tmp_path / "z.zip", [("é.txt", tmp_path / "é.txt")],
                      lambda n, d: d, WHEN)
