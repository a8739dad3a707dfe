"""The README's test command installs each Debian package only when its tool is missing: each
guard in scripts/test fires on its own. The script runs up to its apt-get step
(ROOFLINE_TEST_APT_ONLY=1) on a PATH of stub tools, one or more hidden, with a stub apt-get
that records how it was called."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import ROOT

TOOLS = {"chromium": "chromium", "java": "default-jre-headless", "node": "nodejs",
         "npm": "npm", "pdftotext": "poppler-utils"}


def apt_calls(tmp_path, present: set[str]) -> list[str]:
    """Run scripts/test's install step with only `present` on PATH; the apt-get calls made."""
    bin_dir, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_dir.mkdir()
    for tool in ("bash", "dirname"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    stubs = {tool: "exit 0" for tool in present}
    stubs["apt-get"] = f'echo "$*" >> {log}'
    for tool, body in stubs.items():
        (bin_dir / tool).write_text(f"#!{shutil.which('bash')}\n{body}\n")
        (bin_dir / tool).chmod(0o755)
    proc = subprocess.run([str(bin_dir / "bash"), str(ROOT / "scripts" / "test")],
                          env={"PATH": str(bin_dir), "ROOFLINE_TEST_APT_ONLY": "1"},
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("hidden", sorted(TOOLS))
def test_each_guard_fires_alone(tmp_path, hidden):
    assert apt_calls(tmp_path, set(TOOLS) - {hidden}) == [
        "update", f"install -y --no-install-recommends {TOOLS[hidden]}"]


def test_nothing_installed_when_every_tool_is_there(tmp_path):
    assert apt_calls(tmp_path, set(TOOLS)) == []


def test_a_bare_machine_gets_all_five(tmp_path):
    assert apt_calls(tmp_path, set()) == [
        "update", "install -y --no-install-recommends chromium default-jre-headless nodejs npm"
        " poppler-utils"]


def test_ci_runs_the_readme_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test" in ci


def test_readme_states_the_venv_then_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    venv, serve, test = (readme.index("python3 -m venv"), readme.index("mkdocs serve"),
                         readme.index("\nscripts/test\n"))
    assert venv < serve < test
    assert 'not browser and not slow' in readme
