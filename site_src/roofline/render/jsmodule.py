"""Our ES modules as one inline script: a page (or a BokehJS blob module) cannot import a
sibling file from file://, so the files are joined in order and their `import` lines dropped.
Node's tests import the very same files, imports and all; what ships has no comments."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from roofline.render.jsstrip import strip_comments

_IMPORT = re.compile(r'^import\s+\{[^}]*\}\s+from\s+"(\.{1,2}/[\w./-]+\.mjs)";\s*$')


_DECLARED = re.compile(r"^(?:export\s+)?(?:async\s+)?(?:function\*?|const|let|var|class)\s+"
                       r"([A-Za-z_$][\w$]*)", re.M)


def join(*paths: Path) -> str:
    """The modules' text in order, without their `import … from "./x.mjs"` lines (each import
    must name a file that comes earlier in `paths`). Joined, the modules share one scope: a
    top-level name declared by two of them is an error naming both (the browser would refuse
    the whole callback)."""
    seen: dict[str, str] = {}
    texts = []
    for p in paths:
        text = p.read_text(encoding="utf-8")
        for name in _DECLARED.findall(text):
            if name in seen:
                raise ValueError(f"{p.name} and {seen[name]} both declare {name!r} at the top "
                                 "level; joined into one module, they would clash")
            seen[name] = p.name
        texts.append(_shipped(text))
    return "\n".join(texts)


@functools.lru_cache(maxsize=128)
def _shipped(text: str) -> str:
    """A module's text as it ships: its import lines dropped, its comments out (the files keep
    theirs; see jsstrip). Kept per text: the bundles of a build share most of their files."""
    return strip_comments("\n".join(line for line in text.splitlines()
                                     if not line.startswith("import ")))


def imports(path: Path) -> list[Path]:
    """The modules of ours `path` imports, in its order. Only one-line named imports by a
    relative path (`import { a, b } from "./x.mjs";`, or "../../render/js/x.mjs" from a widget's
    folder) can be joined: any other import is an error naming the file and line, so nothing
    is silently dropped from a page."""
    found = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("import"):
            continue
        m = _IMPORT.match(line)
        if not m:
            raise ValueError(f"{path.name}:{n}: only `import {{ … }} from \"./x.mjs\";` on one "
                             f"line can be joined, got {line.strip()!r}")
        if re.search(r"\bas\b", line.split("}")[0]):
            # Joined, the importer sees the exporter's own name: an alias would name nothing,
            # or worse, another module's function of that name.
            raise ValueError(f"{path.name}:{n}: a renamed import (`as`) cannot be joined into "
                             f"one scope; use the exported name: {line.strip()!r}")
        dep = (path.parent / m.group(1)).resolve()
        if not dep.is_file():
            raise ValueError(f"{path.name}:{n}: imports {m.group(1)}, which does not exist")
        found.append(dep)
    return found


_bundles: dict[Path, tuple[tuple[tuple[Path, int, int], ...], str]] = {}


def _stamps(paths: list[Path]) -> tuple[tuple[Path, int, int], ...] | None:
    try:
        return tuple((p, (st := p.stat()).st_mtime_ns, st.st_size) for p in paths)
    except OSError:
        return None


def bundle(entry: Path) -> str:
    """`entry` and every module it imports (transitively), each once, dependencies first, as
    one module's text (join()). The callbacks BokehJS runs and the inlined page scripts are
    built this way, so each gets format.mjs's one copy of the formatting.

    A build asks for the same bundle a few hundred times (each static figure and each sentence
    the JavaScript writes): the text is kept with the date and size of every file it joined,
    and joined again when any of them changes (an edit under `mkdocs serve`, a new import)."""
    entry = Path(entry).resolve()
    have = _bundles.get(entry)
    if have is not None and _stamps([p for p, _, _ in have[0]]) == have[0]:
        return have[1]
    order: list[Path] = []
    seen: set[Path] = set()

    def visit(path: Path) -> None:
        if path in seen:  # done, or in progress (a cycle: function declarations are hoisted)
            return
        seen.add(path)
        for dep in imports(path):
            visit(dep)
        order.append(path)

    visit(entry)
    stamps = _stamps(order)  # before reading: an edit during the join is seen next time
    text = join(*order)
    if stamps is not None:
        _bundles[entry] = (stamps, text)
    return text


def mount_module(entry: Path, selector: str) -> str:
    """A page's <script type="module">: `entry`'s bundle, then its `mount(root)` called on
    each element matching `selector` (a widget's live blocks; inline, so no request)."""
    script = bundle(entry) + (f"\nfor (const r of document.querySelectorAll("
                              f"{json.dumps(selector)})) mount(r);\n")
    return f'<script type="module">{inline(script)}</script>'


def inline(script: str) -> str:
    """Our module's text inside a <script> element, as it is: only "</script" or "<!--" could
    end or confuse the element, and our code has neither (escaping "</" as JSON does would
    break a regular expression such as /</g)."""
    if re.search(r"</script|<!--", script, re.I):
        raise ValueError("a bundle contains '</script' or '<!--'; it cannot be inlined")
    return script
