"""Docstrings say what and why in a few lines (issue #48): none of our Python's runs past
MAX_LINES, but the modules named in LONG, each with why. A derivation with its sources is the
model's reference, not an essay; anything else that needs more belongs in ARCHITECTURE.md,
the docs or BENCHMARKS.md."""

from __future__ import annotations

import ast
from pathlib import Path

from importgraph import write_tree

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 12
_DERIVATION = "the model's derivation: each formula with its source and basis"
LONG = {
    "site_src/roofline/model/architecture.py": _DERIVATION,
    "site_src/roofline/model/budget.py": _DERIVATION,
    "site_src/roofline/model/chip_ranking.py": _DERIVATION,
    "site_src/roofline/model/kernels.py": _DERIVATION,
    "site_src/roofline/model/launch.py": _DERIVATION,
    "site_src/roofline/model/leaks.py": _DERIVATION,
    "site_src/roofline/model/memory.py": _DERIVATION,
    "site_src/roofline/model/mla.py": _DERIVATION,
    "site_src/roofline/model/moe.py": _DERIVATION,
    "site_src/roofline/model/serving.py": _DERIVATION,
    "site_src/roofline/model/tokens.py": _DERIVATION,
    "site_src/roofline/widgets/base.py": "the settings contract every widget kind implements",
    "site_src/benchmarks/hta_baseline.py": "how the baseline is run in HTA's own venv",
}


def long_docstrings(root: Path, folders: tuple[str, ...]) -> dict[str, int]:
    """'path' or 'path:name' -> lines, for each docstring over MAX_LINES under `folders`."""
    found = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                         ast.AsyncFunctionDef)):
                    continue
                doc = ast.get_docstring(node, clean=False)
                if doc and len(doc.splitlines()) > MAX_LINES:
                    name = rel if isinstance(node, ast.Module) else f"{rel}:{node.name}"
                    found[name] = len(doc.splitlines())
    return found


def test_no_docstring_runs_long_but_the_named_ones():
    found = long_docstrings(ROOT, ("site_src", "hooks"))
    assert {k: v for k, v in found.items() if k not in LONG} == {}


def test_seeded_a_long_docstring_is_found(tmp_path):
    essay = '"""' + "\n".join(f"line {i}" for i in range(MAX_LINES + 1)) + '"""\n'
    short = '"""' + "\n".join(f"line {i}" for i in range(MAX_LINES)) + '"""\n'
    write_tree(tmp_path, {"hooks/a.py": essay + f"def f():\n    {short}",
                          "hooks/b.py": f"class C:\n    {essay}"})
    assert long_docstrings(tmp_path, ("hooks",)) == {"hooks/a.py": 13, "hooks/b.py:C": 13}
