"""Twins: a function name defined in both our Python and our JavaScript (camelCase = snake_case,
a leading underscore ignored), read with ast and a regex over top-level definitions. Each twin
is a rule the reader can find written twice; issue #48 asks for at most 15. A Python function
that runs its JS namesake through the build's engine (`call(JS, "sameName", ...)`) is a bridge
to the one copy, not a twin. The count may only fall: TODAY is lowered as twins go.

The 15 that remain, and why: the number style (sig, num, si, tflops, bandwidth, capacity,
percent, seconds in fmt.py and format.mjs) and the roofline maths (attainable, bound, place,
ridge, time_lower_bound in model/maths.py and maths.mjs), because roofline.model and the prose,
tables and CLI are pure Python (no JS engine) while the page recomputes as the reader moves a
control; tests/cases/roofline_cases.jsonl holds both to the same answers. `touched`: serving.py fits
each decode kernel's terms on the share of experts that window.mjs evaluates them at
(tests/test_window.py). `marker` is two things under one name (the lesson's marker registry,
scene.mjs's reader's point): renaming the JS side would change the built site's script bytes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from importgraph import write_tree

SITE_SRC = Path(__file__).resolve().parent.parent / "site_src"
TODAY = 15   # 25 before the namesakes that were not one rule were renamed (issue #48)
AIM = 15
_JS_DEF = re.compile(
    r"^(?:export\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)"
    r"|^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?"
    r"(?:function|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)", re.M)


def snake(name: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().lstrip("_")


def _bridge(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function calls its JS namesake through the engine: `call(x, "itsName")`."""
    return any(isinstance(c, ast.Call) and ast.unparse(c.func).split(".")[-1] == "call"
               and len(c.args) >= 2 and isinstance(c.args[1], ast.Constant)
               and snake(str(c.args[1].value)) == snake(node.name) for c in ast.walk(node))


def twins(root: Path) -> dict[str, tuple[list[str], list[str]]]:
    """name -> (the Python files defining it, the JS files defining it), for names in both.
    Top-level definitions only; the benchmarks and vendored bundles are not ours to count."""
    py: dict[str, set[str]] = {}
    js: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        if "benchmarks" in path.parts:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _bridge(node):
                py.setdefault(snake(node.name), set()).add(str(path.relative_to(root)))
    for path in [*root.rglob("*.mjs"), *root.rglob("*.js")]:
        if "vendor" in path.parts:
            continue
        for m in _JS_DEF.finditer(path.read_text(encoding="utf-8")):
            js.setdefault(snake(m.group(1) or m.group(2)), set()).add(str(path.relative_to(root)))
    return {n: (sorted(py[n]), sorted(js[n])) for n in sorted(py.keys() & js.keys())}


def test_the_twins_do_not_grow():
    found = twins(SITE_SRC)
    assert len(found) <= TODAY, "\n".join(f"{n}: {p} / {j}" for n, (p, j) in found.items())


def test_at_most_fifteen_twins():
    found = twins(SITE_SRC)
    assert len(found) <= AIM, f"issue #48: at most {AIM} twins, {len(found)} found"


def test_seeded_a_twin_is_counted(tmp_path):
    write_tree(tmp_path, {
        "pkg/fmt.py": "def tflops(x):\n    return x\ndef _ms(x):\n    def inner():\n"
                      "        pass\n    return x\ndef python_only():\n    pass\n"
                      "def summary_text(doc):\n    return call(JS, 'summaryText', doc)\n",
        "pkg/format.mjs": "export function tflops(x) { return x; }\n"
                          "export const ms = (x) => x;\nfunction innerOnly() {\n"
                          "export function summaryText(doc) { return ''; }\n"
                          "  function inner() {}\n}\nconst pythonOnlyValue = 3;\n",
        "pkg/vendor/x.js": "function pythonOnly() {}\n",
        "benchmarks/b.py": "def inner_only():\n    pass\n"})
    assert twins(tmp_path) == {"ms": (["pkg/fmt.py"], ["pkg/format.mjs"]),
                               "tflops": (["pkg/fmt.py"], ["pkg/format.mjs"])}
