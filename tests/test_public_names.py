"""Public names are a promise (#36): each host has one short import name that users write, the
docs write exactly that name, and it does not move when the package's folders do.

- the MkDocs plugin: `plugins: [roofline]`, the `mkdocs.plugins` entry point `roofline`;
- the Sphinx extension: `extensions = ["roofline.sphinx", ...]` (tests/test_sphinx.py builds
  tests/fixtures/sphinx-site, whose conf.py is held here to the docs' line, with furo and -W);
- the notebook entry: `roofline.figure`, also `roofline.notebook.figure`.
"""

from __future__ import annotations

import importlib
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "use-in-your-docs.md"
SPHINX_FIXTURE = ROOT / "tests" / "fixtures" / "sphinx-site" / "conf.py"
EXTENSIONS = re.compile(r"^extensions = (\[.*?\])", re.M)


def sphinx_names(text: str) -> list[str]:
    """The extension names of the first `extensions = [...]` line of text."""
    found = EXTENSIONS.search(text)
    assert found, "no `extensions = [...]` line"
    return re.findall(r'"([^"]+)"', found[1])


def unresolved(names: list[str]) -> list[str]:
    """The names of ours (roofline.*) that do not import as a Sphinx extension (a module with
    setup)."""
    bad = []
    for name in names:
        if not name.startswith("roofline"):
            continue
        try:
            if not callable(getattr(importlib.import_module(name), "setup", None)):
                bad.append(name)
        except ImportError:
            bad.append(name)
    return bad


def test_the_docs_name_the_short_sphinx_extension_and_it_imports():
    names = sphinx_names(DOCS.read_text(encoding="utf-8"))
    assert names == ["roofline.sphinx", "myst_parser"]
    assert unresolved(names) == []
    from roofline.hosts import sphinx as impl
    assert importlib.import_module("roofline.sphinx").setup is impl.setup


def test_the_sphinx_fixture_names_exactly_what_the_docs_say():
    assert (sphinx_names(SPHINX_FIXTURE.read_text(encoding="utf-8"))
            == sphinx_names(DOCS.read_text(encoding="utf-8")))
    assert 'html_theme = "furo"' in SPHINX_FIXTURE.read_text(encoding="utf-8")


def test_seeded_a_moved_name_is_reported():
    # The name the docs gave before a folder move, had the module not stayed.
    assert unresolved(["roofline.sphinxx", "myst_parser"]) == ["roofline.sphinxx"]
    assert unresolved(["roofline.fmt"]) == ["roofline.fmt"]  # imports, but is no extension


def test_the_mkdocs_plugin_is_roofline():
    (ep,) = [e for e in entry_points(group="mkdocs.plugins") if e.name == "roofline"]
    from roofline.hosts.mkdocs_plugin import RooflinePlugin
    assert ep.load() is RooflinePlugin
    assert re.search(r"^plugins:\n(?:  - .*\n)*  - roofline\b",
                     (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)


def test_the_notebook_entry_is_roofline_figure():
    import roofline
    from roofline.hosts.notebook import roofline_figure
    from roofline.notebook import figure
    assert figure is roofline_figure and callable(roofline.figure)
    assert "roofline.figure(" in (ROOT / "docs" / "use-in-your-docs.md").read_text("utf-8") \
        or "roofline.figure(" in (ROOT / "docs" / "embed.md").read_text("utf-8")


@pytest.mark.parametrize("name", ["roofline.sphinx", "roofline.notebook"])
def test_public_modules_are_thin(name):
    """A public name re-exports; the implementation stays in hosts/ (one copy)."""
    import ast
    tree = ast.parse(Path(importlib.import_module(name).__file__).read_text(encoding="utf-8"))
    body = [n for n in tree.body if not (isinstance(n, ast.Expr)
                                         and isinstance(n.value, ast.Constant))]
    assert all(isinstance(n, (ast.ImportFrom, ast.Assign)) for n in body), ast.dump(tree)
