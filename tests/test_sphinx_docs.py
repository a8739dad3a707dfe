"""Every snippet on docs/use-in-your-docs.md runs as written (so the page cannot drift), and the
fence runs through the superfences formatter path that Zensical uses."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

# CDN hosts our own markup must never name (the site's build gate has its own list).
CDNS = ("unpkg.com", "cdn.jsdelivr", "fonts.googleapis", "cdn.bokeh.org", "cdnjs")

PAGE = ROOT / "docs" / "use-in-your-docs.md"


def snippet(title: str) -> str:
    """The body of the code block titled `title` on docs/use-in-your-docs.md."""
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(r'^(`{3,})\w* title="' + re.escape(title) + r'"\n(.*?)\n\1$', text,
                      flags=re.S | re.M)
    assert found, f"no code block titled {title!r} in {PAGE.name}"
    return found.group(2) + "\n"


def test_every_snippet_on_the_page_is_tested():
    titles = re.findall(r'^`{3,}\w* title="([^"]+)"', PAGE.read_text("utf-8"), flags=re.M)
    # "notebook cell" runs in a real kernel in test_notebook.py.
    tested = {"install", "install from git", "mkdocs.yml", "docs/index.md", "conf.py", "index.rst",
              "roofline.md (MyST)", "notebook cell", "write one plot", "page.html",
              "copy BokehJS and the loader into the docs folder", "mkdocs.yml (Zensical)"}
    assert set(titles) == tested, set(titles) ^ tested
    assert not [c for c in CDNS if c in PAGE.read_text("utf-8")]


def _extras() -> dict:
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == "roofline-lesson"
    return project["optional-dependencies"]


def test_install_snippet_works_from_a_clone_with_real_extras():
    """Issue #29: `pip install ./roofline-lesson` named a folder a clone does not have, and
    `roofline-lesson[sphinx]` a package the index does not have. From the clone's folder:
    editable installs with the extras pyproject.toml defines."""
    lines = [shlex.split(line.split("#")[0]) for line in snippet("install").splitlines()]
    clone, *pips = lines
    assert clone[:2] == ["git", "clone"] and clone[-2:] == ["cd", clone[3]]
    assert [p[:3] for p in pips] == [["pip", "install", "-e"]] * 3
    assert [p[3] for p in pips] == [".[mkdocs]", ".[sphinx]", ".[notebook]"]
    assert {"mkdocs", "sphinx", "notebook"} <= set(_extras())
    assert not [r for r in _extras()["sphinx"] if r.startswith(("nb", "ipykernel"))]


def test_install_from_git_snippet_names_the_package_and_an_extra():
    words = shlex.split(snippet("install from git"))
    assert words[:2] == ["pip", "install"] and len(words) == 3
    name, _, url = words[2].partition(" @ ")
    assert re.fullmatch(r"roofline-lesson\[([a-z,]+)\]", name)
    assert set(re.findall(r"[a-z]+", name.split("[")[1])) <= set(_extras())
    assert url == "git+REPOSITORY-URL"


def test_the_embed_pages_install_lines_match():
    """docs/embed.md's MkDocs install: the same clone line, and the git form, each with the
    mkdocs extra."""
    from sitecheck import doc_block
    lines = [shlex.split(line.split("#")[0]) for line in doc_block("install").splitlines()]
    assert lines == [["pip", "install", "-e", ".[mkdocs]"],
                     ["pip", "install", "roofline-lesson[mkdocs] @ git+REPOSITORY-URL"]]


@pytest.mark.slow
def test_the_git_install_line_installs_the_package(tmp_path):
    """The "install from git" line, with this repository's own address as pip's git+file://
    form, run by pip in a fresh venv: pip clones the commit, builds the wheel (its build
    backend, setuptools, from pip's cache or the index) and installs it; the dependencies come
    from this machine's site-packages (--no-deps), so nothing else is downloaded. `roofline`
    then runs from the venv. (The host `localhost` keeps pip 23's URL check happy.)"""
    import subprocess
    import sys
    url = "file://localhost" + ROOT.resolve().as_posix()
    words = shlex.split(snippet("install from git").replace("REPOSITORY-URL", url))
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV")}
    # No pip of its own: this interpreter's pip installs into it (--python), the snippet's
    # words after "pip" as they stand.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, env=env, timeout=300)
    py = venv / "bin" / "python"
    assert words[0] == "pip", words
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), *words[1:],
                           "--no-deps", "--no-compile", "--quiet"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    where = subprocess.run([str(venv / "bin" / "roofline"), "--version"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert where.returncode == 0 and where.stdout.startswith("roofline 0."), where.stderr
    found = subprocess.run([str(py), "-c", "import roofline; print(roofline.__file__)"], env=env,
                           capture_output=True, text=True, timeout=120).stdout
    assert found.startswith(str(venv)), found


@pytest.mark.slow
def test_mkdocs_snippets_build(tmp_path, monkeypatch):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(snippet("mkdocs.yml"), encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(snippet("docs/index.md"), encoding="utf-8")
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    build(load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"),
                      strict=True))
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert html.count('class="roofline-block"') == 1 and "NVIDIA A100 SXM4 80GB" in html


@pytest.mark.slow
def test_sphinx_snippets_build_with_warnings_as_errors(tmp_path):
    pytest.importorskip("myst_parser", reason="install the [sphinx] extra")
    from test_sphinx import sphinx_build

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(snippet("conf.py"), encoding="utf-8")
    rst = snippet("index.rst")
    # The three files exactly as the page gives them (issue #29: together they failed -W with
    # "document isn't included in any toctree", and the title read "Project name not set").
    (src / "index.rst").write_text(rst, encoding="utf-8")
    (src / "roofline.md").write_text(snippet("roofline.md (MyST)"), encoding="utf-8")
    status, log = sphinx_build(src, tmp_path / "html")
    assert status == 0, log
    title = re.search(r"<title>(.*?)</title>", (tmp_path / "html" / "index.html")
                      .read_text("utf-8"), flags=re.S).group(1)
    assert "My course notes" in title and "not set" not in title, title
    assert (tmp_path / "html" / "index.html").read_text("utf-8").count("roofline-block\"") == 2
    assert (tmp_path / "html" / "roofline.html").read_text("utf-8").count("roofline-block\"") == 2
    # The error the page quotes is the one a misspelt option gives, at the option's line.
    (src / "index.rst").write_text(rst.replace(":precision:", ":precison:"), encoding="utf-8")
    status, log = sphinx_build(src, tmp_path / "bad")
    assert status != 0
    assert re.search(r"index\.rst:6: ERROR: roofline directive: option 'precison': unknown "
                     r"option \(valid: ", log), log
    assert "index.rst:6: ERROR: roofline directive: option 'precison'" in \
        PAGE.read_text("utf-8")


def test_plain_html_snippets_work(tmp_path, monkeypatch):
    from roofline.cli import main

    monkeypatch.chdir(tmp_path)
    command = shlex.split(snippet("write one plot"))
    assert command[0] == "roofline"
    assert main(command[1:]) == 0
    (tmp_path / "page.html").write_text(snippet("page.html"), encoding="utf-8")
    src = re.search(r'<iframe src="([^"]+)"', snippet("page.html")).group(1)
    html = (tmp_path / src).read_text(encoding="utf-8")
    assert html.count('class="roofline-block"') == 1 and "NVIDIA A100 SXM4 80GB" in html


# ---------------------------------------------------------------- Zensical's formatter path

def _zensical_site(tmp_path: Path) -> Path:
    from roofline.cli import main

    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(snippet("mkdocs.yml (Zensical)"), encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(snippet("docs/index.md"), encoding="utf-8")
    command = shlex.split(snippet("copy BokehJS and the loader into the docs folder"))
    out = command.index("--out") + 1
    command[out] = str(tmp_path / command[out])
    assert main(command[1:]) == 0
    return tmp_path


def _check_zensical_output(site: Path, html: str) -> None:
    assert html.count('class="roofline-block"') == 1 and "NVIDIA A100 SXM4 80GB" in html
    config = yaml.load((site / "mkdocs.yml").read_text("utf-8"), Loader=yaml.Loader)  # noqa: S506
    loader = site / "docs" / config["extra_javascript"][0]
    assert loader.exists()
    from roofline.render import assets
    for a in assets.bokeh_assets():
        assert (loader.parent / a.name).exists(), a.name


def test_zensical_config_runs_the_fence_through_plain_python_markdown(tmp_path):
    """The same formatter path Zensical takes, without Zensical: mkdocs.yml read with a
    Python-tag-aware YAML loader, its superfences config handed to Python-Markdown."""
    import markdown

    site = _zensical_site(tmp_path)
    config = yaml.load((site / "mkdocs.yml").read_text("utf-8"), Loader=yaml.Loader)  # noqa: S506
    assert "plugins" not in config
    names, configs = [], {}
    for ext in config["markdown_extensions"]:
        name, cfg = next(iter(ext.items())) if isinstance(ext, dict) else (ext, {})
        names.append(name)
        configs[name] = cfg
    from roofline.hosts.fences import roofline_fence
    assert configs["pymdownx.superfences"]["custom_fences"][0]["format"] is roofline_fence
    md = markdown.Markdown(extensions=names, extension_configs=configs)
    _check_zensical_output(site, md.convert((site / "docs" / "index.md").read_text("utf-8")))
    # A bad option is an error, not a silently empty block.
    from pymdownx.superfences import SuperFencesException
    with pytest.raises(SuperFencesException, match="precison"):
        markdown.Markdown(extensions=names, extension_configs=configs).convert(
            "```roofline\nprecison: bf16\n```\n")


def test_zensical_renders_the_fence(tmp_path, monkeypatch):
    """Zensical's own config loader and Markdown renderer (skipped only where Zensical is not
    installed: its zensical-ui dependency is not on the index this project uses)."""
    pytest.importorskip("zensical.markdown.render", reason="zensical is not installed")
    from zensical.config import parse_mkdocs_config
    from zensical.markdown.render import render

    site = _zensical_site(tmp_path)
    monkeypatch.chdir(site)
    parse_mkdocs_config(os.fspath(site / "mkdocs.yml"))
    out = render((site / "docs" / "index.md").read_text("utf-8"), "index.md", "/")
    _check_zensical_output(site, out["content"])
