"""The superfences custom fences (```roofline and friends), one per widget kind of the door.

Each fence parses its body as YAML and goes through the door. A bad option is a `FenceError`,
one line naming the page, the option's line and the option (a SuperFencesException, which
superfences lets through, and an MkDocs PluginError, printed without a traceback):

    docs/index.md:7: ```roofline fence: option 'precison': unknown option (valid: …)

A warning goes to the MkDocs log in the same form. Any other exception is a bug: re-raised as
`FenceBug`, chained to the original. The MkDocs plugin installs the fences; a Zensical or any
Python-Markdown site can name one: `format: !!python/name:roofline.hosts.fences.roofline_fence`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import yaml
from pymdownx.superfences import SuperFencesException

from roofline.errors import WidgetOptionError
from roofline.hosts import door

if TYPE_CHECKING:
    from roofline.hosts.buildcache import Cache

try:
    from mkdocs.exceptions import PluginError
except ImportError:  # a Python-Markdown site without MkDocs
    PluginError = Exception  # type: ignore[misc,assignment]

Formatter = Callable[..., str]

# Set by the MkDocs plugin while a page converts: (the page's path as printed, its Markdown).
PAGE: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "roofline_fence_page", default=None)


# ---------------------------------------------------------------- the fences

class FenceError(SuperFencesException, PluginError):
    """A fence's one-line error: superfences lets it through, MkDocs prints it without a
    traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class FenceBug(SuperFencesException):
    """A bug met while rendering a fence: superfences lets it through (it would swallow the
    original), and its __cause__ is the original exception, traceback and all."""


def parse(source: str) -> dict:
    """A fence body as a dict of options (empty body: no options)."""
    try:
        data = yaml.safe_load(source) if source.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (body line {mark.line + 1})" if mark is not None else ""
        raise WidgetOptionError(f"bad YAML{at}: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise WidgetOptionError(f"the body must be 'key: value' lines, got "
                                f"{type(data).__name__}")
    return data


def _nth(md: Any, source: str) -> int:
    """How many fences of this body the current page has rendered so far, this one included:
    the nth identical fence is reported at the nth place it occurs (superfences renders in
    page order). Counted on the page's Markdown instance (MkDocs makes one per page)."""
    page = PAGE.get()
    seen = getattr(md, "_roofline_seen", None)
    if seen is None or seen[0] is not page:
        seen = (page, {})
        try:
            md._roofline_seen = seen
        except AttributeError:  # no Markdown instance to count on: each fence is the first
            return 1
    seen[1][source] = seen[1].get(source, 0) + 1
    return seen[1][source]


def where(source: str, option: str = "", nth: int = 1) -> str:
    """'docs/page.md:12' for the line of the `nth` fence with this body (or its option's line),
    or '' off a page."""
    page = PAGE.get()
    if page is None:
        return ""
    path, markdown = page
    lines = source.strip("\n").splitlines()
    start = _find(markdown.splitlines(), [ln.strip() for ln in lines], nth) if lines else None
    if start is None:
        return path
    line = start  # 1-based number of the fence's opening line (the line before the body)
    if option:
        for offset, text in enumerate(lines, start=1):
            if text.lstrip().startswith(f"{option}:"):
                return f"{path}:{line + offset}"
    return f"{path}:{line}"


def _find(page: list[str], body: list[str], nth: int = 1) -> int | None:
    """Index of the page line where the `nth` copy of `body` starts (indentation ignored:
    fences inside admonitions and tabs arrive dedented); else of the first copy."""
    first, found = body[0], []
    for i, text in enumerate(page):
        if text.strip() == first and [t.strip() for t in page[i:i + len(body)]] == body:
            found.append(i)
            if len(found) == nth:
                break
    return found[nth - 1] if len(found) >= nth else (found[0] if found else None)


def fence(kind: str, cache: Cache | None = None) -> Formatter:
    """The superfences formatter of widget `kind`, drawing through `cache` (the MkDocs
    plugin's for its build; else buildcache.Cache.here())."""
    def formatter(source: str, language: str, class_name: str, options: dict, md: Any,
                  **kwargs: Any) -> str:
        name = language or kind
        nth = _nth(md, source)

        def warn(option: str, message: str) -> None:  # at the option's line, like an error
            at = where(source, option, nth)
            door.log.warning("%s```%s fence: option '%s': %s", f"{at}: " if at else "", name,
                             option, message)
        try:
            # Python-Markdown unwraps a stashed block from its <p> only when the HTML starts
            # with a tag: a leading newline leaves a <table> inside a <p> (invalid HTML).
            return door.render_widget(kind, parse(source), where="", warn=warn,
                                      cache=cache).strip()
        except WidgetOptionError as exc:
            at = where(source, exc.option, nth)
            text = (f"```{name} fence: " + (f"option '{exc.option}': " if exc.option else "")
                    + exc.detail)
            raise FenceError(f"{at}: {text}" if at else text) from None
        except Exception as exc:
            at = where(source, "", nth)
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise FenceBug(f"{at + ': ' if at else ''}```{name} fence: {type(exc).__name__} "
                           "in the roofline package (a bug, not a fence option)"
                           + (f": {first}" if first else "")) from exc
    formatter.__name__ = formatter.__qualname__ = f"{kind.replace('-', '_')}_fence"
    return formatter


FENCES: Mapping[str, Formatter] = MappingProxyType({kind: fence(kind) for kind in door.KINDS})
roofline_fence = FENCES["roofline"]


def custom_fences(cache: Cache | None = None) -> list[dict]:
    """The fences as superfences `custom_fences` entries: FENCES, or with `cache` (the MkDocs
    plugin's), formatters that draw through it."""
    return [{"name": name, "class": name, "format": fence(name, cache) if cache else formatter}
            for name, formatter in FENCES.items()]
