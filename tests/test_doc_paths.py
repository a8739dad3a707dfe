"""Every file path named in a docstring or comment under site_src/ (Python, ES modules, CSS), and
in the README's "Where things are", exists: a map that names a moved or deleted file sends the
next reader to nothing. A path is a run of folder names and a file name with an extension
("widgets/roofline/layout.py", "tests/cases/tokens_cases.json"), looked up from the repository,
site_src/, the package, and the naming file's own folder and those above it."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from conftest import ROOT

SRC = ROOT / "site_src"
_FOLDER = r"[\w-][\w.-]*/"
_FILE = r"[\w-]+(?:\.[\w-]+)*\.(?:py|mjs|js|toml|json|gz|md|css|html|yml|yaml|sh|txt|svg|png)"
PATH = re.compile(rf"(?<![\w./@:$<-])((?:\.{{1,2}}/)+(?:{_FOLDER})*{_FILE}|(?:{_FOLDER})+{_FILE})"
                  r"(?![\w/])")
# Paths that name no file of ours on purpose, each with why.
NOT_OURS = {
    "hta/utils/utils.py": "HolisticTraceAnalysis's source, which the HTA baseline reads",
    "hta/common/trace.py": "HolisticTraceAnalysis's source, which the HTA baseline reads",
    "docs/x.md": "an example page in an error message's description",
    "docs/page.md": "an example page in an error message's description",
    "docs/a.md": "an example page in an error message's description",
    "./x.mjs": "an example import in the bundler's description",
    "../../render/js/x.mjs": "an example import in the bundler's description",
    "roofline/roofline-loader.abc.js": "a hashed file name's shape (abc: the hash)",
}


def commented(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each comment and docstring of a Python file, each comment of an ES
    module or stylesheet."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return [(text.count("\n", 0, m.start()) + 1, m.group(0))
                for m in re.finditer(r"//[^\n]*|/\*.*?\*/", text, re.S)]
    found = [(tok.start[0], tok.string)
             for tok in tokenize.generate_tokens(io.StringIO(text).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = node.body[0] if node.body else None
            if (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)):
                found.append((doc.lineno, doc.value.value))
    return found


def missing_paths(path: Path, texts: list[tuple[int, str]]) -> list[str]:
    """"file:line: path" for each path in `texts` that exists from none of the places."""
    bases = [ROOT, SRC, SRC / "roofline", *path.parents]
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    out = []
    for line, text in texts:
        for ref in PATH.findall(text):
            # "./x" and "../x" are relative to the naming file, as an import is
            places = [path.parent] if ref.startswith(".") else bases
            if ref not in NOT_OURS and not any((base / ref).exists() for base in places):
                out.append(f"{where}:{line}: {ref}")
    return out


def _sources(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*"))
            if p.suffix in (".py", ".mjs", ".js", ".css") and p.is_file()
            and not {"vendor", "__pycache__"} & set(p.parts) and ".egg-info" not in str(p)]


def test_every_path_a_comment_or_docstring_names_exists():
    sources = _sources(SRC)
    assert len(sources) > 100
    stale = [m for p in sources for m in missing_paths(p, commented(p))]
    assert stale == []


def test_the_known_exceptions_are_still_named():
    """An exception outlives its mention only by mistake."""
    named = {ref for p in _sources(SRC) for _, text in commented(p) for ref in PATH.findall(text)}
    assert set(NOT_OURS) <= named, set(NOT_OURS) - named


def readme_missing(readme: str) -> tuple[list[str], list[str]]:
    """(the paths "Where things are" names in backticks, those of them that do not exist)."""
    section = readme.split("## Where things are", 1)[1].split("\n## ", 1)[0]
    named = [ref for ref in re.findall(r"`([^`\s]+)`", section)
             if "/" in ref and not ref.startswith(("/", "http")) and "=" not in ref]
    # a bare folder ("model/") is the package's, as the README's list names them
    return named, [ref for ref in named if not any((base / ref).exists()
                                                   for base in (ROOT, SRC / "roofline"))]


def test_readme_where_things_are_names_paths_that_exist():
    named, missing = readme_missing((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(named) >= 5, named
    assert missing == []
    seeded = "## Where things are\n\n- `site_src/roofline/plot/` and `model/`, `docs/`\n"
    assert readme_missing(seeded)[1] == ["site_src/roofline/plot/"]


def test_seeded_a_stale_path_in_a_docstring_a_comment_and_an_es_module(tmp_path):
    pkg = tmp_path / "site_src" / "roofline" / "widgets" / "kind"
    pkg.mkdir(parents=True)
    (pkg / "settings.py").write_text(
        '"""plot/widget.py draws it; layout.py (no folder) is not a path."""\n'
        "# see widgets/base.py and render/gone.py\nx = 'plot/x.py'  # a string, not a note\n",
        encoding="utf-8")
    (pkg / "view.mjs").write_text("// plot/budget.py runs it; ./settings.py, ../kind/gone.mjs\n"
                                  "const s = 'plot/y.py';\n", encoding="utf-8")
    found = [m.split(": ", 1)[1] for p in (pkg / "settings.py", pkg / "view.mjs")
             for m in missing_paths(p, commented(p))]
    assert found == ["render/gone.py", "plot/widget.py", "plot/budget.py", "../kind/gone.mjs"]
