"""The layering rules ARCHITECTURE.md draws, read from the imports with ast (tests/importgraph.py;
nothing is imported), each shown failing on a seeded package:

- the model imports no Bokeh, MkDocs or Sphinx, and none of the renderers, widgets or hosts, not
  even through another module of ours (a notebook can use it with none of them installed);
- the widgets import none of the hosts (a host is one door onto them; the widgets know none);
- the hosts keep no module-level mutable state: state lives on an object whose lifetime is
  clear (the plugin instance, the Sphinx app), not in a global, a ContextVar or a module cache.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from importgraph import imports, write_tree

PACKAGE = Path(__file__).resolve().parent.parent / "site_src" / "roofline"

# (layer, the other packages it must not reach, the layers of ours it must not reach)
RULES = [
    ("roofline.model", {"bokeh", "mkdocs", "pymdownx", "material", "sphinx", "docutils"},
     {"roofline.render", "roofline.widgets", "roofline.hosts"}),
    ("roofline.widgets", set(), {"roofline.hosts"}),
]


def _in(module: str, layer: str) -> bool:
    return module == layer or module.startswith(layer + ".")


def broken(edges: dict[str, set[str]], outside: dict[str, set[str]], layer: str,
           banned_outside: set[str], banned_layers: set[str]) -> list[str]:
    """Each import chain from a module of `layer` to a banned layer of ours or a banned other
    package, transitively through our modules: "a -> b -> bokeh"."""
    found = set()
    for start in sorted(m for m in edges if _in(m, layer)):
        chain = {start: [start]}
        todo = [start]
        while todo:
            mod = todo.pop(0)
            for name in sorted(outside.get(mod, ())):
                if name in banned_outside:
                    found.add(" -> ".join(chain[mod] + [name]))
            for dep in sorted(edges.get(mod, ())):
                if dep in chain:
                    continue
                chain[dep] = chain[mod] + [dep]
                if any(_in(dep, banned) for banned in banned_layers):
                    found.add(" -> ".join(chain[dep]))
                else:
                    todo.append(dep)
    return sorted(found)


@pytest.fixture(scope="module")
def package_imports():
    return imports(PACKAGE)


@pytest.mark.parametrize("layer, banned_outside, banned_layers", RULES,
                         ids=[rule[0] for rule in RULES])
def test_the_layer_imports_nothing_downstream(package_imports, layer, banned_outside,
                                              banned_layers):
    edges, outside = package_imports
    assert any(_in(m, layer) for m in edges), f"no module in {layer}: the rule guards nothing"
    assert broken(edges, outside, layer, banned_outside, banned_layers) == []


def test_seeded_each_layer_rule_fails_on_a_direct_and_a_transitive_import(tmp_path):
    pkg = write_tree(tmp_path / "roofline", {
        "__init__.py": "", "errors.py": "", "fmt.py": "import bokeh.models\n",
        "model/__init__.py": "", "model/maths.py": "from roofline import errors\n",
        "model/catalog.py": "def f():\n    from bokeh.plotting import figure\n",
        "model/ops.py": "from roofline.render import tables\n",
        "model/memory.py": "from roofline import fmt\n",
        "render/__init__.py": "", "render/tables.py": "",
        "widgets/__init__.py": "", "widgets/base.py": "from roofline.render import tables\n",
        "widgets/layout.py": "from ..hosts import door\n",
        "hosts/__init__.py": "", "hosts/door.py": "import mkdocs\n",
    })
    edges, outside = imports(pkg)
    (model, model_out, model_in), (widgets, widgets_out, widgets_in) = RULES
    assert broken(edges, outside, model, model_out, model_in) == [
        "roofline.model.catalog -> bokeh",
        "roofline.model.memory -> roofline.fmt -> bokeh",
        "roofline.model.ops -> roofline.render.tables"]
    assert broken(edges, outside, widgets, widgets_out, widgets_in) == [
        "roofline.widgets.layout -> roofline.hosts.door"]


def test_seeded_a_real_model_module_that_imports_a_widget_is_caught(package_imports):
    edges, outside = package_imports
    edges = {m: set(deps) for m, deps in edges.items()}
    edges["roofline.model.maths"].add("roofline.widgets.roofline.layout")
    layer, out, banned = RULES[0]
    found = broken(edges, outside, layer, out, banned)
    assert "roofline.model.maths -> roofline.widgets.roofline.layout" in found


# ------------------------------------------------------------- state in the hosts

_MUTATORS = {"append", "extend", "insert", "add", "update", "pop", "popitem", "clear",
             "setdefault", "remove", "discard", "set", "reset"}
_CACHES = {"cache", "lru_cache", "cached_property"}

_MUTABLE_CALLS = {"list", "dict", "set", "bytearray", "defaultdict", "OrderedDict", "Counter",
                  "deque", "ContextVar", "local", "WeakKeyDictionary", "WeakValueDictionary"}
_MUTABLE_VALUES = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)

# Each exception names why it stays, and goes when its reason does.
KNOWN_STATE = {
    "buildcache._hash": "memo of a file's hash by (path, mtime, size): a pure function",
    "buildcache._version": "memo of an installed distribution's version",
    "fences.PAGE": "the page a fence is formatted on, for its errors: pymdown's custom-fence "
                   "formatter is called with no page",
    "notebook._display_class": "memo of a class made once per Bokeh base class",
}


def _mutable(value: ast.expr | None) -> bool:
    """A list, dict or set (literal, comprehension or constructor), a ContextVar or a
    thread-local: a value someone can change in place. A tuple, a frozenset, a string, a
    MappingProxyType are not."""
    if isinstance(value, _MUTABLE_VALUES):
        return True
    return (isinstance(value, ast.Call)
            and ast.unparse(value.func).split(".")[-1] in _MUTABLE_CALLS)


def _assigned(body: list[ast.stmt]) -> list[tuple[str, ast.expr]]:
    """(name, value) of each plain assignment in a module's or a class's body."""
    out = []
    for node in body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) and node.value else [])
        out += [(t.id, node.value) for t in targets if isinstance(t, ast.Name)]
    return out


def module_state(path: Path) -> set[str]:
    """The module-level state of one module: names rebound by `global`; a list, dict, set,
    ContextVar or thread-local bound at module level or in a module-level class's body
    (`Class.name`), mutated here or not (anyone may); containers the module mutates
    (`X.append(...)`, `X[k] = v`, `del X[k]`); and cached functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top: set[str] = set()
    found: set[str] = set()
    for name, value in _assigned(tree.body):
        top.add(name)
        if _mutable(value):
            found.add(name)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found.update(f"{node.name}.{name}" for name, value in _assigned(node.body)
                         if _mutable(value))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                name = ast.unparse(deco.func if isinstance(deco, ast.Call) else deco)
                if name.split(".")[-1] in _CACHES:
                    found.add(node.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.update(node.names)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id in top
              and node.func.attr in _MUTATORS):
            found.add(node.func.value.id)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            for target in (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                           else [node.target]):
                if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                        and target.value.id in top):
                    found.add(target.value.id)
    return found


def hosts_state(folder: Path) -> set[str]:
    return {f"{path.stem}.{name}" for path in sorted(folder.glob("*.py"))
            for name in module_state(path)}


def test_the_hosts_keep_no_module_level_state():
    found = hosts_state(PACKAGE / "hosts")
    assert sorted(found - set(KNOWN_STATE)) == []
    assert sorted(set(KNOWN_STATE) - found) == [], "gone: remove from KNOWN_STATE"


def test_seeded_each_kind_of_module_state_is_found(tmp_path):
    write_tree(tmp_path, {"plugin.py": (
        "import collections, contextvars, threading\nfrom functools import lru_cache\n"
        "from types import MappingProxyType\n"
        "TABLE = {'a': 1}\n"                      # never written here, but anyone may
        "KINDS: dict = {k: k for k in 'ab'}\nNAMES = ['a']\nSEEN = set()\n"
        "BY = collections.defaultdict(list)\nLOCAL = threading.local()\n"
        "FROZEN = MappingProxyType({'a': 1})\nORDER = ('a', 'b')\nLIMIT = 3\n"  # read-only
        "_seen = ()\n_by_page = None\n_count = 0\n"
        "PAGE = contextvars.ContextVar('page')\n"
        "class Counter:\n    counts: dict = {}\n    page = None\n    NAMES = ('x',)\n"
        "def on_page(page):\n    _seen.append(page)\n    _by_page[page] = TABLE['a']\n"
        "def bump():\n    global _count\n    _count += 1\n"
        "@lru_cache(maxsize=None)\ndef slow(x):\n    return x\n"
        "def local():\n    mine = []\n    mine.append(1)\n")})
    assert hosts_state(tmp_path) == {
        "plugin.TABLE", "plugin.KINDS", "plugin.NAMES", "plugin.SEEN", "plugin.BY",
        "plugin.LOCAL", "plugin._seen", "plugin._by_page", "plugin._count", "plugin.PAGE",
        "plugin.Counter.counts", "plugin.slow"}


# ------------------------------------------------------------- ARCHITECTURE.md's table

ARCHITECTURE = PACKAGE.parents[1] / "ARCHITECTURE.md"
LAYERS = ("cli", "hosts", "widgets", "profile", "measure", "render", "model")
WATCHED = {"bokeh", "mkdocs", "pymdownx", "material", "sphinx", "docutils", "numpy", "torch",
           "quickjs", "yaml"}


def layer_table(edges: dict[str, set[str]], outside: dict[str, set[str]]
                ) -> dict[str, tuple[set[str], set[str]]]:
    """layer -> (the other parts of the package it imports, the watched packages it imports),
    a part being the first name under roofline (`model`, `fmt`, `_lazy`)."""
    def part(module: str) -> str | None:
        names = module.split(".")
        return names[1] if len(names) > 1 else None
    table: dict[str, tuple[set[str], set[str]]] = {name: (set(), set()) for name in LAYERS}
    for module, deps in edges.items():
        if part(module) in table:
            ours, others = table[part(module)]
            ours.update(p for p in map(part, deps) if p and p != part(module))
            others.update(outside.get(module, set()) & WATCHED)
    return table


def drawn_table(text: str) -> dict[str, tuple[set[str], set[str]]]:
    """The table under ARCHITECTURE.md's `<!-- layers -->` comment, as layer_table gives it."""
    body = text.split("<!-- layers:", 1)[1].split("\n\n", 1)[0]
    table = {}
    for row in body.splitlines()[3:]:
        layer, ours, others = (cell.strip() for cell in row.strip().strip("|").split("|"))
        table[layer] = tuple({n.strip() for n in cell.split(",") if n.strip()}
                             for cell in (ours, others))
    return table


def test_the_architecture_page_draws_the_layers_the_imports_make(package_imports):
    drawn = drawn_table(ARCHITECTURE.read_text(encoding="utf-8"))
    assert drawn == layer_table(*package_imports)
    # the picture's order: each layer imports only layers below it
    for i, layer in enumerate(LAYERS):
        assert not drawn[layer][0] & set(LAYERS[:i + 1]), layer


def test_seeded_a_new_edge_the_page_does_not_draw_is_caught(package_imports):
    edges, outside = package_imports
    edges = {m: set(deps) for m, deps in edges.items()}
    edges["roofline.render.tables"].add("roofline.widgets.base")
    outside = {**outside, "roofline.model.maths": outside["roofline.model.maths"] | {"bokeh"}}
    drawn = drawn_table(ARCHITECTURE.read_text(encoding="utf-8"))
    made = layer_table(edges, outside)
    assert drawn != made
    assert made["render"][0] - drawn["render"][0] == {"widgets"}
    assert made["model"][1] - drawn["model"][1] == {"bokeh"}


# ------------------------------------------------------------- ARCHITECTURE.md's picture

def drawn_picture(text: str) -> list[tuple[str, set[str]]]:
    """The picture of the layers (the first ```text block under "## The layers"), top to
    bottom: (layer, the packages its "+ a, b" notes name)."""
    body = text.split("## The layers", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    picture: list[tuple[str, set[str]]] = []
    for line in body.splitlines():
        name = line[:18].strip()
        if name.endswith("/"):
            picture.append((name[:-1], set()))
        if "+ " in line and picture:
            picture[-1][1].update(n.strip() for n in line.rsplit("+ ", 1)[1].split(","))
    return picture


def picture_errors(picture: list[tuple[str, set[str]]],
                   table: dict[str, tuple[set[str], set[str]]]) -> list[str]:
    """How the picture departs from the imports: a subpackage missing or extra, a layer that
    imports one drawn above it, a note naming a package its layer does not import."""
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    order = [layer for layer, _ in picture]
    errors = [f"not drawn: {p}" for p in sorted(packages - set(order))]
    errors += [f"drawn, not a package: {p}" for p in order if p not in packages]
    for i, (layer, notes) in enumerate(picture):
        ours, others = table.get(layer, (set(), set()))
        errors += [f"{layer} imports {up}, drawn above it" for up in sorted(ours & set(order[:i]))]
        errors += [f"{layer}'s note names {n}, which it does not import"
                   for n in sorted(notes - others)]
    return errors


def test_the_architecture_picture_is_the_import_graph(package_imports):
    picture = drawn_picture(ARCHITECTURE.read_text(encoding="utf-8"))
    assert [layer for layer, _ in picture] == list(LAYERS)
    assert picture_errors(picture, layer_table(*package_imports)) == []


def test_seeded_a_picture_out_of_order_or_with_a_wrong_note_is_caught(package_imports):
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = layer_table(*package_imports)
    picture = drawn_picture(text)
    swapped = [picture[0], picture[2], picture[1], *picture[3:]]   # widgets above hosts
    assert "hosts imports widgets, drawn above it" in picture_errors(swapped, table)
    noted = [(layer, notes | {"torch"} if layer == "model" else notes)
             for layer, notes in picture]
    assert picture_errors(noted, table) == ["model's note names torch, which it does not import"]
    assert picture_errors(picture[1:], table) == ["not drawn: cli"]
