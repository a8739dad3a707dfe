"""The import graph of a package, read with ast (nothing is imported), and its cycles; and the
same for a folder of ES modules (ours, anywhere under site_src/), read from their
`import … from "./x.mjs"` lines.

Every import counts, at module level or inside a function (a lazy import is still a
dependency, and a cycle through one breaks as soon as someone moves it up), except those under
`if TYPE_CHECKING:`. An import of a submodule is an edge to that module; the implicit import of
its parent packages is not counted (else every module would be in a cycle with its package).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skip.update(id(n) for n in ast.walk(child))
    return skip


def graph(root: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports, for the package folder `root`."""
    return imports(root)[0]


def imports(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(module -> the package's modules it imports, module -> the top-level names of the other
    packages it imports: `bokeh` for `from bokeh.models import Div`), for the package folder
    `root`."""
    files = {module_name(root, p): p for p in sorted(root.rglob("*.py"))}
    edges: dict[str, set[str]] = {m: set() for m in files}
    outside: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _type_checking_nodes(tree)
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".")
                    base = base if is_pkg else base[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                # `from pkg import a, b`: each name that is a submodule, else pkg itself.
                targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in files else prefix
                           for a in node.names]
            for target in targets:
                found = _resolve(target, files)
                if found and found != mod:
                    edges[mod].add(found)
                elif not found and target.split(".")[0] != root.name:
                    outside[mod].add(target.split(".")[0])
    return edges, outside


_JS_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^"'`]*?\bfrom\s*["'](\.{1,2}/[^"']+)["']"""
                        r"""|^\s*import\s*["'](\.{1,2}/[^"']+)["']""", re.M)
_JS_DYNAMIC = re.compile(r"""\bimport\(\s*["'](\.{1,2}/[^"']+)["']\s*\)""")


def js_graph(folder: Path) -> dict[str, set[str]]:
    """path (relative to `folder`, e.g. "widgets/roofline/scene.mjs") -> the modules of ours it
    imports (static, re-exports and literal dynamic imports), for the .mjs/.js files anywhere
    under `folder`. Comments are not stripped: a commented-out import line would count, which
    errs on the side of reporting."""
    root = folder.resolve()
    files = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*"))
             if p.suffix in (".mjs", ".js") and "vendor" not in p.relative_to(root).parts}
    edges: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        text = path.read_text(encoding="utf-8")
        targets = [a or b for a, b in _JS_IMPORT.findall(text)] + _JS_DYNAMIC.findall(text)
        for target in targets:
            dep = (path.parent / target).resolve()
            try:
                rel = dep.relative_to(root).as_posix()
            except ValueError:
                continue
            if rel in files and rel != name:
                edges[name].add(rel)
    return edges


def _resolve(name: str, files: dict[str, Path]) -> str | None:
    """The longest prefix of `name` that is a module of the package."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in files:
            return candidate
        parts.pop()
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected component of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write `files` ({relative path: text}) under `root`, for a seeded package; returns root."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
