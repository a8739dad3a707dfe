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
FONTS = {"DejaVu Sans": "fonts-dejavu-core", "Liberation Sans": "fonts-liberation"}


def apt_calls(tmp_path, present: set[str]) -> list[str]:
    """Run scripts/test's install step with only `present` on PATH; the apt-get calls made."""
    bin_dir, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_dir.mkdir()
    for tool in ("bash", "dirname"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    stubs = {tool: "exit 0" for tool in present if tool in TOOLS}
    fonts = [f for f in present if f in FONTS]  # fc-list names the fonts installed
    stubs["fc-list"] = "".join(f'echo "/usr/share/fonts/x.ttf: {f}:style=Book"\n' for f in fonts)
    stubs["apt-get"] = f'echo "$*" >> {log}'
    for tool, body in stubs.items():
        (bin_dir / tool).write_text(f"#!{shutil.which('bash')}\n{body}\n")
        (bin_dir / tool).chmod(0o755)
    proc = subprocess.run([str(bin_dir / "bash"), str(ROOT / "scripts" / "test")],
                          env={"PATH": str(bin_dir), "ROOFLINE_TEST_APT_ONLY": "1"},
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return log.read_text().splitlines() if log.exists() else []


EVERYTHING = {**TOOLS, **FONTS}


@pytest.mark.parametrize("hidden", sorted(EVERYTHING))
def test_each_guard_fires_alone(tmp_path, hidden):
    assert apt_calls(tmp_path, set(EVERYTHING) - {hidden}) == [
        "update", f"install -y --no-install-recommends {EVERYTHING[hidden]}"]


def test_nothing_installed_when_every_tool_is_there(tmp_path):
    assert apt_calls(tmp_path, set(EVERYTHING)) == []


def test_a_bare_machine_gets_all_seven(tmp_path):
    assert apt_calls(tmp_path, set()) == [
        "update", "install -y --no-install-recommends chromium default-jre-headless nodejs npm"
        " poppler-utils fonts-dejavu-core fonts-liberation"]


def test_ci_runs_the_readme_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test" in ci


def test_readme_states_the_venv_then_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    venv, serve, test = (readme.index("python3 -m venv"), readme.index("mkdocs serve"),
                         readme.index("\nscripts/test\n"))
    assert venv < serve < test
    assert 'not browser and not slow' in readme


def test_readme_clones_names_the_lesson_and_the_embedding_pages():
    """Issue #29: no clone step, no lesson address, no link to the embedding pages, and a
    fast subset that fails with "No module named pytest" right after command 1."""
    import re
    import yaml
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index("git clone ") < readme.index("python3 -m venv")
    assert readme.index("apt-get install -y git") < readme.index("git clone ")
    lesson = re.search(r"<http://127\.0\.0\.1:8000/(\S+\.html)>", readme).group(1)
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8").split("\nnav:", 1)[1]
                         .split("\n\n", 1)[0].replace("\n  -", "\n-"))
    pages = [next(iter(entry.values())) for entry in nav]
    assert lesson.removesuffix(".html") + ".md" in pages and lesson.startswith("lessons/")
    for page in ("docs/embed.md", "docs/use-in-your-docs.md"):
        assert f"]({page})" in readme and (ROOT / page).is_file()
    fast = readme.index('python3 -m pytest -m "not browser and not slow"')
    assert "'.[test]'" in readme[readme.rindex("\n\n", 0, fast - 10):fast]


def _pins_check(tmp_path, pins: list[str]) -> int:
    """scripts/test's "is every pin installed?" step, run on a constraints.txt of `pins`: its
    exit status (0: skip the resolver)."""
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    step = script.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    (tmp_path / "constraints.txt").write_text("# a comment\n\n" + "\n".join(pins) + "\n",
                                              encoding="utf-8")
    import sys
    return subprocess.run([sys.executable, "-c", step], cwd=tmp_path, timeout=60).returncode


def test_the_pin_check_reads_every_line_of_the_constraints(tmp_path):
    """A constraint not installed at its version must send scripts/test to the full install,
    not to --no-deps."""
    from importlib.metadata import version
    have = [f"pytest=={version('pytest')}", f"numpy=={version('numpy')}  # why"]
    assert _pins_check(tmp_path, have) == 0
    assert _pins_check(tmp_path, have + ["pytest==0.0.1"]) == 1
    assert _pins_check(tmp_path, have + ["no-such-package-here==1.0"]) == 1


def unpinned(project: dict, constraints: str) -> list[str]:
    """Each requirement of pyproject's [project] (dependencies and every extra) that
    constraints.txt does not pin, or pins outside the range the requirement asks for."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    pins = {}
    for line in constraints.splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, want = line.partition("==")
            pins[canonicalize_name(name)] = want.strip()
    reqs = [Requirement(r) for r in project["dependencies"]]
    reqs += [Requirement(r) for extra in project["optional-dependencies"].values() for r in extra]
    wrong = []
    for req in reqs:
        if canonicalize_name(req.name) == canonicalize_name(project["name"]):
            continue  # the package's own extras
        pin = pins.get(canonicalize_name(req.name))
        if pin is None or not req.specifier.contains(pin, prereleases=True):
            wrong.append(f"{req}: constraints.txt pins {pin or 'nothing'}")
    return wrong


def test_constraints_pin_every_requirement_within_its_range():
    """pyproject.toml asks for ranges, constraints.txt holds the exact versions the site and
    the tests install: each range has its pin, inside it."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    constraints = (ROOT / "constraints.txt").read_text("utf-8")
    assert unpinned(project, constraints) == []
    assert not [r for r in project["dependencies"] if "==" in r]
    # Seeded: a requirement with no pin, and a pin outside its range.
    seeded = {**project, "dependencies": project["dependencies"] + ["rich>=13"]}
    assert unpinned(seeded, constraints) == ["rich>=13: constraints.txt pins nothing"]
    import re
    moved = re.sub(r"(?m)^bokeh==\S+", "bokeh==99.0", constraints)
    wrong = unpinned(project, moved)
    assert len(wrong) == 1 and wrong[0].startswith("bokeh") and "pins 99.0" in wrong[0]


def test_readme_and_scripts_install_with_the_constraints():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert "pip install -e '.[site]' -c constraints.txt" in readme
    assert "-e '.[test]' -c constraints.txt" in script
