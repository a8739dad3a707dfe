"""The wheel as a Sphinx user meets it: built from this tree, installed with the [sphinx] extra
into a fresh venv (no site-packages of this machine) beside Sphinx 8, not the Sphinx 9 that
constraints.txt pins, and a one-page project with the directive built with -W. The extra's
ranges must let a library user keep their Sphinx; the venv gets no MkDocs, so the directive
must not need it. Downloads from the package index: slow-marked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow

PAGE = """One roofline
============

.. roofline::
   :hardware: h100-sxm
   :precision: bf16
   :url: false
"""


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV", "VIRTUAL_ENV")}
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900, **kw)
    assert done.returncode == 0, f"{' '.join(args)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_the_wheel_with_the_sphinx_extra_builds_a_page_under_sphinx_8(tmp_path):
    # The working tree's files (committed or not, as git would ship them), not its build output.
    src = tmp_path / "src"
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                  cwd=ROOT).stdout.split("\0")
    for rel in filter(None, listed):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
          str(tmp_path / "dist"), str(src)])
    wheel, = (tmp_path / "dist").glob("roofline_lesson-*.whl")
    # The library only: the lesson's build, the benchmarks and the tests stay in the repository.
    with zipfile.ZipFile(wheel) as zf:
        tops = {name.split("/", 1)[0] for name in zf.namelist()}
    assert {t for t in tops if not t.startswith("roofline_lesson-")} == {"roofline"}, tops

    venv = tmp_path / "venv"
    # A venv without its own pip, filled by this one's (--python), with no bytecode compiled
    # ahead: what a user's venv would hold, at a fraction of the CPU.
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py = str(venv / "bin" / "python")
    _run([sys.executable, "-m", "pip", "--python", py, "install", "--quiet", "--no-compile",
          f"{wheel}[sphinx]", "sphinx>=8,<9"])
    versions = _run([py, "-c", "from importlib.metadata import version as v\n"
                     "import importlib.util as u\n"
                     "print(v('sphinx'), u.find_spec('mkdocs') is None)"]).stdout.split()
    assert versions[0].startswith("8.") and versions[1] == "True", versions

    project = tmp_path / "docs"
    project.mkdir()
    (project / "conf.py").write_text('project = "One page"\nextensions = ["roofline.sphinx"]\n',
                                     encoding="utf-8")
    (project / "index.rst").write_text(PAGE, encoding="utf-8")
    out = tmp_path / "html"
    _run([py, "-m", "sphinx", "-W", "-q", "-b", "html", str(project), str(out)])
    html = (out / "index.html").read_text(encoding="utf-8")
    assert html.count('class="roofline-block"') == 1
    assert list((out / "_static" / "roofline").glob("bokeh-roofline-*.min.js"))
