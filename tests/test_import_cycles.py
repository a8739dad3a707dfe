"""No import cycles in the roofline package (read with ast; see tests/importgraph.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from importgraph import cycles, graph

PACKAGE = Path(__file__).resolve().parent.parent / "site_src" / "roofline"
KNOWN: list[list[str]] = [
    # site/qa.py imports site/teach.py at its end so the teaching markers register; teach.py
    # imports qa's helpers lazily. The teaching helper's to untangle (e.g. site/build.py
    # imports teach itself); listed so a NEW cycle still fails.
    ["roofline.site.qa", "roofline.site.teach"],
]


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return graph(PACKAGE)


def test_the_package_has_no_import_cycle(edges):
    found = cycles(edges)
    new = [c for c in found if c not in KNOWN]
    assert not new, "import cycles: " + "; ".join(" <-> ".join(c) for c in new)


@pytest.mark.parametrize("pair", [("fences", "plot.widget"), ("measure.gpu", "measure.runner"),
                                  ("fences", "widgets.roofline")])
def test_the_old_cycles_stay_broken(pair, edges):
    a, b = (f"roofline.{m}" for m in pair)
    assert not (a in edges[b] and b in edges[a])
    assert not any(a in c and b in c for c in cycles(edges))


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_seeded_cycle_is_found_even_through_a_lazy_import(tmp_path):
    pkg = _write(tmp_path / "pkg", {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "def f():\n    from .sub.c import g\n",
        "sub/__init__.py": "",
        "sub/c.py": "from ..a import x\n",
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n",
        "e.py": "import pkg.d\n",
    })
    assert cycles(graph(pkg)) == [["pkg.a", "pkg.b", "pkg.sub.c"]]


def test_type_checking_imports_and_parent_packages_are_not_cycles(tmp_path):
    pkg = _write(tmp_path / "pkg", {
        "__init__.py": "from .a import x\n",
        "a.py": "from . import b\nx = 1\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n",
    })
    assert cycles(graph(pkg)) == []
    assert graph(pkg)["pkg.a"] == {"pkg.b"}
