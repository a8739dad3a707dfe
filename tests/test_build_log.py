"""The build log names the output folder the reader asked for, not the hidden staging folder
the hook builds into (`.site.site.<pid>`). One tiny in-process build through the real hook
(about 0.6 s of CPU), the way `mkdocs build` runs it."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config

from lesson_site import build as site_build

ROOT = Path(__file__).resolve().parent.parent


def build_log(tmp_path: Path, caplog) -> tuple[list[str], Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# A page\n\nText.\n", encoding="utf-8")
    site = tmp_path / "site"
    cfg = load_config(config_file=io.StringIO(
        f"site_name: t\ndocs_dir: {docs}\nsite_dir: {site}\nuse_directory_urls: false\n"
        f"theme: {{name: mkdocs}}\nhooks: [{ROOT / 'hooks' / 'roofline_site.py'}]\n"))
    cfg.plugins.on_startup(command="build", dirty=False)  # as `mkdocs build` does
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        build(cfg)
    return [r.getMessage() for r in caplog.records if r.name.startswith("mkdocs")], site


def test_build_log_names_the_output_folder(tmp_path, caplog):
    messages, site = build_log(tmp_path, caplog)
    assert f"Building documentation to directory: {site}" in messages, messages
    assert not [m for m in messages if site_build.STAGE_PREFIX in m]
    assert (site / "index.html").exists()  # published where the log says
    assert not list(tmp_path.glob(f"{site_build.STAGE_PREFIX}*"))
    # The rewrite is undone after the build: later logs are not touched.
    stage = site_build.stage_dir(site)
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        logging.getLogger("mkdocs.commands.build").info("after %s", stage)
    assert caplog.records[-1].getMessage() == f"after {stage}"


def test_without_the_rewrite_the_log_shows_the_staging_folder(tmp_path, caplog, monkeypatch):
    """The seeded defect: the gate above fails if the hook stops rewriting the log."""
    monkeypatch.setattr(site_build, "log_real_folder", lambda stage, target: lambda: None)
    messages, _ = build_log(tmp_path, caplog)
    assert [m for m in messages if m.startswith("Building documentation to directory: ")
            and f"{site_build.STAGE_PREFIX}site." in m]


@pytest.fixture(autouse=True)
def _quiet_mkdocs_2_banner(monkeypatch):
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
