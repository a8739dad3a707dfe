"""A bad marker on a page fails `mkdocs build --strict` with the page, line and field named,
and the site that was there before is left exactly as it was (staged build)."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT, build_site
from sitecheck import tree_digest

LESSON_MD = "docs/lessons/06-gpus-the-hardware-youre-renting.md"


@pytest.mark.slow
def test_unknown_marker_fails_naming_page_and_keeps_old_site(built_site, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(
        ".git", "node_modules", "site", "test-output", "__pycache__", "*.egg-info"))
    md = project / LESSON_MD
    text = md.read_text()
    md.write_text(text.replace("<!-- rl:launch -->", "<!-- rl:hbm_gigabytes -->", 1))
    line = text[:text.index("<!-- rl:launch -->")].count("\n") + 1
    site = tmp_path / "out" / "site"
    shutil.copytree(built_site, site)
    before = tree_digest(site)

    proc = build_site(site, cwd=project, config=project / "mkdocs.yml")
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"{LESSON_MD}: entry 'line {line}': field 'rl:hbm_gigabytes'" in log, log[-2000:]
    assert "Traceback" not in log
    assert tree_digest(site) == before
    assert [p.name for p in site.parent.iterdir()] == ["site"]
