"""No import cycles in the roofline package or the lesson's build (read with ast), nor among our
ES modules (read from their import lines; jsmodule.bundle() can order an acyclic set only by
luck of hoisting otherwise). See tests/importgraph.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from importgraph import cycles, graph, js_graph, write_tree

PACKAGE = Path(__file__).resolve().parent.parent / "site_src" / "roofline"
KNOWN: list[list[str]] = []
LESSON = PACKAGE.parent / "lesson_site"
JS = PACKAGE.parent  # site_src/: the package's widgets and render/js, and the lesson's js/
KNOWN_JS: list[list[str]] = []


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return graph(PACKAGE)


def test_the_package_has_no_import_cycle(edges):
    found = cycles(edges)
    new = [c for c in found if c not in KNOWN]
    assert not new, "import cycles: " + "; ".join(" <-> ".join(c) for c in new)


def test_the_lessons_build_has_no_import_cycle():
    found = cycles(graph(LESSON))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_known_cycles_still_exist():
    """An allowance outlives its cycle only by mistake: remove an entry once it is untangled."""
    gone = [c for c in KNOWN if c not in cycles(graph(PACKAGE))]
    gone += [c for c in KNOWN_JS if c not in cycles(js_graph(JS))]
    assert not gone, "no longer a cycle, remove from KNOWN / KNOWN_JS: " + "; ".join(
        " <-> ".join(c) for c in gone)


def test_our_es_modules_have_no_import_cycle():
    edges = js_graph(JS)
    entry = edges["roofline/widgets/roofline/roofline.mjs"]
    assert {"roofline/render/js/format.mjs", "roofline/render/js/maths.mjs"} <= entry, entry
    new = [c for c in cycles(edges) if c not in KNOWN_JS]
    assert not new, "ES module import cycles: " + "; ".join(" <-> ".join(c) for c in new)


def test_the_scene_and_callback_cycle_stays_broken():
    """roofline.mjs held the maths scene.mjs needs (each imported the other); maths.mjs now."""
    assert not any("roofline/widgets/roofline/roofline.mjs" in c for c in cycles(js_graph(JS)))


def test_a_seeded_es_module_cycle_is_found_through_any_import_form(tmp_path):
    for name, text in {
        "a.mjs": 'import { b } from "./b.mjs";\nexport const a = 1;\n',
        "b.mjs": 'export { c } from "./c.mjs";\nexport const b = 1;\n',
        "c.mjs": "export async function c() { return import('./a.mjs'); }\n",
        "d.mjs": 'import "./a.mjs";\nimport { x } from "./elsewhere/e.mjs";\n',
        "e.js": "// no imports\n",
    }.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    edges = js_graph(tmp_path)
    assert edges["d.mjs"] == {"a.mjs"} and edges["e.js"] == set()
    assert cycles(edges) == [["a.mjs", "b.mjs", "c.mjs"]]


@pytest.mark.parametrize("pair", [("hosts.fences", "widgets.roofline.layout"),
                                  ("measure.gpu", "measure.runner"),
                                  ("hosts.fences", "widgets.roofline.settings")])
def test_the_old_cycles_stay_broken(pair, edges):
    a, b = (f"roofline.{m}" for m in pair)
    assert not (a in edges[b] and b in edges[a])
    assert not any(a in c and b in c for c in cycles(edges))


def test_a_seeded_cycle_is_found_even_through_a_lazy_import(tmp_path):
    pkg = write_tree(tmp_path / "pkg", {
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
    pkg = write_tree(tmp_path / "pkg", {
        "__init__.py": "from .a import x\n",
        "a.py": "from . import b\nx = 1\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n",
    })
    assert cycles(graph(pkg)) == []
    assert graph(pkg)["pkg.a"] == {"pkg.b"}
