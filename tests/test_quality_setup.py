"""The README's test command installs each Debian package only when its tool is missing: each
guard in scripts/test fires on its own. Run with ROOFLINE_TEST_DRY_RUN=1 (print the apt
packages, stop) and a PATH of stub tools with one or more hidden."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import ROOT

TOOLS = {"chromium": "chromium", "java": "default-jre-headless", "node": "nodejs",
         "npm": "npm"}


def dry_run(tmp_path, present: set[str]) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    for tool in present:
        stub = bin_dir / tool
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
    proc = subprocess.run([str(bin_dir / "bash"), str(ROOT / "scripts" / "test")],
                          env={"PATH": str(bin_dir), "ROOFLINE_TEST_DRY_RUN": "1"},
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize("hidden", sorted(TOOLS))
def test_each_guard_fires_alone(tmp_path, hidden):
    out = dry_run(tmp_path, set(TOOLS) - {hidden})
    assert out == f"apt-get install: {TOOLS[hidden]}"


def test_nothing_installed_when_every_tool_is_there(tmp_path):
    assert dry_run(tmp_path, set(TOOLS)) == "apt-get install: (nothing missing)"


def test_a_bare_machine_gets_all_four(tmp_path):
    assert dry_run(tmp_path, set()) == (
        "apt-get install: chromium default-jre-headless nodejs npm")


def test_ci_runs_the_readme_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test" in ci
