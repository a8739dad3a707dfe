"""roofline.render.jsmodule.bundle(): each script BokehJS runs (or a page inlines) is its entry
module plus what it imports, each file once, dependencies first, import lines dropped — and
the result is one module node can load (a helper declared twice would be a SyntaxError)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from roofline.widgets.budget import layout as budget
from roofline.render import jsmodule
from roofline.render.jsstrip import strip_comments
from roofline.widgets.measurement import overlay as measured
from roofline.widgets.roofline import layout as widget

FORMAT = (widget.JS.parent / "../../render/js/format.mjs").resolve()
CALLBACKS = {"roofline": widget.JS, "budget": budget.JS, "measure": measured.JS}


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _node_loads(paths: list[Path]) -> dict:
    """Load each file as an ES module in one node process: name -> typeof default or error."""
    node = shutil.which("node")
    assert node, "node is needed (README's test command installs it)"
    script = ("const out = {}; for (const p of %s) { try { const m = await import(p); "
              "out[p] = typeof m.default; } catch (e) { out[p] = e.name + ': ' + e.message; } }"
              " console.log(JSON.stringify(out));") % json.dumps([str(p) for p in paths])
    run = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                         text=True, timeout=60, check=True)
    return json.loads(run.stdout)


def test_every_callback_gets_one_copy_of_format_mjs_first():
    fmt = FORMAT.read_text(encoding="utf-8")
    for name, entry in CALLBACKS.items():
        code = jsmodule.bundle(entry)
        first = strip_comments(fmt).lstrip().split("\n", 1)[0]  # shipped without comments
        assert code.lstrip().startswith(first), name
        assert code.count("export function num(") == 1, name
        assert not [ln for ln in code.splitlines() if ln.startswith("import ")], name
    assert widget.callback_code() == jsmodule.bundle(widget.JS)


def test_every_callback_bundle_loads_in_node(tmp_path):
    paths = []
    for name, entry in CALLBACKS.items():
        paths.append(tmp_path / f"{name}.mjs")
        paths[-1].write_text(jsmodule.bundle(entry), encoding="utf-8")
    assert _node_loads(paths) == {str(p): "function" for p in paths}


def test_bundle_orders_dependencies_first_once_even_through_a_cycle(tmp_path):
    _write(tmp_path, {
        "f.mjs": "export function f() { return 1; }\n",
        "a.mjs": 'import { f } from "./f.mjs";\nimport { b } from "./b.mjs";\n'
                 "export function a() { return f() + b(); }\n",
        "b.mjs": 'import { f } from "./f.mjs";\nimport { a } from "./a.mjs";\n'
                 "export function b() { return f(); }\n",
        "main.mjs": 'import { a } from "./a.mjs";\nimport { f } from "./f.mjs";\n'
                    "export default function () { return a(); }\n",
    })
    code = jsmodule.bundle(tmp_path / "main.mjs")
    assert [ln.split("(")[0] for ln in code.splitlines() if "function" in ln] == [
        "export function f", "export function b", "export function a", "export default function "]


def test_seeded_a_helper_declared_twice_is_refused_naming_both_files(tmp_path):
    """The defect the one-copy rule prevents: a module keeps its own num() next to the import.
    Joined, the two would make a bundle the browser refuses to load (a SyntaxError, shown
    here with node); join() refuses it first, naming both files and the name."""
    _write(tmp_path, {
        "format.mjs": "export function num(x) { return String(x); }\n",
        "cb.mjs": 'import { num } from "./format.mjs";\nexport function num(x) { return x; }\n'
                  "export default function () { return num(1); }\n",
    })
    with pytest.raises(ValueError, match="cb.mjs and format.mjs both declare 'num'"):
        jsmodule.bundle(tmp_path / "cb.mjs")
    out = tmp_path / "out.mjs"
    out.write_text((tmp_path / "format.mjs").read_text() + (tmp_path / "cb.mjs").read_text()
                   .split("\n", 1)[1], encoding="utf-8")
    assert _node_loads([out])[str(out)].startswith("SyntaxError")


@pytest.mark.parametrize("line, message", [
    ('import * as f from "./format.mjs";', "only `import { … } from"),
    ('import { a,\n  b } from "./format.mjs";', "only `import { … } from"),
    ('import { a } from "./nowhere.mjs";', "imports ./nowhere.mjs, which does not exist"),
    ('import { a as b } from "./format.mjs";', "a renamed import (`as`) cannot be joined"),
])
def test_seeded_an_import_bundle_cannot_join_is_an_error_naming_file_and_line(tmp_path, line,
                                                                               message):
    _write(tmp_path, {"format.mjs": "export const a = 1, b = 2;\n",
                      "cb.mjs": f"// a comment\n{line}\nexport default function () {{}}\n"})
    with pytest.raises(ValueError, match=re.escape(f"cb.mjs:2: {message}")):
        jsmodule.bundle(tmp_path / "cb.mjs")


# ---------------------------------------------------------------- comments out (jsstrip)

SHIPPED_JS = sorted([*(ROOT_SRC := Path(jsmodule.__file__).resolve().parents[2]).glob("**/*.mjs"),
                     ROOT_SRC / "roofline" / "render" / "js" / "loader.js"])
ESPRIMA = ROOT_SRC.parent / "node_modules" / "esprima"


def _tokens(texts: list[str]) -> list:
    """Each text's tokens (esprima's tokenizer, comments left out), in one node process."""
    if not ESPRIMA.is_dir():
        pytest.skip("esprima is not installed (npm install brings it with lighthouse)")
    script = ("const e = require(%s); const texts = JSON.parse(require('fs').readFileSync(0));"
              "console.log(JSON.stringify(texts.map(t => e.tokenize(t).map(k => [k.type, k.value]))))"
              ) % json.dumps(str(ESPRIMA))
    run = subprocess.run(["node", "-e", script], input=json.dumps(texts), capture_output=True,
                         text=True, timeout=60, check=True)
    return json.loads(run.stdout)


def test_stripping_comments_keeps_every_token_of_every_shipped_file():
    texts = [p.read_text(encoding="utf-8") for p in SHIPPED_JS]
    assert len(texts) > 10
    before, after = _tokens(texts), _tokens([strip_comments(t) for t in texts])
    changed = [p.name for p, b, a in zip(SHIPPED_JS, before, after) if b != a]
    assert not changed
    assert sum(map(len, map(strip_comments, texts))) < 0.8 * sum(map(len, texts))


def test_seeded_a_naive_comment_stripper_is_caught_by_the_token_check():
    # Cutting every line at "//" (what a regex would do) breaks strings, templates and regexes.
    text = 'const u = "http://x"; const t = `a // b`; const r = /\\/\\//; // c\n'
    naive = "\n".join(line.split("//")[0] for line in text.splitlines())
    before, good = _tokens([text, strip_comments(text)])
    assert good == before
    with pytest.raises(subprocess.CalledProcessError):  # the naive cut does not even tokenize
        _tokens([naive])


def test_tricky_comment_cases():
    from roofline.render.jsstrip import StripError
    assert strip_comments('a = "//"; // c\n// whole line\nb = 1;\n') == 'a = "//";\nb = 1;\n'
    assert strip_comments("x = `${ `in ${1} // kept` } // kept`; /* c */\n") == \
        "x = `${ `in ${1} // kept` } // kept`;\n"
    assert strip_comments("r = /[/]\\//g; d = a / b / c; // c\n") == "r = /[/]\\//g; d = a / b / c;\n"
    # A comment spanning lines still ends the line (automatic semicolon insertion needs it).
    assert strip_comments("a = b /* x\n y */ c\n") == "a = b\n c\n"
    with pytest.raises(StripError):
        strip_comments("s = `open ${ x\n")
