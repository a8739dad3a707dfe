"""Quality gates on the built site: reproducible to the byte, valid HTML (Nu validator, exact
allow-list), no broken internal link or anchor, nothing loaded from another host, and bad data
fails the build naming file and field while the previous site stays as it was. Each gate is a
function in tests/sitecheck.py; tests/test_quality_gates.py shows each one failing on a seeded
defect."""

from __future__ import annotations

import importlib.util
import re
import shutil

import pytest
from mkdocs.exceptions import PluginError

from conftest import ROOT, build_site
from roofline.errors import RooflineError
from lesson_site import build
from sitecheck import (Parsed, allowed_html_messages, broken_links, cdn_mentions,
                       differing_files, external_resources, html_problems, pages, tree_digest,
                       validate_html)

DATA = ROOT / "site_src" / "roofline" / "data"


@pytest.mark.slow
def test_two_clean_builds_are_byte_identical(built_site, tmp_path):
    again = tmp_path / "elsewhere" / "site"
    proc = build_site(again)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert differing_files(built_site, again) == []


@pytest.mark.slow
def test_html_validates_apart_from_the_listed_material_findings(built_site):
    files = pages(built_site)
    assert len(files) >= 8
    findings = validate_html(files)
    assert html_problems(findings) == []
    # The allow-list is exact: every entry is still printed (else it hides nothing and goes).
    assert {f.message for f in findings} == allowed_html_messages()


@pytest.mark.slow
def test_no_broken_internal_links_or_anchors(built_site):
    parsed = Parsed()
    assert broken_links(built_site, parsed) == []
    assert len(parsed) == len(pages(built_site))  # each page parsed once, not once per link


@pytest.mark.slow
def test_nothing_is_loaded_from_another_host(built_site):
    parsed = Parsed()
    assert external_resources(built_site, parsed) == []
    assert cdn_mentions(built_site) == []


# ---------------------------------------------------------------- bad data, before any folder

BROKEN_CATALOG_EDITS = [
    ("bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = -1.0", "bandwidth_bytes_per_s"),
    ('id = "h100-pcie"', 'id = "h100-sxm"', "duplicate id"),
    ("flops_per_s = 989.4e12", "flops_per_s = 989.4", "flops_per_s"),
]


def _broken_catalog(tmp_path, old: str, new: str):
    catalog = tmp_path / "hardware.toml"
    text = (DATA / "hardware.toml").read_text(encoding="utf-8")
    assert old in text, f"{old!r} is no longer in hardware.toml; update this test"
    catalog.write_text(text.replace(old, new, 1), encoding="utf-8")
    shutil.copy(DATA / "precisions.toml", tmp_path / "precisions.toml")
    return catalog


def _hook():
    spec = importlib.util.spec_from_file_location("roofline_site_hook",
                                                  ROOT / "hooks" / "roofline_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("old, new, field", BROKEN_CATALOG_EDITS)
def test_bad_catalog_fails_before_the_build_touches_a_folder(tmp_path, monkeypatch, old, new,
                                                            field):
    """In-process: the hook's first step (on_pre_build, before MkDocs empties site_dir) refuses
    the catalog as one PluginError line naming the file and the field."""
    catalog = _broken_catalog(tmp_path, old, new)
    monkeypatch.setenv("ROOFLINE_CATALOG", str(catalog))
    with pytest.raises(RooflineError) as err:
        build.check_inputs()
    assert str(catalog) in str(err.value) and field in str(err.value)
    with pytest.raises(PluginError) as plugin_err:
        _hook().on_pre_build(config=None)
    message = str(plugin_err.value)
    assert message.startswith("roofline: ") and "\n" not in message
    assert str(catalog) in message and field in message


@pytest.mark.slow
def test_failed_build_names_the_field_and_leaves_the_site_intact(built_site, tmp_path):
    """End to end, once: `mkdocs build` against a bad catalog exits non-zero with no
    traceback, and the site folder it would have replaced is byte-for-byte as it was."""
    old, new, field = BROKEN_CATALOG_EDITS[1]
    (tmp_path / "cat").mkdir()
    catalog = _broken_catalog(tmp_path / "cat", old, new)
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    before = tree_digest(site)
    proc = build_site(site, env={"ROOFLINE_CATALOG": str(catalog)})
    assert proc.returncode != 0
    log = proc.stdout + proc.stderr
    assert str(catalog) in log and field in log, log[-2000:]
    assert "Traceback" not in log, log[-3000:]
    assert tree_digest(site) == before
    assert not [p for p in site.parent.iterdir() if re.match(r"\.site\.", p.name)]
