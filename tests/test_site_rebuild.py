"""Change one figure in a copy of the catalog, rebuild a copy of the project, and watch the
lesson follow: prose numbers, tables, the plot's data, the answers. Nothing is typed twice."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, build_site
from roofline.model import datafile as _toml
from roofline import fmt
from site_helpers import LESSON, main_text, tables

NEW_BW = 2.0e12  # H100 SXM HBM: 3.35 TB/s in the catalog; the copy says 2 TB/s


def _plot_items(page: Path) -> str:
    """The plots' data on a page: inline JSON items, or the item files they name (data-src)."""
    html = page.read_text(encoding="utf-8")
    inline = re.findall(r'<script type="application/json" class="roofline-item"[^>]*>(.*?)</script>',
                        html, re.S)
    files = re.findall(r'class="roofline-item"[^>]*data-src="([^"]+)"', html)
    return "".join(inline) + "".join((page.parent / f).read_text(encoding="utf-8") for f in files)


@pytest.mark.slow
def test_changing_h100_bandwidth_changes_the_lesson(built_site, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(
        ".git", "node_modules", "site", "test-output", "__pycache__", "*.egg-info"))
    hw = project / "site_src/roofline/data/hardware.toml"
    text = hw.read_text()
    old = 'bandwidth_bytes_per_s = 3.35e12, source = "D1"'  # H100 SXM's HBM, on one line
    assert text.count(old) == 1, "the H100 SXM HBM entry changed shape; update this test"
    hw.write_text(text.replace(old, old.replace("3.35e12", f"{NEW_BW:.3g}")))
    assert (_toml.DATA_DIR / "hardware.toml").read_text() != hw.read_text()

    proc = build_site(tmp_path / "site", cwd=project, config=project / "mkdocs.yml",
                      env={"ROOFLINE_CATALOG": str(hw)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, after = built_site / LESSON, tmp_path / "site" / LESSON
    t_before, t_after = main_text(built_site / LESSON), main_text(tmp_path / "site" / LESSON)

    ridge = 989.4e12 / NEW_BW
    # prose and §2/§3 numbers
    # the client's "3.3 TB/s" stays as written (issue #46); its correction note follows the model
    assert "the slow tier: 3.3 TB/s sounds" in t_before and "the slow tier: 3.3 TB/s" in t_after
    assert "its bandwidth, decimal, is 3.35 TB/s" in t_before
    assert "its bandwidth, decimal, is 2 TB/s" in t_after
    assert t_after.count("3.35 TB/s") < t_before.count("3.35 TB/s")
    assert f"≈ {fmt.num(ridge)}, call it ~{fmt.approx(ridge)}" in t_after
    assert "call it ~300 FLOPs for every byte" in t_before
    assert f"call it ~{fmt.approx(ridge)} FLOPs for every byte" in t_after
    # §1 tier table and §4 op table
    tiers_after = next(t for t in tables(tmp_path / "site" / LESSON) if t[0][0] == "Tier")
    assert any("2 TB/s" in row for row in tiers_after)
    ops = lambda path: next(t for t in tables(path) if t[0][:2] == ["Op", "Shapes"])  # noqa: E731
    rms_before, rms_after = ops(built_site / LESSON)[1], ops(tmp_path / "site" / LESSON)[1]
    assert rms_before[6] == "3.35" and rms_after[6] == "2"
    # the plot's data: the H100 SXM's entry (the H800 keeps its own 3.35 TB/s)
    h100_bw = '"NVIDIA H100 SXM5 80GB"],["bw",{}]'.format
    assert h100_bw("3350000000000.0") in _plot_items(before)
    assert h100_bw("3350000000000.0") not in _plot_items(after)
    assert h100_bw("2000000000000.0") in _plot_items(after)
    # checkpoint answers and interview prompts
    assert "min(peak, 100 × 2 TB/s) = 200 TFLOP/s" in t_after
    assert "1 × 2 TB/s ≈ 2 TFLOP/s" in t_after
    # #15's teaching: the worked RMSNorm, the tokens rule and its per-chip table, the exercises
    # (the op zoo's RMSNorm: 16,384 × 4,096 bf16 in and out, 268 MB, at the running example)
    assert "268 MB ÷ 3.35 TB/s = 80.1 µs" in t_before
    assert "268 MB ÷ 2 TB/s = 134 µs" in t_after
    assert "in bf16: ≈ 295 tokens per step" in t_before
    assert "in bf16: ≈ 495 tokens per step" in t_after
    chips = lambda path: next(t for t in tables(path) if t[0][:2] == ["Chip", "Tokens, bf16"])  # noqa: E731
    h100 = lambda t: next(r for r in t if r[0].startswith("NVIDIA H100 SXM"))  # noqa: E731
    # the table's tokens are whole tokens at or past the threshold (a threshold rounds up)
    assert h100(chips(before))[1] == "296" and h100(chips(after))[1] == "495"
    assert "13.5 GB ÷ 3.35 TB/s = 4.02 ms per token" in t_before
    assert "13.5 GB ÷ 2 TB/s = 6.74 ms per token, so at most 148 tokens/s" in t_after
    # the downloads follow too
    assert "2000000000000" in (tmp_path / "site/downloads/hardware.csv").read_text()
