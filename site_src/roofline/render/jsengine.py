"""Our ES modules, run at build time in an embedded JavaScript engine (QuickJS, the `quickjs-ng`
wheel: no Node, no network), so a figure's static first frame is drawn by the very code the
browser runs: each rule is written once, in JavaScript.

    svg = call(Path(".../static.mjs"), "staticFigure", payload, 400)

`call` bundles the entry with its imports (render/jsmodule.py), evaluates it once per thread
and per version of its text (`mkdocs serve` picks up an edit), and calls the export with JSON
arguments. A JavaScript exception is a bug in our code, raised as `JSError` with its stack.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from roofline.render.jsmodule import bundle

_EXPORT = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)",
                     re.M)
_local = threading.local()


class JSError(RuntimeError):
    """An exception thrown by our JavaScript while it ran at build time."""


def _context(entry: Path):
    code = bundle(entry)  # the same str object while no file changed: `==` is then O(1)
    contexts = getattr(_local, "contexts", None)
    if contexts is None:
        contexts = _local.contexts = {}
    have = contexts.get(entry)
    if have is not None and have[0] == code:
        return have[1]
    import quickjs  # the quickjs-ng wheel

    ctx = quickjs.Context()
    names = _EXPORT.findall(code)
    # Each joined module may have a default export (a Bokeh callback): unnamed, they would
    # clash in one scope; they are not called at build time, so each gets a name of its own.
    count = iter(range(1_000_000))
    source = re.sub(r"^export default (async )?function\s*\(",
                    lambda m: f"{m.group(1) or ''}function __default{next(count)}__(", code,
                    flags=re.M)
    try:
        ctx.module(f"{source}\nglobalThis.__rl = {{ {', '.join(names)} }};\n")
        ctx.eval("null")  # run the module's pending evaluation job
        while ctx.execute_pending_job():
            pass
    except quickjs.JSException as exc:
        raise JSError(f"{entry.name}: {exc}") from None
    # The one function every call goes through, compiled once per context.
    ctx.set("__rl_call", ctx.eval("(name, text) => JSON.stringify(globalThis.__rl[name]"
                                  "(...JSON.parse(text)))"))
    contexts[entry] = (code, ctx)  # one version per entry: an edit replaces it
    return ctx


def call(entry: Path, name: str, *args: Any) -> Any:
    """The JSON result of `name(...args)`, an export of `entry` (a module of ours)."""
    import quickjs

    ctx = _context(Path(entry).resolve())
    try:
        out = ctx.get("__rl_call")(name, json.dumps(args))
    except quickjs.JSException as exc:
        raise JSError(f"{Path(entry).name}: {name}(): {exc}") from None
    return json.loads(out)


def call_json(entry: Path, name: str, args_json: str) -> Any:
    """call(), with the arguments given as the JSON text of their array: a host that holds
    JSON text already (a trace's events, as in the file) splices it in, unparsed."""
    import quickjs

    ctx = _context(Path(entry).resolve())
    try:
        out = ctx.get("__rl_call")(name, args_json)
    except quickjs.JSException as exc:
        raise JSError(f"{Path(entry).name}: {name}(): {exc}") from None
    return json.loads(out)


def constant(entry: Path, name: str) -> Any:
    """The value of `name`, an exported constant of `entry` (e.g. labels.mjs's FONT_STACK)."""
    ctx = _context(Path(entry).resolve())
    return json.loads(ctx.eval(f"JSON.stringify(globalThis.__rl[{json.dumps(name)}])"))
