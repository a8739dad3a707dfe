"""Markers: `<!-- rl:NAME key=value ... -->` in Markdown (or in the lesson's data files) is
replaced by what the registered function NAME computes from the model. An unknown name, an
unknown or malformed argument, or a model error fails with the file, the line and the field."""

from __future__ import annotations

import inspect
import re
import shlex
from dataclasses import dataclass
from typing import Callable

from roofline.errors import RooflineError
from lesson_site.context import Context

OPEN = re.compile(r"<!--\s*rl:")
CLOSE = "-->"
NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class Marker:
    name: str
    func: Callable[..., str]
    params: dict[str, inspect.Parameter]
    block: bool


REGISTRY: dict[str, Marker] = {}


def marker(name: str, *, block: bool = False) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Register `func(ctx, *, arg: str|int = default) -> str` under NAME. Block markers return
    Markdown/HTML blocks and must stand alone on their line."""
    def register(func: Callable[..., str]) -> Callable[..., str]:
        if name in REGISTRY:
            raise ValueError(f"marker {name!r} registered twice")
        params = {p.name: p for p in list(inspect.signature(func).parameters.values())[1:]}
        REGISTRY[name] = Marker(name, func, params, block)
        return func
    return register


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, str]
    start: int
    end: int
    line: int


def parse(text: str, where: str, first_line: int = 1) -> list[Call]:
    """Every marker in text, in order; malformed ones raise naming the line (counted from
    first_line, so a page's front matter can be accounted for)."""
    calls = []
    for m in OPEN.finditer(text):
        line = text.count("\n", 0, m.start()) + first_line
        end = text.find(CLOSE, m.end())
        if end < 0:
            raise RooflineError("marker is not closed with '-->'", where=where,
                                entry=f"line {line}", field="rl:")
        try:
            tokens = shlex.split(text[m.end():end])
        except ValueError as exc:
            raise RooflineError(f"cannot parse marker: {exc}", where=where,
                                entry=f"line {line}", field="rl:") from None
        if not tokens or not NAME.match(tokens[0]):
            raise RooflineError("marker needs a name: <!-- rl:NAME key=value -->", where=where,
                                entry=f"line {line}", field="rl:")
        args = {}
        for tok in tokens[1:]:
            key, eq, value = tok.partition("=")
            if not eq or not key:
                raise RooflineError(f"argument {tok!r} is not key=value", where=where,
                                    entry=f"line {line}", field=f"rl:{tokens[0]}")
            args[key] = value
        calls.append(Call(tokens[0], args, m.start(), end + len(CLOSE), line))
    return calls


def _convert(call: Call, mk: Marker, where: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, raw in call.args.items():
        if key not in mk.params:
            raise RooflineError(f"unknown argument {key!r}", where=where, entry=f"line {call.line}",
                                field=f"rl:{call.name}.{key}", valid=sorted(mk.params))
        kind = mk.params[key].annotation
        if kind in (int, "int"):
            try:
                out[key] = int(raw)
            except ValueError:
                raise RooflineError(f"expected an integer, got {raw!r}", where=where,
                                    entry=f"line {call.line}",
                                    field=f"rl:{call.name}.{key}") from None
        else:
            out[key] = raw
    return out


def render_call(call: Call, ctx: Context, where: str) -> str:
    mk = REGISTRY.get(call.name)
    if mk is None:
        raise RooflineError(f"unknown marker 'rl:{call.name}'", where=where,
                            entry=f"line {call.line}", field=f"rl:{call.name}",
                            valid=sorted(REGISTRY))
    kwargs = _convert(call, mk, where)
    try:
        out = mk.func(ctx, **kwargs)
    except RooflineError as exc:
        # The model knows the field; the page and line say where the reader's number came from.
        raise RooflineError(exc.detail, where=where, entry=f"line {call.line} rl:{call.name}",
                            field=exc.field, valid=exc.valid) from None
    if not isinstance(out, str) or not out.strip():
        raise RooflineError("marker produced nothing", where=where, entry=f"line {call.line}",
                            field=f"rl:{call.name}")
    return out


def expand(text: str, ctx: Context, where: str, first_line: int = 1,
           aside: Callable[[str], str] | None = None) -> str:
    """Replace every marker in text. Block markers must sit alone on their line; `aside`, if
    given, is applied to each block marker's output (lesson_site.build sets its tables aside
    while the page converts)."""
    parts, pos = [], 0
    for call in parse(text, where, first_line):
        mk = REGISTRY.get(call.name)
        if mk is not None and mk.block:
            line_start = text.rfind("\n", 0, call.start) + 1
            line_end = text.find("\n", call.end)
            line_end = len(text) if line_end < 0 else line_end
            if text[line_start:call.start].strip() or text[call.end:line_end].strip():
                raise RooflineError("a block marker must stand alone on its line", where=where,
                                    entry=f"line {call.line}", field=f"rl:{call.name}")
            indent = text[line_start:call.start]
            body = render_call(call, ctx, where)
            if aside is not None:
                body = aside(body)
            parts.append(text[pos:call.start])
            parts.append(("\n" + indent).join(body.strip("\n").split("\n")))
        else:
            parts.append(text[pos:call.start])
            parts.append(render_call(call, ctx, where))
        pos = call.end
    parts.append(text[pos:])
    return "".join(parts)
