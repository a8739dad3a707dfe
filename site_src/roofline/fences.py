"""Superfences custom fences: ```roofline and friends, as (source, language, class_name,
options, md, **kwargs) -> HTML formatters.

The MkDocs plugin installs every entry of FENCES; a Zensical (or any Python-Markdown) site can
name one directly: `format: !!python/name:roofline.fences.roofline_fence`.

Adding a fence (other modules of this package do this): write a formatter that parses its body
with `options(source, fence=..., allowed=...)`, turns bad values into `fail(...)`, and returns
`roofline.plot.embed.block(layout, height_px=..., label=...)`; then add one line to FENCES
below, through `lazy()` so bokeh is imported only when a page uses the fence:

    "roofline-budget": lazy("roofline.plot.budget", "budget_fence"),

Errors are raised as SuperFencesException (anything else superfences swallows, leaving an empty
block) with one line naming the page, the fence's line, the key and the bad value.
"""

from __future__ import annotations

import contextvars
import importlib
from collections.abc import Callable
from typing import Any

import yaml
from pymdownx.superfences import SuperFencesException

from .errors import RooflineError

Formatter = Callable[..., str]

# Set by the MkDocs plugin while a page converts, so errors can name the page and line.
PAGE: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "roofline_fence_page", default=None)


def lazy(module: str, attr: str) -> Formatter:
    """A formatter that imports module.attr on first use (keeps bokeh off the import path)."""
    def formatter(*args: Any, **kwargs: Any) -> str:
        return getattr(importlib.import_module(module), attr)(*args, **kwargs)
    formatter.__name__ = attr
    formatter.__qualname__ = f"lazy({module}.{attr})"
    return formatter


def _where(source: str, key: str | None) -> str:
    """'docs/page.md:12' for the fence line (or the key's line), or '' when unknown."""
    page = PAGE.get()
    if page is None:
        return ""
    src_uri, markdown = page
    index = markdown.find(source.strip("\n")) if source.strip() else -1
    if index < 0:
        return src_uri
    line = markdown.count("\n", 0, index)  # 1-based number of the fence's opening line
    if key is not None:
        for offset, text in enumerate(source.strip("\n").splitlines(), start=1):
            if text.lstrip().startswith(f"{key}:"):
                return f"{src_uri}:{line + offset}"
    return f"{src_uri}:{line}"


def fail(fence: str, source: str, message: str, key: str | None = None) -> SuperFencesException:
    """The one error a fence raises: 'page.md:12: ```roofline: key 'ai': message'."""
    where = _where(source, key)
    text = f"```{fence} fence: " + (f"key '{key}': " if key else "") + message
    return SuperFencesException(f"{where}: {text}" if where else text)


def options(source: str, *, fence: str, allowed: dict[str, type | tuple[type, ...]]) -> dict:
    """The fence body as a YAML mapping with only `allowed` keys of the allowed types."""
    try:
        data = yaml.safe_load(source) if source.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (body line {mark.line + 1})" if mark is not None else ""
        raise fail(fence, source, f"bad YAML{at}: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise fail(fence, source, f"the body must be 'key: value' lines, got {type(data).__name__}")
    for key, value in data.items():
        if key not in allowed:
            raise fail(fence, source, f"unknown option (valid: {', '.join(allowed)})", str(key))
        if isinstance(value, bool) and bool not in _types(allowed[key]):
            raise fail(fence, source, f"expected {_type_names(allowed[key])}, got {value!r}", key)
        if not isinstance(value, allowed[key]):
            raise fail(fence, source, f"expected {_type_names(allowed[key])}, got {value!r}", key)
    return data


def _types(t: type | tuple[type, ...]) -> tuple[type, ...]:
    return t if isinstance(t, tuple) else (t,)


def _type_names(t: type | tuple[type, ...]) -> str:
    types = _types(t)
    if set(types) == {int, float}:
        return "a number"
    names = {str: "text", int: "an integer", float: "a number", list: "a list", bool: "true/false"}
    return " or ".join(names.get(x, x.__name__) for x in types)


# ---------------------------------------------------------------- ```roofline

ROOFLINE_OPTIONS: dict[str, type | tuple[type, ...]] = {
    "hardware": str, "precision": str, "ops": list, "ai": (int, float), "op": str,
    "ceilings": list, "height": int, "url": bool,
    "measurement": str,  # a measurement JSON: package data name or a path under docs/
}
CONTROLS_HEIGHT_PX = 250  # selects, slider, verdict and readout under the plot


def roofline_fence(source: str, language: str, class_name: str, options_: dict, md: Any,
                   **kwargs: Any) -> str:
    """```roofline: the interactive roofline (options: see ROOFLINE_OPTIONS and docs/embed.md)."""
    from .plot.embed import block
    from .plot.widget import figure

    opts = options(source, fence=language or "roofline", allowed=ROOFLINE_OPTIONS)
    for key in ("ops", "ceilings"):
        if key in opts and not all(isinstance(v, str) for v in opts[key]):
            raise fail(language, source, f"expected a list of ids, got {opts[key]!r}", key)
    kwargs_ = {k: v for k, v in opts.items() if k != "url"}
    if "url" in opts:
        kwargs_["url_state"] = opts["url"]
    try:
        layout = figure(**kwargs_)
    except RooflineError as exc:
        key = exc.field.split(".")[0] if exc.field else None
        if key == "op" and "op" not in opts and "ops" in opts:
            key = "ops"  # an unknown id inside the ops list
        if key == "ceiling":
            key = "ceilings"
        message = exc.detail + (f" (valid: {', '.join(exc.valid)})" if exc.valid else "")
        raise fail(language, source, message, key if key in opts else None) from None
    height = opts.get("height", 400)
    hw = opts.get("hardware", "h100-sxm")
    prec = opts.get("precision", "bf16")
    if "measurement" in opts:  # the overlay adds a file picker and a status line
        from .plot.measured import PICKER_HEIGHT_PX
        height += PICKER_HEIGHT_PX
    return block(layout, height_px=height + CONTROLS_HEIGHT_PX,
                 label=f"Interactive roofline: {hw}, {prec}")


FENCES: dict[str, Formatter] = {
    "roofline": roofline_fence,
    "roofline-measurement": lazy("roofline.plot.measured", "measurement_fence"),
    "roofline-budget": lazy("roofline.plot.budget", "budget_fence"),
    "roofline-budget-table": lazy("roofline.plot.budget", "budget_table_fence"),
}


def custom_fences() -> list[dict]:
    """FENCES as superfences `custom_fences` entries."""
    return [{"name": name, "class": name, "format": formatter}
            for name, formatter in FENCES.items()]
