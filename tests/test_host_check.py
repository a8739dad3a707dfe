"""The plugin warns, once, when the host site will load web fonts or other outside assets our
plots don't need; never for this site or the documented offline setup. In-process: MkDocs'
config loading and on_config events only, no build."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from mkdocs.config import load_config

from roofline.cli import main
from roofline.hosts.host_check import outside_assets
from sitecheck import EMBED_MD, doc_block

ROOT = Path(__file__).resolve().parent.parent
LOGGER = "mkdocs.plugins.roofline"
MATERIAL = "site_name: t\ntheme:\n  name: material\n"


def warnings_for(path: Path, caplog) -> list[str]:
    """Load a config and run every plugin's on_config, as `mkdocs build` does first."""
    caplog.clear()
    cfg = load_config(str(path))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        cfg.plugins.on_config(cfg)
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def host(tmp_path: Path, yml: str) -> Path:
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text(yml, encoding="utf-8")
    return tmp_path / "mkdocs.yml"


def test_warns_once_for_materials_default_fonts(tmp_path, caplog):
    found = warnings_for(host(tmp_path, MATERIAL + "plugins: [search, roofline]\n"), caplog)
    assert len(found) == 1
    assert "web fonts from Google Fonts (theme.font: Roboto, Roboto Mono" in found[0]
    assert "set `theme.font: false` and add the `offline` plugin" in found[0]


def test_the_docs_show_the_warning_exactly_as_logged(tmp_path, caplog):
    shown = EMBED_MD.read_text(encoding="utf-8").split("WARNING -  ", 1)[1].split("\n", 1)[0]
    assert warnings_for(host(tmp_path, MATERIAL + "plugins: [search, roofline]\n"),
                        caplog) == [shown]


def test_no_warning_for_this_site(caplog):
    assert warnings_for(ROOT / "mkdocs.yml", caplog) == []


def test_no_warning_for_the_documented_setups(tmp_path, caplog):
    assert warnings_for(host(tmp_path, doc_block("mkdocs.yml")), caplog) == []
    offline = host(tmp_path, doc_block("mkdocs.yml (offline)"))
    assert warnings_for(offline, caplog) == []
    command = doc_block("copy the polyfill into the docs folder").split()
    assert command[:3] == ["roofline", "export", "--shim-only"]
    out = tmp_path / command[command.index("--out") + 1]
    assert main(command[1:-1] + [str(out)]) == 0
    polyfill = load_config(str(offline)).extra["polyfills"][0]
    assert (tmp_path / "docs" / polyfill).is_file()
    assert (tmp_path / "docs" / Path(polyfill).parent / "iframe-worker.LICENSE").is_file()


@pytest.mark.parametrize("extra, phrase", [
    ("extra_javascript: [https://cdn.example.org/x.js]\n",
     "extra_javascript https://cdn.example.org/x.js"),
    ("extra_css: ['//cdn.example.org/x.css']\n", "extra_css //cdn.example.org/x.css"),
    ("extra:\n  analytics:\n    provider: google\n    property: G-X\n",
     "an analytics tag (google)"),
    ("repo_url: https://example.org/me/notes\n", "repository facts from the host of repo_url"),
])
def test_names_each_outside_asset(tmp_path, caplog, extra, phrase):
    yml = MATERIAL + "  font: false\nplugins: [search, roofline]\n" + extra
    found = warnings_for(host(tmp_path, yml), caplog)
    assert len(found) == 1 and phrase in found[0], found


@pytest.mark.parametrize("order", ["offline, roofline", "roofline, offline"])
def test_offline_plugin_without_a_vendored_polyfill(tmp_path, caplog, order):
    yml = MATERIAL + f"  font: false\nplugins: [search, {order}]\n"
    found = warnings_for(host(tmp_path, yml), caplog)
    assert len(found) == 1 and "iframe-worker shim from unpkg.com" in found[0], found
    assert "extra.polyfills https://" not in found[0]  # named once, whichever runs first


def test_one_warning_lists_everything(tmp_path, caplog):
    yml = MATERIAL + "plugins: [search, offline, roofline]\nextra_javascript: [https://a.b/x.js]\n"
    found = warnings_for(host(tmp_path, yml), caplog)
    assert len(found) == 1
    assert all(p in found[0] for p in ("web fonts", "unpkg.com", "https://a.b/x.js"))


def test_privacy_plugin_and_other_themes_are_quiet(tmp_path, caplog):
    assert warnings_for(host(tmp_path, MATERIAL + "plugins: [search, privacy, roofline]\n"),
                        caplog) == []
    assert warnings_for(host(tmp_path, "site_name: t\ntheme: {name: mkdocs}\n"
                                       "plugins: [search, roofline]\n"), caplog) == []


def test_outside_assets_of_this_site_is_empty():
    cfg = load_config(str(ROOT / "mkdocs.yml"))
    cfg.plugins.on_config(cfg)
    assert outside_assets(cfg) == []


@pytest.mark.slow
def test_a_missing_polyfill_fails_the_strict_build(tmp_path, caplog, monkeypatch):
    """Issue #29: the docs' offline setup, built strict without its copy step, passed while
    every page asked for a polyfill that was not there. Now a warning fails it; after the
    documented copy, it builds."""
    from mkdocs.commands.build import build
    from mkdocs.exceptions import Abort

    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    offline = host(tmp_path, doc_block("mkdocs.yml (offline)"))
    (tmp_path / "docs" / "index.md").write_text("# Notes\n", encoding="utf-8")
    polyfill = load_config(str(offline)).extra["polyfills"][0]

    def strict_build() -> None:
        build(load_config(str(offline), site_dir=str(tmp_path / "site"), strict=True))

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER), pytest.raises(Abort, match="strict"):
        strict_build()
    assert [r.getMessage() for r in caplog.records if r.name == LOGGER] == [
        f"roofline: extra.polyfills names {polyfill}, which is no file of this site: every page "
        "would ask for it in vain (copy it there with `roofline export --shim-only --out "
        "docs/assets/vendor`)."]
    command = doc_block("copy the polyfill into the docs folder").split()
    assert main(command[1:-1] + [str(tmp_path / command[-1])]) == 0
    strict_build()
    assert (tmp_path / "site" / polyfill).is_file()
